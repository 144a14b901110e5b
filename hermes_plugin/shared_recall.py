"""What the provider instances of one process share per ledger: one Recall (and so one vector-index
folder), and on PostgreSQL one connection pool.

Why a shared Recall: each Recall loads its own embedder (~26 MB and 0.1-0.3 s for the default static
model), and the gateway keeps one provider instance per session; sharing pays that once per process. One
Recall is thread-safe and serialises the index upkeep (first build, outbox drains) under its own lock;
recall's file lock does the same across processes. It holds no per-user state: every search names its
scopes.

Why a shared pool: every session opens a writer and a reader ledger, so a gateway with a hundred users
would hold two hundred idle connections (PostgreSQL's default max_connections is 100). Every ledger of
the process on one database URL draws from one `PostgresPool` instead: a turn's transaction holds one
connection while it runs, so concurrent users' turns run side by side, up to the pool's size, and
the process holds only the connections it is using (or has used lately). A SQLite file keeps one
connection per ledger, as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factledger.ledger import Ledger
from factledger.ledger.chain_key import DEFAULT_KEY
from factledger.ledger.pg_storage import PostgresPool, PostgresStorage, is_postgres_url
from factledger.recall import Recall, RecallConfig


@dataclass
class _Shared:
    recall: Recall
    ledger: Ledger
    users: int


_lock = threading.RLock()  # acquire opens its ledger through open_ledger while holding it
_shared: dict[tuple[str, str], _Shared] = {}
_pools: dict[str, list] = {}  # database URL -> [PostgresPool, ledgers open on it]
_pooled: dict[int, str] = {}  # id(ledger) -> the URL of the pool it draws from


def open_ledger(location: Path | str, *, clock: Callable[[], str] | None = None, chain_key: Any = DEFAULT_KEY) -> Ledger:
    """A ledger at `location`: on PostgreSQL drawing from the process's pool for that database (opened,
    and migrated, on first use); a SQLite file gets its own connection. Pair with `close_ledger`.
    `chain_key` as Ledger.open takes it (default: the key file beside a SQLite ledger)."""
    clocked: dict[str, Any] = {"clock": clock} if clock is not None else {}
    clocked["chain_key"] = chain_key
    if not is_postgres_url(str(location)):
        return Ledger.open(location, **clocked)
    url = str(location)
    with _lock:
        entry = _pools.get(url)
        if entry is None:
            entry = _pools[url] = [PostgresPool(url), 0]
        try:
            ledger = Ledger(PostgresStorage(entry[0]), **clocked)
        except BaseException:
            if entry[1] == 0:
                del _pools[url]
                entry[0].close()
            raise
        entry[1] += 1
        _pooled[id(ledger)] = url
    return ledger


def close_ledger(ledger: Ledger) -> None:
    """Close a ledger from `open_ledger`; the last one on a pool closes the pool."""
    ledger.close()
    with _lock:
        url = _pooled.pop(id(ledger), None)
        entry = _pools.get(url) if url is not None else None
        if entry is not None:
            entry[1] -= 1
            if entry[1] <= 0:
                del _pools[url]
                entry[0].close()


def pool_for(location: Path | str) -> PostgresPool | None:
    """The process's pool for this database URL while a ledger uses it (None for SQLite, or unused)."""
    with _lock:
        entry = _pools.get(str(location))
        return entry[0] if entry is not None else None


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
            ledger = open_ledger(ledger_path, clock=clock)
            try:
                entry = _Shared(Recall(ledger, config=config), ledger, 0)
            except BaseException:
                close_ledger(ledger)
                raise
            _shared[key] = entry
        entry.users += 1
        return entry.recall


def release(recall: Recall) -> None:
    """Drop one use; the last one closes the Recall and its ledger connection."""
    closing = None
    with _lock:
        for key, entry in list(_shared.items()):
            if entry.recall is recall:
                entry.users -= 1
                if entry.users <= 0:
                    del _shared[key]
                    closing = entry
                break
    if closing is not None:
        closing.recall.close()
        close_ledger(closing.ledger)
