"""Writers wait their turn fairly (ledger/writer_queue.py): a writer that commits back to back cannot keep
another out past its timeout; a wait says so and ends in BusyError that wrote nothing; a writer killed
while holding its turn does not block the next."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from factledger.ledger import BusyError, Ledger, writer_queue

HOG = textwrap.dedent(
    """
    import sys, time
    from factledger.ledger import Ledger
    ledger = Ledger.open(sys.argv[1])
    stop = time.monotonic() + float(sys.argv[2])
    n = 0
    print("started", flush=True)
    while time.monotonic() < stop:  # back-to-back transactions of 20 ms each, no pause between them
        with ledger.transaction(principal="agent:hog", reason=f"hog-{n}") as tx:
            tx.add("hog", "hog", "note", f"entry {n}")
            time.sleep(0.02)
        n += 1
    print(n, flush=True)
    """
)

HOLD_THEN_SLEEP = textwrap.dedent(
    """
    import sys, time
    from factledger.ledger import Ledger
    ledger = Ledger.open(sys.argv[1])
    with ledger.transaction(principal="agent:holder", reason="never committed") as tx:
        tx.add("hold", "hold", "note", "never committed")
        print("holding", flush=True)
        time.sleep(60)
    """
)


def _define(path: Path) -> None:
    with Ledger.open(path) as ledger, ledger.transaction(principal="operator:test") as tx:
        tx.define("note", "many")


def test_a_writer_committing_back_to_back_does_not_starve_another(ledger_path: Path) -> None:
    _define(ledger_path)
    hog = subprocess.Popen([sys.executable, "-c", HOG, str(ledger_path), "20"], stdout=subprocess.PIPE, text=True)
    try:
        assert hog.stdout.readline().strip() == "started"
        time.sleep(0.2)  # the hog is in its loop
        ledger = Ledger.open(ledger_path, timeout=2.0)
        waits = []
        for i in range(15):  # with SQLite's polling alone these end in BusyError: the hog re-takes the lock first
            with ledger.transaction(principal="agent:test", reason=f"mine-{i}") as tx:
                tx.add("mine", "me", "note", f"entry {i}")
            waits.append(ledger.storage.last_wait)
        assert hog.poll() is None, "the hog was still writing throughout"
        mine = ledger.storage.query("SELECT COUNT(*) FROM transactions WHERE reason LIKE 'mine-%'")[0][0]
        assert mine == 15
        assert max(waits) < 1.0  # about one of the hog's transactions, not the timeout
        ledger.close()
    finally:
        hog.kill()
        hog.wait()


def test_a_long_wait_says_so_and_gives_up_writing_nothing(ledger_path: Path, monkeypatch, caplog) -> None:
    _define(ledger_path)
    monkeypatch.setattr(writer_queue, "NOTICE_EVERY", 0.1)
    holder = Ledger.open(ledger_path)
    waiter = Ledger.open(ledger_path, timeout=0.6)
    before = waiter.storage.query("SELECT COUNT(*) FROM transactions")[0][0]
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with holder.transaction(principal="agent:holder") as tx:
            tx.add("s", "a", "note", "held")
            held.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert held.wait(5)
        with caplog.at_level(logging.WARNING, logger="factledger.ledger"):
            with pytest.raises(BusyError, match="busy for 1 s|busy for 0 s"):
                with waiter.transaction(principal="agent:waiter") as tx:
                    tx.add("s", "b", "note", "never")
        assert any("waiting" in r.getMessage() and "writer" in r.getMessage() for r in caplog.records)
    finally:
        release.set()
        thread.join()
    after = waiter.storage.query("SELECT COUNT(*) FROM transactions")[0][0]
    assert after == before + 1  # the holder's transaction only
    # The abandoned wait let its turn go: the next write goes straight in.
    with waiter.transaction(principal="agent:waiter") as tx:
        tx.add("s", "b", "note", "now")
    assert waiter.storage.last_wait < 0.5
    holder.close()
    waiter.close()


def test_a_writer_killed_holding_its_turn_does_not_block_the_next(ledger_path: Path) -> None:
    _define(ledger_path)
    proc = subprocess.Popen([sys.executable, "-c", HOLD_THEN_SLEEP, str(ledger_path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "holding"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with Ledger.open(ledger_path, timeout=3.0) as ledger:
        with ledger.transaction(principal="agent:next") as tx:
            tx.add("s", "a", "note", "after the kill")
        assert [v.value for v in ledger.current(["hold"])] == []  # the killed transaction left nothing
        assert [v.value for v in ledger.current(["s"])] == ["after the kill"]


def test_no_lock_files_for_read_only_or_in_memory_ledgers(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # where an in-memory ledger's lock files would land, were there any
    path = tmp_path / "ledger.db"
    _define(path)
    for suffix in writer_queue.LOCK_SUFFIXES:
        Path(f"{path}{suffix}").unlink()
    with Ledger.open(path, read_only=True) as ledger:
        assert ledger.predicate("note") is not None
    with Ledger.open(":memory:") as ledger, ledger.transaction(principal="operator:test") as tx:
        tx.define("note", "many")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".lock")) == []
    with Ledger.open(path) as ledger, ledger.transaction(principal="operator:test") as tx:
        tx.add("s", "a", "note", "written")  # a writer does queue: the test sees the files it would miss
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".lock")) == ["ledger.db-queue.lock", "ledger.db-writer.lock"]


def test_a_write_that_will_not_wait_is_busy_at_once_and_the_lock_stays_whole(ledger_path: Path) -> None:
    """atomic(wait=False) (the review page's previews): another connection in its write transaction makes
    it BusyError at once, with nothing written and its turn given back; once free it runs."""
    with Ledger.open(ledger_path) as holder, Ledger.open(ledger_path) as other:
        with holder.storage.atomic():
            with pytest.raises(BusyError, match="another writer holds the ledger"):
                with other.storage.atomic(wait=False):
                    pytest.fail("ran while the other connection held the writer")
        with other.storage.atomic(wait=False):  # the refused try left no lock behind
            with other.transaction(principal="agent:t", reason="after") as tx:
                tx.add("s", "u", "note", "after")
        assert [v.value for v in holder.current(["s"], predicate="note")] == ["after"]
