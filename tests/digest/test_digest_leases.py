"""Two digest runs on one ledger (a Hermes gateway and a CLI session) never pay a model twice for one
entry: each leases a window's entries before extracting them."""

from __future__ import annotations

import pytest

import threading
import time
from collections import Counter

from factledger.digest import Digester, Journal, Turn
from factledger.digest.journal import lease, release
from factledger.ledger import Ledger

# The contract suite: SQLite and PostgreSQL (tests/conftest.py); see erase_guard_on_engine (conftest).
pytestmark = [pytest.mark.both_engines, pytest.mark.usefixtures("erase_guard_on_engine")]


class SlowCountingExtractor:
    """Extracts nothing, slowly, and counts which entries it was asked about (what a model would be paid)."""

    name = "counting"

    def __init__(self, seen: Counter, lock: threading.Lock):
        self.seen, self.lock = seen, lock

    def extract(self, request):
        with self.lock:
            self.seen[request.entry.id] += 1
        time.sleep(0.01)
        return []


def test_two_runs_extract_each_entry_once(ledger_location):
    with Ledger.open(ledger_location) as ledger:
        journal = Journal(ledger)
        for i in range(40):
            journal.append(Turn(scope="s", text=f"turn number {i} about the garden", said_at=f"2025-01-01T10:{i:02d}:00Z"))
    seen: Counter = Counter()
    lock = threading.Lock()
    reports = []

    def digest():
        with Ledger.open(ledger_location) as ledger:
            reports.append(Digester(ledger, SlowCountingExtractor(seen, lock)).run())

    runs = [threading.Thread(target=digest) for _ in range(2)]
    for run in runs:
        run.start()
    for run in runs:
        run.join(timeout=60)
    assert sorted(seen) == list(range(1, 41)) and set(seen.values()) == {1}  # each entry extracted once
    assert sum(r.entries_digested for r in reports) == 40
    with Ledger.open(ledger_location) as ledger:
        assert Journal(ledger).backlog_size() == 0
        assert ledger.storage.one("SELECT COUNT(*) FROM digest_leases")[0] == 0  # every lease ended


def test_a_lease_is_exclusive_until_released_or_expired(ledger_location, clock):
    clock.now = "2025-01-01T10:00:00.000000Z"
    with Ledger.open(ledger_location, clock=clock) as ledger:
        journal = Journal(ledger)
        journal.append(Turn(scope="s", text="the hedge needs cutting", said_at="2025-01-01T09:00:00Z"))
        entries = journal.backlog()
        assert lease(ledger, entries, "run-a", 60) == entries
        assert lease(ledger, entries, "run-b", 60) == []  # held by run-a
        clock.now = "2025-01-01T10:01:01.000000Z"  # run-a crashed: its lease ran out
        assert lease(ledger, entries, "run-b", 60) == entries
        release(ledger, entries, "run-b")
        assert lease(ledger, entries, "run-a", 60) == entries


def _ended_process_pid() -> int:
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _one_entry(ledger: Ledger):
    Journal(ledger).append(Turn(scope="s", text="I grow tomatoes in the garden.", said_at="2025-01-01T10:00:00Z"))
    return Journal(ledger).backlog()


def test_a_lease_of_an_ended_process_on_this_host_is_taken_over_at_once(ledger_location):
    """Hermes's CLI exits with its last digest unfinished; the next session must not wait out that run's
    10-minute lease."""
    import socket

    with Ledger.open(ledger_location) as ledger:
        entries = _one_entry(ledger)
        cut_off = f"{socket.gethostname()}:{_ended_process_pid()}:run1"
        assert lease(ledger, entries, cut_off, 600) == entries
        assert [e.id for e in lease(ledger, entries, "next-session", 600)] == [entries[0].id]


@pytest.mark.parametrize("holder", ["elsewhere.example:1:run1", "{host}:{pid}:other-run-of-this-process", "{host}:1:init"])
def test_a_lease_of_a_live_or_foreign_holder_is_kept(ledger_location, holder):
    import os
    import socket

    with Ledger.open(ledger_location) as ledger:
        entries = _one_entry(ledger)
        other = holder.format(host=socket.gethostname(), pid=os.getpid())
        assert lease(ledger, entries, other, 600) == entries
        assert lease(ledger, entries, "next-session", 600) == []  # another host, or a process that runs
