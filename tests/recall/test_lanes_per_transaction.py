"""The claim lanes are written once per transaction (SQLite: from the transaction's chain row, migration
0023), with the same rows the per-row trigger wrote: one lexical row per version with its sentence and
the sentences of its neighbours in the transaction's window as context, a trigram row for text outside
ASCII, one outbox row per version in id order."""

from __future__ import annotations

import sqlite3

import pytest

from factledger.ledger import ConflictError, Ledger
from factledger.ledger.verify import verify_ledger
from factledger.recall.recorder import recorder_for


def _rows(path) -> tuple[list[tuple], list[tuple], list[tuple], list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        fts = conn.execute("SELECT rowid, body, context FROM recall_fts ORDER BY rowid").fetchall()
        expected = conn.execute(
            "SELECT t.id, t.text, x.context FROM recall_claim_text t JOIN recall_claim_context x ON x.id = t.id ORDER BY t.id"
        ).fetchall()
        trigram = conn.execute("SELECT rowid, body FROM recall_fts_trigram ORDER BY rowid").fetchall()
        outbox = conn.execute("SELECT claim_id, change FROM recall_outbox ORDER BY seq").fetchall()
    finally:
        conn.close()
    return fts, expected, trigram, outbox


def test_a_batch_gets_its_lanes_at_once(ledger_path) -> None:
    ledger = Ledger.open(ledger_path)
    try:
        with ledger.transaction(principal="operator:test") as tx:
            tx.define("lives_in", "one")
            tx.add("s", "Ann", "lives_in", "Paris", valid_from="2024-01-01")
            tx.add("t", "Bob", "likes", "tea", valid_from="2024-01-01")
            tx.add("s", "Ann", "likes", "jazz", valid_from="2024-01-01")
            tx.add("s", "Ann", "likes", "東京の寿司", valid_from="2024-01-01")
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("s", "Cy", "likes", "folk", valid_from="2024-01-01")
            tx.supersede("s", "Ann", "lives_in", "Rome", valid_from="2024-06-01")
    finally:
        ledger.close()
    fts, expected, trigram, outbox = _rows(ledger_path)
    assert fts == expected and len(fts) == 7
    by_id = {row[0]: row for row in fts}
    # The window is (scope, transaction): Bob's row in scope t has no neighbour; Ann's jazz has both.
    assert by_id[2][2] == ""
    assert by_id[3][2] == f"{by_id[1][1]} {by_id[4][1]}"
    assert [row[0] for row in trigram] == [4]
    # Closes are reported before the opens of the same transaction, as the flush writes them.
    assert outbox == [(1, "insert"), (2, "insert"), (3, "insert"), (4, "insert"), (1, "close"),
                      (5, "insert"), (6, "insert"), (7, "insert")]
    reopened = Ledger.open(ledger_path, read_only=True)
    try:
        assert verify_ledger(reopened).ok and recorder_for(reopened).lexical_faults() == []
    finally:
        reopened.close()


def test_a_refused_transaction_leaves_no_lane_rows(ledger_path) -> None:
    ledger = Ledger.open(ledger_path)
    try:
        with ledger.transaction(principal="operator:test") as tx:
            tx.define("lives_in", "one")
            tx.add("s", "Ann", "lives_in", "Paris", valid_from="2024-01-01")
        with pytest.raises(ConflictError):
            with ledger.transaction(principal="operator:test") as tx:
                tx.add("s", "Bob", "lives_in", "Oslo", valid_from="2024-01-01")
                tx.add("s", "Ann", "lives_in", "Lima", valid_from="2024-01-01")  # conflicts with Paris
    finally:
        ledger.close()
    fts, expected, _, outbox = _rows(ledger_path)
    assert fts == expected and [row[0] for row in fts] == [1]
    assert outbox == [(1, "insert")]


def test_a_raw_version_without_its_chain_row_is_unindexed_and_verify_says_so(ledger_path) -> None:
    """What moving the lanes to the chain row trades: a client outside factledger that inserts a version
    (every rule of the claims INSERT still holds) but no hash row and chain row gets no lexical row; no
    rule refused that before either, and `verify` reports it now in both checks."""
    ledger = Ledger.open(ledger_path)
    try:
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("s", "Ann", "likes", "jazz", valid_from="2024-01-01")
    finally:
        ledger.close()
    conn = sqlite3.connect(ledger_path, isolation_level=None)
    conn.executescript(
        "BEGIN;"
        "INSERT INTO transactions (tx_time, principal) VALUES (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '999Z', 'operator:mallory');"
        "INSERT INTO claims (scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from, tx_from, opened_by)"
        " SELECT 's', 'ann', 'Ann', 'likes', 'many', 'folk', 'folk', '2024-01-01T00:00:00.000000Z', tx_time, id"
        " FROM transactions ORDER BY id DESC LIMIT 1;"
        "COMMIT;"
    )
    conn.close()
    fts, expected, _, _ = _rows(ledger_path)
    assert [row[0] for row in fts] == [1] and [row[0] for row in expected] == [1, 2]
    reopened = Ledger.open(ledger_path, read_only=True)
    try:
        failed = {check.name for check in verify_ledger(reopened).failed}
        assert "hash_chain" in failed
        assert [(f.id, f.problem) for f in recorder_for(reopened).lexical_faults()] == [(2, "missing")]
    finally:
        reopened.close()
