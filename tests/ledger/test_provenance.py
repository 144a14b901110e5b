"""A write that repeats a held value changes no version but keeps its provenance, and erase follows it."""

from __future__ import annotations

import pytest

from factledger.ledger import IntegrityError

pytestmark = pytest.mark.both_engines  # the contract suite: SQLite and PostgreSQL (tests/conftest.py)


def _claims(ledger):
    return ledger.storage.one("SELECT COUNT(*) FROM claims")[0]


def test_repeated_add_records_provenance_without_a_version(fresh_ledger):
    with fresh_ledger.transaction(principal="digest:rules", sources=["journal:1"]) as tx:
        tx.add("s", "user", "lives_in", "Lisbon", valid_from="2024-01-01", source="journal:1")
    before = _claims(fresh_ledger)
    with fresh_ledger.transaction(principal="digest:rules", sources=["journal:7"]) as tx:
        result = tx.add("s", "user", "lives_in", "lisbon ", valid_from="2024-03-01", source="journal:7")
    assert result.noop and _claims(fresh_ledger) == before
    rows = fresh_ledger.storage.query("SELECT claim_id, tx_id, source FROM claim_provenance")
    assert [(r["source"], r["tx_id"]) for r in rows] == [("journal:7", tx.id)]


def test_repetition_inside_the_opening_transaction_merges_into_the_new_version(fresh_ledger):
    with fresh_ledger.transaction(principal="digest:rules") as tx:
        tx.add("s", "user", "likes", "jazz", valid_from="2024-01-01", source="journal:1")
        tx.add("s", "user", "likes", "jazz", valid_from="2024-02-01", source="journal:2")
    [version] = fresh_ledger.current(["s"])
    assert version.source == ("journal:1", "journal:2")
    assert fresh_ledger.storage.query("SELECT * FROM claim_provenance") == []


def test_erase_follows_repeated_provenance(fresh_ledger):
    with fresh_ledger.transaction(principal="digest:rules") as tx:
        tx.add("s", "user", "phone", "555-0100", valid_from="2024-01-01", source="journal:1")
    with fresh_ledger.transaction(principal="digest:rules") as tx:
        tx.add("s", "user", "phone", "555-0100", valid_from="2024-05-01", source="journal:9")
    result = fresh_ledger.erase(scope="s", subject="user", predicate="phone", principal="operator:dpo")
    assert result.sources == ["journal:1", "journal:9"]
    assert fresh_ledger.storage.query("SELECT * FROM claim_provenance") == []


def test_provenance_is_append_only_outside_erase(fresh_ledger):
    with fresh_ledger.transaction(principal="digest:rules") as tx:
        tx.add("s", "user", "likes", "jazz", valid_from="2024-01-01")
    with fresh_ledger.transaction(principal="digest:rules") as tx:
        tx.add("s", "user", "likes", "jazz", valid_from="2024-01-01", source="journal:3")
    with pytest.raises(IntegrityError):
        fresh_ledger.storage.execute("DELETE FROM claim_provenance")
    with pytest.raises(IntegrityError):
        fresh_ledger.storage.execute("UPDATE claim_provenance SET source = 'x'")
