"""One Recall per vector-index folder per process, shared by the provider instances that use it.

Why: the vector companion is one LanceDB folder. Two Recall objects over the same folder in one process
each believe they own it: at first use both rebuild it (each deleting the other's files), and later both
drain the same outbox rows. One Recall is thread-safe and serialises that upkeep under its own lock, so
the gateway's many provider instances share it, like they share the database file. It holds no
per-user state: every search names its scopes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from factledger.ledger import Ledger
from factledger.recall import Recall, RecallConfig


@dataclass
class _Shared:
    recall: Recall
    ledger: Ledger
    users: int


_lock = threading.Lock()
_shared: dict[tuple[str, str], _Shared] = {}


def _key(index_dir: Path, config: RecallConfig | None) -> tuple[str, str]:
    return (str(index_dir.resolve()), (config or RecallConfig()).name)


def acquire(ledger_path: Path, index_dir: Path, config: RecallConfig | None = None) -> Recall:
    """The process's Recall for this folder (opened on first use); pair every call with `release`."""
    key = _key(index_dir, config)
    with _lock:
        entry = _shared.get(key)
        if entry is None:
            ledger = Ledger.open(ledger_path)
            try:
                entry = _Shared(Recall(ledger, index_dir, config=config), ledger, 0)
            except BaseException:
                ledger.close()
                raise
            _shared[key] = entry
        entry.users += 1
        return entry.recall


def release(recall: Recall) -> None:
    """Drop one use; the last one closes the Recall and its ledger connection."""
    with _lock:
        for key, entry in list(_shared.items()):
            if entry.recall is recall:
                entry.users -= 1
                if entry.users <= 0:
                    del _shared[key]
                    entry.recall.close()
                    entry.ledger.close()
                return
