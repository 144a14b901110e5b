"""The background digest worker: a thread per provider instance, so no turn ever waits for digestion.

Turns are journaled on Hermes's side (cheap); the worker digests them in batches: when `batch_size`
entries are pending, when the oldest pending entry has waited `max_delay` seconds, or when asked
(session end, pre-compression, shutdown). A failing batch is logged and retried on the next wake-up;
the thread never dies of it.

The thread ends after `idle_exit` seconds with nothing to do and starts again on the next request.
Hermes's gateway evicts idle agents without shutting their memory provider down (it only releases the
model clients), so a thread that lived forever would keep every evicted session's connections alive.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)
MAX_BATCHES_PER_DRAIN = 1000
IDLE_EXIT_SECONDS = 300.0


class DigestWorker:
    def __init__(
        self,
        run_batch: Callable[[], int],
        *,
        batch_size: int,
        max_delay: float,
        name: str = "factledger-digest",
        after_drain: Callable[[], None] | None = None,
        idle_exit: float = IDLE_EXIT_SECONDS,
        on_failure: Callable[[str], None] | None = None,
    ):
        """`run_batch` digests up to one batch and returns how many entries it handled (0: none left)."""
        self._run_batch = run_batch
        self._after_drain = after_drain
        self._on_failure = on_failure  # told each failed drain's error (the user's warning line)
        self._batch_size = batch_size
        self._max_delay = max_delay
        self._idle_exit = idle_exit
        self._name = name
        self._cond = threading.Condition()
        self._pending = 0
        self._oldest: float | None = None
        self._requested = 0  # drain requests made ...
        self._completed = 0  # ... and drains finished (a generation counter each)
        self._stopped = False
        self._upkeep = False  # `after_drain` asked for on its own (no digest)
        self._thread: threading.Thread | None = None
        self._running = False  # a drain is under way on the thread
        self._final_drain = True  # stop() digests what is pending first
        self.last_error: str | None = None
        self.failures = 0  # drains that raised (their entries stayed pending)
        self.batches = 0
        self.starts = 0  # threads started (a new one after each idle exit)

    def _ensure_thread(self) -> None:
        """Start the thread if it is not running (called with the condition held)."""
        if self._thread is None and not self._stopped:
            self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
            self.starts += 1
            self._thread.start()

    def notify(self, entries: int = 1) -> None:
        """New journal entries exist; digest them when a batch is full or the delay has passed."""
        if entries <= 0:
            return
        with self._cond:
            self._pending += entries
            if self._oldest is None:
                self._oldest = time.monotonic()
            self._ensure_thread()
            self._cond.notify_all()

    def flush(self, *, wait: bool, timeout: float = 30.0) -> bool:
        """Digest everything pending now. With wait, block until done (True) or the timeout (False).
        False at once after `stop`."""
        with self._cond:
            if self._stopped:
                return False
            self._requested += 1
            target = self._requested
            self._ensure_thread()
            self._cond.notify_all()
            if not wait:
                return True
            return self._cond.wait_for(lambda: self._completed >= target, timeout)

    def wait(self, timeout: float) -> bool:
        """Block until every drain requested so far has finished (True) or the timeout (False); asks
        for nothing itself."""
        with self._cond:
            target = self._requested
            return self._cond.wait_for(lambda: self._completed >= target, timeout)

    def upkeep(self) -> None:
        """Run `after_drain` soon on the worker (the vector index's upkeep) without digesting anything."""
        with self._cond:
            if self._stopped:
                return
            self._upkeep = True
            self._ensure_thread()
            self._cond.notify_all()

    def stop(self, timeout: float = 30.0, *, drain: bool = True) -> bool:
        """Digest what is pending (drain=False: digest nothing more), then end the thread for good.
        True when it ended within the timeout."""
        with self._cond:
            if self._stopped and self._thread is None:
                return True
            if drain:
                self._requested += 1
                self._ensure_thread()  # a final drain even if the thread had gone idle
            else:
                self._pending, self._oldest, self._upkeep = 0, None, False
                self._completed = max(self._completed, self._requested)  # no waiter waits for a drain that will not run
            self._final_drain = drain
            self._stopped = True
            thread = self._thread
            self._cond.notify_all()
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    @property
    def busy(self) -> bool:
        """A drain is running or asked for (its digest may be under way on the thread)."""
        with self._cond:
            return self._running or self._requested > self._completed

    @property
    def alive(self) -> bool:
        with self._cond:
            return self._thread is not None and self._thread.is_alive()

    @property
    def _abandoned(self) -> bool:
        return self._stopped and not self._final_drain

    def _due(self) -> bool:
        return self._upkeep or self._digest_due()

    def _digest_due(self) -> bool:
        if self._stopped:
            return self._final_drain
        if self._requested > self._completed or self._pending >= self._batch_size:
            return True
        return self._oldest is not None and time.monotonic() - self._oldest >= self._max_delay

    def _loop(self) -> None:
        idle_since = time.monotonic()
        while True:
            with self._cond:
                while not self._due() and not self._abandoned:
                    if self._oldest is None:
                        left = self._idle_exit - (time.monotonic() - idle_since)
                        if left <= 0:  # nothing to do for a while: end; the next request starts a thread
                            self._thread = None
                            return
                        self._cond.wait(left)
                    else:
                        self._cond.wait(max(0.0, self._max_delay - (time.monotonic() - self._oldest)))
                if self._abandoned:  # stop(drain=False): end without digesting anything more
                    self._thread = None
                    self._cond.notify_all()
                    return
                digest = self._digest_due()
                target, stopping = self._requested, self._stopped
                if digest:
                    self._pending, self._oldest = 0, None
                self._upkeep = False
                self._running = True
            try:
                self._drain(digest=digest)
            finally:
                with self._cond:
                    self._running = False
            idle_since = time.monotonic()
            with self._cond:
                self._completed = max(self._completed, target)
                self._cond.notify_all()
                if stopping and self._requested == target:
                    self._thread = None
                    return

    def _drain(self, *, digest: bool = True) -> None:
        try:
            for _ in range(MAX_BATCHES_PER_DRAIN if digest else 0):  # bounded: a batch that keeps reporting work cannot spin forever
                if self._run_batch() <= 0:
                    break
                self.batches += 1
            if self._after_drain is not None:
                self._after_drain()
            self.last_error = None
        except Exception as exc:  # keep the worker alive; the entries stay pending for the next wake-up
            self.last_error = f"{type(exc).__name__}: {exc}"
            self.failures += 1
            logger.warning("factledger: background digest failed: %s", self.last_error, exc_info=True)
            if self._on_failure is not None:
                self._on_failure(self.last_error)
