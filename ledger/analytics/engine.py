"""DuckDB over the ledger, read-only: the connection, the views, the query path and exports.

`Analytics(path)` attaches the SQLite ledger read-only through the sqlite scanner extension, loaded from
the file the pinned `duckdb-extension-sqlite-scanner` package ships (DuckDB never downloads anything);
`Analytics("postgresql://…")` attaches a PostgreSQL ledger read-only through the postgres scanner of the
pinned `duckdb-extension-postgres-scanner` package, loaded the same way. It then registers the analyst's
views and audit macros, and locks DuckDB down: no external access (no files, no other databases, no
extensions), Python replacement scans off, configuration locked. Every query is first checked (guard.py)
and rewritten (rewrite.py); only then does DuckDB see it.

The engines differ below the views only: SQLite stores times as the canonical text, PostgreSQL as
timestamptz, and every view types them as TIMESTAMPTZ (UTC), so a query answers the same rows on both.
Over PostgreSQL the temporal rewrite filters the typed columns (as in a snapshot), which the scanner
pushes into PostgreSQL's own scan.

Three ways to read (`mode`):
- "live": DuckDB scans the ledger at each query; good for one question over a small ledger.
- "snapshot" (or snapshot=True): one consistent copy of the file (SQLite's online backup) is loaded into
  DuckDB's columnar memory; the load costs about a second per million versions, then aggregates are an
  order of magnitude faster. Queries then see the ledger as it was when the snapshot was taken.
- "companion": claim versions, transactions and predicates are read from the analytics companion
  (companion.py), a DuckDB file kept in step with the ledger: before each query what changed since the
  last one is copied, so answers are the live ones at snapshot speed with no load per session.
Without a mode, a ledger of COMPANION_FROM versions or more (or one whose companion exists) reads
through
its companion, a smaller one live; a companion that cannot be used (its folder is read-only, another
session holds it) falls back to live, and `mode_note` says why.

`first_query` (what `factledger sql` passes): when the companion is current and that query reads only
what it holds, the session opens on the companion alone — no scanner loaded, no ledger attached — and
sets itself up the full way, on a new connection, the first time a query or a change needs the ledger.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
from sqlglot import exp

from factledger.ledger.engines import open_storage
from factledger.ledger.errors import LedgerError, NotFoundError, StorageError, ValidationError
from factledger.ledger.outputs import check_output, ledger_own_paths
from factledger.ledger.pg_storage import is_postgres_url, redact_url
from factledger.ledger.storage import Storage, write_denied
from factledger.ledger.times import format_time, utc_now

from . import companion as companion_file
from . import extensions
from .companion import Companion, RefreshReport
from .errors import QueryRefused, SqlError, SqlExecutionError, memory_message, time_message
from .feed import Feed, FeedReader
from .guard import LEDGER_CATALOG, SAFE_TABLE_FUNCTIONS, check_query, describing_prefix, read_names
from .output import CsvWriter
from .params import Params, bind
from ..engines import head_recorder
from .recorder import HeadRecorder
from .rewrite import Rewriter
from .views import (
    GENERIC_TABLES,
    MACROS,
    PLAIN_VIEWS,
    RAW,
    TEMPORAL_VIEWS,
    MacroDef,
    ViewDef,
    generic_view_sql,
)

ATTACHED = LEDGER_CATALOG  # "ledger_file": PostgreSQL's ledger, or a SQLite snapshot's copy while it loads
COMPANION = "ledger_companion"  # the companion file, attached beside the ledger
MODES = ("live", "snapshot", "companion")
# From this many claim versions, a query without a mode reads through the companion (docs/BENCHMARKS.md,
# SQL, measured at 10k-1M: from about here a live as-of scan passes 0.1 s on a busy machine; the first
# build is repaid after 12-24 queries at every size, so it does not pick the size).
COMPANION_FROM = 50_000
# Per engine: the pinned package shipping DuckDB's scanner, the extension file's name, the ATTACH type.
SCANNERS = {
    "sqlite": ("duckdb_extension_sqlite_scanner", "sqlite_scanner", "sqlite"),
    "postgres": ("duckdb_extension_postgres_scanner", "postgres_scanner", "postgres"),
}
EXTENSION_PACKAGE = SCANNERS["sqlite"][0]
EXPORT_FORMATS = ("parquet", "csv")
INTERNAL_TABLES = ("erase_gate", "migrate_gate")  # transient guard rows, always empty between transactions
# Engine bookkeeping that is no ledger data: PostgreSQL's one-row head of the ledger (SQLite has none).
ENGINE_TABLES = ("ledger_head",)
# The ledger tables behind the views a session can answer from the companion alone (no scanner loaded,
# no ledger attached): the ones the companion copies, and claims.
COMPANION_ONLY = frozenset({"claims", *companion_file.COPIED})
# The views every other view and macro reads: created at once even when the rest waits for a query.
BASE_VIEWS = frozenset({"claim_versions", "transactions", "predicates"})
NOW_VARIABLE = "factledger_now"  # the injected clock's now, set before each query (the registered views read it)

# Limits on one query (each adjustable per Analytics and by `factledger sql` options). Without them
# `SELECT * FROM generate_series(1, 1e8)` grew the process by many GB and ran for minutes.
DEFAULT_MEMORY_LIMIT = "1GB"  # DuckDB's own working memory (its buffer manager)
DEFAULT_TIMEOUT = 60.0  # seconds; the query is interrupted from a timer thread
DEFAULT_MAX_ROWS = 10_000  # rows fetched into Python (the result a person can read); None: no cap
_MEMORY = re.compile(r"^\s*\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$", re.IGNORECASE)


def check_memory_limit(text: object) -> str:
    if not isinstance(text, str) or not _MEMORY.match(text):
        raise ValidationError(f"{text!r} is not a memory size; use e.g. 512MB or 2GB", field="memory_limit")
    return text.strip()


@dataclass(frozen=True)
class QueryResult:
    """Rows of one query: at most `max_rows` of them, `truncated` when more were there."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool = False


