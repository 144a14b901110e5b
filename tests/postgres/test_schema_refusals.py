"""schema/postgres/0001 against a second client: raw SQL through psycopg, no factledger code.

Each refused case runs, on a fresh copy of a small ledger, statements that succeed and then the one
PostgreSQL must refuse, and pins the SQLSTATE and message it gets; nothing of the case is left behind.
The allowed moves (open, close by the latest transaction, supersede, a recorded erase) must work.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import pytest

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install -e '.[postgres]')")

T1 = "2025-01-01T00:00:00.000000Z"
T2 = "2025-01-02T00:00:00.000000Z"
T3 = "2025-01-03T00:00:00.000000Z"
EARLY = "2020-01-01T00:00:00.000000Z"

# The ledger every case starts from: two predicates, one transaction (id 1) that opened a `one`
# version (id 1, lives_in paris from 2020) and a `many` version (id 2, likes tea from 2020).
BASE = [
    f"INSERT INTO predicates (name, display, cardinality, defined_at) VALUES ('lives_in', 'lives in', 'one', '{T1}')",
    f"INSERT INTO predicates (name, display, cardinality, defined_at) VALUES ('likes', 'likes', 'many', '{T1}')",
    f"INSERT INTO transactions (id, tx_time, principal) VALUES (1, '{T1}', 'operator:alice')",
    "INSERT INTO claims (id, scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from,"
    f" tx_from, opened_by) VALUES (1, 's', 'bob', 'Bob', 'lives_in', 'one', 'Paris', 'paris', '{EARLY}', '{T1}', 1)",
    "INSERT INTO claims (id, scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from,"
    f" tx_from, opened_by) VALUES (2, 's', 'bob', 'Bob', 'likes', 'many', 'Tea', 'tea', '{EARLY}', '{T1}', 1)",
    "INSERT INTO claim_provenance (claim_id, tx_id, source) VALUES (1, 1, 'journal:1')",
    f"INSERT INTO tombstones (content_hash, erased_at, principal) VALUES ('abc', '{T1}', 'operator:alice')",
]
TX2 = f"INSERT INTO transactions (id, tx_time, principal) VALUES (2, '{T2}', 'agent:hermes')"
TX2_OPERATOR = f"INSERT INTO transactions (id, tx_time, principal) VALUES (2, '{T2}', 'operator:alice')"


def claim(cid: int, *, predicate: str = "lives_in", value: str = "rome", valid_from: str = EARLY,
          valid_to: str | None = None, tx_from: str = T2, opened_by: int = 2, tx_to: str | None = None,
          closed_by: int | None = None, cardinality: str | None = None) -> str:
    cardinality = cardinality or ("one" if predicate == "lives_in" else "many")
    lit = lambda v: "NULL" if v is None else f"'{v}'"  # noqa: E731
    return (
        "INSERT INTO claims (id, scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from,"
        " valid_to, tx_from, tx_to, opened_by, closed_by) VALUES"
        f" ({cid}, 's', 'bob', 'Bob', '{predicate}', '{cardinality}', '{value}', '{value}', '{valid_from}',"
        f" {lit(valid_to)}, '{tx_from}', {lit(tx_to)}, {opened_by}, {lit(closed_by)})"
    )


@dataclass(frozen=True)
class Refusal:
    name: str
    statements: list[str]   # all succeed but the last, in one transaction
    sqlstate: str
    message: str            # a fragment of the error PostgreSQL reports


INTEGRITY = "23000"  # the schema's own triggers
REFUSALS = [
    # -- valid time: the EXCLUDE constraints and the partial unique indexes
    Refusal("overlap of current `one` versions", [TX2, claim(3, valid_from="2019-01-01T00:00:00.000000Z",
            valid_to="2021-01-01T00:00:00.000000Z")], "23P01", "claims_one_no_overlap"),
    Refusal("a second open current `one` version", [TX2, claim(3, valid_from="2030-01-01T00:00:00.000000Z")],
            "23505", "claims_one_open"),
    Refusal("a second open current `many` version of one value", [TX2, claim(3, predicate="likes", value="tea",
            valid_from="2030-01-01T00:00:00.000000Z")], "23505", "claims_many_open"),
    Refusal("overlap of one value in a `many` slot", [TX2, claim(3, predicate="likes", value="tea",
            valid_from="2021-01-01T00:00:00.000000Z", valid_to="2022-01-01T00:00:00.000000Z")],
            "23P01", "claims_many_no_overlap"),
    Refusal("a valid interval that ends before it starts", [TX2, claim(3, valid_from="2019-01-01T00:00:00.000000Z",
            valid_to="2018-01-01T00:00:00.000000Z")], "23514", "claims_valid_interval"),
    Refusal("an infinite valid time", [TX2, claim(3, valid_from="-infinity", valid_to="2019-01-01T00:00:00.000000Z")],
            "23514", "claims_valid_from_check"),
    Refusal("a year the canonical form cannot write", [TX2, claim(3, valid_from="10000-01-01T00:00:00Z")],
            "23514", "claims_valid_from_check"),
    # -- claims: inserted open, by the latest transaction
    Refusal("inserting a closed version", [TX2, claim(3, valid_from="2010-01-01T00:00:00.000000Z",
            valid_to="2011-01-01T00:00:00.000000Z", tx_to=T3, closed_by=2)], INTEGRITY, "inserted open"),
    Refusal("a tx_from of another time", [TX2, claim(3, predicate="likes", tx_from=T1)],
            INTEGRITY, "opened by the latest transaction"),
    Refusal("opened by an earlier transaction", [TX2, claim(3, predicate="likes", tx_from=T1, opened_by=1)],
            INTEGRITY, "opened by the latest transaction"),
    Refusal("a cardinality other than the predicate's", [TX2, claim(3, predicate="likes", cardinality="one")],
            INTEGRITY, "cardinality differs from its predicate"),
    # -- claims: the only update closes, once, by the latest transaction
    Refusal("an in-place edit of a version", [TX2, "UPDATE claims SET value = 'Rome' WHERE id = 1"],
            INTEGRITY, "only tx_to may be set, once"),
    Refusal("an edit that closes and edits at once",
            [TX2, f"UPDATE claims SET tx_to = '{T2}', closed_by = 2, valid_from = '2019-01-01' WHERE id = 1"],
            INTEGRITY, "only tx_to may be set, once"),
    Refusal("closing by an earlier transaction", [TX2, f"UPDATE claims SET tx_to = '{T1}', closed_by = 1 WHERE id = 1"],
            INTEGRITY, "closed by the latest transaction"),
    Refusal("closing with a tx_to other than the closer's time",
            [TX2, f"UPDATE claims SET tx_to = '{T3}', closed_by = 2 WHERE id = 1"],
            INTEGRITY, "closed by the latest transaction"),
    Refusal("reopening a closed version",
            [TX2, f"UPDATE claims SET tx_to = '{T2}', closed_by = 2 WHERE id = 1",
             f"INSERT INTO transactions (id, tx_time, principal) VALUES (3, '{T3}', 'agent:hermes')",
             "UPDATE claims SET tx_to = NULL, closed_by = NULL WHERE id = 1"],
            INTEGRITY, "only tx_to may be set, once"),
    # -- no DELETE outside a recorded erase
    Refusal("deleting a claim", ["DELETE FROM claims WHERE id = 2"], INTEGRITY, "claims are never deleted outside erase"),
    Refusal("truncating the claims", ["TRUNCATE claims CASCADE"], INTEGRITY, "never deleted"),
    Refusal("deleting provenance", ["DELETE FROM claim_provenance"], INTEGRITY, "provenance is never deleted"),
    Refusal("deleting a transaction", ["DELETE FROM transactions WHERE id = 1"], INTEGRITY, "transactions are never deleted"),
    Refusal("truncating the transactions", ["TRUNCATE transactions CASCADE"], INTEGRITY, "never deleted"),
    Refusal("deleting a tombstone", ["DELETE FROM tombstones"], INTEGRITY, "tombstones are never deleted"),
    Refusal("deleting a predicate", ["DELETE FROM predicates WHERE name = 'likes'"], INTEGRITY, "predicates are never deleted"),
    Refusal("deleting under a gate opened for an earlier transaction",
            [TX2_OPERATOR.replace("operator:alice", "agent:hermes"),
             "INSERT INTO erase_gate (id, tx_id, principal) VALUES (1, 1, 'operator:alice')"],
            INTEGRITY, "erase gate opens only for the latest transaction's operator"),
    Refusal("opening the gate for a non-operator", [TX2, "INSERT INTO erase_gate (id, tx_id, principal) VALUES (1, 2, 'agent:hermes')"],
            "23514", "erase_gate_principal_check"),
    Refusal("committing with the gate left open",
            [TX2_OPERATOR, "INSERT INTO erase_gate (id, tx_id, principal) VALUES (1, 2, 'operator:alice')", "COMMIT"],
            INTEGRITY, "erase gate must be closed"),
    # -- transactions: append-only, strictly increasing, of a known principal kind
    Refusal("a decreasing tx_time", [f"INSERT INTO transactions (id, tx_time, principal) VALUES (2, '{EARLY}', 'agent:hermes')"],
            INTEGRITY, "tx_time must be later than every earlier transaction"),
    Refusal("a repeated tx_time", [f"INSERT INTO transactions (id, tx_time, principal) VALUES (2, '{T1}', 'agent:hermes')"],
            "23505", "transactions_tx_time_key"),
    Refusal("a decreasing id",
            [f"INSERT INTO transactions (id, tx_time, principal) VALUES (5, '{T2}', 'agent:hermes')",
             f"INSERT INTO transactions (id, tx_time, principal) VALUES (3, '{T3}', 'agent:hermes')"],
            INTEGRITY, "transaction id must be larger"),
    Refusal("a tx_time ahead of the clock", ["INSERT INTO transactions (id, tx_time, principal)"
            " VALUES (2, clock_timestamp() + interval '1 hour', 'agent:hermes')"], INTEGRITY, "ahead of the clock"),
    Refusal("an edited transaction", ["UPDATE transactions SET reason = 'changed' WHERE id = 1"],
            INTEGRITY, "transactions are append-only"),
    *[Refusal(f"the principal {principal!r}", [f"INSERT INTO transactions (id, tx_time, principal) VALUES (2, '{T2}', '{principal}')"],
              "23514", "transactions_principal_kind") for principal in ("root", "operator:", "Operator:alice", "robot:r2")],
    Refusal("sources that are not a JSON array",
            [f"INSERT INTO transactions (id, tx_time, principal, sources) VALUES (2, '{T2}', 'agent:hermes', '{{}}')"],
            "23514", "transactions_sources_check"),
    # -- the head, provenance, tombstones and predicates stay as written
    Refusal("moving the head back", ["UPDATE ledger_head SET tx_id = 0, tx_time = NULL"], INTEGRITY, "ledger head moves only forward"),
    Refusal("moving the head past the latest transaction",
            [f"UPDATE ledger_head SET tx_id = 9, tx_time = '{T3}'"], INTEGRITY, "ledger head moves only forward"),
    Refusal("provenance by an earlier transaction", [TX2, "INSERT INTO claim_provenance (claim_id, tx_id, source) VALUES (2, 1, 'x')"],
            INTEGRITY, "provenance is written by the latest transaction"),
    Refusal("edited provenance", ["UPDATE claim_provenance SET source = 'journal:2'"], INTEGRITY, "provenance is append-only"),
    Refusal("an edited tombstone", ["UPDATE tombstones SET reason = 'x'"], INTEGRITY, "tombstones are never edited"),
    Refusal("a predicate's cardinality changed", ["UPDATE predicates SET cardinality = 'many' WHERE name = 'lives_in'"],
            INTEGRITY, "cardinality and defined_at are fixed"),
]


def _ledger(dsn: str):
    conn = psycopg.connect(dsn)
    with conn.transaction():
        for statement in BASE:
            conn.execute(statement)
    return conn


def _snapshot(conn) -> list:
    tables = ("predicates", "transactions", "ledger_head", "claims", "claim_provenance", "tombstones", "erase_gate")
    return [conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in tables]


@pytest.mark.parametrize("case", REFUSALS, ids=[c.name for c in REFUSALS])
def test_postgres_refuses(postgres_dsn, case: Refusal):
    conn = _ledger(postgres_dsn)
    try:
        before = _snapshot(conn)
        conn.commit()
        *allowed, refused = case.statements
        for statement in allowed:
            conn.execute(statement)
        with pytest.raises(psycopg.Error) as caught:
            conn.execute(refused) if refused != "COMMIT" else conn.commit()
        assert caught.value.sqlstate == case.sqlstate, caught.value
        assert case.message in str(caught.value)
        conn.rollback()
        assert _snapshot(conn) == before
    finally:
        conn.close()


def test_allowed_moves(postgres_dsn):
    """Open, close by the latest transaction (supersede), a `many` value beside another, a template
    edit, and a recorded erase, each in its own transaction."""
    conn = _ledger(postgres_dsn)
    try:
        with conn.transaction():  # supersede: close the current version, open its successor over the same time
            conn.execute(TX2)
            conn.execute(f"UPDATE claims SET tx_to = '{T2}', closed_by = 2 WHERE id = 1")
            conn.execute(claim(3))
            conn.execute(claim(4, predicate="likes", value="coffee"))
            conn.execute(f"INSERT INTO version_hashes (claim_id, opened_by, salt, content_hash) VALUES (4, 2, 's', '{'0' * 64}')")
            conn.execute("INSERT INTO claim_provenance (claim_id, tx_id, source) VALUES (1, 2, 'journal:2')")
            conn.execute("UPDATE predicates SET template = '{subject} now lives in {value}' WHERE name = 'lives_in'")
        rows = conn.execute("SELECT id, value_key, tx_to IS NULL, closed_by FROM claims ORDER BY id").fetchall()
        assert rows == [(1, "paris", False, 2), (2, "tea", True, None), (3, "rome", True, None), (4, "coffee", True, None)]
        assert conn.execute("SELECT tx_id FROM ledger_head").fetchone() == (2,)

        with conn.transaction():  # a recorded erase (0004): the version's hash names the erasing transaction,
            # the gate is opened for the latest transaction's operator, and closed again
            conn.execute(f"INSERT INTO transactions (id, tx_time, principal) VALUES (3, '{T3}', 'operator:alice')")
            conn.execute("UPDATE version_hashes SET erased_by = 3, salt = NULL WHERE claim_id = 4")
            conn.execute("INSERT INTO erase_gate (id, tx_id, principal) VALUES (1, 3, 'operator:alice')")
            conn.execute("DELETE FROM claims WHERE id = 4")
            conn.execute(f"INSERT INTO tombstones (content_hash, erased_at, principal) VALUES ('def', '{T3}', 'operator:alice')")
            conn.execute("DELETE FROM erase_gate")
        assert [r[0] for r in conn.execute("SELECT id FROM claims ORDER BY id")] == [1, 2, 3]
        assert conn.execute("SELECT count(*) FROM erase_gate").fetchone() == (0,)
        # The gate is shut again: the next delete is refused.
        with pytest.raises(psycopg.Error, match="never deleted outside erase"):
            conn.execute("DELETE FROM claims WHERE id = 2")
    finally:
        conn.close()


def test_times_keep_microseconds(postgres_dsn):
    """timestamptz holds the canonical form's microseconds exactly, and the session's zone does not move them."""
    conn = _ledger(postgres_dsn)
    try:
        conn.execute("SET TimeZone = 'Pacific/Kiritimati'")
        conn.execute("INSERT INTO transactions (id, tx_time, principal) VALUES (2, '2025-01-02T03:04:05.123456Z', 'agent:hermes')")
        text = conn.execute(
            "SELECT to_char(tx_time AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM transactions WHERE id = 2"
        ).fetchone()[0]
        assert text == "2025-01-02T03:04:05.123456Z"
    finally:
        conn.close()


def test_racing_writers_are_ordered(postgres_dsn):
    """Two clients each begin a transaction; the one that commits second is refused or ordered after
    the first, never both written with time going backwards."""
    first, second = _ledger(postgres_dsn), psycopg.connect(postgres_dsn)
    try:
        first.execute(f"INSERT INTO transactions (id, tx_time, principal) VALUES (3, '{T3}', 'agent:a')")
        second.execute("SET lock_timeout = '5s'")
        # `second` has an earlier time and a smaller id; it waits on the head until `first` commits, then
        # sees the moved head and is refused.
        outcome: list[BaseException | None] = []

        def write_second() -> None:
            try:
                second.execute(f"INSERT INTO transactions (id, tx_time, principal) VALUES (2, '{T2}', 'agent:b')")
                second.commit()
                outcome.append(None)
            except psycopg.Error as exc:
                outcome.append(exc)

        worker = threading.Thread(target=write_second)
        worker.start()
        with psycopg.connect(postgres_dsn, autocommit=True) as watcher:
            for _ in range(500):  # until `second` waits on the head's row lock
                if watcher.execute("SELECT count(*) FROM pg_locks WHERE NOT granted").fetchone()[0]:
                    break
                time.sleep(0.01)
            else:
                pytest.fail("the second writer never waited on the ledger head")
        first.commit()
        worker.join(timeout=30)
        assert outcome and isinstance(outcome[0], psycopg.Error)
        assert "tx_time must be later" in str(outcome[0])
        times = first.execute("SELECT id FROM transactions ORDER BY id").fetchall()
        assert times == [(1,), (3,)]
    finally:
        first.close()
        second.close()
