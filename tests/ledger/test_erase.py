"""Erase on both engines (DESIGN §3): operator only, every version of the value in every transaction, a tombstone that
keeps the value from coming back (in any spelling), and the provenance to follow into other parts."""

from __future__ import annotations

import pytest

from factledger.ledger import ErasedError, NotFoundError, PermissionDenied

from .erase_engines import engine_ledger  # noqa: F401 (a fixture)


@pytest.fixture
def ledger(engine_ledger):
    fresh_ledger = engine_ledger
    with fresh_ledger.transaction(principal="operator:test") as tx:
        tx.define("lives_in", "one")
        tx.define("likes", "many")
        tx.add("s", "Ann", "lives_in", "Paris", valid_from="2020-01-01", source="journal:1")
        tx.add("s", "Ann", "likes", "jazz", valid_from="2020-01-01", source="journal:2")
        tx.add("s", "Ann", "likes", "folk", valid_from="2020-01-01")
    with fresh_ledger.transaction(principal="operator:test") as tx:
        tx.supersede("s", "Ann", "lives_in", "Rome", valid_from="2022-01-01", source="journal:3")
    return fresh_ledger


def values(ledger, predicate):
    return sorted(e.version.value for e in ledger.history(["s"], subject="Ann", predicate=predicate))


@pytest.mark.parametrize("principal", ["agent:hermes", "digest:rules", "import:crm"])
def test_only_an_operator_may_erase(ledger, principal):
    with pytest.raises(PermissionDenied) as info:
        ledger.erase(scope="s", subject="Ann", predicate="likes", value="jazz", principal=principal)
    assert info.value.field == "principal"
    assert values(ledger, "likes") == ["folk", "jazz"]


def test_erase_removes_every_version_of_the_value_and_keeps_the_others(ledger):
    before = ledger.storage.one("SELECT COUNT(*) FROM transactions")[0]
    result = ledger.erase(scope="s", subject="ann", predicate="lives in", value="PARIS", principal="operator:dpo", reason="request 12")
    # Paris [2020, …) was closed by the supersede, which wrote its remainder [2020, 2022): both go.
    assert sorted((v.valid_to or "")[:4] for v in result.erased) == ["", "2022"]
    assert values(ledger, "lives_in") == ["Rome"]
    assert [v.value for v in ledger.current(["s"], predicate="lives_in")] == ["Rome"]
    assert ledger.as_of(["s"], valid_at="2021-01-01", predicate="lives_in") == []
    assert result.sources == ["journal:1"]
    assert len(result.tombstones) == 1
    record = ledger.transaction_record(result.tx)
    assert record.principal == "operator:dpo" and record.reason == "erase: request 12"
    assert ledger.storage.one("SELECT COUNT(*) FROM transactions")[0] == before + 1


def test_an_erased_value_cannot_come_back_in_any_spelling(ledger):
    ledger.erase(scope="s", subject="Ann", predicate="likes", value="jazz", principal="operator:dpo")
    assert ledger.is_erased("s", "ANN", "likes", " Jazz ")
    for write in (
        lambda tx: tx.add("s", "Ann", "likes", "JAZZ", valid_from="2024-01-01"),
        lambda tx: tx.supersede("s", "Ann", "likes", "jazz", replaces="folk", valid_from="2024-01-01"),
    ):
        with pytest.raises(ErasedError) as info:
            with ledger.transaction(principal="agent:hermes") as tx:
                write(tx)
        assert info.value.field == "value"
    # Another scope or another slot is not affected by the tombstone.
    with ledger.transaction(principal="agent:hermes") as tx:
        tx.add("t", "Ann", "likes", "jazz", valid_from="2024-01-01")
        tx.add("s", "Bob", "likes", "jazz", valid_from="2024-01-01")


def test_erase_of_a_whole_slot_and_of_nothing(ledger):
    result = ledger.erase(scope="s", subject="Ann", predicate="likes", principal="operator:dpo")
    assert sorted(v.value for v in result.erased) == ["folk", "jazz"] and len(result.tombstones) == 2
    assert values(ledger, "likes") == []
    with pytest.raises(NotFoundError):
        ledger.erase(scope="s", subject="Ann", predicate="likes", principal="operator:dpo")
    with pytest.raises(NotFoundError) as info:
        ledger.erase(scope="s", subject="Ann", predicate="lives_in", value="Oslo", principal="operator:dpo")
    assert info.value.field == "value"
