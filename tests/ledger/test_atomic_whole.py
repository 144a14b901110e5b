"""`atomic(whole=True)`, the transaction an import runs in: the ledger transactions inside it join it (no
savepoint each), a refusal anywhere writes nothing, and a nested failure whose error was caught still
keeps the whole from committing."""

from __future__ import annotations

import pytest

from factledger.ledger import LedgerError, StorageError

pytestmark = pytest.mark.both_engines


def _write(ledger, value: str, tx_time: str) -> None:
    with ledger.transaction(principal="import:test", tx_time=tx_time) as tx:
        tx.add("s", "Ann", "likes", value)


def test_nested_transactions_commit_together(fresh_ledger) -> None:
    with fresh_ledger.storage.atomic(whole=True):
        _write(fresh_ledger, "tea", "2024-01-01T00:00:00Z")
        _write(fresh_ledger, "jam", "2024-01-02T00:00:00Z")
        assert fresh_ledger.storage.in_transaction
    assert sorted(c.value for c in fresh_ledger.as_of()) == ["jam", "tea"]
    assert not fresh_ledger.storage.in_transaction


def test_a_refusal_inside_writes_nothing(fresh_ledger) -> None:
    with pytest.raises(LedgerError):
        with fresh_ledger.storage.atomic(whole=True):
            _write(fresh_ledger, "tea", "2024-01-02T00:00:00Z")
            _write(fresh_ledger, "jam", "2024-01-01T00:00:00Z")  # not later than the last: refused
    assert fresh_ledger.as_of() == [] and fresh_ledger.last_tx_time() is None


def test_a_caught_failure_inside_still_commits_nothing(fresh_ledger) -> None:
    # Without savepoints a failed nested block cannot be undone alone: the whole must not commit.
    with pytest.raises(StorageError, match="nothing was written"):
        with fresh_ledger.storage.atomic(whole=True):
            _write(fresh_ledger, "tea", "2024-01-01T00:00:00Z")
            try:
                _write(fresh_ledger, "jam", "2024-01-01T00:00:00Z")
            except LedgerError:
                pass
    assert fresh_ledger.as_of() == [] and fresh_ledger.last_tx_time() is None
    _write(fresh_ledger, "tea", "2024-01-01T00:00:00Z")  # the next transaction is an ordinary one again
    assert [c.value for c in fresh_ledger.as_of()] == ["tea"]


def test_without_whole_a_nested_failure_is_its_own(fresh_ledger) -> None:
    with fresh_ledger.storage.atomic():
        _write(fresh_ledger, "tea", "2024-01-01T00:00:00Z")
        try:
            _write(fresh_ledger, "jam", "2024-01-01T00:00:00Z")
        except LedgerError:
            pass
    assert [c.value for c in fresh_ledger.as_of()] == ["tea"]
