"""Fair waiting for the ledger's one writer, across threads and processes.

SQLite lets one writer in at a time and makes the others poll: a waiter sleeps (up to 100 ms a try) while
the writer that just committed starts its next transaction at once, so a busy writer can keep the lock
for longer than the busy timeout and the others fail with `database is locked` (8 `factledger apply`
processes of 300 transactions: 2 gave up after 30 s). Here writers queue in the kernel instead, on two
lock files beside the ledger (`flock`, released by the kernel when a process dies, so a killed writer
never leaves the queue stuck):

- the writer lock `<ledger>-writer.lock` is held for the whole write transaction;
- the gate `<ledger>-queue.lock` is held by the one writer that is next: it takes the gate, then waits
  for the writer lock, then lets the gate go. A writer that has just committed and wants to write again
  must pass the gate like everyone else, so it can never take the lock twice while another waits;
  among those waiting at the gate the kernel wakes them when it is released, none favoured.

SQLite's own lock still guards the data (a client that ignores these files is serialised by SQLite as
before); the files only decide who goes next. A wait is bounded: the logger `factledger.ledger` warns
every few seconds while a writer waits, and after the timeout `BusyError` says how long it waited.
Where the files cannot be created (a read-only folder) or locked (a file system without flock), writers
fall back to SQLite's polling.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from .errors import BusyError

try:
    import fcntl
except ImportError:  # not POSIX: SQLite's own waiting is all there is
    fcntl = None  # type: ignore[assignment]

LOG = logging.getLogger("factledger.ledger")
LOCK_SUFFIXES = ("-writer.lock", "-queue.lock")
NOTICE_EVERY = 5.0  # seconds between "still waiting" warnings


class _NoLocks(Exception):
    """flock is not available on this file system."""


class _Wait:
    """A blocking flock taken on a helper thread, so that the caller can stop waiting at a deadline. An
    abandoned wait closes its own descriptor once the kernel grants it (closing releases the lock)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.done = threading.Event()
        self.guard = threading.Lock()
        self.granted = False
        self.abandoned = False
        self.error: OSError | None = None

    def run(self) -> None:
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except OSError as exc:
            self.error = exc
        with self.guard:
            if self.abandoned:
                os.close(self.fd)
                return
            self.granted = self.error is None
        self.done.set()


def _open(path: str) -> int | None:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError:
        return None


