"""The PostgreSQL boundary: the only module that imports psycopg.

The same surface as ledger/storage.py's SQLite `Storage` (atomic, snapshot, query, one, execute,
executemany, iterate, close), so each part's PostgreSQL recorder module is written against one small
connection type. It applies schema/postgres's migrations (under an advisory lock, so processes opening
one database at once do not race), nests transactions as savepoints, converts every timestamptz it reads
to the canonical text form (callers never see a datetime), and translates driver errors into ledger
errors, so callers never see psycopg.

Statements use psycopg's `%s` / `%(name)s` placeholders; the SQL itself lives in each part's
PostgreSQL recorder module, not here.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
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


def is_postgres_url(location: object) -> bool:
    return isinstance(location, str) and _URL.match(location) is not None


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


def _row_factory(cursor):
    names = tuple(d.name for d in cursor.description or ())
    row_type = type("Row", (Row,), {"__slots__": (), "_names": names})

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


class PostgresStorage:
    """One psycopg connection (autocommit outside `atomic`), with schema/postgres migrations applied;
    thread-safe through one re-entrant lock, like the SQLite Storage."""

    engine = "postgres"

    def __init__(self, url: str, *, read_only: bool = False, timeout: float = BUSY_TIMEOUT):
        try:
            import psycopg
        except ImportError:
            raise StorageError(
                "the PostgreSQL engine needs psycopg: pip install 'factledger[postgres]'"
            ) from None
        self._psycopg = psycopg
        self.url = url
        self.path = redact_url(url)  # what messages name; never the password
        self.read_only = read_only
        self.read_only_reason = "opened read-only" if read_only else ""
        self._lock = threading.RLock()
        self._depth = 0
        self._transactions: list[Any] = []
        try:
            self._conn = psycopg.connect(url, autocommit=True, row_factory=_row_factory)
        except psycopg.Error as exc:
            raise StorageError(f"cannot open ledger {self.path}: {str(exc).strip()}") from None
        try:
            # The bound on waiting for another writer's row or table lock (SQLite's busy timeout).
            self._conn.execute(f"SET lock_timeout = {int(timeout * 1000)}")
            self._conn.execute("SET TIME ZONE 'UTC'")
            if read_only:
                self._conn.execute("SET default_transaction_read_only = on")
            else:
                self._migrate()
        except psycopg.Error as exc:
            self._conn.close()
            raise StorageError(f"cannot open ledger {self.path}: {_translate(exc)}") from None

    # -- schema ---------------------------------------------------------------------------------

    def _migrate(self) -> None:
        with self._lock, self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = {row[0] for row in self._conn.execute("SELECT version FROM schema_migrations")}
            for migration in migrations("postgres"):
                if migration.version in done:
                    continue
                try:
                    with self._conn.transaction():
                        self._conn.execute(migration.sql)
                        self._conn.execute(
                            "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                            (migration.version, migration.name),
                        )
                except self._psycopg.Error as exc:
                    raise StorageError(f"migration {migration.version}_{migration.name} failed: {_translate(exc)}") from None

    @property
    def schema_version(self) -> int:
        row = self.one("SELECT MAX(version) FROM schema_migrations")
        return int(row[0] or 0)

    # -- transactions ---------------------------------------------------------------------------

    @property
    def last_wait(self) -> float:
        """Seconds the latest write waited for its turn: PostgreSQL queues writers on row locks itself."""
        return 0.0

    @contextmanager
    def atomic(self) -> Iterator["PostgresStorage"]:
        """One write transaction; nested calls become savepoints. An error inside rolls it back whole."""
        if self.read_only:
            raise StorageError(f"the ledger {self.path} is read-only ({self.read_only_reason}); this needs to write")
        with self._lock:
            try:
                block = self._conn.transaction()
                block.__enter__()
            except self._psycopg.Error as exc:
                raise _translate(exc) from None
            self._depth += 1
            try:
                yield self
            except BaseException as exc:
                self._depth -= 1
                try:
                    block.__exit__(type(exc), exc, exc.__traceback__)
                except self._psycopg.Error:
                    pass
                raise
            else:
                self._depth -= 1
                try:
                    block.__exit__(None, None, None)
                except self._psycopg.Error as exc:
                    raise _translate(exc) from None

    @contextmanager
    def snapshot(self) -> Iterator["PostgresStorage"]:
        """Reads that see one committed state (REPEATABLE READ, read only); inside a write transaction
        it is just that transaction."""
        with self._lock:
            if self._depth > 0:
                yield self
                return
            try:
                self._conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            except self._psycopg.Error as exc:
                raise _translate(exc) from None
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
                try:
                    self._conn.execute("COMMIT")
                except self._psycopg.Error:
                    self._conn.execute("ROLLBACK")

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    # -- statements -----------------------------------------------------------------------------

    def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; returns the row count (use RETURNING and `one` for generated ids)."""
        with self._lock:
            try:
                return self._conn.execute(sql, params or None).rowcount
            except self._psycopg.Error as exc:
                raise _translate(exc) from None

    def executemany(self, sql: str, rows: Iterable[Params]) -> int:
        with self._lock:
            try:
                with self._conn.cursor() as cursor:
                    cursor.executemany(sql, list(rows))
                    return cursor.rowcount
            except self._psycopg.Error as exc:
                raise _translate(exc) from None

    def query(self, sql: str, params: Params = ()) -> list[Row]:
        with self._lock:
            try:
                return self._conn.execute(sql, params or None).fetchall()
            except self._psycopg.Error as exc:
                raise _translate(exc) from None

    def one(self, sql: str, params: Params = ()) -> Row | None:
        with self._lock:
            try:
                return self._conn.execute(sql, params or None).fetchone()
            except self._psycopg.Error as exc:
                raise _translate(exc) from None

    def iterate(self, sql: str, params: Params = (), *, batch: int = 1000) -> Iterator[Row]:
        """Stream a large result in batches (a server-side cursor inside a read snapshot)."""
        with self.snapshot():
            with self._lock:
                cursor = self._conn.cursor(name=f"fl_iter_{id(self)}_{self._depth}")
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

    def close(self) -> None:
        with self._lock:
            self._conn.close()
