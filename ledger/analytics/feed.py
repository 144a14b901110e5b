"""DuckDB fed from the process's own SQLite connection: DuckDB never opens a SQLite ledger itself.

DuckDB's sqlite scanner is a second SQLite library in the process. When it closes the ledger file (it
opens a connection per DuckDB transaction), the kernel releases every POSIX advisory lock this process
holds on the file, the locks of Python's sqlite3 connections included (SQLite's "How To Corrupt An
SQLite Database File", 2.2). Another process that then closes its last connection believes it is the
last one, checkpoints and deletes the WAL: the writes this process makes afterwards go to an unlinked
file, and a transaction another process committed meanwhile is lost (tests/ledger/test_shared_file.py
reproduced it with `factledger.open()` + `db.sql()` and the CLI). DESIGN §8: no process opens a SQLite
ledger with a second SQLite library while it holds a connection.

So on SQLite every row DuckDB reads comes through this process's own sqlite3 library: the rows a
read needs are copied, by SQLite itself (`CREATE TABLE … AS SELECT`, one read transaction, C speed), into
a private scratch file (`Storage.copy_out`) that no connection of this process holds any more, and
DuckDB's scanner reads that file (`sqlite_scan`) and forgets it; the file is deleted at once (in
/dev/shm where there is one, so it never reaches a disk):
- `Feed` keeps the ledger's tables as DuckDB tables in the schema `raw` (created empty, with the
  scanner's types: INTEGER as BIGINT, TEXT as VARCHAR, REAL as DOUBLE, BLOB as BLOB), and fills a table
  only when a query reads it, again only when the ledger changed since (`PRAGMA data_version`, which
  moves with every commit of any other connection, and the file's identity). The tables one query
  needs are copied in one SQLite read transaction, so a query sees one committed state (the scanner
  read each table separately);
- `FeedReader` gives the companion (companion.py) the rows it copies (its build, its deltas) the same way.

A snapshot session reads a private copy made by SQLite's online backup (the same library), attached
whole; PostgreSQL is a server, so its scanner is just another client.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import duckdb

from .views import RAW

_names = itertools.count(1)


def duck_type(declared: str) -> str:
    """The DuckDB type of a SQLite column by its declared type (SQLite's affinity rules, as the scanner
    maps them); an untyped or unusual column is read as text."""
    kind = (declared or "").upper()
    if "INT" in kind:
        return "BIGINT"
    if "REAL" in kind or "FLOA" in kind or "DOUB" in kind:
        return "DOUBLE"
    if "BLOB" in kind:
        return "BLOB"
    return "VARCHAR"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


# Where Scratch folders are made when set (bounded.py: a query's process makes them inside a folder its
# parent removes, so a process killed at its limit leaves no copy behind).
SCRATCH_PARENT: str | None = None


def scratch_base() -> str | None:
    """The folder scratch copies go in: SCRATCH_PARENT, else /dev/shm when writable, else the temp dir."""
    if SCRATCH_PARENT is not None:
        return SCRATCH_PARENT
    memory = Path("/dev/shm")
    return str(memory) if memory.is_dir() and os.access(memory, os.W_OK) else None


class Scratch:
    """A private folder (0700; in /dev/shm when there is one) for the copies DuckDB reads; each copy is
    deleted once read, the folder on close."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="factledger-feed-", dir=scratch_base()))

    def file(self) -> Path:
        return self.folder / f"copy-{next(_names)}.db"

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


