"""The PostgreSQL boundary: the only module that imports psycopg.

The same surface as ledger/storage.py's SQLite `Storage` (atomic, snapshot, query, one, execute,
executemany, iterate, close), so each part's PostgreSQL recorder module is written against one small
connection type. Unlike SQLite's one connection under one lock, a `PostgresStorage` draws connections
from a psycopg_pool pool (`PostgresPool`): each thread's transaction or snapshot holds one connection
for its whole block, and a statement outside any block borrows one just for itself, so threads sharing
one storage (a gateway's users) run side by side and wait only on the rows they share. It applies schema/postgres's migrations (under an advisory lock, so processes opening
one database at once do not race), nests transactions as savepoints, converts every timestamptz it reads
to the canonical text form (callers never see a datetime), and translates driver errors into ledger
errors, so callers never see psycopg.

Statements use psycopg's `%s` / `%(name)s` placeholders; the SQL itself lives in each part's
PostgreSQL recorder module, not here.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from factledger.schema import migrations

from .errors import BusyError, IntegrityError, StorageError
from .storage import BUSY_TIMEOUT
from .times import format_time

Params = Sequence[Any] | Mapping[str, Any]

URL_SCHEMES = ("postgresql", "postgres")
_URL = re.compile(r"^(postgresql|postgres)://", re.IGNORECASE)
# One advisory lock key for "migrating this database" (any 64-bit number; this one spells factledger).
_MIGRATION_LOCK = 0x666163746C6564
# Connections one pool opens at most: a gateway's concurrent turns, digests and prefetches beyond this
# wait (up to the storage timeout) for a free one rather than exhausting the server's max_connections.
POOL_SIZE = 10


def is_postgres_url(location: object) -> bool:
    return isinstance(location, str) and _URL.match(location) is not None


def local_data_path(url: str, part: str, suffix: str) -> Path:
    """Where a part keeps a derived companion of a server ledger on this machine (recall's vector folder,
    the analytics file): a server has no file to sit beside, so one entry per database, named by its URL
    without the password, under the user's data folder."""
    data = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    name = hashlib.sha256(redact_url(url).encode("utf-8")).hexdigest()[:16]
    return data / "factledger" / part / f"{name}{suffix}"


def redact_url(url: str) -> str:
    """The URL with any password replaced by '***' (for messages and `status`)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "postgresql://…"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit((parts.scheme, f"{user}:***@{host}{port}", parts.path, parts.query, parts.fragment))


class Row(tuple):
    """A result row read by position or by column name (like sqlite3.Row); `dict(row)` works."""

    __slots__ = ()
    _names: tuple[str, ...] = ()

    def __getitem__(self, key):  # type: ignore[override]
        if isinstance(key, str):
            try:
                return tuple.__getitem__(self, self._names.index(key))
            except ValueError:
                raise IndexError(f"no column named {key!r}") from None
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._names)


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return format_time(value)
    return value


@lru_cache(maxsize=1024)
def _row_type(names: tuple[str, ...]) -> type:
    # One class per column list, made once: a class per statement was ~15 µs of every query.
    return type("Row", (Row,), {"__slots__": (), "_names": names})


def _row_factory(cursor):
    row_type = _row_type(tuple(d.name for d in cursor.description or ()))

    def make(values: Sequence[Any]) -> Row:
        return row_type(_plain(v) for v in values)

    return make


def _translate(exc: Exception) -> Exception:
    import psycopg

    diag = getattr(exc, "diag", None)
    text = (getattr(diag, "message_primary", None) or str(exc)).strip()
    if text.startswith("factledger: "):
        text = text[len("factledger: ") :]
    if isinstance(exc, psycopg.errors.IntegrityError):
        return IntegrityError(f"the database refused the write: {text}")
    if isinstance(exc, (psycopg.errors.LockNotAvailable, psycopg.errors.QueryCanceled)):
        return BusyError(f"the ledger stayed locked past the busy timeout: {text}; nothing of this write was written")
    if isinstance(exc, (psycopg.errors.SerializationFailure, psycopg.errors.DeadlockDetected)):
        return BusyError(f"a concurrent write to the same rows won: {text}; nothing of this write was written")
    return StorageError(f"database error: {text}")


@dataclass(frozen=True)
class PoolStatus:
    """A pool's connections: opened, idle in the pool, and checked out by a block or a statement."""

    size: int  # opened or being opened
    idle: int
    in_use: int  # checked out by a block or a statement and not yet given back
    waiting: int  # callers waiting for a free connection


