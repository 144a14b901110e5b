"""schema/postgres/0014: the write path's checks that run once per statement over its new rows still
refuse, from a raw psycopg client, every row of a multi-row INSERT (not only the first), with the
message the per-row triggers gave, and leave nothing behind. The single-row cases are in
test_schema_refusals.py and tests/ledger/test_migrate_gate.py, unchanged."""

from __future__ import annotations

import pytest

from tests.postgres.test_schema_refusals import BASE, T2, TX2, _snapshot

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install -e '.[postgres]')")

EARLY = "2020-01-01T00:00:00.000000Z"
HASH = "0" * 64


def _rows(*rows: str) -> str:
    """One INSERT of several `likes` versions for Bob, each given as (id, value, tx_from, opened_by,
    tx_to, closed_by, cardinality) SQL literals."""
    return (
        "INSERT INTO claims (id, scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from,"
        " tx_from, opened_by, tx_to, closed_by) VALUES " + ", ".join(rows)
    )


def _row(cid: int, value: str, *, tx_from: str = T2, opened_by: int = 2, tx_to: str = "NULL",
         closed_by: str = "NULL", cardinality: str = "many") -> str:
    return (f"({cid}, 's', 'bob', 'Bob', 'likes', '{cardinality}', '{value}', '{value}', '{EARLY}', '{tx_from}',"
            f" {opened_by}, {tx_to}, {closed_by})")


CASES = [
    ("a closed version after an open one",
     [TX2, _rows(_row(3, "jam"), _row(4, "ham", tx_to="'2025-01-03T00:00:00.000000Z'", closed_by="2"))], "inserted open"),
    ("a version by an earlier transaction after one by the latest",
     [TX2, _rows(_row(3, "jam"), _row(4, "ham", tx_from="2025-01-01T00:00:00.000000Z", opened_by=1))],
     "opened by the latest transaction"),
    ("a wrong cardinality after a right one",
     [TX2, _rows(_row(3, "jam"), _row(4, "ham", cardinality="one"))], "cardinality differs from its predicate"),
    ("a hash row naming another opener, after a right one",
     [TX2, _rows(_row(3, "jam"), _row(4, "ham")),
      f"INSERT INTO version_hashes (claim_id, opened_by, salt, content_hash) VALUES (3, 2, 's', '{HASH}'), (4, 1, 's', '{HASH}')"],
     "a version hash is written by the transaction that opened the version"),
    ("a hash row of no version",
     [TX2, f"INSERT INTO version_hashes (claim_id, opened_by, salt, content_hash) VALUES (99, 2, 's', '{HASH}')"],
     "a version hash is written by the transaction that opened the version"),
    ("a hash row whose opener is not its version's",
     [TX2, _rows(_row(3, "jam")),
      f"INSERT INTO version_hashes (claim_id, opened_by, salt, content_hash) VALUES (3, 1, 's', '{HASH}')"],
     "a version hash is written by the transaction that opened the version"),
]


def _base(dsn: str):
    conn = psycopg.connect(dsn)
    with conn.transaction():
        for statement in BASE:
            conn.execute(statement)
        conn.execute(f"INSERT INTO version_hashes (claim_id, opened_by, salt, content_hash) VALUES (1, 1, 's', '{HASH}'),"
                     f" (2, 1, 's', '{HASH}')")
    return conn


@pytest.mark.parametrize("name,statements,message", CASES, ids=[c[0] for c in CASES])
def test_every_row_of_a_statement_is_checked(postgres_dsn, name, statements, message):
    conn = _base(postgres_dsn)
    try:
        before = _snapshot(conn)
        hashes = conn.execute("SELECT * FROM version_hashes ORDER BY 1").fetchall()
        *allowed, refused = statements
        for statement in allowed:
            conn.execute(statement)
        with pytest.raises(psycopg.Error) as caught:
            conn.execute(refused)
        assert caught.value.sqlstate == "23000", caught.value
        assert message in str(caught.value)
        conn.rollback()
        assert _snapshot(conn) == before
        assert conn.execute("SELECT * FROM version_hashes ORDER BY 1").fetchall() == hashes
    finally:
        conn.close()


def test_a_reused_id_is_refused_in_any_row(postgres_dsn):
    """An id at or below the largest hash row's (an erased version's id stays there) is never given
    again, whichever row of the INSERT takes it."""
    conn = _base(postgres_dsn)
    try:
        before = _snapshot(conn)
        conn.execute(TX2)
        with pytest.raises(psycopg.Error) as caught:
            conn.execute(_rows(_row(5, "jam"), _row(0, "ham")))
        assert caught.value.sqlstate == "23000", caught.value
        assert "a claim id must be larger than every earlier one" in str(caught.value)
        conn.rollback()
        assert _snapshot(conn) == before
    finally:
        conn.close()


def test_a_right_statement_of_many_rows_is_written(postgres_dsn):
    conn = _base(postgres_dsn)
    try:
        with conn.transaction():
            conn.execute(TX2)
            conn.execute(_rows(_row(3, "jam"), _row(4, "ham"), _row(5, "eggs")))
            conn.execute("INSERT INTO version_hashes (claim_id, opened_by, salt, content_hash)"
                         f" SELECT id, 2, 's', '{HASH}' FROM generate_series(3, 5) id")
        assert conn.execute("SELECT count(*) FROM claims").fetchone() == (5,)
        assert conn.execute("SELECT count(*) FROM version_hashes").fetchone() == (5,)
    finally:
        conn.close()
