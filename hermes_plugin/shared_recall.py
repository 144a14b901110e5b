"""One Recall per ledger (and so per vector-index folder) per process, shared by the provider instances that use it.

Why: each Recall loads its own embedder (~26 MB and 0.1-0.3 s for the default static model), and the
gateway keeps one provider instance per session; sharing pays that once per process. One Recall is
thread-safe and serialises the index upkeep (first build, outbox drains) under its own lock; recall's
file lock does the same across processes. It holds no per-user state: every search names its scopes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from factledger.ledger import Ledger
from factledger.ledger.pg_storage import is_postgres_url
from factledger.recall import Recall, RecallConfig


@dataclass
class _Shared:
    recall: Recall
    ledger: Ledger
    users: int


_lock = threading.Lock()
_shared: dict[tuple[str, str], _Shared] = {}


def _key(ledger_path: Path | str, config: RecallConfig | None) -> tuple[str, str]:
    where = ledger_path if is_postgres_url(str(ledger_path)) else str(Path(ledger_path).resolve())
    return (str(where), (config or RecallConfig()).name)


def acquire(ledger_path: Path | str, config: RecallConfig | None = None, *,
            clock: Callable[[], str] | None = None) -> Recall:
    """The process's Recall for this ledger (opened on first use); pair every call with `release`.
    Its vector folder is the one the ledger records (the CLI and every other process use the same).
    `clock` (tests and evals that replay a conversation's own dates) applies when it is opened."""
    key = _key(ledger_path, config)
    with _lock:
        entry = _shared.get(key)
        if entry is None:
            ledger = Ledger.open(ledger_path, **({"clock": clock} if clock is not None else {}))
            try:
                entry = _Shared(Recall(ledger, config=config), ledger, 0)
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
