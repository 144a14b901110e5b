"""The writers' queue keeps its two lock files open between a connection's transactions
(ledger/writer_queue.py, `WriterQueue._quick`): the kept descriptors still exclude other writers, a
removed lock file is opened again instead of locking a file nobody else sees, and closing the ledger
closes them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from factledger.ledger import BusyError, Ledger, writer_queue


def _write(ledger: Ledger, value: str) -> None:
    with ledger.transaction(principal="agent:test") as tx:
        tx.add("s", "u", "note", value)


def _open_fds(path: Path) -> int:
    """How many of this process's descriptors name a lock file of the ledger at `path`."""
    names = {f"{path}{suffix}" for suffix in writer_queue.LOCK_SUFFIXES}
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") in names:
                count += 1
        except OSError:
            pass
    return count


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir() or writer_queue.fcntl is None, reason="needs /proc and flock")
def test_kept_lock_files_still_exclude_and_close_with_the_ledger(ledger_path: Path) -> None:
    first, second = Ledger.open(ledger_path), Ledger.open(ledger_path)
    try:
        _write(first, "one")
        _write(second, "two")  # both keep their descriptors now, neither holds the turn
        assert _open_fds(ledger_path) == 4
        with first.storage.atomic():  # the turn taken on kept descriptors excludes the other connection
            with pytest.raises(BusyError, match="another writer holds the ledger"):
                with second.storage.atomic(wait=False):
                    pytest.fail("ran while the other connection held the writer lock")
        _write(second, "three")  # given back by unlocking: free again at once
        assert sorted(v.value for v in first.current(["s"])) == ["one", "three", "two"]
    finally:
        first.close()
        second.close()
    assert _open_fds(ledger_path) == 0


@pytest.mark.skipif(writer_queue.fcntl is None, reason="needs flock")
def test_a_removed_lock_file_is_opened_again(ledger_path: Path) -> None:
    """Someone deletes the lock files while a ledger is open: its next turn opens the new ones, so a
    writer that made them is still seen (the queue refuses at once, not SQLite after its timeout)."""
    first = Ledger.open(ledger_path)
    try:
        _write(first, "one")  # the files are kept open by `first`
        for suffix in writer_queue.LOCK_SUFFIXES:
            Path(f"{ledger_path}{suffix}").unlink()
        with Ledger.open(ledger_path) as second, second.storage.atomic():  # makes and locks new files
            with pytest.raises(BusyError, match="another writer holds the ledger"):
                with first.storage.atomic(wait=False):
                    pytest.fail("ran while the other connection held the writer lock")
        _write(first, "two")
        assert sorted(v.value for v in first.current(["s"])) == ["one", "two"]
    finally:
        first.close()