class PostgresPool:
    """Connections to one database (psycopg_pool), each set up as the engine needs: autocommit outside
    a transaction, the engine's rows, UTC, the lock timeout, read-only when asked. Opening it checks the
    server with one connection and applies schema/postgres's migrations (unless read-only)."""

    def __init__(self, url: str, *, read_only: bool = False, timeout: float = BUSY_TIMEOUT, size: int = POOL_SIZE):
        try:
            import psycopg
            import psycopg_pool
        except ImportError:
            raise StorageError(
                "the PostgreSQL engine needs psycopg and psycopg_pool: pip install 'factledger[postgres]'"
            ) from None
        self._psycopg = psycopg
        self._pool_errors = (psycopg_pool.PoolTimeout, psycopg_pool.PoolClosed)
        self.url = url
        self.path = redact_url(url)  # what messages name; never the password
        self.read_only = read_only
        self.timeout = timeout
        self._count_lock = threading.Lock()
        self._in_use = 0
        # One direct connection first: an unreachable server or a failed migration is reported at once,
        # not after the pool's reconnect attempts.
        try:
            first = psycopg.connect(url, autocommit=True, row_factory=_row_factory)
        except psycopg.Error as exc:
            raise StorageError(f"cannot open ledger {self.path}: {str(exc).strip()}") from None
        try:
            self._configure(first)
            if not read_only:
                self._migrate(first)
        except psycopg.Error as exc:
            raise StorageError(f"cannot open ledger {self.path}: {_translate(exc)}") from None
        finally:
            first.close()
        self._pool = psycopg_pool.ConnectionPool(
            url, min_size=1, max_size=max(1, size), open=False, timeout=timeout, num_workers=1,
            kwargs={"autocommit": True, "row_factory": _row_factory}, configure=self._configure,
            name=f"factledger {self.path}",
        )
        try:
            self._pool.open(wait=True, timeout=timeout)
        except psycopg_pool.PoolTimeout:
            self._pool.close()
            raise StorageError(f"cannot open ledger {self.path}: no connection within {timeout:g}s") from None

    def _configure(self, conn: Any) -> None:
        # The bound on waiting for another writer's row or table lock (SQLite's busy timeout).
        conn.execute(f"SET lock_timeout = {int(self.timeout * 1000)}")
        conn.execute("SET TIME ZONE 'UTC'")
        if self.read_only:
            conn.execute("SET default_transaction_read_only = on")

    def _migrate(self, conn: Any) -> None:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
            for migration in migrations("postgres"):
                if migration.version in done:
                    continue
                try:
                    with conn.transaction():
                        conn.execute(migration.sql)
                        conn.execute(
                            "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                            (migration.version, migration.name),
                        )
                except self._psycopg.Error as exc:
                    raise StorageError(f"migration {migration.version}_{migration.name} failed: {_translate(exc)}") from None

    def checkout(self) -> Any:
        try:
            conn = self._pool.getconn()
        except self._pool_errors[0]:
            raise BusyError(
                f"no connection to {self.path} came free within {self.timeout:g}s (every one of the pool's"
                f" {self._pool.max_size} is in use); nothing of this call was done"
            ) from None
        except self._pool_errors[1]:
            raise StorageError(f"the ledger {self.path} is closed") from None
        with self._count_lock:
            self._in_use += 1
        return conn

    def give_back(self, conn: Any) -> None:
        with self._count_lock:
            self._in_use -= 1
        self._pool.putconn(conn)  # the pool rolls back a connection returned inside a transaction

    def status(self) -> PoolStatus:
        if self._pool.closed:  # its connections are closed (the pool's own counters are not reset)
            return PoolStatus(0, 0, self._in_use, 0)
        stats = self._pool.get_stats()
        return PoolStatus(stats.get("pool_size", 0), stats.get("pool_available", 0), self._in_use,
                          stats.get("requests_waiting", 0))

    def close(self) -> None:
        self._pool.close()


