"""One ledger transaction: all or nothing, its record (who, when, why, from where), and an operation that
fails inside it without the caller giving up the transaction."""

from __future__ import annotations

import pytest

from factledger.ledger import ConflictError, ValidationError

pytestmark = pytest.mark.both_engines  # the contract suite: SQLite and PostgreSQL (tests/conftest.py)


def _count(ledger, table):
    return ledger.storage.one(f"SELECT COUNT(*) FROM {table}")[0]


def test_a_failed_operation_caught_inside_the_transaction_leaves_no_trace(clocked_ledger):
    with clocked_ledger.transaction(principal="digest:rules", reason="batch") as tx:
        tx.define("lives_in", "one")
        tx.add("s", "Ann", "lives_in", "Paris", valid_from="2024-01-01")
        with pytest.raises(ConflictError):
            tx.add("s", "Ann", "lives_in", "Rome", valid_from="2024-03-01")
        tx.supersede("s", "Ann", "lives_in", "Rome", valid_from="2024-06-01")
    assert [op.op for op in tx.result.ops] == ["add", "supersede"]
    current = [(v.value, v.valid_from[:10], v.valid_to and v.valid_to[:10]) for v in clocked_ledger.as_of(["s"], valid_at="2024-02-01")]
    assert current == [("Paris", "2024-01-01", "2024-06-01")]
    # Paris [2024-01-01, …) was opened and cut in the same transaction: only its final shape is written.
    assert _count(clocked_ledger, "claims") == 2


def test_an_exception_in_the_block_writes_nothing(clocked_ledger):
    with clocked_ledger.transaction(principal="operator:test") as tx:
        tx.add("s", "Ann", "likes", "jazz", valid_from="2024-01-01")
    before = (_count(clocked_ledger, "claims"), _count(clocked_ledger, "transactions"), _count(clocked_ledger, "predicates"))
    with pytest.raises(RuntimeError):
        with clocked_ledger.transaction(principal="operator:test") as tx:
            tx.define("works_at", "one")
            tx.add("s", "Ann", "works_at", "Acme", valid_from="2024-01-01")
            raise RuntimeError("the caller changed its mind")
    assert (_count(clocked_ledger, "claims"), _count(clocked_ledger, "transactions"), _count(clocked_ledger, "predicates")) == before
    assert clocked_ledger.predicate("works_at") is None  # the cached registry forgot the failed definition


@pytest.mark.parametrize(
    "sources,recorded",
    [("journal:12", ["journal:12"]), (["journal:1", "journal:2"], ["journal:1", "journal:2"]), ((), [])],
)
def test_the_transaction_records_its_sources(clocked_ledger, sources, recorded):
    with clocked_ledger.transaction(principal="digest:rules", reason="turns", sources=sources) as tx:
        tx.add("s", "Ann", "likes", "jazz")
    record = clocked_ledger.transaction_record(tx.id)
    assert (record.principal, record.reason, list(record.sources)) == ("digest:rules", "turns", recorded)


@pytest.mark.parametrize("principal", ["", "nobody", "operator:", "root:alice", None])
def test_a_principal_of_no_known_form_is_refused(clocked_ledger, principal):
    with pytest.raises(ValidationError) as info:
        with clocked_ledger.transaction(principal=principal):
            pass
    assert info.value.field == "principal"


def test_tx_time_increases_whatever_the_clock_does(clocked_ledger, clock):
    times = []
    for now in ["2025-01-01T00:00:00.000000Z", "2025-01-01T00:00:00.000000Z", "2024-01-01T00:00:00.000000Z", "2025-02-01T00:00:00.000000Z"]:
        clock.now = now
        with clocked_ledger.transaction(principal="operator:test") as tx:
            pass
        times.append(tx.tx_time)
    assert times == sorted(set(times))
    assert times[1] == "2025-01-01T00:00:00.000001Z" and times[2] == "2025-01-01T00:00:00.000002Z"
    assert times[3] == "2025-02-01T00:00:00.000000Z"
    with pytest.raises(ValidationError) as info:
        with clocked_ledger.transaction(principal="import:x", tx_time=times[3]):
            pass
    assert info.value.field == "tx_time"


def test_add_defaults_its_start_to_the_transaction_time(clocked_ledger, clock):
    clock.now = "2025-03-04T05:06:07.000000Z"
    with clocked_ledger.transaction(principal="operator:test") as tx:
        tx.add("s", "Ann", "likes", "jazz")
    (version,) = clocked_ledger.current(["s"])
    assert version.valid_from == version.tx_from == "2025-03-04T05:06:07.000000Z"
