"""On SQLite, DuckDB reads the ledger only through the session's own sqlite3 connection (feed.py,
DESIGN §8): its sqlite scanner never opens the file in a live or companion session, the tables a query
reads are fresh at every query (another connection's commits, journal turns included), and the companion
path reads no ledger table into DuckDB at all. The multi-process proof is tests/ledger/test_shared_file.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from factledger.digest import Journal, Turn
from factledger.ledger import Ledger
from factledger.ledger.analytics import Analytics


def _write(path: Path, value: str) -> None:
    with Ledger.open(path) as ledger:
        with ledger.transaction(principal="operator:t") as tx:
            tx.add("s", "Ann", "likes", value, valid_from="2024-01-01")


# Another process asks for SQLite's exclusive lock on the file (the SHARED range, as a closing
# connection does before it deletes the WAL): "held" while this process's connection keeps its lock.
PROBE = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 510, 0x40000002, 0)
    print("free")
except OSError:
    print("held")
"""


def _lock_seen_from_outside(path: Path) -> str:
    return subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.parametrize("how", ["live", "companion", "snapshot", "one question"])
def test_sql_keeps_the_process_s_lock_on_the_ledger(ledger_path: Path, how: str) -> None:
    """Before: DuckDB's sqlite scanner opened and closed the file, and the close released the locks of
    the process's own connection: another process then saw the file free (and deleted the WAL)."""
    _write(ledger_path, "tea")
    with Ledger.open(ledger_path) as ledger:
        ledger.current(["s"])
        assert _lock_seen_from_outside(ledger_path) == "held"
        if how == "one question":
            Analytics(ledger_path, mode="companion").close()
            session = Analytics(ledger_path, first_query="SELECT count(*) FROM claims")
        else:
            session = Analytics(ledger_path, mode=how)
        with session as analytics:
            for query in ("SELECT count(*) FROM claims", "SELECT count(*) FROM episodes", "SELECT * FROM raw.tombstones",
                          "SELECT * FROM slot_history('Ann', 'likes')", "SHOW TABLES"):
                analytics.fetch(query)
            attached = analytics._con.execute("SELECT count(*) FROM duckdb_databases() WHERE type = 'sqlite'").fetchone()[0]
            assert attached == 0
            assert _lock_seen_from_outside(ledger_path) == "held"
        assert _lock_seen_from_outside(ledger_path) == "held"


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
