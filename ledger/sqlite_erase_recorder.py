"""The erase part's recorder on SQLite (ledger/erase_recorder.py): erase, the guard, exports, verify."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from factledger.schema import migrations

from .erase_recorder import ExportRecord, Finding, GuardRow, TombstoneRow
from .model import ClaimVersion
from .errors import StorageError
from .sqlite_recorder import SqliteLedgerRecorder
from .storage import ScrubReport, Storage

# Every stored timestamp column, by table (0006_integrity.sql checks the same list on write).
TIMESTAMP_COLUMNS: dict[str, tuple[str, ...]] = {
    "predicates": ("defined_at",),
    "transactions": ("tx_time",),
    "claims": ("valid_from", "valid_to", "tx_from", "tx_to"),
    "tombstones": ("erased_at",),
    "journal": ("said_at", "appended_at", "digested_at"),
    "proposals": ("valid_from", "valid_to", "created_at", "decided_at"),
    "rejections": ("rejected_at", "lifted_at"),
    "confirmations": ("confirmed_at", "lifted_at"),
    "recall_index_state": ("flagged_at",),
}
# The row id each table's findings name.
ROW_KEYS = {"predicates": "name", "tombstones": "content_hash"}
_FORM = "'[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'"


def _bad_time(column: str) -> str:
    return (
        f"({column} IS NOT NULL AND NOT ({column} GLOB {_FORM} AND substr({column}, 12, 2) < '24'"
        f" AND date(substr({column}, 1, 10), '+0 days') IS substr({column}, 1, 10)))"
    )


def check_clauses(sql: str) -> list[str]:
    """The expression of every CHECK constraint in a CREATE TABLE statement (column and table ones),
    found by scanning tokens: string literals, quoted names and comments are skipped, parentheses
    balanced."""
    found: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"`[":
            close = "]" if c == "[" else c
            j = i + 1
            while j < n:
                if sql[j] == close:
                    if close != "]" and j + 1 < n and sql[j + 1] == close:  # a doubled quote
                        j += 2
                        continue
                    break
                j += 1
            i = j + 1
        elif sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
        elif sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (sql[j].isalnum() or sql[j] in "_$"):
                j += 1
            if sql[i:j].upper() == "CHECK":
                k = j
                while k < n and sql[k].isspace():
                    k += 1
                if k < n and sql[k] == "(":
                    end = _balanced(sql, k)
                    found.append(sql[k + 1 : end])
                    j = end + 1
            i = j
        else:
            i += 1
    return found


def _balanced(sql: str, start: int) -> int:
    """The index of the parenthesis closing the one at `start` (string literals skipped)."""
    depth, i = 0, start
    while i < len(sql):
        c = sql[i]
        if c in "'\"`":
            j = sql.find(c, i + 1)
            while j >= 0 and j + 1 < len(sql) and sql[j + 1] == c:
                j = sql.find(c, j + 2)
            i = len(sql) if j < 0 else j + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(sql) - 1


def _schema_of(storage: Storage) -> dict[tuple[str, str], str | None]:
    return {
        (r["type"], r["name"]): r["sql"]
        for r in storage.query("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
    }


def expected_schema() -> dict[tuple[str, str], str | None]:
    """(type, name) -> SQL of every object the migrations create, from a fresh in-memory database."""
    fresh = Storage(":memory:")
    try:
        return _schema_of(fresh)
    finally:
        fresh.close()


class SqliteErasureRecorder:
    def __init__(self, storage: Storage):
        self.storage = storage

    # -- erase ----------------------------------------------------------------------------------

    def secret(self) -> str | None:
        row = self.storage.one("SELECT secret FROM ledger_secret WHERE id = 1")
        return None if row is None else str(row[0])

    def slot_versions(self, scope: str, subject_key: str, predicate: str, value_key: str | None) -> list[ClaimVersion]:
        params: list[object] = [scope, subject_key, predicate]
        sql = "SELECT * FROM claims WHERE scope = ? AND subject_key = ? AND predicate = ?"
        if value_key is not None:
            sql += " AND value_key = ?"
            params.append(value_key)
        return [ClaimVersion.from_row(r) for r in self.storage.query(sql, params)]

    def family_versions(
        self, scopes: Sequence[str], subject_key: str, predicate: str, value_keys: Sequence[str]
    ) -> list[ClaimVersion]:
        rows = self.storage.query(
            "SELECT * FROM claims WHERE scope IN (SELECT value FROM json_each(?)) AND subject_key = ?"
            " AND predicate = ? AND value_key IN (SELECT value FROM json_each(?)) ORDER BY id",
            (json.dumps(list(scopes)), subject_key, predicate, json.dumps(list(value_keys))),
        )
        return [ClaimVersion.from_row(r) for r in rows]

    def delete_versions(self, tx_id: int, principal: str, claim_ids: Sequence[int]) -> list[str]:
        storage = self.storage
        with storage.atomic():
            # Recall's pending lexical rows first (migration 0027): the delete then rewrites the rows and
            # contexts it rewrote when they were written per transaction, and nothing erased stays pending.
            lanes = SqliteLedgerRecorder(storage)
            if lanes.lanes_tail():
                lanes.catch_up_lanes()
            storage.execute("INSERT INTO erase_gate (id, principal) VALUES (1, ?)", (principal,))
            repeated = [
                row[0]
                for row in storage.query(
                    "SELECT DISTINCT source FROM claim_provenance"
                    " WHERE claim_id IN (SELECT value FROM json_each(?)) ORDER BY source",
                    (json.dumps(list(claim_ids)),),
                )
            ]
            storage.executemany("DELETE FROM claim_provenance WHERE claim_id = ?", [(i,) for i in claim_ids])
            storage.executemany("DELETE FROM claims WHERE id = ?", [(i,) for i in claim_ids])
            storage.execute("DELETE FROM erase_gate")
        return repeated

    def add_tombstones(self, rows: Sequence[TombstoneRow]) -> None:
        self.storage.executemany(
            "INSERT OR IGNORE INTO tombstones (content_hash, erased_at, principal, reason) VALUES (?, ?, ?, ?)",
            [(r.content_hash, r.erased_at, r.principal, r.reason) for r in rows],
        )

    def add_guards(self, rows: Sequence[GuardRow]) -> None:
        self.storage.executemany(
            "INSERT OR IGNORE INTO erased_texts (match, scope, words, text_hash, erase_tx) VALUES (?, ?, ?, ?, ?)",
            [(r.match, r.scope, r.words, r.text_hash, r.erase_tx) for r in rows],
        )

    def prefix_scopes_covering(self, scope: str) -> list[str]:
        return [
            r[0]
            for r in self.storage.query(
                "SELECT DISTINCT scope FROM erased_texts WHERE match = 'prefix' AND substr(?, 1, length(scope)) = scope",
                (scope,),
            )
        ]

    def any_tombstone(self, content_hashes: Sequence[str]) -> bool:
        return (
            self.storage.one(
                "SELECT 1 FROM tombstones WHERE content_hash IN (SELECT value FROM json_each(?))",
                (json.dumps(list(content_hashes)),),
            )
            is not None
        )

    def guards_for(self, scope: str) -> list[tuple[int, str]]:
        return [
            (int(r[0]), r[1])
            for r in self.storage.query(
                "SELECT words, text_hash FROM erased_texts"
                " WHERE (match = 'exact' AND scope = ?1) OR (match = 'prefix' AND substr(?1, 1, length(scope)) = scope)",
                (scope,),
            )
        ]

    def scrub(self, *, wait: float = 2.0) -> ScrubReport:
        return self.storage.scrub(wait=wait)

    # -- the manifest of exports ----------------------------------------------------------------

    def add_export(
        self, *, directory: str, fmt: str, snapshot_tx_time: str | None, exported_at: str, tables: Sequence[str]
    ) -> ExportRecord:
        with self.storage.atomic():
            export_id = self.storage.execute(
                "INSERT INTO exports (directory, format, snapshot_tx_time, exported_at, tables) VALUES (?, ?, ?, ?, ?)",
                (directory, fmt, snapshot_tx_time, exported_at, json.dumps(list(tables))),
            )
            return ExportRecord.from_row(self.storage.one("SELECT * FROM exports WHERE id = ?", (export_id,)))

    def exports_since(self, since: str) -> list[ExportRecord]:
        rows = self.storage.query("SELECT * FROM exports WHERE exported_at >= ? ORDER BY id", (since,))
        return [ExportRecord.from_row(r) for r in rows]

    # -- verify ---------------------------------------------------------------------------------

    def _tables(self) -> set[str]:
        return {r[0] for r in self.storage.query("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def _rows(self, table: str, sql: str, problem: str | Callable[[Any], str]) -> list[Finding]:
        return [Finding(table, r[0], problem(r) if callable(problem) else problem) for r in self.storage.query(sql)]

    def engine_integrity(self) -> list[tuple[str, list[Finding], str, str]]:
        result = [r[0] for r in self.storage.query("PRAGMA integrity_check")]
        keys = [
            Finding(r[0], r[1], f"references a missing {r[2]} row")
            for r in self.storage.query("PRAGMA foreign_key_check")
        ]
        return [
            (
                "integrity_check",
                [Finding("(file)", None, text) for text in result if text != "ok"],
                "PRAGMA integrity_check: ok",
                "PRAGMA integrity_check reported {n} problem(s)",
            ),
            ("foreign_keys", keys, "every reference resolves", "{n} row(s) break the rule"),
        ]

    def check_constraints(self) -> list[Finding]:
        """Every CHECK constraint of every table, evaluated on every row. SQLite's integrity_check does this
        only on a connection that may write: for a read-only database SQLite does not even keep CHECK
        constraints in its schema (build.c: sqlite3AddCheckConstraint drops them when the b-tree is
        read-only), and `verify` reads through a read-only connection. So each one is a query here."""
        findings: list[Finding] = []
        for row in self.storage.query("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL"):
            table, sql = row[0], row[1]
            clauses = check_clauses(sql)
            if not clauses:
                continue
            quoted = '"' + table.replace('"', '""') + '"'
            keys = [r[1] for r in self.storage.query(f"PRAGMA table_info({quoted})") if r[5]]
            without_rowid = "WITHOUT ROWID" in " ".join(sql.upper().split())
            key = ROW_KEYS.get(table) or ("rowid" if not without_rowid or not keys else keys[0])
            for clause in clauses:
                text = " ".join(clause.split())
                try:
                    rows = self.storage.query(f"SELECT {key} FROM {quoted} WHERE NOT ({clause}) LIMIT 101")
                except StorageError as exc:  # a clause this query cannot evaluate is itself the finding
                    findings.append(Finding(table, None, f"CHECK ({text}) could not be evaluated: {exc}"))
                    continue
                findings += [Finding(table, r[0], f"breaks CHECK ({text})") for r in rows]
        return findings

    def expected_schema(self) -> dict[tuple[str, str], str | None]:
        return expected_schema()

    def schema_findings(self, expected: dict[tuple[str, str], str | None]) -> tuple[list[Finding], int]:
        actual = _schema_of(self.storage)
        findings = []
        for (kind, name), sql in sorted(expected.items()):
            if (kind, name) not in actual:
                findings.append(Finding("sqlite_master", name, f"{kind} missing (dropped, or a migration not applied)"))
            elif actual[(kind, name)] != sql and name != "schema_migrations":  # bookkeeping, written by storage.py
                findings.append(Finding("sqlite_master", name, f"{kind} differs from its migration's SQL"))
        for (kind, name) in sorted(set(actual) - set(expected)):
            findings.append(Finding("sqlite_master", name, f"{kind} not created by any migration"))
        known = {m.version for m in migrations("sqlite")}
        applied = (
            {r[0] for r in self.storage.query("SELECT version FROM schema_migrations")}
            if "schema_migrations" in self._tables() else set()
        )
        findings += migration_findings(known, applied)
        return findings, len(expected)

    def has_chain(self) -> bool:
        return "chain_start" in self._tables()

    def bad_timestamps(self) -> list[Finding]:
        tables = self._tables()
        times: list[Finding] = []
        for table, columns in TIMESTAMP_COLUMNS.items():
            if table not in tables:
                continue
            key = ROW_KEYS.get(table, "id")
            for column in columns:
                times += self._rows(
                    table, f"SELECT {key}, {column} FROM {table} WHERE {_bad_time(column)}",
                    lambda r, column=column: f"{column} {r[1]!r} is not a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ",
                )
        return times

    def bad_intervals(self) -> list[Finding]:
        intervals = self._rows(
            "claims",
            "SELECT id, valid_from, valid_to FROM claims WHERE valid_to IS NOT NULL AND valid_from >= valid_to",
            lambda r: f"valid time [{r[1]}, {r[2]}) is empty or reversed",
        )
        intervals += self._rows(
            "claims",
            "SELECT id, tx_from, tx_to FROM claims WHERE tx_to IS NOT NULL AND tx_from >= tx_to",
            lambda r: f"transaction time [{r[1]}, {r[2]}) is empty or reversed",
        )
        intervals += self._rows(
            "claims", "SELECT id FROM claims WHERE (tx_to IS NULL) <> (closed_by IS NULL)",
            "tx_to and closed_by disagree about whether the version is closed",
        )
        intervals += self._rows(
            "claims",
            "SELECT c.id, c.tx_from, o.tx_time FROM claims c LEFT JOIN transactions o ON o.id = c.opened_by"
            " WHERE o.tx_time IS NOT c.tx_from",
            lambda r: f"tx_from {r[1]} is not its opening transaction's tx_time ({r[2]})",
        )
        intervals += self._rows(
            "claims",
            "SELECT c.id, c.tx_to, x.tx_time FROM claims c LEFT JOIN transactions x ON x.id = c.closed_by"
            " WHERE c.closed_by IS NOT NULL AND x.tx_time IS NOT c.tx_to",
            lambda r: f"tx_to {r[1]} is not its closing transaction's tx_time ({r[2]})",
        )
        intervals += self._rows(
            "claims",
            "SELECT c.id, c.cardinality, p.cardinality FROM claims c LEFT JOIN predicates p ON p.name = c.predicate"
            " WHERE p.cardinality IS NOT c.cardinality",
            lambda r: f"cardinality {r[1]!r} differs from its predicate's ({r[2]!r})",
        )
        return intervals

    def overlaps(self) -> list[Finding]:
        return self._rows(
            "claims",
            "SELECT b.id, a.id FROM claims a JOIN claims b"
            " ON a.scope = b.scope AND a.subject_key = b.subject_key AND a.predicate = b.predicate AND a.id < b.id"
            " WHERE a.tx_to IS NULL AND b.tx_to IS NULL"
            " AND (a.cardinality = 'one' OR a.value_key = b.value_key)"
            " AND a.valid_from < COALESCE(b.valid_to, '9999-12-31T23:59:59.999999Z')"
            " AND b.valid_from < COALESCE(a.valid_to, '9999-12-31T23:59:59.999999Z')",
            lambda r: f"overlaps current version {r[1]} in valid time",
        )

    def bad_transactions(self) -> list[Finding]:
        transactions = self._rows(
            "transactions",
            "SELECT id, tx_time, previous FROM (SELECT id, tx_time, LAG(tx_time) OVER (ORDER BY id) AS previous"
            " FROM transactions) WHERE previous IS NOT NULL AND tx_time <= previous",
            lambda r: f"tx_time {r[1]} is not later than the previous transaction's ({r[2]})",
        )
        transactions += self._rows(
            "transactions",
            "SELECT id, principal FROM transactions WHERE NOT (principal GLOB 'operator:?*' OR principal GLOB 'agent:?*'"
            " OR principal GLOB 'digest:?*' OR principal GLOB 'import:?*')",
            lambda r: f"principal {r[1]!r} is of no known kind",
        )
        return transactions

    def erase_problems(self) -> list[Finding]:
        gate = self._rows("erase_gate", "SELECT id, principal FROM erase_gate", lambda r: f"left open for {r[1]}")
        if "migrate_gate" in self._tables():  # schema/*/migrate_gate: closed by the copy that opened it
            gate += self._rows("migrate_gate", "SELECT id, through_tx FROM migrate_gate",
                               lambda r: f"left open by a copy (through transaction {r[1]})")
        # An erase leaves a tombstone dated at its transaction; one that has none lost it (or never erased).
        if "version_hashes" in self._tables():
            gate += self._rows(
                "transactions",
                "SELECT DISTINCT v.erased_by FROM version_hashes v JOIN transactions t ON t.id = v.erased_by"
                " WHERE v.erased_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tombstones s WHERE s.erased_at = t.tx_time)",
                TOMBSTONE_LOST,
            )
        return gate


TOMBSTONE_LOST = "an erase transaction without its tombstone (deleted?): the value could be written again"


def migration_findings(known: set[int], applied: set[int]) -> list[Finding]:
    """Migrations known but not applied, and applied but unknown (both engines)."""
    findings = [Finding("schema_migrations", v, "migration not applied") for v in sorted(known - applied)]
    findings += [
        Finding("schema_migrations", v, "applied by a newer factledger than this one") for v in sorted(applied - known)
    ]
    return findings