class WriterQueue:
    """Who writes next to one ledger file. `acquire` before BEGIN IMMEDIATE, `release` after COMMIT or
    ROLLBACK. One `WriterQueue` per connection; a connection's own threads are serialised before this."""

    def __init__(self, db_path: str, timeout: float):
        self.timeout = timeout
        self.paths = tuple(db_path + suffix for suffix in LOCK_SUFFIXES)
        self._held: int | None = None
        # The two files' descriptors (writer, gate), kept open between transactions: opening them is a
        # path lookup each, most of what a turn cost when the queue is free (a one-operation transaction
        # took ~4% of its CPU for it). Only the uncontended turn uses them (`_quick`); a writer that has to
        # wait queues with descriptors of its own, as before.
        self._kept: tuple[int, int] | None = None
        self._kept_held = False  # the held turn is the kept writer descriptor's lock (released by unlocking)
        self.enabled = fcntl is not None
        self.last_wait = 0.0  # seconds the latest acquire waited (0 when the queue was free)

    def acquire(self, timeout: float | None = None) -> None:
        """Take this file's writer turn, waiting up to `timeout` seconds (the queue's own bound when None;
        0 takes it only if it is free now, else BusyError at once)."""
        if not self.enabled:
            return
        if self._quick():
            self.last_wait = 0.0
            return
        writer_path, gate_path = self.paths
        gate = _open(gate_path)
        writer = _open(writer_path) if gate is not None else None
        if writer is None:  # cannot create the lock files here: SQLite's polling is the only queue
            if gate is not None:
                os.close(gate)
            self.enabled = False
            return
        started = time.monotonic()
        deadline = started + (self.timeout if timeout is None else timeout)
        try:
            self._take(gate, started, deadline, "the queue of writers")
        except _NoLocks:
            os.close(writer)
            self.enabled = False
            return
        except BaseException:
            os.close(writer)  # the gate's descriptor is already closed or left to its abandoned wait
            raise
        try:
            self._take(writer, started, deadline, "the writer lock")
        except _NoLocks:
            self.enabled = False
            return
        finally:
            os.close(gate)  # lets the next writer in line through the gate
        self._held = writer
        self.last_wait = time.monotonic() - started

    def _quick(self) -> bool:
        """The turn taken at once with the kept descriptors, when the gate and the writer lock are both
        free: the same two locks in the same order as `acquire`, without waiting. False (nothing held)
        when either is taken, or the files cannot be kept; `acquire` then queues as it always did."""
        kept = self._kept
        if kept is None or not self._still_linked(kept):
            self._close_kept()
            writer = _open(self.paths[0])
            gate = _open(self.paths[1]) if writer is not None else None
            if gate is None:
                if writer is not None:
                    os.close(writer)
                return False
            kept = self._kept = (writer, gate)
        writer, gate = kept
        try:
            fcntl.flock(gate, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # taken (or no flock here: the queue's own path finds out)
            return False
        try:
            fcntl.flock(writer, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)  # lets the next writer in line through the gate
        self._held, self._kept_held = writer, True
        return True

    @staticmethod
    def _still_linked(kept: tuple[int, int]) -> bool:
        # A lock file removed (and maybe made again by another writer) since it was opened: its old
        # descriptor would lock a file nobody else sees. Then the files are opened again.
        try:
            return os.fstat(kept[0]).st_nlink > 0 and os.fstat(kept[1]).st_nlink > 0
        except OSError:
            return False

    def _close_kept(self) -> None:
        if self._kept is not None:
            for fd in self._kept:
                os.close(fd)
            self._kept = None

    def release(self) -> None:
        if self._held is not None:
            fd, self._held = self._held, None
            if self._kept_held:
                self._kept_held = False
                fcntl.flock(fd, fcntl.LOCK_UN)
            else:
                os.close(fd)

    def close(self) -> None:
        """Give the turn back if held, and close the kept descriptors (the connection closes)."""
        self.release()
        self._close_kept()

    def __del__(self) -> None:  # a connection never closed: its kept descriptors go with it
        try:
            self._close_kept()
        except Exception:
            pass

    def _take(self, fd: int, started: float, deadline: float, what: str) -> None:
        """Lock fd, waiting in the kernel's queue until the deadline; on BusyError fd is no longer ours."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        except OSError:  # this file system has no flock (ENOLCK, ENOTSUP): SQLite's polling it is
            os.close(fd)
            raise _NoLocks from None
        if time.monotonic() >= deadline:  # a caller that would not wait (timeout 0): busy now
            os.close(fd)
            raise BusyError(f"another writer holds the ledger ({what} is taken); nothing of this transaction was written")
        wait = _Wait(fd)
        threading.Thread(target=wait.run, name="factledger-writer-wait", daemon=True).start()
        try:
            while not wait.done.wait(timeout=max(0.0, min(deadline - time.monotonic(), NOTICE_EVERY))):
                waited = time.monotonic() - started
                if time.monotonic() >= deadline:
                    raise BusyError(
                        f"other writers kept the ledger busy for {waited:.0f} s (waited for {what}); "
                        "nothing of this transaction was written"
                    )
                LOG.warning("factledger: waiting %.0f s for %s (other writers are ahead)", waited, what)
        except BaseException:
            with wait.guard:
                if not wait.granted and wait.error is None:
                    wait.abandoned = True  # the wait closes fd when the kernel grants it
                    raise
            os.close(fd)
            raise
        if wait.error is not None:
            os.close(fd)
            raise BusyError(f"cannot wait for {what}: {wait.error}")
