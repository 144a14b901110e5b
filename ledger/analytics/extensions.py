"""DuckDB connections that load the scanner extensions, each file's signature checked once per process.

DuckDB checks an extension's signature on every LOAD, and the check reads the whole file: the sqlite
scanner is 34 MB, so every LOAD cost ~0.4 s (measured 2026-12, 2 cores), most of opening an analyst
session. The file does not change between sessions, so the check is done once: a LOAD with the check
on records the file's identity (device, inode, size, modification and change times); a later connection
skips the check only while the file still has that identity, and refuses the load if it changed between
the connection and the LOAD. Analysts never reach LOAD either way: their statements are checked first
(guard.py) and the session is locked down before any of them runs (no external access, no settings).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import duckdb

from factledger.ledger.errors import StorageError

_NO_AUTOLOAD = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
_verified: dict[str, tuple[int, ...]] = {}  # extension file -> its identity when DuckDB last checked its signature
_lock = threading.Lock()


def _identity(path: Path) -> tuple[int, ...] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def verified(extension: Path) -> bool:
    """Whether DuckDB checked `extension`'s signature in this process and the file is unchanged since."""
    identity = _identity(extension)
    with _lock:
        return identity is not None and _verified.get(str(extension)) == identity


def connect(extension: Path | None = None, *, config: dict[str, object] | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB that installs and autoloads nothing; it may skip the signature check of
    `extension` when that file was checked before (see `load`)."""
    settings: dict[str, object] = {**_NO_AUTOLOAD, **(config or {})}
    if extension is not None and verified(extension):
        settings["allow_unsigned_extensions"] = True
    return duckdb.connect(":memory:", config=settings)


def load(con: duckdb.DuckDBPyConnection, extension: Path) -> None:
    """LOAD `extension` into `con`; a load whose signature was checked vouches for the file."""
    unchecked = con.execute("SELECT current_setting('allow_unsigned_extensions')").fetchone()[0]
    identity = _identity(extension)
    if unchecked:
        with _lock:
            if identity is None or _verified.get(str(extension)) != identity:
                raise StorageError(f"{extension} changed since its signature was checked; open the session again")
    con.execute(f"LOAD '{str(extension).replace(chr(39), chr(39) * 2)}'")
    if not unchecked and identity is not None:
        with _lock:
            _verified[str(extension)] = identity


def check(extension: Path) -> None:
    """Check `extension`'s signature now (a LOAD in a throwaway connection), so later loads skip it."""
    if verified(extension):
        return
    con = connect(config={"threads": 1})
    try:
        load(con, extension)
    finally:
        con.close()