class Feed:
    """The ledger's tables in DuckDB's `raw` schema, copied through `recorder` (a SqliteHeadRecorder) when
    a query needs them and the ledger changed since they were read."""

    def __init__(self, con: duckdb.DuckDBPyConnection, recorder: Any):
        self.con = con
        self.recorder = recorder
        self.scratch = Scratch()
        self.types: dict[str, list[tuple[str, str]]] = {}  # table -> [(column, DuckDB type)]
        self._read_at: dict[str, object] = {}  # table -> the ledger's version its rows are of

    def create(self, tables: Iterable[str]) -> None:
        """Create every table empty in `raw`, with its columns and types (no rows read yet)."""
        for table in tables:
            columns = [(name, duck_type(declared)) for name, declared in self.recorder.columns(table)]
            self.types[table] = columns
            spec = ", ".join(f"{_quote(n)} {t}" for n, t in columns)
            self.con.execute(f"CREATE TABLE {RAW}.{_quote(table)} ({spec})")

    def drop(self, table: str) -> None:
        """`table` is read from elsewhere from now on (the companion's copy): no longer fed."""
        self.types.pop(table, None)
        self._read_at.pop(table, None)
        self.con.execute(f"DROP TABLE IF EXISTS {RAW}.{_quote(table)}")

    @property
    def tables(self) -> set[str]:
        return set(self.types)

    def ensure(self, tables: Iterable[str]) -> int:
        """Bring the tables among `tables` up to the ledger's latest committed state (those already read
        at it stay); returns how many were read. The reads share one SQLite read transaction."""
        version = self.recorder.version()
        stale = sorted(t for t in set(tables) & self.tables if self._read_at.get(t) != version)
        if not stale:
            return 0
        path = self.scratch.file()
        try:
            copies = self.recorder.copy_out(path, [f"SELECT * FROM {_quote(t)}" for t in stale])
            con = self.con
            con.execute("BEGIN")
            try:
                for table, copy in zip(stale, copies):
                    columns = ", ".join(_quote(n) for n, _ in self.types[table])
                    con.execute(f"DELETE FROM {RAW}.{_quote(table)}")
                    con.execute(f"INSERT INTO {RAW}.{_quote(table)} SELECT {columns} FROM sqlite_scan({_text(str(path))}, {_text(copy)})")
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        finally:
            path.unlink(missing_ok=True)
        for table in stale:
            self._read_at[table] = version
        return len(stale)

    def close(self) -> None:
        self.scratch.close()
        self.recorder.close()


class FeedReader:
    """Ledger rows for the companion's copies: each read copied through `recorder` into a scratch file
    and read by DuckDB's scanner from there (`release` deletes the files)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, recorder: Any, scratch: Scratch | None = None):
        self.con = con
        self.recorder = recorder
        self._own = scratch is None
        self.scratch = scratch  # made at the first read when not given
        self._files: list[Path] = []

    def rows(self, sql: str, *, like: str) -> str:
        """A DuckDB table expression holding what `sql` (over the ledger) returns."""
        if self.scratch is None:
            self.scratch = Scratch()
        path = self.scratch.file()
        self._files.append(path)
        (copy,) = self.recorder.copy_out(path, [sql])
        return f"sqlite_scan({_text(str(path))}, {_text(copy)})"

    def whole(self, table: str, where: str = "") -> str:
        return self.rows(f"SELECT * FROM {_quote(table)}" + (f" WHERE {where}" if where else ""), like=table)

    def release(self) -> None:
        while self._files:
            self._files.pop().unlink(missing_ok=True)

    def close(self) -> None:
        self.release()
        if self._own and self.scratch is not None:
            self.scratch.close()
            self.scratch = None


class NativeReader:
    """Ledger rows for the companion through DuckDB's scanner of a PostgreSQL ledger attached as `ledger`
    (schema prefix `prefix`): PostgreSQL is a server, so a second client library in the process is
    just another client."""

    def __init__(self, native: str, ledger: str, prefix: str):
        self.native = native
        self.ledger = ledger
        self.prefix = prefix

    def rows(self, sql: str, *, like: str) -> str:
        return f"{self.native}('{self.ledger}', '" + sql.replace("'", "''") + "')"

    def whole(self, table: str, where: str = "") -> str:
        source = f"{self.prefix}.{_quote(table)}"
        return f"(SELECT * FROM {source} WHERE {where})" if where else source

    def release(self) -> None:
        pass

    def close(self) -> None:
        pass
