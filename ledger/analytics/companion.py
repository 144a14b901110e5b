"""The analytics companion: a DuckDB file beside the ledger holding typed copies of the tables the
analyst's aggregates read (claim versions, transactions, predicates), kept in step from the ledger.

Like recall's vector companion it is derived, rebuildable and never the truth: before a query answers,
the ledger's head is compared with what the companion last copied, and only what changed is read:

- new transactions and the versions they opened: ids above the last copied ones (writers are
  serialised on both engines, so ids grow in commit order), up to the head read at the start;
- versions closed since: `closed_by` above the last copied transaction (on SQLite read from
  `version_hashes`, where a trigger mirrors every close under an index; PostgreSQL indexes claims');
- predicates: a few rows, compared whole; a changed template re-renders its versions' statements;
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

from .views import RAW, STATEMENT, claims_projection

FORMAT = 1  # the companion's own layout; a file of another format is rebuilt
STATE = "companion_state"
# The tables copied into the companion (and so read from it); every other table stays on the ledger.
COPIED = ("predicates", "transactions")
NATIVE = {"sqlite": "sqlite_query", "postgres": "postgres_query"}  # the scanners' pass-through reads

# A transaction's time as the same text on every read (PostgreSQL's own text form follows the session).
_TX_TEXT = {"sqlite": "tx_time", "postgres": "to_char(tx_time AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"}

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
    """What the ledger holds, read first at each refresh: the bound of every copy."""

    last_tx: int | None
    first_tx_time: str | None
    known_tx_time: str | None  # the ledger's tx_time of the companion's last copied transaction
    erase_mark: str


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
    """The companion of one ledger, read and written through one DuckDB connection on which the ledger
    is attached as `ledger` (schema prefix `prefix`) and the companion file as `alias`."""

    def __init__(self, con: duckdb.DuckDBPyConnection, *, engine: str, ledger: str, prefix: str,
                 path: Path, alias: str, tables: list[str]):
        self.con = con
        self.engine = engine
        self.ledger = ledger
        self.prefix = prefix
        self.path = path
        self.alias = alias
        self.tables = tables

    # -- reading the ledger ---------------------------------------------------------------------

    def native(self, sql: str) -> str:
        """A table expression running `sql` in the ledger's own engine (its indexes, its plan)."""
        return f"{NATIVE[self.engine]}({_text(self.ledger)}, {_text(sql)})"

    def _value(self, sql: str):
        row = self.con.execute(f"SELECT * FROM {self.native(sql)}").fetchone()
        return None if row is None else row[0]

    def head(self, known_tx: int | None) -> Head:
        tx_text = _TX_TEXT[self.engine]
        last_tx = _integer(self._value("SELECT max(id) FROM transactions"))
        first = self._value(f"SELECT {tx_text} FROM transactions ORDER BY id LIMIT 1") if last_tx is not None else None
        known = None
        if known_tx is not None:
            known = self._value(f"SELECT {tx_text} FROM transactions WHERE id = {int(known_tx)}")
        marks = []
        if "version_hashes" in self.tables:
            marks.append(self._value("SELECT max(erased_by) FROM version_hashes WHERE erased_by IS NOT NULL"))
        if "tombstones" in self.tables:
            marks.append(self._value("SELECT count(*) FROM tombstones"))
        return Head(last_tx, None if first is None else str(first), None if known is None else str(known),
                    "/".join("" if m is None else str(m) for m in marks))

    # -- state ----------------------------------------------------------------------------------

    def state(self) -> dict | None:
        try:
            row = self.con.execute(
                f"SELECT format, engine, first_tx_time, last_tx, last_tx_time, last_claim, erase_mark FROM {self.alias}.{STATE}"
            ).fetchone()
        except duckdb.CatalogException:
            return None
        if row is None:
            return None
        keys = ("format", "engine", "first_tx_time", "last_tx", "last_tx_time", "last_claim", "erase_mark")
        return dict(zip(keys, row))

    def stale_reason(self, state: dict | None, head: Head) -> str | None:
        """Why the companion must be rebuilt from nothing, or None when it can be brought forward."""
        if state is None:
            return "no companion yet"
        if state["format"] != FORMAT or state["engine"] != self.engine:
            return "the companion was written by another version or for another engine"
        if state["first_tx_time"] != head.first_tx_time:
            return "a different ledger"
        if state["last_tx"] is not None and (head.last_tx is None or head.last_tx < state["last_tx"]
                                            or head.known_tx_time != state["last_tx_time"]):
            return "the ledger went back (restored from a backup?)"
        if state["erase_mark"] != head.erase_mark:
            return "an erase since the last refresh"
        return None

    # -- bringing it forward --------------------------------------------------------------------

    def refresh(self) -> RefreshReport:
        """Copy what changed since the last refresh. The caller rebuilds when this says so."""
        con = self.con
        con.execute("BEGIN")
        try:
            state = self.state()
            head = self.head(None if state is None else state["last_tx"])
            reason = self.stale_reason(state, head)
            if reason is not None:
                con.execute("ROLLBACK")
                return RefreshReport(rebuilt=True, reason=reason)
            assert state is not None
            report = RefreshReport()
            report.predicates_changed = self._predicates()
            last_tx, top = state["last_tx"] or 0, head.last_tx or 0
            if top > last_tx:
                report.transactions = self._insert(
                    "transactions", f"SELECT * FROM transactions WHERE id > {last_tx} AND id <= {top}"
                )
                last_claim = state["last_claim"] or 0
                report.versions = self._new_versions(f"id > {last_claim} AND opened_by <= {top}", top)
                report.closed = self._closings(last_tx, top, last_claim)
                self._record(head)
            con.execute("COMMIT")
            return report
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _insert(self, table: str, sql: str) -> int:
        return self.con.execute(f"INSERT INTO {self.alias}.{table} SELECT * FROM {self.native(sql)}").fetchone()[0]

    def _new_versions(self, where: str, top: int) -> int:
        source = self.native(f"SELECT * FROM claims WHERE {where}")
        count = self.con.execute(
            f"INSERT INTO {self.alias}.claim_versions {claims_projection(source, f'{self.alias}.predicates')}"
        ).fetchone()[0]
        self._unclose_after(top)
        return count

    def _unclose_after(self, top: int) -> None:
        # A version copied with a close by a transaction after the head: that close comes next time.
        self.con.execute(
            f"UPDATE {self.alias}.claim_versions SET tx_to = NULL, closed_by = NULL WHERE closed_by > {int(top)}"
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
            f"UPDATE {self.alias}.claim_versions AS v SET tx_to = CAST(x.tx_to AS TIMESTAMPTZ), closed_by = x.closed_by"
            f" FROM {self.native(sql)} AS x WHERE v.id = x.id"
        ).fetchone()[0]

    def _predicates(self) -> bool:
        """Replace the copied predicates when any row differs, and re-render the statements they shape."""
        ledger = f"{self.prefix}.predicates"
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
        self.con.execute(
            f"UPDATE {self.alias}.{STATE} SET first_tx_time = ?, last_tx = ?, last_tx_time = ?, erase_mark = ?,"
            f" last_claim = (SELECT max(id) FROM {self.alias}.claim_versions)",
            [head.first_tx_time, head.last_tx, _tx_time_of(self, head.last_tx), head.erase_mark],
        )

    # -- building from nothing ------------------------------------------------------------------

    def build(self) -> None:
        """Fill the (empty, freshly attached) companion with the ledger as of its head, in one transaction."""
        con = self.con
        con.execute("BEGIN")
        try:
            head = self.head(None)
            top = head.last_tx or 0
            con.execute(f"CREATE TABLE {self.alias}.{STATE} (format INTEGER, engine VARCHAR, first_tx_time VARCHAR,"
                        " last_tx BIGINT, last_tx_time VARCHAR, last_claim BIGINT, erase_mark VARCHAR)")
            con.execute(f"CREATE TABLE {self.alias}.predicates AS SELECT * FROM {self.prefix}.predicates")
            con.execute(
                f"CREATE TABLE {self.alias}.transactions AS SELECT * FROM {self.prefix}.transactions WHERE id <= {top} ORDER BY id"
            )
            con.execute(
                f"CREATE TABLE {self.alias}.claim_versions AS SELECT * FROM"
                f" ({claims_projection(f'{self.prefix}.claims', f'{self.alias}.predicates')}) WHERE opened_by <= {top} ORDER BY id"
            )
            self._unclose_after(top)
            con.execute(f"INSERT INTO {self.alias}.{STATE} (format, engine) VALUES (?, ?)", [FORMAT, self.engine])
            self._record(head)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise


