"""The analytics companion: a DuckDB file beside the ledger holding typed copies of the tables the
analyst's aggregates read (claim versions, transactions, predicates), kept in step from the ledger.

Like recall's vector companion it is derived, rebuildable and never the truth: before a query answers,
the ledger's head (its last transaction, read through the ledger's own connection: recorder.py) is
compared with what the companion last copied. Every write factledger makes is a new transaction, so
an unchanged head ends the check; otherwise only what changed is read:

- new transactions and the versions they opened: ids above the last copied ones (writers are
  serialised on both engines, so ids grow in commit order), up to the head read at the start;
- versions closed since: `closed_by` above the last copied transaction (on SQLite read from
  `version_hashes`, where a trigger mirrors every close under an index; PostgreSQL indexes claims');
- predicates: a few rows, read whole; a changed template re-renders its versions' statements;
- an erase (a version's `erased_by` set, or a tombstone added), a ledger that went backwards (a backup
  restored over it) or a different ledger at the same place: the file is rebuilt from nothing.

Every copy is bounded by the head transaction read first, so the companion holds exactly the ledger as
of that transaction even when a writer commits during the refresh.

A rebuild writes a new file and renames it over the old one. DuckDB keeps freed blocks with their old
bytes (a DELETE and a CHECKPOINT leave a deleted value readable in the file), so dropping erased rows
in place would not honour an erase; the new file never held the value. Tables that change in place
(the journal, the digest's review tables, provenance) are not copied: their views read the ledger.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

import duckdb

from factledger.ledger.pg_storage import local_data_path

from . import extensions
from .feed import FeedReader, NativeReader
from .recorder import HeadMark, HeadRecorder
from .views import RAW, STATEMENT, claims_projection

# The companion's own layout; a file of another format is rebuilt (2: the predicates mark, interval ends).
FORMAT = 2
STATE = "companion_state"
STATE_COLUMNS = ("format", "engine", "first_tx_time", "last_tx", "last_tx_time", "last_claim", "erase_mark",
                 "predicates_mark")
# The tables copied into the companion (and so read from it); every other table stays on the ledger.
COPIED = ("predicates", "transactions")
# The companion's claim_versions holds two columns more than the analyst's view: each interval's end
# with an open end as 'infinity', so that an as-of filter is one comparison per column (`end > t`, a
# plain range filter DuckDB pushes into the scan) instead of `end IS NULL OR end > t`. Hidden from the
# analyst (the view excludes them); read by the rewriter (rewrite.py).
INTERVAL_ENDS = {"valid_to": "valid_end", "tx_to": "tx_end"}
_WITH_ENDS = "SELECT *, " + ", ".join(f"coalesce({c}, 'infinity'::TIMESTAMPTZ) AS {e}" for c, e in INTERVAL_ENDS.items())
NATIVE = {"sqlite": "sqlite_query", "postgres": "postgres_query"}  # the scanners' pass-through reads

_in_use: set[str] = set()  # companion files this process has open (DuckDB's file lock is per process)
_in_use_lock = threading.Lock()


def default_path(location: str | Path, engine: str) -> Path:
    """Where a ledger's companion lives: beside a SQLite file; for PostgreSQL, one file per database
    (named as recall names its vector folder: by the URL without the password) in the user's data folder."""
    if engine == "postgres":
        return local_data_path(str(location), "analytics", ".duckdb")
    return Path(f"{location}.analytics.duckdb")


def claim(path: Path) -> bool:
    """Reserve `path` for this process's one user; False when another Analytics here holds it."""
    with _in_use_lock:
        key = str(path.resolve())
        if key in _in_use:
            return False
        _in_use.add(key)
        return True


def release(path: Path) -> None:
    with _in_use_lock:
        _in_use.discard(str(path.resolve()))


def _text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


@dataclass(frozen=True)
class Head:
    """What the ledger holds, read (through its own connection) before anything is copied: the bound of
    every copy."""

    mark: HeadMark
    known_tx_time: str | None  # the ledger's tx_time of the companion's last copied transaction
    erase_mark: str
    predicates_mark: str


@dataclass
class RefreshReport:
    rebuilt: bool = False
    reason: str = ""
    transactions: int = 0
    versions: int = 0
    closed: int = 0
    predicates_changed: bool = False

    @property
    def changed(self) -> bool:
        return self.rebuilt or bool(self.transactions or self.versions or self.closed or self.predicates_changed)