def scanner_path(engine: str = "sqlite") -> Path:
    """The scanner extension file for `engine`, shipped by the package pinned with this DuckDB version."""
    package, name, _ = SCANNERS[engine]
    spec = importlib.util.find_spec(package)
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations:
        raise StorageError(
            f"the {package.replace('_', '-')}=={duckdb.__version__} package is not installed; "
            "factledger sql needs it (DuckDB cannot download extensions here)"
        )
    path = Path(locations[0]) / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    if not path.is_file():
        raise StorageError(f"no {name.replace('_', ' ')} for DuckDB {duckdb.__version__} at {path}; pin the matching package")
    return path


def sqlite_scanner_path() -> Path:
    return scanner_path("sqlite")


def postgres_scanner_path() -> Path:
    return scanner_path("postgres")


def _quote_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _quote_name(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class ExportedTable:
    name: str
    rows: int
    file: Path

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "rows": self.rows, "file": str(self.file)}


@dataclass
class ExportReport:
    directory: Path
    format: str
    snapshot_tx_time: str | None
    tables: list[ExportedTable] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "directory": str(self.directory),
            "format": self.format,
            "snapshot_tx_time": self.snapshot_tx_time,
            "tables": [t.to_dict() for t in self.tables],
        }


class Analytics:
    """Read-only SQL over one ledger file. Use as a context manager, or call `close()`.

    >>> with Analytics("ledger.db") as analytics:
    ...     rel = analytics.sql("SELECT predicate, count(*) FROM claims FOR SYSTEM_TIME AS OF '2025-03-01' GROUP BY 1")
    ...     table = rel.arrow()   # or .fetchall(), .pl(), .df() with polars/pandas installed

    A relation is valid while its Analytics is open. One instance is for one thread at a time.

    Limits: `memory_limit` (DuckDB's working memory, e.g. "512MB"; None: DuckDB's default), `timeout` (seconds per `fetch`,
    `run` or `arrow`; None for none) and `max_rows` (rows `run`/`fetch` bring into Python; None for
    all). A relation from `sql()` is the caller's to bound.
    """

    def __init__(
        self,
        ledger_path: str | Path,
        *,
        snapshot: bool = False,
        mode: str | None = None,
        companion_path: str | Path | None = None,
        clock: Callable[[], str] = utc_now,
        memory_limit: str | None = DEFAULT_MEMORY_LIMIT,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_rows: int | None = DEFAULT_MAX_ROWS,
        first_query: str | None = None,
        _lockdown: bool = True,
    ):
        self.engine = "postgres" if is_postgres_url(str(ledger_path)) else "sqlite"
        path: Path | str = str(ledger_path) if self.engine == "postgres" else Path(ledger_path)
        self.location = redact_url(path) if isinstance(path, str) else str(path)  # what messages name
        if isinstance(path, Path) and not path.is_file():
            raise NotFoundError(f"no ledger file at {path}", field="ledger")
        self.memory_limit = None if memory_limit is None else check_memory_limit(memory_limit)
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0):
            raise ValidationError(f"{timeout!r} is not a positive number of seconds", field="timeout")
        if max_rows is not None and (isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 1):
            raise ValidationError(f"{max_rows!r} is not a positive number of rows", field="max_rows")
        self.timeout = None if timeout is None else float(timeout)
        self.max_rows = max_rows
        self.path = path
        if mode is not None and mode not in MODES:
            raise ValidationError(f"{mode!r} is not a mode; use one of {', '.join(MODES)}", field="mode")
        if snapshot:
            mode = "snapshot"
        # DuckDB's sqlite scanner cannot read a WAL ledger whose -shm it may not create (a read-only
        # folder): read a consistent copy instead, made through SQLite's own read-only path.
        if isinstance(path, Path) and bool(write_denied(path)):
            mode = "snapshot"
        self.mode = mode  # None: chosen in _setup, by the ledger's size
        self._requested_mode = mode
        self._lockdown = _lockdown
        # False while a session opened for `first_query` reads the companion alone (_open_companion_only).
        self.ledger_attached = True
        self._checked: tuple[str, exp.Expression] | None = None
        self._deferred: dict[str, str] = {}  # view or macro name -> its CREATE, not run yet
        self.mode_note = ""
        self.snapshot = mode == "snapshot"
        self.companion_path = (
            Path(companion_path) if companion_path is not None else companion_file.default_path(path, self.engine)
        )
        self._companion: Companion | None = None
        self.last_refresh: RefreshReport | None = None
        self.clock = clock
        self.tables: list[str] = []
        self.views: dict[str, ViewDef] = {}
        self.temporal_views: dict[str, ViewDef] = {}
        self.macros: dict[str, MacroDef] = {}
        # On SQLite (live and companion): the ledger's tables, fed to DuckDB through this session's own
        # sqlite3 connection (feed.py); DuckDB never opens the ledger file. None on PostgreSQL and in a
        # snapshot (which reads a private copy).
        self._feed: Feed | None = None
        self._statements: dict[str, str] = {}  # DuckDB view or macro name -> its CREATE (what it reads)
        self._con = _connect(self.engine)
        self._opening(lambda: self._setup(_lockdown, first_query))

    def _opening(self, setup: Callable[[], None]) -> None:
        try:
            setup()
        except duckdb.Error as exc:
            self.close()
            raise StorageError(f"cannot open {self.location} for SQL: {self._masked(_first_line(exc))}") from None
        except BaseException:
            self.close()
            raise

    # -- setup ----------------------------------------------------------------------------------

    def _setup(self, lockdown: bool, first_query: str | None = None) -> None:
        con = self._con
        con.execute("SET TimeZone = 'UTC'")
        con.execute("SET enable_progress_bar = false")
        if self.memory_limit is not None:  # None: DuckDB's default, 80% of the machine's memory
            con.execute(f"SET memory_limit = {_quote_text(self.memory_limit)}")
        if first_query is not None and lockdown and self._open_companion_only(first_query):
            self._set_now()
            self._lock_down()
            return
        fed = self.engine == "sqlite" and not self.snapshot
        # On SQLite the scanner reads private copies only (a snapshot's, the feed's): never the ledger.
        extensions.load(con, scanner_path(self.engine))
        copy_dir = Path(tempfile.mkdtemp(prefix="factledger-snapshot-")) if self.snapshot and self.engine == "sqlite" else None
        try:
            if self.engine == "postgres":
                # libpq reads the URL itself; the scanner's own transaction is REPEATABLE READ, so one
                # DuckDB transaction (a snapshot's load) sees one committed state.
                con.execute(f"ATTACH {_quote_text(str(self.path))} AS {ATTACHED} (TYPE postgres, READ_ONLY)")
                schema = con.execute(f"SELECT * FROM postgres_query({_quote_text(ATTACHED)}, 'SELECT current_schema()')").fetchone()[0]
            elif fed:
                # DESIGN §8: DuckDB's sqlite scanner (a second SQLite library) must not open a ledger this
                # process may hold a connection to; its rows come through this session's own connection.
                self._feed = Feed(con, head_recorder(open_storage(self.path, read_only=True)))
                schema = "main"
            else:
                source = self.path
                if copy_dir is not None:
                    source = copy_dir / "ledger.db"
                    storage = Storage(self.path, read_only=True)
                    try:
                        storage.backup(source)
                    finally:
                        storage.close()
                con.execute(f"ATTACH {_quote_text(str(Path(source).resolve()))} AS {ATTACHED} (TYPE sqlite, READ_ONLY)")
                schema = "main"
            self.tables = _analyst_tables(self._table_names(schema))
            if "claims" not in self.tables:
                raise NotFoundError(f"no ledger at {self.location} (it has no claims table)", field="ledger")
            self.schema = schema
            if self.mode is None:
                self.mode = self._choose_mode()
            con.execute(f"CREATE SCHEMA {RAW}")
            if self._feed is not None:
                self._feed.create(self.tables)
                if self.mode == "companion":
                    self._open_companion(ATTACHED)
                return self._finish_setup(lockdown)
            kind = "TABLE" if self.snapshot else "VIEW"
            # One DuckDB transaction: the scanner then reads the ledger's catalog through one connection
            # (outside one it opens a connection, and SQLite parses this schema, for every statement),
            # and a snapshot's tables are one consistent read.
            con.execute("BEGIN")
            prefix = self._ledger_prefix(schema)
            for table in self.tables:
                con.execute(f"CREATE {kind} {RAW}.{_quote_name(table)} AS SELECT * FROM {prefix}.{_quote_name(table)}")
            con.execute("COMMIT")
            if self.snapshot:
                con.execute(f"DETACH {ATTACHED}")
            if self.mode == "companion":
                self._open_companion(prefix)
        finally:
            if copy_dir is not None:
                shutil.rmtree(copy_dir, ignore_errors=True)
        self._finish_setup(lockdown)

    def _finish_setup(self, lockdown: bool) -> None:
        con = self._con
        self._set_now()
        con.execute("BEGIN")  # as above: one scanner connection for the views' catalog reads
        self._register_views()
        con.execute("COMMIT")
        if lockdown:
            self._lock_down()

    def _table_names(self, schema: str) -> list[str]:
        if self._feed is not None:
            return self._feed.recorder.table_names()
        if self.engine == "sqlite":
            # SQLite's own catalog through the scanner: duckdb_tables() sizes every table of the file
            # to list them (0.4-0.9 s at a million versions, most of a session's open).
            listing = "SELECT name FROM sqlite_master WHERE type = 'table'"
            return [r[0] for r in self._con.execute(f"SELECT * FROM sqlite_query(?, {_quote_text(listing)})", [ATTACHED]).fetchall()]
        return [r[0] for r in self._con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = ? AND schema_name = ?", [ATTACHED, schema]
        ).fetchall()]

    # -- the companion ----------------------------------------------------------------------------

    def _choose_mode(self) -> str:
        if self.companion_path.exists():
            return "companion"
        if self._feed is not None:
            return "companion" if self._feed.recorder.top_claim() >= COMPANION_FROM else "live"
        native = companion_file.NATIVE[self.engine]
        top = self._con.execute(f"SELECT * FROM {native}({_quote_text(ATTACHED)}, 'SELECT max(id) FROM claims')").fetchone()[0]
        return "companion" if int(top or 0) >= COMPANION_FROM else "live"

    def _open_companion(self, prefix: str) -> None:
        """Attach the companion (building it when there is none) and read the copied tables from it;
        any reason it cannot be used leaves this session on the live path."""
        path = self.companion_path
        if not companion_file.claim(path):
            self._fall_back("another session in this process holds the companion")
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._attach_companion()
        except (OSError, duckdb.Error) as exc:
            companion_file.release(path)
            self._fall_back(f"the companion {path} cannot be opened ({_first_line(exc)})")
            return
        try:
            recorder = (self._feed.recorder if self._feed is not None
                        else head_recorder(open_storage(self.path, read_only=True), self.tables))
        except LedgerError as exc:
            companion_file.release(path)
            self._fall_back(f"the ledger's head cannot be read for the companion ({exc})")
            return
        self._companion = Companion(
            self._con, engine=self.engine, ledger=ATTACHED, prefix=prefix, path=path, alias=COMPANION,
            tables=self.tables, recorder=recorder,
            reader=FeedReader(self._con, recorder, self._feed.scratch) if self._feed is not None else None,
        )
        self.refresh()
        for table in companion_file.COPIED:
            if table in self.tables:
                if self._feed is not None:
                    self._feed.drop(table)  # read from the companion's copy instead
                self._con.execute(f"CREATE OR REPLACE VIEW {RAW}.{_quote_name(table)} AS SELECT * FROM {COMPANION}.{_quote_name(table)}")

    def _open_companion_only(self, first_query: str) -> bool:
        """Open the session on the companion alone when `first_query` reads only what it holds (claims,
        transactions, predicates and the views and macros over them) and it is current: no scanner
        extension is loaded (≈0.1 s of its signature check) and no ledger attached, and the ledger is
        read only through its own connection (its catalog, its head). False leaves the connection as it
        was for the full setup: no companion file yet, anything to copy, a query reading other tables."""
        if self.snapshot or self._requested_mode not in (None, "companion") or not self.companion_path.exists():
            return False
        try:
            recorder = head_recorder(open_storage(self.path, read_only=True))
        except LedgerError:
            return False  # the full setup reports it in its words
        try:
            self.tables = _analyst_tables(recorder.tables)
            if "claims" not in self.tables or not self._reads_companion_only(first_query):
                recorder.close()
                return False
            schema = recorder.schema()
            companion = self._companion_if_current(recorder, schema)
        except BaseException:
            recorder.close()
            raise
        if companion is None:
            recorder.close()
            self._checked = None
            return False
        self.schema, self.mode, self._companion, self.ledger_attached = schema, "companion", companion, False
        self.last_refresh = RefreshReport()
        con = self._con
        con.execute(f"CREATE SCHEMA {RAW}")
        for table in companion_file.COPIED:
            if table in self.tables:
                con.execute(f"CREATE VIEW {RAW}.{_quote_name(table)} AS SELECT * FROM {COMPANION}.{_quote_name(table)}")
        con.execute("BEGIN")
        self._register_views(only=COMPANION_ONLY, deferred=True)
        con.execute("COMMIT")
        return True

    def _companion_if_current(self, recorder: HeadRecorder, schema: str) -> Companion | None:
        """The companion, attached, when it holds the ledger's head; else None and nothing attached."""
        if not companion_file.claim(self.companion_path):
            return None
        try:
            self._attach_companion()
        except (OSError, duckdb.Error):
            companion_file.release(self.companion_path)
            return None
        companion = Companion(
            self._con, engine=self.engine, ledger=ATTACHED, prefix=self._ledger_prefix(schema),
            path=self.companion_path, alias=COMPANION, tables=self.tables, recorder=recorder,
        )
        try:
            if companion.current():
                return companion
        except (LedgerError, duckdb.Error):
            pass
        self._con.execute(f"DETACH {COMPANION}")
        companion_file.release(self.companion_path)
        return None

    def _ledger_prefix(self, schema: str) -> str:
        return f"{ATTACHED}.{_quote_name(schema)}" if self.engine == "postgres" else ATTACHED

    def _answerable(self, only: frozenset[str] | None) -> tuple[list[ViewDef], list[str], list[ViewDef], list[MacroDef]]:
        """The plain views, generic tables, temporal views and macros this ledger has; with `only`, those
        reading no other ledger tables."""

        def fits(requires: tuple[str, ...]) -> bool:
            return self._has(requires) and (only is None or set(requires) <= only)

        generic = [t for t in GENERIC_TABLES if t in self.tables and (only is None or t in only)]
        return ([v for v in PLAIN_VIEWS if fits(v.requires)], generic,
                [v for v in TEMPORAL_VIEWS if fits(v.requires)], [m for m in MACROS if fits(m.requires)])

    def _reads_companion_only(self, query: str) -> bool:
        described = describing_prefix(query)
        if described is not None:
            command, query = described
            if command == "SHOW TABLES":  # lists every view
                return False
        plain, generic, temporal, macros = self._answerable(None)
        fast = self._answerable(COMPANION_ONLY)
        try:
            tree = check_query(query, table_functions={m.name for m in macros}, reserved_names={v.name for v in temporal})
        except SqlError:
            return False  # the full session refuses it with its position
        names = read_names(tree, {d.name for d in (*plain, *temporal, *macros)} | set(generic))
        answerable = {d.name for group in (fast[0], fast[2], fast[3]) for d in group} | set(fast[1]) | SAFE_TABLE_FUNCTIONS
        if names is None or not names <= answerable:
            return False
        self._checked = (query, tree)  # the first translate() takes it instead of parsing again
        return True

    def _attach_ledger(self) -> None:
        """A session opened on the companion alone meets a query (or a change) that needs the ledger
        attached. DuckDB is locked down (no ATTACH, no LOAD), so the session is set up again, the full
        way, on a new connection; relations from the old one end with it."""
        self._con.close()
        self._close_companion()
        if self._feed is not None:
            self._feed.close()
            self._feed = None
        self.views, self.temporal_views, self.macros, self._deferred, self._statements = {}, {}, {}, {}, {}
        self.mode, self.ledger_attached = self._requested_mode, True
        self._con = _connect(self.engine)
        self._opening(lambda: self._setup(self._lockdown))

    def _attach_companion(self) -> None:
        try:
            self._con.execute(f"ATTACH {_quote_text(str(self.companion_path.resolve()))} AS {COMPANION}")
        except duckdb.IOException as exc:
            if "lock" in str(exc).lower():
                raise
            # Not a DuckDB file (or a torn one): the companion is derived, so start it again.
            self.companion_path.unlink(missing_ok=True)
            Path(f"{self.companion_path}.wal").unlink(missing_ok=True)
            self._con.execute(f"ATTACH {_quote_text(str(self.companion_path.resolve()))} AS {COMPANION}")

    def _fall_back(self, note: str) -> None:
        self.mode, self.mode_note = "live", note

    def refresh(self) -> RefreshReport | None:
        """Bring the companion in step with the ledger (what changed since the last refresh; after an
        erase, a new file). Runs before every query; None when this session reads no companion."""
        if self._companion is None:
            return None
        if not self.ledger_attached:
            if self._companion.current():
                self.last_refresh = RefreshReport()
                return self.last_refresh
            self._attach_ledger()  # which copies what changed
            return self.last_refresh
        report = self._companion.refresh()
        if report.rebuilt:
            self._con.execute(f"DETACH {COMPANION}")
            ledger = str(self.path) if self.engine == "postgres" else str(Path(self.path).resolve())
            companion_file.build_file(
                self.companion_path, engine=SCANNERS[self.engine][2], ledger_sql=ledger,
                scanner=str(scanner_path(self.engine)), tables=self.tables, schema=self.schema,
                recorder=self._companion.recorder,
            )
            self._attach_companion()
        self.last_refresh = report
        return report

    def _masked(self, text: str) -> str:
        """A DuckDB message with the ledger's URL (and so its password) replaced by the masked form."""
        if self.engine != "postgres":
            return text
        text = text.replace(str(self.path), self.location)
        from urllib.parse import urlsplit

        try:
            password = urlsplit(str(self.path)).password
        except ValueError:
            password = None
        return text.replace(password, "***") if password else text

    def _set_now(self) -> str:
        """Fix this query's now from the injected clock (the registered temporal views read it)."""
        now = self.clock()
        self._con.execute(f"SET VARIABLE {NOW_VARIABLE} = CAST({_quote_text(now)} AS TIMESTAMPTZ)")
        return now

    def _has(self, requires: tuple[str, ...]) -> bool:
        return all(t in self.tables for t in requires)

    def _register_views(self, only: frozenset[str] | None = None, deferred: bool = False) -> None:
        """Create the analyst's views and macros in DuckDB. `deferred` (a one-question session): only the
        three every other one reads; the rest (≈1 ms each) when a query names them (_create_named)."""
        plain, generic, temporal, macros = self._answerable(only)

        def create(name: str, statement: str) -> None:
            self._statements[name.lower()] = statement
            if deferred and name not in BASE_VIEWS:
                self._deferred[name] = statement
            else:
                self._con.execute(statement)

        for view in plain:
            # In a snapshot every version is typed once, at load, instead of at each query; the
            # companion holds them typed.
            kind = "TABLE" if self.snapshot and view.name == "claim_versions" else "VIEW"
            body = view.sql
            if view.name == "claim_versions" and self.mode == "companion":
                hidden = ", ".join(companion_file.INTERVAL_ENDS.values())
                body = f"SELECT * EXCLUDE ({hidden}) FROM {COMPANION}.claim_versions"
            create(view.name, f"CREATE {kind} {view.name} AS {body}")
            self.views[view.name] = view
        for table in generic:
            columns = self._con.execute(
                "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = current_database()"
                " AND schema_name = ? AND table_name = ? ORDER BY column_index",
                [RAW, table],
            ).fetchall()
            view = ViewDef(table, (table,), generic_view_sql(table, columns), f"the {table} table, timestamps typed")
            create(table, f"CREATE VIEW {_quote_name(table)} AS {view.sql}")
            self.views[table] = view
        # Temporal views are expanded by the rewriter; DuckDB gets them too (as current truth) so they
        # are listed in information_schema and usable from relations. Their now is the injected clock's,
        # as the rewriter's is: a variable set before each query, never DuckDB's own now().
        now = f"getvariable('{NOW_VARIABLE}')"
        current = (
            f"SELECT * FROM main.claim_versions AS c WHERE c.valid_from <= {now} AND (c.valid_to IS NULL OR c.valid_to > {now})"
            " AND c.tx_to IS NULL"
        )
        for view in temporal:
            body = current if view.name == "claims" else view.sql
            create(view.name, f"CREATE VIEW {view.name} AS {body}")
            self.temporal_views[view.name] = view
        for macro in macros:
            create(macro.name, macro.sql)
            self.macros[macro.name] = macro

    def _create_named(self, names: Iterable[str]) -> None:
        """Create the deferred views and macros among `names` (the ones a query is about to read)."""
        for name in names:
            statement = self._deferred.pop(name, None)
            if statement is not None:
                self._con.execute(statement)

    def _lock_down(self) -> None:
        for statement in (
            "SET enable_external_access = false",
            "SET allow_community_extensions = false",
            "SET python_enable_replacements = false",
            "SET python_scan_all_frames = false",
            "SET lock_configuration = true",
        ):
            self._con.execute(statement)

    # -- queries --------------------------------------------------------------------------------

    def translate(self, query: str, params: Params = None) -> str:
        """Check `query` and return the DuckDB SQL it runs as (temporal clauses become predicates,
        parameters — `$name` with a mapping, `?` or `$1` with a list — become literals)."""
        return self._translate(query, params, every_view=False)

    def _translate(self, query: str, params: Params, *, every_view: bool) -> str:
        """translate(); on SQLite the ledger tables the query reads are brought in step first (feed.py),
        with `every_view` those every view reads too (a relation may be built on with any of them)."""
        described = describing_prefix(query)
        if described is not None:
            command, inner = described
            if command == "SHOW TABLES":
                if not self.ledger_attached:
                    self._attach_ledger()  # to name every view
                # The analyst's views, in DuckDB's shape (one column, name). DuckDB's own SHOW TABLES
                # re-parses every view's text, which fails on the views over the attached file.
                bind(exp.Select(), params, query)  # refuses parameters given for nothing
                names = sorted({*self.temporal_views, *self.views})
                return "SELECT * FROM (VALUES " + ", ".join(f"({_quote_text(n)})" for n in names) + ") AS t(name) ORDER BY name"
            return f"{command} {self._translate(inner, params, every_view=every_view)}"
        checked, self._checked = self._checked, None
        if checked is not None and checked[0] == query:
            tree = checked[1]
        else:
            tree = check_query(query, table_functions=set(self.macros), reserved_names=set(self.temporal_views))
        if not self.ledger_attached:
            names = read_names(tree, {*self.views, *self.temporal_views, *self.macros})
            if names is None or not names <= {*self.views, *self.temporal_views, *self.macros, *SAFE_TABLE_FUNCTIONS}:
                self._attach_ledger()
            else:
                self._create_named(names)
        self.refresh()
        tree = bind(tree, params, query)
        rewriter = Rewriter(
            query, now=self._set_now(), views=self.temporal_views, macros=self.macros,
            typed_source=self.snapshot or self.mode == "companion" or self.engine == "postgres",
            interval_ends=(f"{COMPANION}.claim_versions", companion_file.INTERVAL_ENDS) if self.mode == "companion" else None,
        )
        try:
            rewritten = rewriter.rewrite(tree)
            text = rewritten.sql(dialect="duckdb")
        except RecursionError:  # a long flat chain (1 + 1 + … + 1) nests in the tree
            raise QueryRefused("the query is too deeply nested", line=1, column=1, text="") from None
        if self._feed is not None:
            needed = self._raw_tables_read(rewritten)
            if every_view:
                for name in self._statements:
                    needed |= self._raw_tables_read(exp.Table(this=exp.to_identifier(name)))
            self._feed.ensure(needed)
        return text

    def _raw_tables_read(self, tree: exp.Expression) -> set[str]:
        """The ledger tables (in `raw`) a rewritten query reads, through the views and macros it names;
        every fed table when it names something else of the catalog (a schema-qualified name)."""
        fed = self._feed.tables if self._feed is not None else set()
        tables: set[str] = set()
        seen: set[str] = set()
        pending = [tree]
        while pending:
            reads, names, anything = _references(pending.pop())
            if anything:
                return fed
            tables |= reads
            for name in names - seen:
                seen.add(name)
                statement = self._statements.get(name)
                if statement is not None:
                    parsed = _parse_statement(statement)
                    if parsed is None:  # not sqlglot's to read: what its definition says it needs
                        tables |= set(self._requires(name))
                    else:
                        pending.append(parsed)
        return tables & fed

    def _requires(self, name: str) -> tuple[str, ...]:
        for group in (self.views, self.temporal_views, self.macros):
            if name in group:
                return group[name].requires
        return ()

    def sql(self, query: str, params: Params = None) -> duckdb.DuckDBPyRelation:
        """Run one read-only query (our dialect: DuckDB's plus temporal clauses); returns a relation.
        Queries built on the relation read the views as of this call (on SQLite the tables behind every
        view are brought in step now; `raw.*` tables only through a query here)."""
        return self._relation(query, params, every_view=True)

    def _relation(self, query: str, params: Params, *, every_view: bool) -> duckdb.DuckDBPyRelation:
        text = self._translate(query, params, every_view=every_view)
        with self._limits():
            return self._con.sql(text)

    @contextmanager
    def _limits(self) -> Iterator[None]:
        """DuckDB errors as SqlExecutionError, and the timeout: a timer thread interrupts the connection."""
        fired = threading.Event()

        def interrupt() -> None:
            fired.set()
            self._con.interrupt()

        timer = threading.Timer(self.timeout, interrupt) if self.timeout is not None else None
        if timer is not None:
            timer.daemon = True
            timer.start()
        try:
            yield
        except duckdb.Error as exc:
            if fired.is_set() or isinstance(exc, duckdb.InterruptException):
                raise SqlExecutionError(time_message(self.timeout)) from None
            if isinstance(exc, duckdb.OutOfMemoryException):
                raise SqlExecutionError(memory_message(self.memory_limit, _first_line(exc))) from None
            raise SqlExecutionError(self._masked(_first_line(exc))) from None
        finally:
            if timer is not None:
                timer.cancel()

    def run(self, query: str, params: Params = None) -> QueryResult:
        """Column names and at most `max_rows` rows (`truncated` says whether there were more)."""
        relation = self._relation(query, params, every_view=False)
        with self._limits():
            if self.max_rows is None:
                return QueryResult(list(relation.columns), relation.fetchall())
            rows = relation.fetchmany(self.max_rows + 1)
            return QueryResult(list(relation.columns), rows[: self.max_rows], truncated=len(rows) > self.max_rows)

    def fetch(self, query: str, params: Params = None) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Column names and the rows of a query (at most `max_rows`; `run` says whether it cut)."""
        result = self.run(query, params)
        return result.columns, result.rows

    def arrow(self, query: str, params: Params = None) -> Any:
        """The result as a pyarrow Table (every row: it goes to a file; memory and time limits apply)."""
        relation = self._relation(query, params, every_view=False)
        with self._limits():
            return relation.to_arrow_table()

    def describe(self) -> list[dict[str, str]]:
        """The views and macros an analyst can use, with one line each."""
        if not self.ledger_attached:
            self._attach_ledger()
        items = [{"name": v.name, "kind": "temporal view", "doc": v.doc} for v in self.temporal_views.values()]
        items += [{"name": v.name, "kind": "view", "doc": v.doc} for v in self.views.values()]
        items += [{"name": m.name, "kind": "table macro", "doc": m.doc} for m in self.macros.values()]
        return items

    def close(self) -> None:
        self._con.close()
        self._close_companion()
        if self._feed is not None:
            self._feed.close()
            self._feed = None

    def _close_companion(self) -> None:
        if self._companion is not None:
            self._companion.reader.close()
            if self._feed is None or self._companion.recorder is not self._feed.recorder:
                self._companion.recorder.close()
            companion_file.release(self.companion_path)
            self._companion = None

    def __enter__(self) -> "Analytics":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def export_snapshot(
    ledger_path: str | Path,
    directory: str | Path,
    *,
    fmt: str = "parquet",
    progress: Callable[[str], None] | None = None,
    own: Sequence[str | Path] = (),
) -> ExportReport:
    """Write a consistent snapshot of every ledger table to DIRECTORY (one file per table).

    The analyst views are written typed (`claims` holds every version, all times); tables without a
    view are written as stored. A manifest.json names the tables, their row counts and the snapshot's
    last transaction time.
    """
    if fmt not in EXPORT_FORMATS:
        raise ValidationError(f"{fmt!r} is not an export format; use one of {', '.join(EXPORT_FORMATS)}", field="format")
    out = Path(directory)
    try:
        str(out).encode("utf-8")
    except UnicodeEncodeError:  # bytes of another encoding in the name (surrogate escapes): DuckDB writes UTF-8 paths only
        raise ValidationError(f"{str(out)!r} is not a UTF-8 name; give a directory whose name is UTF-8",
                              field="directory") from None
    too_long = [part for part in out.parts if len(os.fsencode(part)) > 255]  # NAME_MAX: checked before any mkdir
    if too_long:
        raise ValidationError(f"a name in the path is {len(os.fsencode(too_long[0]))} bytes long; the limit is 255",
                              field="directory")
    if out.exists() and not out.is_dir():
        raise ValidationError(f"{out} exists and is not a directory", field="directory")
    # Never into the ledger's own files (its vector folder, say), nor over anything not a regular file.
    protected = [*ledger_own_paths(ledger_path), *own]
    check_output(out, protected, field="directory", what="export", folder=True)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a name past the file system's limit, a parent that is a file, no permission
        raise ValidationError(f"cannot create {str(out)[:80]!r}{'…' if len(str(out)) > 80 else ''}: {exc.strerror}",
                              field="directory") from None
    # A whole-ledger copy to files: no row cap or timeout, and DuckDB's default memory (80% of RAM).
    analytics = Analytics(ledger_path, snapshot=True, memory_limit=None, timeout=None, max_rows=None, _lockdown=False)
    try:
        con = analytics._con
        sources: dict[str, str] = {}
        if "claim_versions" in analytics.views:
            sources["claims"] = "SELECT * FROM claim_versions ORDER BY id"
        for name in analytics.views:
            if name != "claim_versions":
                sources[name] = f"SELECT * FROM {_quote_name(name)}"
        for table in analytics.tables:
            if table not in sources and table not in INTERNAL_TABLES:
                sources[table] = f"SELECT * FROM {RAW}.{_quote_name(table)}"
        last = None
        if "transactions" in analytics.tables:
            last = con.execute(f"SELECT max(tx_time) FROM {RAW}.transactions").fetchone()[0]
            if last is not None and not isinstance(last, str):  # PostgreSQL's timestamptz: the canonical text
                last = format_time(last)
        report = ExportReport(out, fmt, last)
        for name in [*(f"{n}.{fmt}" for n in sources), "manifest.json"]:  # all checked before the first write
            check_output(out / name, protected, field="directory", what="export")
        out.mkdir(parents=True, exist_ok=True)
        for name, query in sources.items():
            target = out / f"{name}.{fmt}"
            if fmt == "parquet":
                con.execute(f"COPY ({query}) TO {_quote_text(str(target))} (FORMAT parquet)")
                rows = int(con.execute(f"SELECT count(*) FROM ({query})").fetchone()[0])
            else:  # the CSV dialect of `sql --format csv` (output.py), in batches
                rows = _write_csv(con.sql(query), target)
            report.tables.append(ExportedTable(name, rows, target))
            if progress is not None:
                progress(name)
        (out / "manifest.json").write_text(json.dumps(report.to_dict(), indent=2) + "\n", "utf-8")
        return report
    except duckdb.Error as exc:
        raise StorageError(f"export failed: {_first_line(exc)}") from None
    finally:
        analytics.close()


def _write_csv(relation: duckdb.DuckDBPyRelation, target: Path, batch: int = 10_000) -> int:
    with target.open("w", encoding="utf-8", newline="") as stream:
        writer = CsvWriter(stream, relation.columns)
        while rows := relation.fetchmany(batch):
            writer.write(rows)
    return writer.rows


def _connect(engine: str) -> duckdb.DuckDBPyConnection:
    try:
        scanner: Path | None = scanner_path(engine)
    except StorageError:  # named when the session loads it
        scanner = None
    return extensions.connect(scanner)


def _analyst_tables(names: Iterable[str]) -> list[str]:
    return sorted(
        name for name in names
        # recall_* are recall's derived indexes (FTS5 and its shadow tables, the vector outbox):
        # rebuilt from claims, never data of record, so neither snapshotted nor exported.
        # ledger_secret keys the tombstones: shown to no analyst, written to no export.
        if not name.startswith(("sqlite_", "recall_")) and name != "ledger_secret" and name not in ENGINE_TABLES
    )


_SYSTEM_SCHEMAS = {"information_schema", "pg_catalog"}
_parsed: dict[str, exp.Expression | None] = {}  # a view's or macro's CREATE -> its tree (the same in every session)


def _parse_statement(statement: str) -> exp.Expression | None:
    if statement not in _parsed:
        import sqlglot

        body = statement
        if re.match(r"\s*CREATE\s+MACRO\b", statement, re.IGNORECASE):  # a table macro: what it selects
            body = re.split(r"\bAS\s+TABLE\b", statement, maxsplit=1, flags=re.IGNORECASE)[-1]
        try:
            _parsed[statement] = sqlglot.parse_one(body, read="duckdb")
        except Exception:  # noqa: BLE001 - a parse sqlglot cannot do falls back to the definition's list
            _parsed[statement] = None
    return _parsed[statement]


def _references(tree: exp.Expression) -> tuple[set[str], set[str], bool]:
    """What a tree reads: raw.<table> names, other names (views, macros, CTEs), and whether it names
    another schema or catalog (then anything may be read)."""
    reads: set[str] = set()
    names: set[str] = set()
    for node in tree.walk():
        if isinstance(node, exp.Table):
            catalog, db, name = node.catalog.lower(), node.db.lower(), node.name.lower()
            if catalog or db == COMPANION:  # the companion's own tables need nothing from the ledger
                if COMPANION not in (catalog, db):
                    return reads, names, True
            elif db == RAW:
                reads.add(name)
            elif db in ("", "main"):
                names.add(name)
            elif db not in _SYSTEM_SCHEMAS:
                return reads, names, True
        elif isinstance(node, exp.Anonymous):
            names.add(str(node.name).lower())
    return reads, names, False


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().split("\n")[0]
