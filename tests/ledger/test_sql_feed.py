"""On SQLite, DuckDB reads the ledger only through the session's own sqlite3 connection (feed.py,
DESIGN §8): its sqlite scanner never opens the file in a live or companion session, the tables a query
reads are fresh at every query (another connection's commits, journal turns included), and the companion
path reads no ledger table into DuckDB at all. The multi-process proof is tests/ledger/test_shared_file.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from factledger.digest import Journal, Turn
from factledger.ledger import Ledger
from factledger.ledger.analytics import Analytics


def _write(path: Path, value: str) -> None:
    with Ledger.open(path) as ledger:
        with ledger.transaction(principal="operator:t") as tx:
            tx.add("s", "Ann", "likes", value, valid_from="2024-01-01")


def _scanner_opened(analytics: Analytics) -> bool:
    con = analytics._con
    attached = con.execute("SELECT count(*) FROM duckdb_databases() WHERE type = 'sqlite'").fetchone()[0]
    loaded = con.execute("SELECT count(*) FROM duckdb_functions() WHERE function_name IN ('sqlite_query', 'sqlite_scan')").fetchone()[0]
    return bool(attached or loaded)


@pytest.mark.parametrize("mode", ["live", "companion"])
def test_duckdb_never_opens_the_ledger_file(ledger_path: Path, mode: str) -> None:
    _write(ledger_path, "tea")
    with Analytics(ledger_path, mode=mode) as analytics:
        for query in ("SELECT count(*) FROM claims", "SELECT count(*) FROM journal", "SELECT * FROM raw.tombstones",
                      "SELECT * FROM slot_history('Ann', 'likes')", "SHOW TABLES", "SELECT * FROM information_schema.tables"):
            analytics.fetch(query)
        assert not _scanner_opened(analytics)
    with Analytics(ledger_path, first_query="SELECT count(*) FROM claims") as analytics:
        analytics.fetch("SELECT count(*) FROM claims")
        analytics.fetch("SELECT count(*) FROM episodes")  # the full session, set up again
        assert not _scanner_opened(analytics)


@pytest.mark.parametrize("mode", ["live", "companion"])
def test_every_query_sees_the_latest_commit_of_another_connection(ledger_path: Path, mode: str) -> None:
    _write(ledger_path, "tea")
    with Analytics(ledger_path, mode=mode) as analytics:
        assert analytics.fetch("SELECT value FROM claims ORDER BY 1")[1] == [("tea",)]
        assert analytics.fetch("SELECT count(*) FROM episodes")[1] == [(0,)]
        _write(ledger_path, "jam")
        with Ledger.open(ledger_path) as ledger:  # a journal turn is no ledger transaction
            Journal(ledger).append(Turn(scope="s", role="user", text="I like jam", said_at="2024-02-01"))
        assert analytics.fetch("SELECT value FROM claims ORDER BY 1")[1] == [("jam",), ("tea",)]
        assert analytics.fetch("SELECT count(*) FROM episodes")[1] == [(1,)]
        assert analytics.fetch("SELECT count(*) FROM raw.claims")[1] == [(2,)]


def test_a_companion_query_reads_no_ledger_table(ledger_path: Path) -> None:
    _write(ledger_path, "tea")
    with Analytics(ledger_path, mode="companion") as analytics:
        analytics.fetch("SELECT predicate, count(*) FROM claims FOR SYSTEM_TIME AS OF '2030-01-01' GROUP BY 1")
        analytics.fetch("SELECT * FROM slot_history('Ann', 'likes')")
        analytics.fetch("SELECT * FROM corrections")
        assert analytics._feed is not None and analytics._feed._read_at == {}
        analytics.fetch("SELECT * FROM episodes")
        assert set(analytics._feed._read_at) == {"journal"}


def test_a_relation_is_built_on_with_every_view_in_step(ledger_path: Path) -> None:
    _write(ledger_path, "tea")
    with Analytics(ledger_path, mode="live") as analytics:
        relation = analytics.sql("SELECT 1 AS x")
        assert relation.query("r", "SELECT count(*) FROM claim_versions, r").fetchone()[0] == 1
