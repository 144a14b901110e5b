"""The SQLite boundary: the only module that imports sqlite3.

It opens the file, applies the schema migrations, runs statements under a lock (one connection may be
shared by threads) and translates driver errors into ledger errors, so callers never see sqlite3.
"""

from __future__ import annotations

import re
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factledger.schema import migrations

from .errors import BusyError, IntegrityError, StorageError, ValidationError
from .keys import keyed_hash
from .times import utc_now
from .writer_queue import WriterQueue

Params = Sequence[Any] | Mapping[str, Any]
Row = sqlite3.Row


def _translate(exc: sqlite3.Error) -> Exception:
    text = str(exc)
    if text.startswith("factledger: "):
        text = text[len("factledger: ") :]
    if isinstance(exc, sqlite3.IntegrityError):
        return IntegrityError(f"the database refused the write: {text}")
    if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY:
        return BusyError(f"the ledger stayed locked past the busy timeout: {text}; nothing of this write was written")
    return StorageError(f"database error: {text}")


def _hmac_or_null(secret: object, text: object) -> str | None:
    if not isinstance(secret, str) or not isinstance(text, str):
        return None
    return keyed_hash(secret, text)


@dataclass(frozen=True)
class ScrubReport:
    """What a scrub rewrote. SQLite (`Storage.scrub`): FTS5 tables merged into fresh segments, and the
    WAL's state. PostgreSQL (ledger/pg_erase_recorder.py): the tables rewritten by VACUUM FULL, whether
    a CHECKPOINT ran, and what stays out of the store's reach (`remains`)."""

    fts_tables: tuple[str, ...]
    wal_truncated: bool
    wal_frames_left: int
    busy_reason: str = ""
    engine: str = "sqlite"
    rewritten_tables: tuple[str, ...] = ()
    checkpointed: bool = False
    remains: str = ""

    @property
    def complete(self) -> bool:
        """Nothing the store can reach still holds a deleted row's bytes."""
        if self.engine == "postgres":
            return self.checkpointed and not self.busy_reason
        return self.wal_truncated

    def to_dict(self) -> dict:
        data = {
            "fts_tables": list(self.fts_tables),
            "wal_truncated": self.wal_truncated,
            "wal_frames_left": self.wal_frames_left,
            "busy_reason": self.busy_reason,
        }
        if self.engine != "sqlite":
            data.update(
                engine=self.engine, rewritten_tables=list(self.rewritten_tables), checkpointed=self.checkpointed,
                remains=self.remains,
            )
        return data


# Seconds a write waits for its turn (the writers' queue, then SQLite's own lock) before BusyError.
BUSY_TIMEOUT = 30.0

_WRITE = re.compile(r"\s*(?:INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b", re.IGNORECASE)
_NO_TURN = nullcontext()  # reusable: a statement inside a transaction (nearly all of them) takes no turn

_FTS5 = re.compile(r"\busing\s+fts5\s*\(", re.IGNORECASE)
def write_denied(path: Path) -> str:
    """Why this process cannot write the ledger file, or "" when it can. SQLite also needs to create
    the -wal and -shm files beside it (unless they exist and are writable)."""
    if not os.access(path, os.W_OK):
        return "the file is not writable"
    folder = path.resolve().parent
    side = [Path(f"{path}-wal"), Path(f"{path}-shm")]
    if not os.access(folder, os.W_OK) and not all(p.exists() and os.access(p, os.W_OK) for p in side):
        return "its folder is not writable"
    return ""


