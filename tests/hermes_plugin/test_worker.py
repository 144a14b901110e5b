"""The background digest worker: batching, flushing, surviving a failing batch."""

from __future__ import annotations

import gc
import threading
import time
import weakref

import pytest

from factledger.hermes_plugin.worker import DigestWorker


class Backlog:
    """A queue of entries the worker drains in batches, recording which thread did the work."""

    def __init__(self, batch: int, fail_times: int = 0):
        self.batch = batch
        self.items: list[int] = []
        self.done: list[int] = []
        self.threads: set[str] = set()
        self.fail_times = fail_times
        self.lock = threading.Lock()
        self.drained = threading.Event()

    def add(self, n: int) -> None:
        with self.lock:
            self.items.extend(range(len(self.items) + len(self.done), len(self.items) + len(self.done) + n))

    def run(self) -> int:
        self.threads.add(threading.current_thread().name)
        if self.fail_times:
            self.fail_times -= 1
            raise RuntimeError("model unreachable")
        with self.lock:
            taken, self.items = self.items[: self.batch], self.items[self.batch :]
            self.done.extend(taken)
        return len(taken)


@pytest.fixture
def backlog():
    return Backlog(batch=3)


def make(backlog: Backlog, *, batch_size: int = 3, max_delay: float = 3600.0) -> DigestWorker:
    return DigestWorker(backlog.run, batch_size=batch_size, max_delay=max_delay, after_drain=backlog.drained.set)


def test_nothing_runs_below_a_batch_until_flushed_and_never_on_the_caller_thread(backlog):
    worker = make(backlog)
    backlog.add(2)
    worker.notify(2)
    assert backlog.done == []
    assert worker.flush(wait=True, timeout=10)
    assert backlog.done == [0, 1]
    assert backlog.threads == {"factledger-digest"}
    assert worker.stop(timeout=10)


def test_a_full_batch_wakes_the_worker(backlog):
    worker = make(backlog)
    backlog.add(3)
    worker.notify(3)
    assert backlog.drained.wait(10)
    assert backlog.done == [0, 1, 2]
    worker.stop(timeout=10)


def test_the_delay_wakes_the_worker_for_a_partial_batch(backlog):
    worker = make(backlog, max_delay=0.05)
    backlog.add(1)
    worker.notify(1)
    assert backlog.drained.wait(10)
    assert backlog.done == [0]
    worker.stop(timeout=10)


def test_a_failing_batch_is_reported_and_retried_later():
    backlog = Backlog(batch=3, fail_times=1)
    worker = make(backlog)
    backlog.add(2)
    worker.notify(2)
    worker.flush(wait=True, timeout=10)
    assert backlog.done == [] and "model unreachable" in (worker.last_error or "")
    assert worker.alive
    worker.flush(wait=True, timeout=10)
    assert backlog.done == [0, 1] and worker.last_error is None
    worker.stop(timeout=10)


def test_stop_digests_what_is_pending(backlog):
    worker = make(backlog)
    backlog.add(7)
    worker.notify(1)  # fewer notifications than entries: the drain still takes everything
    assert worker.stop(timeout=10)
    assert backlog.done == list(range(7))
    assert not worker.alive
    assert worker.flush(wait=True, timeout=1) is False


def wait_until(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.01)
    return predicate()


def test_an_idle_worker_ends_its_thread_and_starts_again_when_needed(backlog):
    worker = DigestWorker(backlog.run, batch_size=3, max_delay=3600.0, idle_exit=0.05)
    backlog.add(1)
    assert worker.flush(wait=True, timeout=10) and backlog.done == [0]
    assert wait_until(lambda: not worker.alive)
    backlog.add(2)
    assert worker.flush(wait=True, timeout=10) and backlog.done == [0, 1, 2]
    assert worker.starts == 2
    assert worker.stop(timeout=10)


def test_an_abandoned_owner_is_freed_once_its_worker_goes_idle():
    # Hermes's gateway drops evicted agents without shutting their provider down.
    owner = Backlog(batch=3)
    owner.worker = DigestWorker(owner.run, batch_size=3, max_delay=3600.0, idle_exit=0.05)
    owner.add(1)
    owner.worker.flush(wait=True, timeout=10)
    gone = weakref.ref(owner)
    worker = owner.worker
    del owner
    assert wait_until(lambda: not worker.alive)
    del worker
    gc.collect()
    assert gone() is None


def test_stop_without_a_drain_ends_the_thread_and_digests_nothing_more(backlog):
    # What an exit that handed its digest to another process does: the thread ends, the entries stay.
    worker = make(backlog)
    backlog.add(2)
    worker.notify(2)
    assert worker.alive
    assert worker.stop(timeout=10, drain=False)
    assert not worker.alive and backlog.done == [] and backlog.threads == set()
    assert worker.wait(0) and not worker.busy  # nobody waits for a drain that will not run
    assert worker.flush(wait=True, timeout=1) is False  # stopped for good


def test_busy_while_a_drain_runs():
    release, started = threading.Event(), threading.Event()

    def slow_batch() -> int:
        started.set()
        release.wait(30)
        return 0

    worker = DigestWorker(slow_batch, batch_size=10, max_delay=3600.0)
    assert not worker.busy
    worker.flush(wait=False)
    assert started.wait(30) and worker.busy
    release.set()
    assert worker.wait(30) and not worker.busy
    assert worker.stop(timeout=10)