class Companion:
    """The companion of one ledger, read and written through one DuckDB connection on which the companion
    file is attached as `alias`; the ledger's head is read through `recorder` (the ledger's own
    connection), and the rows copied come through `reader`: on SQLite the same connection (feed.py:
    DuckDB never opens the ledger file), on PostgreSQL the scanner of the ledger attached as `ledger`
    (schema prefix `prefix`)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, *, engine: str, ledger: str, prefix: str,
                 path: Path, alias: str, tables: list[str], recorder: HeadRecorder,
                 reader: FeedReader | NativeReader | None = None):
        self.con = con
        self.reader = reader if reader is not None else (
            FeedReader(con, recorder) if engine == "sqlite" else NativeReader(NATIVE[engine], ledger, prefix)
        )
        self.engine = engine
        self.ledger = ledger
        self.prefix = prefix
        self.path = path
        self.alias = alias
        self.tables = tables
        self.recorder = recorder
        # The state row as last read or written. Only this object writes the file while it is attached
        # (DuckDB locks it to one process, claim() to one session of it), so the copy stays true.
        self._state: dict | None = None

    # -- reading the ledger ---------------------------------------------------------------------

    def native(self, sql: str, like: str = "claims") -> str:
        """A table expression holding what `sql` returns, run in the ledger's own engine (its indexes,
        its plan); its columns typed as the ledger table `like`'s."""
        return self.reader.rows(sql, like=like)

    def head(self, mark: HeadMark, known_tx: int | None) -> Head:
        recorder = self.recorder
        known = None
        if known_tx is not None:
            known = mark.last_tx_time if known_tx == mark.last_tx else recorder.tx_time(known_tx)
        return Head(mark, known, recorder.erase_mark(), recorder.predicates_mark())

    # -- state ----------------------------------------------------------------------------------

    def state(self) -> dict | None:
        if self._state is None:
            self._state = self._read_state()
        return self._state

    def forget_state(self) -> None:
        """The file was replaced (a rebuild): read its state again."""
        self._state = None

    def _read_state(self) -> dict | None:
        try:
            cursor = self.con.execute(f"SELECT * FROM {self.alias}.{STATE}")
        except duckdb.CatalogException:
            return None
        row = cursor.fetchone()
        if row is None:
            return None
        state = dict(zip([d[0] for d in cursor.description], row))
        return state if all(k in state for k in STATE_COLUMNS) else {"format": None, "engine": None}

    def unchanged(self, state: dict | None, mark: HeadMark) -> bool:
        """True when the ledger's head is where the companion's last copy left it: nothing to do."""
        return (state is not None and state["format"] == FORMAT and state["engine"] == self.engine
                and state["last_tx"] == mark.last_tx and state["last_tx_time"] == mark.last_tx_time
                and state["first_tx_time"] == mark.first_tx_time)

    def current(self) -> bool:
        """True when nothing changed since the last refresh (one read of the ledger's head)."""
        return self.unchanged(self.state(), self.recorder.mark())

    def stale_reason(self, state: dict | None, head: Head) -> str | None:
        """Why the companion must be rebuilt from nothing, or None when it can be brought forward."""
        if state is None:
            return "no companion yet"
        if state["format"] != FORMAT or state["engine"] != self.engine:
            return "the companion was written by another version or for another engine"
        if state["first_tx_time"] != head.mark.first_tx_time:
            return "a different ledger"
        last_tx = head.mark.last_tx
        if state["last_tx"] is not None and (last_tx is None or last_tx < state["last_tx"]
                                            or head.known_tx_time != state["last_tx_time"]):
            return "the ledger went back (restored from a backup?)"
        if state["erase_mark"] != head.erase_mark:
            return "an erase since the last refresh"
        return None

    # -- bringing it forward --------------------------------------------------------------------

    def refresh(self) -> RefreshReport:
        """Copy what changed since the last refresh. The caller rebuilds when this says so."""
        mark = self.recorder.mark()
        state = self.state()
        if self.unchanged(state, mark):
            return RefreshReport()
        # The head is read before DuckDB's transaction opens the scanner's: the scanner's view of the
        # ledger is then at least as new as the head, and every copy below is bounded by it.
        head = self.head(mark, None if state is None else state.get("last_tx"))
        reason = self.stale_reason(state, head)
        if reason is not None:
            self.forget_state()
            return RefreshReport(rebuilt=True, reason=reason)
        assert state is not None
        con = self.con
        con.execute("BEGIN")
        try:
            report = RefreshReport()
            if head.predicates_mark != state["predicates_mark"]:
                report.predicates_changed = self._predicates()
            last_tx, top = state["last_tx"] or 0, mark.last_tx or 0
            if top > last_tx:
                report.transactions = self._insert(
                    "transactions", f"SELECT * FROM transactions WHERE id > {last_tx} AND id <= {top}"
                )
                last_claim = state["last_claim"] or 0
                report.versions = self._new_versions(f"id > {last_claim} AND opened_by <= {top}", top)
                report.closed = self._closings(last_tx, top, last_claim)
            self._record(head)
            con.execute("COMMIT")
        except BaseException:
            self.forget_state()
            con.execute("ROLLBACK")
            raise
        finally:
            self.reader.release()
        return report

    def _insert(self, table: str, sql: str) -> int:
        return self.con.execute(f"INSERT INTO {self.alias}.{table} SELECT * FROM {self.native(sql, table)}").fetchone()[0]

    def _new_versions(self, where: str, top: int) -> int:
        source = self.native(f"SELECT * FROM claims WHERE {where}")
        count = self.con.execute(
            f"INSERT INTO {self.alias}.claim_versions {_with_ends(claims_projection(source, f'{self.alias}.predicates'))}"
        ).fetchone()[0]
        self._unclose_after(top)
        return count

    def _unclose_after(self, top: int) -> None:
        # A version copied with a close by a transaction after the head: that close comes next time.
        self.con.execute(
            f"UPDATE {self.alias}.claim_versions SET tx_to = NULL, tx_end = 'infinity', closed_by = NULL WHERE closed_by > {int(top)}"
        )

    def _closings(self, last_tx: int, top: int, last_claim: int) -> int:
        if self.engine == "sqlite" and "version_hashes" in self.tables:
            # SQLite has no index on claims.closed_by; a trigger mirrors every close into the hash
            # rows, whose closed_by is indexed. PostgreSQL indexes claims.closed_by itself.
            ids = f"SELECT claim_id FROM version_hashes WHERE closed_by > {last_tx} AND closed_by <= {top}"
            sql = f"SELECT id, tx_to, closed_by FROM claims WHERE id <= {last_claim} AND id IN ({ids})"
        else:
            sql = f"SELECT id, tx_to, closed_by FROM claims WHERE id <= {last_claim} AND closed_by > {last_tx} AND closed_by <= {top}"
        return self.con.execute(
            f"UPDATE {self.alias}.claim_versions AS v SET tx_to = CAST(x.tx_to AS TIMESTAMPTZ),"
            " tx_end = CAST(x.tx_to AS TIMESTAMPTZ), closed_by = x.closed_by"
            f" FROM {self.native(sql)} AS x WHERE v.id = x.id"
        ).fetchone()[0]

    def _predicates(self) -> bool:
        """Replace the copied predicates when any row differs, and re-render the statements they shape."""
        ledger = self.reader.whole("predicates")
        mine = f"{self.alias}.predicates"
        changed = [
            r[0]
            for r in self.con.execute(
                f"SELECT name FROM ((SELECT * FROM {ledger} EXCEPT SELECT * FROM {mine})"
                f" UNION (SELECT * FROM {mine} EXCEPT SELECT * FROM {ledger}))"
            ).fetchall()
        ]
        if not changed:
            return False
        self.con.execute(f"DELETE FROM {mine}")
        self.con.execute(f"INSERT INTO {mine} SELECT * FROM {ledger}")
        # Predicates are defined and redefined, never removed: every changed name has its row.
        self.con.execute(
            f"UPDATE {self.alias}.claim_versions AS c SET statement = {STATEMENT} FROM {mine} AS p"
            " WHERE p.name = c.predicate AND c.predicate IN (SELECT unnest(?))",
            [changed],
        )
        return True

    def _record(self, head: Head) -> None:
        values = {"first_tx_time": head.mark.first_tx_time, "last_tx": head.mark.last_tx,
                  "last_tx_time": head.mark.last_tx_time, "erase_mark": head.erase_mark,
                  "predicates_mark": head.predicates_mark}
        self.con.execute(
            f"UPDATE {self.alias}.{STATE} SET " + ", ".join(f"{k} = ?" for k in values)
            + f", last_claim = (SELECT max(id) FROM {self.alias}.claim_versions)",
            list(values.values()),
        )
        self._state = None  # read back after the commit (last_claim is DuckDB's to compute)

    # -- building from nothing ------------------------------------------------------------------

    def build(self) -> None:
        """Fill the (empty, freshly attached) companion with the ledger as of its head, in one transaction."""
        head = self.head(self.recorder.mark(), None)
        top = head.mark.last_tx or 0
        con = self.con
        con.execute("BEGIN")
        try:
            con.execute(f"CREATE TABLE {self.alias}.{STATE} (format INTEGER, engine VARCHAR, first_tx_time VARCHAR,"
                        " last_tx BIGINT, last_tx_time VARCHAR, last_claim BIGINT, erase_mark VARCHAR,"
                        " predicates_mark VARCHAR)")
            reader = self.reader
            con.execute(f"CREATE TABLE {self.alias}.predicates AS SELECT * FROM {reader.whole('predicates')}")
            con.execute(
                f"CREATE TABLE {self.alias}.transactions AS SELECT * FROM {reader.whole('transactions', f'id <= {top}')} ORDER BY id"
            )
            con.execute(
                f"CREATE TABLE {self.alias}.claim_versions AS SELECT * FROM"
                f" ({_with_ends(claims_projection(reader.whole('claims', f'opened_by <= {top}'), f'{self.alias}.predicates'))})"
                " ORDER BY id"
            )
            self._unclose_after(top)
            con.execute(f"INSERT INTO {self.alias}.{STATE} (format, engine) VALUES (?, ?)", [FORMAT, self.engine])
            self._record(head)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        finally:
            self.reader.release()


