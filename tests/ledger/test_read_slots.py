"""A batch reads its slots in one statement (`LedgerTx.read_slots`, what `apply` does before its
operations): the operations then see exactly what they would have read one by one, and write their
versions in the same order (the same claim ids), on both engines."""

from __future__ import annotations

import pytest

from factledger.ledger import ConflictError, Ledger, ValidationError
from factledger.ledger.ops import Batch, LineError, apply_batch, parse_operation

pytestmark = pytest.mark.both_engines


def _history(ledger) -> list[tuple]:
    return [(c.id, c.subject_key, c.predicate, c.value, c.valid_from, c.valid_to, c.tx_to is None)
            for c in ledger.as_of(known_at="9999-01-01")]


def _seed(ledger) -> None:
    with ledger.transaction(principal="operator:test") as tx:
        tx.define("lives_in", "one")
        tx.add("s", "Ann", "lives_in", "Paris", valid_from="2020-01-01")
        tx.add("s", "Ann", "likes", "jazz", valid_from="2020-01-01")


def _ops(tx) -> None:
    tx.add("s", "Cy", "unknown_predicate", "first", valid_from="2021-01-01")  # registered now, written first
    tx.supersede("s", "Ann", "lives_in", "Rome", valid_from="2022-01-01")
    tx.add("s", "Ann", "likes", "folk", valid_from="2021-01-01")
    tx.add("s", "Bob", "lives_in", "Oslo", valid_from="2021-01-01")
    tx.supersede("s", "Ann", "lives_in", "Lima", valid_from="2023-01-01")


def test_read_slots_then_operations_write_what_reading_one_by_one_writes(new_ledger_location) -> None:
    results = []
    for read_first in (False, True):
        ledger = Ledger.open(new_ledger_location())
        try:
            _seed(ledger)
            with ledger.transaction(principal="operator:test") as tx:
                if read_first:
                    tx.read_slots([("s", "Ann", "lives_in"), ("s", " ann ", "likes"), ("s", "Bob", "lives_in"),
                                   ("s", "Cy", "unknown_predicate"), ("", "Ann", "likes"), ("s", "", "likes")])
                _ops(tx)
            results.append((_history(ledger), len(tx.result.opened), sorted(tx.result.closed)))
        finally:
            ledger.close()
    assert results[0] == results[1]


def test_a_slot_read_up_front_still_refuses_a_conflict(fresh_ledger) -> None:
    _seed(fresh_ledger)
    with pytest.raises(ConflictError):
        with fresh_ledger.transaction(principal="operator:test") as tx:
            tx.read_slots([("s", "Ann", "lives_in")])
            tx.add("s", "Ann", "lives_in", "Oslo", valid_from="2021-01-01")
    assert [row[3] for row in _history(fresh_ledger)] == ["jazz", "Paris"]


def test_apply_reports_a_bad_line_by_its_own_error_after_reading_the_batch(fresh_ledger) -> None:
    _seed(fresh_ledger)
    batch = Batch([
        parse_operation({"op": "add", "scope": "s", "subject": "Ann", "predicate": "likes", "value": "folk"}, 1),
        parse_operation({"op": "add", "scope": "s", "subject": "   ", "predicate": "likes", "value": "tea"}, 2),
    ])
    with pytest.raises(LineError) as refused:
        apply_batch(fresh_ledger, batch, principal="operator:test")
    assert refused.value.line == 2 and isinstance(refused.value.error, ValidationError)
    assert [row[3] for row in _history(fresh_ledger)] == ["jazz", "Paris"]
