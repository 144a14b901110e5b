"""The shared history strategy (tests/strategies.py) and `apply_history` do what their docstring says."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from factledger.ledger import Ledger
from factledger.ledger.ops import group_transactions, read_operations
from tests.strategies import GRID, SETUP_TX_TIME, SLOTS, apply_history, canonical, histories


# Each example opens a fresh ledger: a file on SQLite, a database on PostgreSQL (fewer: each is a copy).
EXAMPLES = {"sqlite": 40, "postgres": 20}


@pytest.mark.both_engines
def test_apply_history_commits_or_records_every_transaction(ledger_engine, new_ledger_location):
    @settings(max_examples=EXAMPLES[ledger_engine], deadline=None)
    @given(histories())
    def check(history):
        with Ledger.open(new_ledger_location()) as ledger:
            applied = apply_history(ledger, history)
            indexes = sorted([i for i, _ in applied.committed] + [i for i, _ in applied.refused])
            assert indexes == list(range(len(history.transactions) + 1))
            assert applied.committed[0][0] == 0  # the define transaction
            stored = [r["tx_time"] for r in ledger.storage.query("SELECT tx_time FROM transactions ORDER BY id")]
            assert stored == [result.tx_time for _, result in applied.committed]
            wanted = [SETUP_TX_TIME] + [tx.tx_time for tx in history.transactions]
            assert stored == [wanted[i] for i, _ in applied.committed]
            assert {p.name: p.cardinality for p in ledger.predicates()} == {s.predicate: s.cardinality for s in SLOTS}

    check()


@settings(max_examples=40, deadline=None)
@given(histories())
def test_jsonl_groups_into_the_same_transactions(history):
    batches = list(group_transactions(read_operations(history.jsonl().splitlines())))
    assert len(batches) == len(history.transactions) + 1
    for batch, tx in zip(batches[1:], history.transactions):
        assert canonical(batch.first.tx_time) == tx.tx_time in GRID
        assert [op.op for op in batch.ops] == [line["op"] for line in tx.ops]
