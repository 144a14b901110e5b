"""Choosing the engine: a `postgresql://` URL opens PostgreSQL (ledger/pg_storage.py), anything else is
a SQLite file (ledger/storage.py). Both connection types have one surface; each part's recorder module
for that engine holds its SQL."""

from __future__ import annotations

import getpass
from pathlib import Path

from .pg_storage import PostgresStorage, is_postgres_url, redact_url
from .storage import BUSY_TIMEOUT, Storage

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