class _ThreadState(threading.local):
    """What one thread holds of one storage: its connection while a block runs, and the block depth."""

    conn: Any = None
    pins = 0  # blocks (atomic, snapshot, pinned) holding `conn`
    depth = 0  # transactions open on `conn` (atomic and snapshot; nested atomics are savepoints)
    whole = False  # the open transaction is all or nothing (atomic(whole=True)): no savepoints in it
    whole_failed = False  # a block nested in it failed: it must not commit


class PostgresStorage:
    """A ledger's database through a pool of connections (autocommit outside `atomic`), with
    schema/postgres migrations applied. Thread-safe: each thread's block holds its own connection.

    `source` is a `postgresql://` URL (the storage opens, and closes, its own pool) or a `PostgresPool`
    shared by several storages of one process (closing the storage leaves the pool open)."""

    engine = "postgres"

    def __init__(self, source: "str | PostgresPool", *, read_only: bool = False, timeout: float = BUSY_TIMEOUT,
                 pool_size: int = POOL_SIZE):
        if isinstance(source, PostgresPool):
            self._pool, self._owns_pool = source, False
        else:
            self._pool, self._owns_pool = PostgresPool(source, read_only=read_only, timeout=timeout, size=pool_size), True
        self._psycopg = self._pool._psycopg
        self.url = self._pool.url
        self.path = self._pool.path
        self.read_only = self._pool.read_only
        self.read_only_reason = "opened read-only" if self.read_only else ""
        self._state = _ThreadState()
        self._closed = False

    @property
    def pool(self) -> PostgresPool:
        return self._pool

    # -- schema ---------------------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        row = self.one("SELECT MAX(version) FROM schema_migrations")
        return int(row[0] or 0)

    @property
    def migrated(self) -> bool:
        """Whether any migration was applied: a database factledger has opened (read-only opens skip it)."""
        return bool(self.one("SELECT to_regclass('schema_migrations') IS NOT NULL")[0]) and self.schema_version > 0

    # -- connections ----------------------------------------------------------------------------

    @contextmanager
    def pinned(self) -> Iterator[Any]:
        """This thread's connection for the whole block (checked out on entry, given back on exit):
        every statement inside runs on it, as one session. atomic and snapshot pin; so may a caller
        that runs raw transaction statements."""
        state = self._state
        if state.conn is None:
            conn = self._pool.checkout()
            state.conn, state.pins = conn, 1
            try:
                yield conn
            finally:
                state.conn, state.pins, state.depth = None, 0, 0
                self._pool.give_back(conn)
        else:
            state.pins += 1
            try:
                yield state.conn
            finally:
                state.pins -= 1

    # -- transactions ---------------------------------------------------------------------------

    @property
    def last_wait(self) -> float:
        """Seconds the latest write waited for its turn: PostgreSQL queues writers on row locks itself."""
        return 0.0

    @contextmanager
    def atomic(self, *, wait: bool = True, whole: bool = False) -> Iterator["PostgresStorage"]:
        """One write transaction on this thread's connection; nested calls become savepoints. An error
        inside rolls it back whole. `wait=False` (a rolled-back preview served to a reader) gives up on a
        row another transaction holds after a moment (BusyError) rather than waiting for it. `whole=True`
        on the outermost block (an import, all or nothing): blocks nested in it join it instead of opening savepoints (two
        round trips each); it commits nothing if a nested block failed, even one whose error was caught."""
        if self.read_only:
            raise StorageError(f"the ledger {self.path} is read-only ({self.read_only_reason}); this needs to write")
        state = self._state
        if state.depth > 0 and state.whole:
            state.depth += 1
            try:
                yield self
            except BaseException:
                state.whole_failed = True
                raise
            finally:
                state.depth -= 1
            return
        with self.pinned() as conn:
            outermost = state.depth == 0
            try:
                block = conn.transaction()
                block.__enter__()
                if not wait and outermost:
                    conn.execute("SET LOCAL lock_timeout = '100ms'")
            except self._psycopg.Error as exc:
                raise _translate(exc) from None
            state.depth += 1
            if outermost:
                state.whole, state.whole_failed = whole, False
            try:
                yield self
                if outermost and state.whole_failed:
                    raise StorageError("a block inside an all-or-nothing transaction failed: nothing was written")
            except BaseException as exc:
                state.depth -= 1
                if outermost:
                    state.whole = False
                try:
                    block.__exit__(type(exc), exc, exc.__traceback__)
                except self._psycopg.Error:
                    pass
                raise
            else:
                state.depth -= 1
                if outermost:
                    state.whole = False
                try:
                    block.__exit__(None, None, None)
                except self._psycopg.Error as exc:
                    raise _translate(exc) from None

    @contextmanager
    def snapshot(self) -> Iterator["PostgresStorage"]:
        """Reads that see one committed state (REPEATABLE READ, read only, on one connection); inside
        a write transaction it is just that transaction."""
        state = self._state
        if state.depth > 0:
            yield self
            return
        with self.pinned() as conn:
            try:
                conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            except self._psycopg.Error as exc:
                raise _translate(exc) from None
            state.depth += 1
            try:
                yield self
            finally:
                state.depth -= 1
                try:
                    conn.execute("COMMIT")
                except self._psycopg.Error:
                    conn.execute("ROLLBACK")

    @property
    def in_transaction(self) -> bool:
        """Whether this thread is inside an atomic or snapshot block of this storage."""
        return self._state.depth > 0

    # -- statements -----------------------------------------------------------------------------

    def _run(self, work):
        """`work(conn)` on this thread's pinned connection, or on one borrowed for the statement."""
        try:
            with self.pinned() as conn:
                return work(conn)
        except self._psycopg.Error as exc:
            raise _translate(exc) from None

    def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; returns the row count (use RETURNING and `one` for generated ids)."""
        return self._run(lambda conn: conn.execute(sql, params or None).rowcount)

    def executemany(self, sql: str, rows: Iterable[Params]) -> int:
        def run(conn) -> int:
            with conn.cursor() as cursor:
                cursor.executemany(sql, list(rows))
                return cursor.rowcount

        return self._run(run)

    def query(self, sql: str, params: Params = ()) -> list[Row]:
        return self._run(lambda conn: conn.execute(sql, params or None).fetchall())

    def one(self, sql: str, params: Params = ()) -> Row | None:
        return self._run(lambda conn: conn.execute(sql, params or None).fetchone())

    def iterate(self, sql: str, params: Params = (), *, batch: int = 1000) -> Iterator[Row]:
        """Stream a large result in batches (a server-side cursor inside a read snapshot, holding one
        connection until the stream ends or is closed)."""
        with self.snapshot(), self.pinned() as conn:
            cursor = conn.cursor(name=f"fl_iter_{id(self)}_{self._state.depth}")
            try:
                cursor.execute(sql, params or None)
                while True:
                    rows = cursor.fetchmany(batch)
                    if not rows:
                        return
                    yield from rows
            except self._psycopg.Error as exc:
                raise _translate(exc) from None
            finally:
                cursor.close()

    def pool_status(self) -> PoolStatus:
        return self._pool.status()

    def close(self) -> None:
        """Close the storage's own pool (a shared pool stays open for its other storages)."""
        if not self._closed:
            self._closed = True
            if self._owns_pool:
                self._pool.close()