def _with_ends(projection: str) -> str:
    return f"{_WITH_ENDS} FROM ({projection})"


def build_file(path: Path, *, engine: str, ledger_sql: str, scanner: str, tables: list[str], schema: str,
               recorder: HeadRecorder) -> None:
    """Write a new companion for a ledger to `path` (replacing any file there) through a connection of
    its own: the analyst's connection cannot create files once it is locked down. A SQLite ledger is
    read through private copies `recorder`'s library writes (feed.py), never attached to DuckDB."""
    temporary = path.with_name(path.name + ".rebuild")
    for leftover in (temporary, Path(f"{temporary}.wal")):
        leftover.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    con = extensions.connect(Path(scanner))
    try:
        con.execute("SET TimeZone = 'UTC'")
        extensions.load(con, Path(scanner))
        if engine != "sqlite":  # a SQLite ledger is read through private copies (feed.py), never attached
            con.execute(f"ATTACH {_text(ledger_sql)} AS ledger (TYPE {engine}, READ_ONLY)")
        con.execute(f"ATTACH {_text(str(temporary))} AS fresh")
        prefix = f'ledger."{schema}"' if engine == "postgres" else "ledger"
        companion = Companion(con, engine=engine, ledger="ledger", prefix=prefix, path=temporary, alias="fresh",
                              tables=tables, recorder=recorder)
        try:
            companion.build()
        finally:
            companion.reader.close()
        con.execute("DETACH fresh")  # checkpoints: everything in the file, no WAL left
    finally:
        con.close()
    Path(f"{temporary}.wal").unlink(missing_ok=True)
    os.replace(temporary, path)
    Path(f"{path}.wal").unlink(missing_ok=True)  # the old file's log, if it had one


