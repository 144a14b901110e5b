"""schema/postgres/0004_erase.sql against a second client: raw psycopg, no factledger code.

The secret, the erased-text guard and the manifest of exports: each refused write is refused by
PostgreSQL itself with its SQLSTATE and message, and leaves every row as it was; the allowed moves work.
"""

from __future__ import annotations

import re

import pytest

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install -e '.[postgres]')")

T1 = "2025-01-01T00:00:00.000000Z"
T2 = "2025-01-02T00:00:00.000000Z"
HASH = "a" * 64
OTHER = "b" * 64

# Transaction 1 (an operator's) wrote one guard rule and one export.
BASE = [
    f"INSERT INTO transactions (id, tx_time, principal) VALUES (1, '{T1}', 'operator:alice')",
    f"INSERT INTO erased_texts (match, scope, words, text_hash, erase_tx) VALUES ('exact', 's', 1, '{HASH}', 1)",
    f"INSERT INTO exports (directory, format, snapshot_tx_time, exported_at, tables) VALUES ('/tmp/x', 'csv', '{T1}', '{T1}', '[\"claims\"]')",
]
INTEGRITY = "23000"
REFUSALS = [
    ("changing the secret", ["UPDATE ledger_secret SET secret = repeat('0', 64)"], INTEGRITY, "the ledger secret never changes"),
    ("deleting the secret", ["DELETE FROM ledger_secret"], INTEGRITY, "the ledger secret is never deleted"),
    ("truncating the secret", ["TRUNCATE ledger_secret"], INTEGRITY, "the ledger secret is never deleted"),
    ("a second secret", [f"INSERT INTO ledger_secret (id, secret) VALUES (2, '{HASH}')"], "23514", "ledger_secret_id_check"),
    ("a secret that is not 32 hex bytes", ["INSERT INTO ledger_secret (id, secret) VALUES (1, 'guessable')"],
     "23514", "ledger_secret_secret_check"),
    ("editing a guard rule", ["UPDATE erased_texts SET scope = 't'"], INTEGRITY, "the erased-text guard is append-only"),
    ("deleting a guard rule outside erase", ["DELETE FROM erased_texts"], INTEGRITY,
     "the erased-text guard is never deleted outside erase"),
    ("deleting a guard rule under a gate of an earlier transaction",
     [f"INSERT INTO transactions (id, tx_time, principal) VALUES (2, '{T2}', 'operator:alice')",
      "INSERT INTO erase_gate (id, tx_id, principal) VALUES (1, 1, 'operator:alice')"], INTEGRITY,
     "erase gate opens only for the latest transaction's operator"),
    ("deleting a claim under the gate without recording it erased",
     [f"INSERT INTO predicates (name, display, cardinality, defined_at) VALUES ('likes', 'likes', 'many', '{T1}')",
      "INSERT INTO claims (id, scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from,"
      f" tx_from, opened_by) VALUES (1, 's', 'bob', 'Bob', 'likes', 'many', 'Tea', 'tea', '{T1}', '{T1}', 1)",
      f"INSERT INTO transactions (id, tx_time, principal) VALUES (2, '{T2}', 'operator:alice')",
      "INSERT INTO erase_gate (id, tx_id, principal) VALUES (1, 2, 'operator:alice')",
      "DELETE FROM claims WHERE id = 1"], INTEGRITY, "claims are never deleted outside erase"),
    ("truncating the guard", ["TRUNCATE erased_texts"], INTEGRITY, "never deleted outside erase"),
    ("a guard rule written by an agent's transaction",
     [f"INSERT INTO transactions (id, tx_time, principal) VALUES (2, '{T2}', 'agent:hermes')",
      f"INSERT INTO erased_texts (match, scope, words, text_hash, erase_tx) VALUES ('exact', 's', 1, '{OTHER}', 2)"],
     INTEGRITY, "written by the erasing (latest, operator's) transaction"),
    ("a guard rule dated to an earlier transaction",
     [f"INSERT INTO transactions (id, tx_time, principal) VALUES (2, '{T2}', 'operator:alice')",
      f"INSERT INTO erased_texts (match, scope, words, text_hash, erase_tx) VALUES ('exact', 's', 1, '{OTHER}', 1)"],
     INTEGRITY, "written by the erasing (latest, operator's) transaction"),
    ("a guard rule that is not a keyed hash",
     ["INSERT INTO erased_texts (match, scope, words, text_hash, erase_tx) VALUES ('exact', 's', 1, 'paris', 1)"],
     "23514", "erased_texts_text_hash_check"),
    ("a guard rule of an unknown match",
     [f"INSERT INTO erased_texts (match, scope, words, text_hash, erase_tx) VALUES ('fuzzy', 's', 1, '{OTHER}', 1)"],
     "23514", "erased_texts_match_check"),
    ("editing an export", ["UPDATE exports SET directory = '/elsewhere'"], INTEGRITY, "the manifest of exports is append-only"),
    ("deleting an export", ["DELETE FROM exports"], INTEGRITY, "the manifest of exports is append-only"),
    ("truncating the exports", ["TRUNCATE exports"], INTEGRITY, "the manifest of exports is append-only"),
    ("an export dated at infinity",
     ["INSERT INTO exports (directory, format, exported_at) VALUES ('/tmp/y', 'csv', 'infinity')"],
     "23514", "exports_exported_at_check"),
    ("an export whose tables are not a JSON list",
     [f"INSERT INTO exports (directory, format, exported_at, tables) VALUES ('/tmp/y', 'csv', '{T1}', '{{}}')"],
     "23514", "exports_tables_check"),
]


