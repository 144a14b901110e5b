"""DuckDB fed from the process's own SQLite connection: DuckDB never opens a SQLite ledger itself.

DuckDB's sqlite scanner is a second SQLite library in the process. When it closes the ledger file (it
opens a connection per DuckDB transaction), the kernel releases every POSIX advisory lock this process
holds on the file, the locks of Python's sqlite3 connections included (SQLite's "How To Corrupt An
SQLite Database File", 2.2). Another process that then closes its last connection believes it is the
last one, checkpoints and deletes the WAL: the writes this process makes afterwards go to an unlinked
file, and a transaction another process committed meanwhile is lost (tests/ledger/test_shared_file.py
reproduced it with `factledger.open()` + `db.sql()` and the CLI). DESIGN §8: no process opens a SQLite
ledger with a second SQLite library while it holds a connection.

So on SQLite every row DuckDB reads comes through this process's own sqlite3 library (the analytics
session's read-only connection, `analytics/sqlite_recorder.py`), as Arrow columns:
- `Feed` keeps the ledger's tables as DuckDB tables in the schema `raw` (created empty, with the
  scanner's types: INTEGER as BIGINT, TEXT as VARCHAR, REAL as DOUBLE, BLOB as BLOB), and fills a table
  only when a query reads it, again only when the ledger changed since (`PRAGMA data_version`, which
  moves with every commit of any other connection, and the file's identity). The tables one query
  needs are read in one SQLite read transaction, so a query sees one committed state (the scanner read
  each table separately);
- `FeedReader` gives the companion (companion.py) the rows it copies: a delta read through the same
  connection and handed to DuckDB as a registered Arrow table.

A snapshot session reads a private copy made by SQLite's online backup (the same library): the scanner
opens only that copy, a file no other connection of the process holds.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import duckdb
import pyarrow as pa

from factledger.ledger.errors import StorageError

from .views import RAW

_ARROW = {"BIGINT": pa.int64(), "VARCHAR": pa.string(), "DOUBLE": pa.float64(), "BLOB": pa.binary()}
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


def arrow_table(names: Sequence[str], rows: Sequence[tuple[Any, ...]], types: dict[str, str], what: str) -> pa.Table:
    """Rows as an Arrow table, each column of its DuckDB type (`types`, by column name; text otherwise)."""
    columns = list(zip(*rows)) if rows else [() for _ in names]
    arrays = []
    for name, values in zip(names, columns):
        kind = types.get(name, "VARCHAR")
        try:
            arrays.append(pa.array(values, type=_ARROW[kind]))
            continue
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as exc:
            if kind != "VARCHAR":
                raise StorageError(f"{what}: column {name} holds a value that is not {kind} ({exc})") from None
        # A text column holding a number (SQLite stores what it is given): as the scanner reads it, text.
        arrays.append(pa.array([v if v is None or isinstance(v, str) else str(v) for v in values], type=pa.string()))
    return pa.Table.from_arrays(arrays, names=list(names))


class Feed:
    """The ledger's tables in DuckDB's `raw` schema, read through `recorder` (a SqliteHeadRecorder) when
    a query needs them and the ledger changed since they were read."""

    def __init__(self, con: duckdb.DuckDBPyConnection, recorder: Any):
        self.con = con
        self.recorder = recorder
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
        read = self.recorder.read_tables(stale)
        con = self.con
        con.execute("BEGIN")
        try:
            for table in stale:
                names, rows = read[table]
                data = arrow_table(names, rows, dict(self.types[table]), f"the ledger's table {table}")
                view = f"factledger_feed_{next(_names)}"
                con.register(view, data)
                try:
                    con.execute(f"DELETE FROM {RAW}.{_quote(table)}")
                    con.execute(f"INSERT INTO {RAW}.{_quote(table)} SELECT * FROM {view}")
                finally:
                    con.unregister(view)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        for table in stale:
            self._read_at[table] = version
        return len(stale)


class FeedReader:
    """Ledger rows for the companion's copies, read through `recorder` and registered on `con` as Arrow
    tables for the statement that copies them (`release` drops them)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, recorder: Any):
        self.con = con
        self.recorder = recorder
        self._registered: list[str] = []
        self._types: dict[str, dict[str, str]] = {}

    def rows(self, sql: str, *, like: str) -> str:
        """A DuckDB table name holding what `sql` returns; its columns typed as the ledger table `like`'s."""
        if like not in self._types:
            self._types[like] = {n: duck_type(d) for n, d in self.recorder.columns(like)}
        names, rows = self.recorder.rows(sql)
        view = f"factledger_feed_{next(_names)}"
        self.con.register(view, arrow_table(names, rows, self._types[like], f"the ledger's {like}"))
        self._registered.append(view)
        return view

    def whole(self, table: str, where: str = "") -> str:
        return self.rows(f"SELECT * FROM {_quote(table)}" + (f" WHERE {where}" if where else ""), like=table)

    def release(self) -> None:
        while self._registered:
            self.con.unregister(self._registered.pop())


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
