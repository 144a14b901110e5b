"""No analyst path reads the key of the tombstones' keyed hashes (issue 21, DESIGN §8): with it, a
read-only query could confirm a guessed erased value. Not by the attached file's catalog name
(`ledger_file.ledger_secret`), not in `raw`, not through the companion, not through any table function;
in every mode, on both engines."""

from __future__ import annotations

import pytest

from factledger.ledger import Ledger
from factledger.ledger.analytics import Analytics
from factledger.ledger.analytics.errors import QueryRefused, SqlError, SqlExecutionError

pytestmark = pytest.mark.both_engines  # the contract suite: SQLite and PostgreSQL (tests/conftest.py)

# Each must end in an error (refused by the guard, or unknown to DuckDB), never in rows.
ATTEMPTS = [
    "SELECT * FROM ledger_file.ledger_secret",
    "SELECT secret FROM ledger_file.main.ledger_secret",
    "SELECT secret FROM ledger_file.public.ledger_secret",
    'SELECT * FROM "ledger_file"."ledger_secret"',
    "SELECT * FROM LEDGER_FILE.LEDGER_SECRET",
    "SELECT (SELECT max(secret) FROM ledger_file.ledger_secret) AS s",
    "WITH k AS (SELECT * FROM ledger_file.ledger_secret) SELECT * FROM k",
    "SELECT * FROM claims WHERE EXISTS (SELECT 1 FROM ledger_file.ledger_secret)",
    "SELECT * FROM raw.ledger_secret",
    "SELECT * FROM ledger_secret",
    "SELECT * FROM ledger_companion.ledger_secret",
    "SELECT * FROM query_table('ledger_file.ledger_secret')",
    "SELECT * FROM sqlite_query('ledger_file', 'SELECT * FROM ledger_secret')",
    "SELECT * FROM postgres_query('ledger_file', 'SELECT * FROM ledger_secret')",
    "SELECT * FROM ledger_file.tombstones",  # the attached file is not an analyst path at all
]


@pytest.fixture
def secret_ledger(ledger_location) -> tuple[object, str]:
    with Ledger.open(ledger_location) as ledger:
        with ledger.transaction(principal="operator:t") as tx:
            tx.add("s", "Maya", "treated_at", "Vexmoor Clinic", valid_from="2024-01-01")
        secret = ledger.storage.one("SELECT secret FROM ledger_secret WHERE id = 1")[0]
    assert len(secret) == 64
    return ledger_location, secret


@pytest.mark.parametrize("mode", ["live", "companion", "snapshot"])
@pytest.mark.parametrize("query", ATTEMPTS)
def test_no_analyst_query_reads_the_ledger_secret(secret_ledger, mode: str, query: str) -> None:
    location, secret = secret_ledger
    with Analytics(location, mode=mode) as analytics:
        assert analytics.mode == mode, analytics.mode_note
        with pytest.raises((SqlError, SqlExecutionError)) as refused:
            rows = analytics.fetch(query)[1]
            assert secret not in repr(rows)  # (a path that answers must not answer with the key)
        assert secret not in str(refused.value)


@pytest.mark.parametrize("query", ["SELECT * FROM ledger_file.ledger_secret", "SELECT * FROM ledger_file.transactions"])
def test_the_attached_file_is_refused_by_name_with_its_position(secret_ledger, query: str) -> None:
    location, _ = secret_ledger
    with Analytics(location) as analytics:
        with pytest.raises(QueryRefused) as refused:
            analytics.fetch(query)
    assert (refused.value.line, refused.value.column) == (1, 15)
    assert "ledger_file" in refused.value.message


@pytest.mark.slow  # a one-question session per refused query
def test_a_one_question_session_refuses_it_too(secret_ledger) -> None:
    location, secret = secret_ledger
    with Analytics(location, mode="companion"):
        pass  # the companion exists: a one-question session may open on it alone
    for query in ATTEMPTS:
        with pytest.raises((SqlError, SqlExecutionError)) as refused:
            with Analytics(location, first_query=query) as analytics:
                analytics.fetch(query)
        assert secret not in str(refused.value)


def test_the_catalog_shows_no_secret(secret_ledger) -> None:
    location, secret = secret_ledger
    with Analytics(location) as analytics:
        for query in ("SELECT * FROM duckdb_tables()", "SELECT * FROM duckdb_views()", "SELECT * FROM duckdb_columns()",
                      "SHOW TABLES", "DESCRIBE"):
            assert secret not in repr(analytics.fetch(query)[1])
        assert "ledger_secret" not in {r[0] for r in analytics.fetch("SHOW TABLES")[1]}