def _disk_trouble(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "disk i/o error" in text or "disk is full" in text or "readonly" in text


def _connect_read_only(path: Path, timeout: float) -> sqlite3.Connection:
    """A read-only connection. In a folder where SQLite cannot create the WAL index (-shm), `mode=ro`
    cannot read a WAL database; then the file is opened immutable (nobody can be writing it there:
    a writer would need the same -shm)."""
    base = path.resolve().as_uri()
    conn = sqlite3.connect(base + "?mode=ro", uri=True, isolation_level=None, check_same_thread=False, timeout=timeout)
    try:
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return conn
    except sqlite3.OperationalError:
        conn.close()
    return sqlite3.connect(base + "?mode=ro&immutable=1", uri=True, isolation_level=None, check_same_thread=False, timeout=timeout)


class Storage:
    """One SQLite connection with migrations applied; thread-safe through one re-entrant lock."""

    engine = "sqlite"

    def __init__(self, path: str | Path, *, read_only: bool = False, timeout: float = BUSY_TIMEOUT):
        self.path = str(path)
        self.read_only = read_only
        self.read_only_reason = "opened read-only" if read_only else ""
        self._lock = threading.RLock()
        self._depth = 0
        self._whole = False  # the open transaction is all or nothing (atomic(whole=True)): no savepoints in it
        self._whole_failed = False  # a block nested in it failed: it must not commit
        try:
            is_file = self.path != ":memory:" and Path(self.path).is_file()
        except OSError as exc:  # a name past the file system's limit: a clear error naming the path
            shown = self.path if len(self.path) <= 80 else self.path[:80] + "…"
            raise ValidationError(f"cannot open {shown}: {exc.strerror or exc}", field="db") from None
        if not read_only and is_file:
            # A file (or folder) this process may not write is still readable: open it read-only, so
            # every read works and a write says why it cannot (instead of every command failing).
            denied = write_denied(Path(self.path))
            if denied:
                self.read_only, self.read_only_reason = True, denied
        # Writers of this file wait their turn in a fair queue (ledger/writer_queue.py), not in SQLite's poll.
        self._queue = WriterQueue(self.path, timeout) if not self.read_only and self.path != ":memory:" else None
        try:
            if self.read_only:
                self._conn = _connect_read_only(Path(self.path), timeout)
            else:
                if self.path != ":memory:":
                    Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=timeout)
            self._conn.row_factory = sqlite3.Row
            self._conn.execute("PRAGMA foreign_keys = ON")
            # Freed pages and deleted cells are overwritten with zeros, so an erased value leaves no bytes
            # behind in the file (DESIGN §8); the price is writing those zeros.
            self._conn.execute("PRAGMA secure_delete = ON")
            # Migration 0007 re-keys stored content hashes with the ledger's secret in SQL.
            self._conn.create_function("factledger_hmac", 2, _hmac_or_null, deterministic=True)
            self._conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            # A 64 MiB page cache (SQLite's default is 2 MiB): at a million versions the slot and open-version
            # indexes stop fitting in 2 MiB and every write re-reads their pages (evals/bench_ledger.py).
            self._conn.execute("PRAGMA cache_size = -65536")
            if not self.read_only:
                if self.path != ":memory:":
                    self._conn.execute("PRAGMA journal_mode = WAL")
                    # Checkpoint every ~40 MB of WAL rather than ~4 MB: each checkpoint ends in an fsync,
                    # which on a busy disk cost small transactions a third of their speed (evals/bench_ledger.py).
                    self._conn.execute("PRAGMA wal_autocheckpoint = 10000")
                    self._conn.execute("PRAGMA journal_size_limit = 67108864")
                self._conn.execute("PRAGMA synchronous = NORMAL")
                self._migrate()
        except sqlite3.Error as exc:
            if self.read_only or not Path(self.path).is_file() or not _disk_trouble(exc):
                raise StorageError(f"cannot open ledger {self.path}: {exc}") from None
            # A full disk (SQLite cannot create the -wal/-shm files): reads still work read-only.
            if getattr(self, "_conn", None) is not None:
                self._conn.close()
            self.read_only, self.read_only_reason = True, f"it could not be opened for writing: {exc}"
            try:
                self._conn = _connect_read_only(Path(self.path), timeout)
                self._conn.row_factory = sqlite3.Row
            except sqlite3.Error as again:
                raise StorageError(f"cannot open ledger {self.path}: {again}") from None

    # -- schema ---------------------------------------------------------------------------------

    def _migrate(self) -> None:
        with self._lock:
            if not self._pending_migrations():
                return  # an open that has nothing to migrate is a reader: it does not queue behind writers
        with self._lock, self._writer_turn():
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            done = {row[0] for row in self._conn.execute("SELECT version FROM schema_migrations")}
            for migration in migrations("sqlite"):
                if migration.version in done:
                    continue
                stamp = utc_now()
                script = (
                    "BEGIN IMMEDIATE;\n"
                    f"{migration.sql}\n;\n"
                    f"INSERT INTO schema_migrations VALUES ({migration.version}, '{migration.name}', '{stamp}');\n"
                    "COMMIT;"
                )
                try:
                    self._conn.executescript(script)
                except sqlite3.Error as exc:
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                    # Another process may have applied it between our read and our write.
                    applied = self._conn.execute(
                        "SELECT 1 FROM schema_migrations WHERE version = ?", (migration.version,)
                    ).fetchone()
                    if applied is None:
                        raise StorageError(f"migration {migration.version}_{migration.name} failed: {exc}") from None

    def _pending_migrations(self) -> bool:
        table = self._conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").fetchone()
        if table is None:
            return True
        done = {row[0] for row in self._conn.execute("SELECT version FROM schema_migrations")}
        return any(m.version not in done for m in migrations("sqlite"))

    @property
    def schema_version(self) -> int:
        row = self.one("SELECT MAX(version) FROM schema_migrations")
        return int(row[0] or 0)

    # -- transactions ---------------------------------------------------------------------------

    @contextmanager
    def _writer_turn(self, timeout: float | None = None) -> Iterator[None]:
        """Hold this file's place in the writers' queue for the block (nothing for nested or in-memory)."""
        if self._queue is None or self._depth > 0:
            yield
            return
        self._queue.acquire(timeout)
        try:
            yield
        finally:
            self._queue.release()

    @property
    def last_wait(self) -> float:
        """Seconds the latest top-level write transaction waited for its turn."""
        return self._queue.last_wait if self._queue is not None else 0.0

    @contextmanager
    def atomic(self, *, wait: bool = True, whole: bool = False) -> Iterator["Storage"]:
        """One write transaction (BEGIN IMMEDIATE), after waiting its turn among the file's writers;
        nested calls become savepoints. `wait=False` (a rolled-back preview served to a reader) does not
        queue: BusyError at once when another writer holds the file. `whole=True` on the outermost block
        (an import, all or nothing): blocks nested in it join it instead of opening savepoints, which
        would copy every page they change into a sub-journal only to be dropped; an error inside rolls
        all of it back, and it commits nothing if a nested block failed, even one whose error was caught."""
        if self.read_only:
            raise StorageError(f"the ledger {self.path} is read-only ({self.read_only_reason}); this needs to write")
        with self._lock:
            # The writers' queue (as _writer_turn, inlined: this runs for every write transaction).
            queued = self._queue is not None and self._depth == 0
            if queued:
                self._queue.acquire(None if wait else 0.0)
            try:
                depth = self._depth
                if depth > 0 and self._whole:
                    yield from self._joined()
                    return
                name = f"fl_sp_{depth}"
                try:
                    if depth == 0 and not wait:
                        # A client outside the queue files may hold SQLite's own lock: do not poll for it either.
                        timeout = self._conn.execute("PRAGMA busy_timeout").fetchone()[0]
                        self._conn.execute("PRAGMA busy_timeout = 0")
                        try:
                            self._conn.execute("BEGIN IMMEDIATE")
                        finally:
                            self._conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")
                    else:
                        self._conn.execute("BEGIN IMMEDIATE" if depth == 0 else f"SAVEPOINT {name}")
                except sqlite3.Error as exc:
                    raise _translate(exc) from None
                self._depth += 1
                if depth == 0:
                    self._whole, self._whole_failed = whole, False
                try:
                    yield self
                    if depth == 0 and self._whole_failed:
                        raise StorageError("a block inside an all-or-nothing transaction failed: nothing was written")
                except BaseException:
                    self._depth -= 1
                    if depth == 0:
                        self._whole = False
                    try:
                        if depth == 0:
                            self._conn.execute("ROLLBACK")
                        else:
                            self._conn.execute(f"ROLLBACK TO {name}")
                            self._conn.execute(f"RELEASE {name}")
                    except sqlite3.Error:
                        pass
                    raise
                else:
                    self._depth -= 1
                    if depth == 0:
                        self._whole = False
                    try:
                        self._conn.execute("COMMIT" if depth == 0 else f"RELEASE {name}")
                    except sqlite3.Error as exc:
                        if depth == 0 and self._conn.in_transaction:
                            self._conn.execute("ROLLBACK")
                        raise _translate(exc) from None
            finally:
                if queued:
                    self._queue.release()

    def _joined(self) -> Iterator["Storage"]:
        """A block nested in a `whole` transaction: part of it, with no savepoint of its own."""
        self._depth += 1
        try:
            yield self
        except BaseException:
            self._whole_failed = True
            raise
        finally:
            self._depth -= 1

    @contextmanager
    def snapshot(self) -> Iterator["Storage"]:
        """Reads that see one committed state (a deferred read transaction; in WAL mode writers go on).
        Holds this connection's lock throughout; inside a write transaction it is just that transaction."""
        with self._lock:
            if self._depth > 0 or self._conn.in_transaction:
                yield self
                return
            try:
                self._conn.execute("BEGIN")
            except sqlite3.Error as exc:
                raise _translate(exc) from None
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
                try:
                    self._conn.execute("COMMIT")
                except sqlite3.Error:
                    # SQLite may have ended the transaction itself (a damaged file: "database disk image
                    # is malformed" rolls back), and then ROLLBACK fails too ("cannot rollback - no
                    # transaction is active"), hiding the error that matters under a traceback.
                    if self._conn.in_transaction:
                        try:
                            self._conn.execute("ROLLBACK")
                        except sqlite3.Error:
                            pass

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    # -- statements -----------------------------------------------------------------------------

    def _statement_turn(self, sql: str):
        """A write statement outside a transaction commits on its own: it waits its turn like one."""
        if self._depth == 0 and self._queue is not None and not self._conn.in_transaction and _WRITE.match(sql):
            return self._writer_turn()
        return _NO_TURN

    def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; returns lastrowid (for INSERT) or the row count."""
        with self._lock, self._statement_turn(sql):
            try:
                cursor = self._conn.execute(sql, params)
            except sqlite3.Error as exc:
                raise _translate(exc) from None
            return cursor.lastrowid if sql.lstrip()[:6].upper() == "INSERT" else cursor.rowcount

    def executemany(self, sql: str, rows: Iterable[Params]) -> int:
        with self._lock, self._statement_turn(sql):
            try:
                return self._conn.executemany(sql, rows).rowcount
            except sqlite3.Error as exc:
                raise _translate(exc) from None

    def executescript(self, script: str) -> None:
        with self._lock, self._statement_turn(script):
            try:
                self._conn.executescript(script)
            except sqlite3.Error as exc:
                raise _translate(exc) from None

    def query(self, sql: str, params: Params = ()) -> list[Row]:
        with self._lock, self._statement_turn(sql):
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise _translate(exc) from None

    def one(self, sql: str, params: Params = ()) -> Row | None:
        with self._lock, self._statement_turn(sql):
            try:
                return self._conn.execute(sql, params).fetchone()
            except sqlite3.Error as exc:
                raise _translate(exc) from None

    def copy_out(self, target: str | Path, selects: Sequence[str]) -> list[str]:
        """Write what each SELECT over this ledger returns into a new SQLite file `target`, one table each
        (named in the list returned), all read in one read transaction. A private copy that another
        SQLite library (DuckDB's scanner) may open while this process holds the ledger: it never opens
        the ledger itself (DESIGN §8). Written through a connection of this library, closed on return."""
        source = Path(self.path).resolve().as_uri() + "?mode=ro"
        names = [f"copy_{n}" for n in range(1, len(selects) + 1)]
        try:
            conn = sqlite3.connect(Path(target).resolve().as_uri() + "?mode=rwc", uri=True, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode = OFF")  # a scratch file: no journal, no fsync
                conn.execute("PRAGMA synchronous = OFF")
                conn.execute("ATTACH ? AS ledger", (source,))
                conn.execute("BEGIN")
                for name, select in zip(names, selects):
                    conn.execute(f"CREATE TABLE main.{name} AS {select}")
                conn.execute("COMMIT")
                conn.execute("DETACH ledger")
            finally:
                conn.close()
        except sqlite3.Error as exc:
            raise _translate(exc) from None
        return names

    def data_version(self) -> int:
        """SQLite's data_version of this connection: it changes when another connection (of this process
        or another) commits to the file, so an unchanged value means the tables read before still hold."""
        with self._lock:
            try:
                return int(self._conn.execute("PRAGMA data_version").fetchone()[0])
            except sqlite3.Error as exc:
                raise _translate(exc) from None

    def iterate(self, sql: str, params: Params = (), *, batch: int = 1000) -> Iterator[Row]:
        """Stream a large result in batches (holding the lock per batch, not for the whole scan)."""
        with self._lock:
            try:
                cursor = self._conn.execute(sql, params)
            except sqlite3.Error as exc:
                raise _translate(exc) from None
        while True:
            with self._lock:
                rows = cursor.fetchmany(batch)
            if not rows:
                return
            yield from rows

    def backup(self, target: str | Path) -> None:
        """Write a consistent copy of the whole database to the file `target` (SQLite's online backup:
        one read snapshot, pages copied; works on a read-only connection)."""
        with self._lock:
            try:
                destination = sqlite3.connect(str(target))
                try:
                    self._conn.backup(destination)
                    # One self-contained file: the copy keeps no WAL of its own, so it opens read-only anywhere.
                    destination.execute("PRAGMA journal_mode = DELETE")
                finally:
                    destination.close()
            except sqlite3.Error as exc:
                raise StorageError(f"cannot copy the ledger to {target}: {exc}") from None

    def scrub(self, *, wait: float = 2.0) -> ScrubReport:
        """Leave no stale copy of deleted rows in the files (after an erase): merge every FTS5 index into
        fresh segments (FTS5 keeps deleted terms in old segments until they are merged), then checkpoint
        the WAL into the database and truncate it to zero bytes (old frames hold old page images).

        The truncation needs every other connection to be reading the latest snapshot; one that holds
        an older read transaction keeps the WAL, and the report says so (run it again after that reader
        ends). `wait` bounds how long to wait for such readers.
        """
        with self._lock:
            if self._depth:
                raise StorageError("scrub cannot run inside a transaction")
            rows = self.query("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL")
            tables = tuple(sorted(r["name"] for r in rows if _FTS5.search(r["sql"])))
            with self.atomic():
                for name in tables:
                    quoted = '"' + name.replace('"', '""') + '"'
                    self.execute(f"INSERT INTO {quoted}({quoted}) VALUES ('optimize')")
            if self.path == ":memory:" or self.read_only:
                return ScrubReport(tables, False, 0, "no WAL (in-memory or read-only ledger)")
            timeout = self.one("PRAGMA busy_timeout")[0]
            self.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
            try:
                with self._writer_turn():  # a truncating checkpoint waits out writers: take a turn like one
                    busy, frames, done = self.one("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self.execute(f"PRAGMA busy_timeout = {int(timeout)}")
            if busy:
                return ScrubReport(
                    tables, False, max(int(frames) - int(done), 0) if frames >= 0 else 0,
                    "another connection holds a read transaction on the ledger: its WAL was not truncated",
                )
            return ScrubReport(tables, True, 0)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            if self._queue is not None:
                self._queue.close()
