"""`factledger sql` answers the same on both engines: one history, written on SQLite by the ledger and
replayed into PostgreSQL through its own triggers (ledger/migrate.py), read through DuckDB's sqlite and
postgres scanners; every view, clause and macro gives the same columns, types and rows. The registered
temporal views read the injected clock on both engines, never DuckDB's now()."""

from __future__ import annotations

import pytest

from factledger.ledger.analytics import Analytics
from factledger.ledger.errors import NotFoundError, StorageError
from factledger.ledger.migrate import MigrationReport, copy_tables
from factledger.ledger.migrate_pg import PostgresTables
from factledger.ledger.migrate_sqlite import SqliteTables
from factledger.ledger.pg_storage import PostgresStorage
from factledger.ledger.storage import Storage

from .sql_fixtures import NOW, build_history

# The tables both engines have today; the replay writes them through PostgreSQL's append-only triggers.
CORE = ["predicates", "journal", "transactions", "claims", "claim_provenance", "tombstones"]

QUERIES = [
    "SELECT * FROM claims ORDER BY id",
    "SELECT * FROM claims FOR VALID_TIME AS OF '2024-02-15' ORDER BY id",
    "SELECT * FROM claims FOR SYSTEM_TIME AS OF '2024-03-01T00:00:00Z' ORDER BY id",
    "SELECT * FROM claims FOR VALID_TIME AS OF '2023-06-01' FOR SYSTEM_TIME AS OF '2024-02-01' ORDER BY id",
    "SELECT * FROM claims FOR VALID_TIME FROM '2023-01-01' TO '2024-06-01' ORDER BY id",
    "SELECT * FROM claims FOR SYSTEM_TIME BETWEEN '2024-01-01' AND '2024-07-01' ORDER BY id",
    "SELECT * FROM claims FOR ALL VALID_TIME FOR ALL SYSTEM_TIME ORDER BY id",
    "SELECT * FROM claims FOR VALID_TIME AS OF now() - INTERVAL 400 DAY ORDER BY id",
    "SELECT * FROM slots ORDER BY scope, subject_key, predicate",
    "SELECT * FROM claim_versions ORDER BY id",
    "SELECT * FROM transactions ORDER BY id",
    "SELECT * FROM predicates ORDER BY name",
    "SELECT * FROM corrections ORDER BY tx, old_id, new_id",
    "SELECT * FROM slot_history('Ann', 'lives_in')",
    "SELECT * FROM changes_between('2024-02-01', '2024-12-01')",
    "SELECT * FROM activity('2024-01-01', '2025-01-01')",
    "SELECT predicate, count(*) AS n, min(valid_from) AS first FROM claims FOR ALL SYSTEM_TIME GROUP BY 1 ORDER BY 1",
    "SELECT * FROM episodes ORDER BY id",
]


@pytest.fixture
def both(tmp_path, postgres_url):
    """(SQLite file, PostgreSQL URL) holding the same history."""
    path = tmp_path / "ledger.db"
    build_history(path)
    source, target = Storage(path, read_only=True), PostgresStorage(postgres_url)
    try:
        with source.snapshot(), target.atomic():
            copy_tables(SqliteTables(source), PostgresTables(target), CORE, MigrationReport(str(path), "pg"))
    finally:
        source.close()
        target.close()
    return path, postgres_url


def _answer(location, query, *, mode="live", now=NOW, companion_path=None):
    with Analytics(location, mode=mode, companion_path=companion_path, clock=lambda: now) as analytics:
        assert analytics.mode == mode, analytics.mode_note
        relation = analytics.sql(query)
        return relation.columns, [str(t) for t in relation.types], relation.fetchall()


@pytest.mark.parametrize("query", QUERIES)
def test_the_same_answer_on_both_engines(both, query, tmp_path):
    path, url = both
    sqlite_answer = _answer(path, query)
    assert sqlite_answer[2] or "episodes" in query, "the history should answer this query"
    assert _answer(url, query) == sqlite_answer
    assert _answer(url, query, mode="snapshot") == sqlite_answer
    assert _answer(path, query, mode="companion") == sqlite_answer
    assert _answer(url, query, mode="companion", companion_path=tmp_path / "pg.duckdb") == sqlite_answer


def test_the_registered_views_read_the_injected_clock(both):
    """A relation built on a result (outside the rewriter) sees `claims` as current at the clock's now."""
    for location in both:
        counts = []
        for now in ("2019-01-01T00:00:00.000000Z", NOW):
            with Analytics(location, clock=lambda now=now: now) as analytics:
                relation = analytics.sql("SELECT 1 AS x")
                counts.append(relation.query("r", "SELECT count(*) FROM claims, r").fetchone()[0])
        assert counts[0] == 0 and counts[1] > 0, (location, counts)


def test_the_analyst_tables_match(both):
    path, url = both
    with Analytics(path) as a, Analytics(url) as b:
        on_sqlite, on_postgres = ([i["name"] for i in x.describe()] for x in (a, b))
        # The digest's review tables are not on PostgreSQL yet (digest-pg); everything else is the same.
        assert [n for n in on_sqlite if n in on_postgres] == on_postgres
        assert set(on_sqlite) - set(on_postgres) <= {"proposals", "rejections", "confirmations"}
        assert b.engine == "postgres" and "ledger_head" not in b.tables


def test_reads_are_read_only(both):
    _, url = both
    with Analytics(url) as analytics:
        with pytest.raises(Exception):
            analytics.sql("INSERT INTO claims VALUES (1)")


def test_a_database_without_a_ledger_is_not_found(empty_postgres_url):
    with pytest.raises(NotFoundError):
        Analytics(empty_postgres_url)


def test_an_unreachable_server_never_shows_the_password():
    with pytest.raises(StorageError) as caught:
        Analytics("postgresql://bob:hunter2@/ledger?host=/nonexistent-factledger-socket")
    assert "hunter2" not in str(caught.value) and "bob:***@" in str(caught.value)