def _ledger(dsn: str):
    conn = psycopg.connect(dsn)
    with conn.transaction():
        for statement in BASE:
            conn.execute(statement)
    return conn


def _snapshot(conn) -> list:
    tables = ("ledger_secret", "erased_texts", "exports", "transactions", "erase_gate")
    return [conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in tables]


@pytest.mark.parametrize("case", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_postgres_refuses(postgres_dsn, case):
    _, statements, sqlstate, message = case
    conn = _ledger(postgres_dsn)
    try:
        before = _snapshot(conn)
        conn.commit()
        *allowed, refused = statements
        for statement in allowed:
            conn.execute(statement)
        with pytest.raises(psycopg.Error) as caught:
            conn.execute(refused)
        assert caught.value.sqlstate == sqlstate, caught.value
        assert message in str(caught.value)
        conn.rollback()
        assert _snapshot(conn) == before
    finally:
        conn.close()


def test_each_migrated_database_draws_its_own_secret(postgres_dsn, empty_postgres_url):
    from factledger.ledger.pg_storage import PostgresStorage

    PostgresStorage(empty_postgres_url).close()  # migrates it, as a first open does
    secrets = []
    for dsn in (postgres_dsn, empty_postgres_url):
        with psycopg.connect(dsn) as conn:
            secrets.append(conn.execute("SELECT secret FROM ledger_secret").fetchone()[0])
    assert all(re.fullmatch("[0-9a-f]{64}", s) for s in secrets)
    assert secrets[0] != secrets[1]


def test_allowed_moves(postgres_dsn):
    """Another export is recorded; the erasing transaction writes its guard rules; under the gate of the
    latest (operator's) transaction a guard rule may go."""
    conn = _ledger(postgres_dsn)
    try:
        with conn.transaction():
            conn.execute(f"INSERT INTO exports (directory, format, exported_at) VALUES ('/tmp/y', 'parquet', '{T2}')")
            conn.execute(f"INSERT INTO transactions (id, tx_time, principal) VALUES (2, '{T2}', 'operator:alice')")
            conn.execute(f"INSERT INTO erased_texts (match, scope, words, text_hash, erase_tx) VALUES ('prefix', 's/', 2, '{OTHER}', 2)")
            conn.execute("INSERT INTO erase_gate (id, tx_id, principal) VALUES (1, 2, 'operator:alice')")
            conn.execute("DELETE FROM erased_texts WHERE erase_tx = 1")
            conn.execute("DELETE FROM erase_gate")
        assert conn.execute("SELECT count(*) FROM exports").fetchone() == (2,)
        assert conn.execute("SELECT match, scope, erase_tx FROM erased_texts").fetchall() == [("prefix", "s/", 2)]
    finally:
        conn.close()
