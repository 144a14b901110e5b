"""Choosing the engine: a `postgresql://` URL opens PostgreSQL (ledger/pg_storage.py), anything else is
a SQLite file (ledger/storage.py). Both connection types have one surface; each part's recorder module
for that engine holds its SQL, and this module is the one place that maps an engine to the ledger's
recorders (the ledger's own, erase and verify's, the analytics head's): each interface module
(`recorder.py`, `erase_recorder.py`, `analytics/recorder.py`) imports no implementation, and each
implementation imports only its interface."""

from __future__ import annotations

import getpass
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .pg_storage import PostgresStorage, is_postgres_url, redact_url
from .storage import BUSY_TIMEOUT, Storage

if TYPE_CHECKING:
    from .analytics.recorder import HeadRecorder
    from .erase_recorder import Recorder
    from .recorder import LedgerRecorder

AnyStorage = Storage | PostgresStorage


def open_storage(location: str | Path, *, read_only: bool = False, timeout: float = BUSY_TIMEOUT) -> AnyStorage:
    """The connection for `location`: a PostgreSQL URL or a SQLite file path (":memory:" too)."""
    if is_postgres_url(str(location)):
        return PostgresStorage(str(location), read_only=read_only, timeout=timeout)
    return Storage(location, read_only=read_only, timeout=timeout)


def describe_location(location: str | Path) -> str:
    """How messages name a ledger: the path, or the URL with its password masked."""
    return redact_url(str(location)) if is_postgres_url(str(location)) else str(location)


def ledger_exists(location: str | Path) -> bool:
    """Whether `location` names an existing ledger: a file (":memory:" always does), or for a
    `postgresql://` URL a database that is reachable and migrated. An unreachable server is a
    StorageError (naming the URL without its password), not a missing ledger: nothing could create it."""
    if is_postgres_url(str(location)):
        storage = PostgresStorage(str(location), read_only=True)
        try:
            return storage.migrated
        finally:
            storage.close()
    return str(location) == ":memory:" or Path(location).is_file()


def default_principal() -> str:
    """operator:<login name> (operator:unknown where a container has none)."""
    try:
        name = getpass.getuser()
    except Exception:  # no login name in some containers
        name = "unknown"
    return f"operator:{name or 'unknown'}"


def ledger_recorder(storage: Any) -> LedgerRecorder:
    """The ledger's recorder for this storage's engine."""
    from .pg_recorder import PostgresLedgerRecorder
    from .sqlite_recorder import SqliteLedgerRecorder

    recorders: dict[str, type] = {"sqlite": SqliteLedgerRecorder, "postgres": PostgresLedgerRecorder}
    try:
        recorder = recorders[storage.engine]
    except KeyError:
        raise ValueError(f"no ledger recorder for engine {storage.engine!r}") from None
    return recorder(storage)


def erase_recorder(storage: Any) -> Recorder:
    """Erase and verify's recorder for `storage`'s engine (an explicit mapping, no lookup by naming convention)."""
    from .pg_erase_recorder import PostgresErasureRecorder
    from .sqlite_erase_recorder import SqliteErasureRecorder

    engines: dict[str, type] = {"sqlite": SqliteErasureRecorder, "postgres": PostgresErasureRecorder}
    try:
        return engines[storage.engine](storage)
    except KeyError:
        raise ValueError(f"no erase recorder for engine {storage.engine!r}") from None


def head_recorder(storage: Any, tables: Sequence[str] | None = None) -> HeadRecorder:
    """The head reader for `storage`'s engine; `tables` are the ledger's tables (an old ledger opened
    without migrating may lack the erase tables), read from its catalog when not given."""
    from .analytics.pg_recorder import PostgresHeadRecorder
    from .analytics.sqlite_recorder import SqliteHeadRecorder

    implementations: dict[str, type] = {"sqlite": SqliteHeadRecorder, "postgres": PostgresHeadRecorder}
    return implementations[storage.engine](storage, tables)
