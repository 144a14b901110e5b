"""The background digest worker: one thread per provider instance, so no turn ever waits for digestion.

Turns are journaled on Hermes's side (cheap); the worker digests them in batches: when `batch_size`
entries are pending, when the oldest pending entry has waited `max_delay` seconds, or when asked
(session end, pre-compression, shutdown). A failing batch is logged and retried on the next wake-up;
the thread never dies of it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)
MAX_BATCHES_PER_DRAIN = 1000


class DigestWorker:
    def __init__(
        self,
        run_batch: Callable[[], int],
        *,
        batch_size: int,
        max_delay: float,
        name: str = "factledger-digest",
        after_drain: Callable[[], None] | None = None,
    ):
        """`run_batch` digests up to one batch and returns how many entries it handled (0: none left)."""
        self._run_batch = run_batch
        self._after_drain = after_drain
        self._batch_size = batch_size
        self._max_delay = max_delay
        self._cond = threading.Condition()
        self._pending = 0
        self._oldest: float | None = None
        self._requested = 0  # drain requests made ...
        self._completed = 0  # ... and drains finished (a generation counter each)
        self._stopping = False
        self.last_error: str | None = None
        self.failures = 0  # drains that raised (their entries stayed pending)
        self.batches = 0
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def notify(self, entries: int = 1) -> None:
        """New journal entries exist; digest them when a batch is full or the delay has passed."""
        if entries <= 0:
            return
        with self._cond:
            self._pending += entries
            if self._oldest is None:
                self._oldest = time.monotonic()
            self._cond.notify_all()

    def flush(self, *, wait: bool, timeout: float = 30.0) -> bool:
        """Digest everything pending now. With wait, block until done (True) or the timeout (False)."""
        with self._cond:
            if not self._thread.is_alive():
                return False
            self._requested += 1
            target = self._requested
            self._cond.notify_all()
            if not wait:
                return True
            return self._cond.wait_for(lambda: self._completed >= target or not self._thread.is_alive(), timeout) and (
                self._completed >= target
            )

    def stop(self, timeout: float = 30.0) -> bool:
        """Digest what is pending, then end the thread. True when it ended within the timeout."""
        with self._cond:
            self._stopping = True
            self._requested += 1
            self._cond.notify_all()
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _due(self) -> bool:
        if self._stopping or self._requested > self._completed or self._pending >= self._batch_size:
            return True
        return self._oldest is not None and time.monotonic() - self._oldest >= self._max_delay

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._due():
                    wait = None if self._oldest is None else max(0.0, self._max_delay - (time.monotonic() - self._oldest))
                    self._cond.wait(wait)
                target, stopping = self._requested, self._stopping
                self._pending, self._oldest = 0, None
            self._drain()
            with self._cond:
                self._completed = max(self._completed, target)
                self._cond.notify_all()
                if stopping and self._requested == target:
                    return

    def _drain(self) -> None:
        try:
            for _ in range(MAX_BATCHES_PER_DRAIN):  # bounded: a batch that keeps reporting work cannot spin forever
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