def companion_files(path: Path) -> list[Path]:
    """The companion and what DuckDB or a rebuild leave beside it (its log, a rebuild's file and log)."""
    rebuild = path.with_name(path.name + ".rebuild")
    return [path, Path(f"{path}.wal"), rebuild, Path(f"{rebuild}.wal")]


def discard(path: Path) -> str | None:
    """Remove a companion after an erase: it is derived (the next session that reads it builds it again,
    from the ledger as it is now) and may still hold what was erased. Each file is overwritten with zeros
    before it is unlinked. A companion held by a session (DuckDB locks the file to one process, claim()
    to one session of it) is left alone, and the reason returned: that session rebuilds it at its next
    query (the erase moved the ledger's erase mark), and `factledger scrub` removes it once it ends."""
    present = [f for f in companion_files(path) if f.exists()]
    if not present:
        return None
    if not claim(path):
        return "a session in this process holds the analytics companion"
    try:
        if path.exists():
            try:
                duckdb.connect(str(path)).close()  # refused while another process holds the file's lock
            except duckdb.Error as exc:
                if "lock" in str(exc).lower():
                    return "another process holds the analytics companion open"
                # not a DuckDB file: derived all the same, removed below
        for item in present:
            _zero_and_unlink(item)
    finally:
        release(path)
    return None


def _zero_and_unlink(item: Path) -> None:
    try:
        size = item.stat().st_size
        with item.open("r+b") as stream:
            block = b"\0" * (1 << 20)
            for start in range(0, size, len(block)):
                stream.write(block[: min(len(block), size - start)])
            stream.flush()
            os.fsync(stream.fileno())
    except FileNotFoundError:
        return
    item.unlink(missing_ok=True)


__all__ = ["COPIED", "INTERVAL_ENDS", "RAW", "Companion", "RefreshReport", "build_file", "claim", "companion_files", "default_path",
           "discard", "release"]