def _integer(value: object) -> int | None:
    # SQLite gives an aggregate no declared type, so its scanner hands it over as text.
    return None if value is None else int(value)  # type: ignore[call-overload]


def _tx_time_of(companion: Companion, tx_id: int | None) -> str | None:
    if tx_id is None:
        return None
    tx_text = _TX_TEXT[companion.engine]
    value = companion._value(f"SELECT {tx_text} FROM transactions WHERE id = {int(tx_id)}")
    return None if value is None else str(value)


def build_file(path: Path, *, engine: str, ledger_sql: str, scanner: str, tables: list[str], schema: str) -> None:
    """Write a new companion for a ledger to `path` (replacing any file there) through a connection of
    its own: the analyst's connection cannot create files once it is locked down."""
    temporary = path.with_name(path.name + ".rebuild")
    for leftover in (temporary, Path(f"{temporary}.wal")):
        leftover.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(":memory:", config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    try:
        con.execute("SET TimeZone = 'UTC'")
        con.execute(f"LOAD {_text(scanner)}")
        con.execute(f"ATTACH {_text(ledger_sql)} AS ledger (TYPE {engine}, READ_ONLY)")
        con.execute(f"ATTACH {_text(str(temporary))} AS fresh")
        prefix = f'ledger."{schema}"' if engine == "postgres" else "ledger"
        Companion(con, engine=engine, ledger="ledger", prefix=prefix, path=temporary, alias="fresh", tables=tables).build()
        con.execute("DETACH fresh")  # checkpoints: everything in the file, no WAL left
    finally:
        con.close()
    Path(f"{temporary}.wal").unlink(missing_ok=True)
    os.replace(temporary, path)
    Path(f"{path}.wal").unlink(missing_ok=True)  # the old file's log, if it had one


__all__ = ["COPIED", "RAW", "Companion", "RefreshReport", "build_file", "claim", "default_path", "release"]
