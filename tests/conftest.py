"""Shared fixtures: small, named for what they give."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from factledger.ledger import Ledger


# == Engines ==========================================================================================
# The ledger fixtures below open SQLite by default. A test module (or test) marked `both_engines` runs
# every test that uses them once per engine: the contract suite (DESIGN §9). A test marked `sqlite_only`
# stays on SQLite inside such a module (raw sqlite3, the file, the WAL, the writers' queue).

ENGINES = ("sqlite", "postgres")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "ledger_engine" not in metafunc.fixturenames:
        return
    if any("ledger_engine" in m.args[0] for m in metafunc.definition.iter_markers("parametrize")):
        return  # the test names its engines itself
    both = metafunc.definition.get_closest_marker("both_engines") is not None
    sqlite_only = metafunc.definition.get_closest_marker("sqlite_only") is not None
    engines = ENGINES if both and not sqlite_only else ("sqlite",)
    metafunc.parametrize("ledger_engine", engines, scope="function")


@pytest.fixture
def ledger_path(tmp_path: Path) -> Path:
    return tmp_path / "ledger.db"


@pytest.fixture
def ledger_location(request: pytest.FixtureRequest, ledger_engine: str, ledger_path: Path) -> str | Path:
    """Where the test's ledger lives: the SQLite file `ledger_path`, or a fresh PostgreSQL database URL."""
    if ledger_engine == "postgres":
        return request.getfixturevalue("postgres_url")
    return ledger_path


@pytest.fixture
def fresh_ledger(ledger_location):
    ledger = Ledger.open(ledger_location)
    yield ledger
    ledger.close()


class StepClock:
    """A controllable clock for tests: returns the set time; can step back to test monotonic tx time."""

    def __init__(self, start: str = "2025-01-01T00:00:00.000000Z"):
        self.now = start

    def __call__(self) -> str:
        return self.now


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def clocked_ledger(ledger_location, clock: StepClock):
    ledger = Ledger.open(ledger_location, clock=clock)
    yield ledger
    ledger.close()


@pytest.fixture
def new_ledger_location(request: pytest.FixtureRequest, ledger_engine: str, tmp_path: Path):
    """A factory of fresh, empty ledger locations on the test's engine (for tests that open many ledgers:
    the state machine opens one per example). PostgreSQL databases are dropped after the test."""
    if ledger_engine == "sqlite":
        counter = itertools.count(1)
        yield lambda: tmp_path / f"ledger-{next(counter)}.db"
        return
    cluster = request.getfixturevalue("postgres_cluster")
    template = request.getfixturevalue("postgres_template")
    made: list[str] = []

    def make() -> str:
        name = _fresh_postgres_database(cluster, template)
        made.append(name)
        return cluster.url(name)

    yield make
    for name in made:
        _drop_postgres_database(cluster, name)


# == Parallel runs: `./dev test` runs pytest-xdist workers (tests/support/parallel.py orders the modules) ==

from tests.support.parallel import pytest_collection_modifyitems  # noqa: E402,F401  (a hook: conftest exports it)


# == PostgreSQL: one throwaway cluster per test session (tests/support/postgres_cluster.py) ==========


def unavailable(reason: str) -> None:
    """Under CI the PostgreSQL tests must run: a missing server is an error there, a skip elsewhere."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and PostgreSQL is unavailable: {reason}", pytrace=False)
    pytest.skip(f"PostgreSQL is unavailable: {reason}")


_postgres_databases = itertools.count(1)


@pytest.fixture(scope="session")
def postgres_cluster():
    """A running throwaway cluster; skipped (failed under CI=true) when PostgreSQL or psycopg is absent."""
    from tests.support.postgres_cluster import ClusterUnavailable, start_cluster, unavailable

    try:
        import psycopg  # noqa: F401
    except ImportError:
        unavailable("psycopg is not installed (pip install -e '.[postgres]')")
    try:
        cluster = start_cluster()
    except ClusterUnavailable as exc:
        unavailable(str(exc))
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def postgres_template(postgres_cluster) -> str:
    """The name of a database holding every schema/postgres migration (applied by the engine itself,
    as `factledger` would on first open), to copy per test."""
    import psycopg

    from factledger.ledger.pg_storage import PostgresStorage

    name = "factledger_template"
    with psycopg.connect(postgres_cluster.dsn(), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    PostgresStorage(postgres_cluster.url(name)).close()
    return name


def _fresh_postgres_database(cluster, template: str):
    import psycopg

    name = f"factledger_test_{next(_postgres_databases)}"
    with psycopg.connect(cluster.dsn(), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name} TEMPLATE {template}")
    return name


def _drop_postgres_database(cluster, name: str) -> None:
    import psycopg

    with psycopg.connect(cluster.dsn(), autocommit=True) as admin:
        admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture
def postgres_dsn(postgres_cluster, postgres_template) -> str:
    """A fresh migrated database for one test (a copy of the template), as a libpq DSN; dropped afterwards."""
    name = _fresh_postgres_database(postgres_cluster, postgres_template)
    yield postgres_cluster.dsn(name)
    _drop_postgres_database(postgres_cluster, name)


@pytest.fixture
def postgres_url(postgres_cluster, postgres_template) -> str:
    """A fresh migrated database for one test, as the `postgresql://` URL factledger takes; dropped afterwards."""
    name = _fresh_postgres_database(postgres_cluster, postgres_template)
    yield postgres_cluster.url(name)
    _drop_postgres_database(postgres_cluster, name)


@pytest.fixture
def empty_postgres_url(postgres_cluster) -> str:
    """An empty database (no migrations yet), as a URL; dropped afterwards."""
    import psycopg

    name = f"factledger_empty_{next(_postgres_databases)}"
    with psycopg.connect(postgres_cluster.dsn(), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    yield postgres_cluster.url(name)
    _drop_postgres_database(postgres_cluster, name)
