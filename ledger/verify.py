"""`verify`, ledger side: every invariant of DESIGN §3 and §8 checked on every row, not trusted to the
triggers (a client of the file can drop a trigger; what it then wrote is found here, with its row).

Checks: SQLite's own integrity and foreign keys; the schema against the migrations (every table, index,
trigger and view present, nothing extra, SQL unchanged); the intervals, timestamps and transaction rules
on every row; the hash chain (ledger/chain.py). Recall's checks live in factledger.recall.verify; the CLI
composes both into one VerifyReport.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from factledger.schema import migrations

from . import chain
from .storage import Storage
from .store import Ledger

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
_FORM = "'[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'"
ROW_LIMIT = 100  # rows listed per check; the count says how many there were


def _bad_time(column: str) -> str:
    return (
        f"({column} IS NOT NULL AND NOT ({column} GLOB {_FORM} AND substr({column}, 12, 2) < '24'"
        f" AND date(substr({column}, 1, 10), '+0 days') IS substr({column}, 1, 10)))"
    )


@dataclass(frozen=True)
class Finding:
    """One row that breaks a rule."""

    table: str
    row: Any  # the row's id (or name)
    problem: str

    def to_dict(self) -> dict[str, Any]:
        return {"table": self.table, "row": self.row, "problem": self.problem}


@dataclass
class Check:
    name: str
    ok: bool
    details: str = ""
    rows: list[Finding] = field(default_factory=list)
    count: int = 0  # findings in all (rows holds the first ROW_LIMIT)

    @classmethod
    def of(cls, name: str, findings: Iterable[Finding], passed: str, failed: str = "{n} row(s) break the rule") -> "Check":
        found = list(findings)
        if not found:
            return cls(name, True, passed)
        return cls(name, False, failed.format(n=len(found)), found[:ROW_LIMIT], len(found))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ok": self.ok,
            "details": self.details,
            "count": self.count,
            "rows": [f.to_dict() for f in self.rows],
        }


@dataclass
class VerifyReport:
    checks: list[Check] = field(default_factory=list)
    chain_head: str | None = None  # the last transaction's chain hash: keep it to detect a rewrite later
    transactions: int = 0

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    def extend(self, checks: Iterable[Check]) -> "VerifyReport":
        self.checks.extend(checks)
        return self

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "transactions": self.transactions,
            "chain_head": self.chain_head,
            "checks": [c.to_dict() for c in self.checks],
        }


# -- the checks -------------------------------------------------------------------------------------


def _tables(storage: Storage) -> set[str]:
    return {r[0] for r in storage.query("SELECT name FROM sqlite_master WHERE type = 'table'")}


def check_sqlite(storage: Storage) -> list[Check]:
    """PRAGMA integrity_check and foreign_key_check."""
    result = [r[0] for r in storage.query("PRAGMA integrity_check")]
    integrity = Check.of(
        "integrity_check",
        [Finding("(file)", None, text) for text in result if text != "ok"],
        "PRAGMA integrity_check: ok",
        "PRAGMA integrity_check reported {n} problem(s)",
    )
    keys = Check.of(
        "foreign_keys",
        [
            Finding(r[0], r[1], f"references a missing {r[2]} row")
            for r in storage.query("PRAGMA foreign_key_check")
        ],
        "every reference resolves",
    )
    return [integrity, keys]


def expected_schema() -> dict[tuple[str, str], str | None]:
    """(type, name) -> SQL of every object the migrations create, from a fresh in-memory database."""
    fresh = Storage(":memory:")
    try:
        return _schema_of(fresh)
    finally:
        fresh.close()


def _schema_of(storage: Storage) -> dict[tuple[str, str], str | None]:
    return {
        (r["type"], r["name"]): r["sql"]
        for r in storage.query("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
    }


def check_schema(storage: Storage) -> list[Check]:
    """The file's tables, indexes, triggers and views are exactly what the migrations create."""
    expected = expected_schema()
    actual = _schema_of(storage)
    findings = []
    for (kind, name), sql in sorted(expected.items()):
        if (kind, name) not in actual:
            findings.append(Finding("sqlite_master", name, f"{kind} missing (dropped, or a migration not applied)"))
        elif actual[(kind, name)] != sql and name != "schema_migrations":  # bookkeeping, written by storage.py
            findings.append(Finding("sqlite_master", name, f"{kind} differs from its migration's SQL"))
    for (kind, name) in sorted(set(actual) - set(expected)):
        findings.append(Finding("sqlite_master", name, f"{kind} not created by any migration"))
    known = {m.version for m in migrations("sqlite")}
    applied = {r[0] for r in storage.query("SELECT version FROM schema_migrations")} if "schema_migrations" in _tables(storage) else set()
    for version in sorted(known - applied):
        findings.append(Finding("schema_migrations", version, "migration not applied"))
    for version in sorted(applied - known):
        findings.append(Finding("schema_migrations", version, "applied by a newer factledger than this one"))
    return [
        Check.of(
            "schema",
            findings,
            f"{len(expected)} tables, indexes, triggers and views as the migrations wrote them",
            "{n} schema object(s) differ from the migrations",
        )
    ]


def _rows(storage: Storage, table: str, sql: str, problem: str | Callable[[Any], str]) -> list[Finding]:
    return [
        Finding(table, r[0], problem(r) if callable(problem) else problem)
        for r in storage.query(sql)
    ]


def check_rows(storage: Storage) -> list[Check]:
    """The CHECKs and the trigger rules, on every row already in the file."""
    tables = _tables(storage)
    times: list[Finding] = []
    for table, columns in TIMESTAMP_COLUMNS.items():
        if table not in tables:
            continue
        key = "name" if table == "predicates" else ("content_hash" if table == "tombstones" else "id")
        for column in columns:
            times += _rows(
                storage, table, f"SELECT {key}, {column} FROM {table} WHERE {_bad_time(column)}",
                lambda r, column=column: f"{column} {r[1]!r} is not a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ",
            )
    intervals = _rows(
        storage, "claims",
        "SELECT id, valid_from, valid_to FROM claims WHERE valid_to IS NOT NULL AND valid_from >= valid_to",
        lambda r: f"valid time [{r[1]}, {r[2]}) is empty or reversed",
    )
    intervals += _rows(
        storage, "claims",
        "SELECT id, tx_from, tx_to FROM claims WHERE tx_to IS NOT NULL AND tx_from >= tx_to",
        lambda r: f"transaction time [{r[1]}, {r[2]}) is empty or reversed",
    )
    intervals += _rows(
        storage, "claims", "SELECT id FROM claims WHERE (tx_to IS NULL) <> (closed_by IS NULL)",
        "tx_to and closed_by disagree about whether the version is closed",
    )
    intervals += _rows(
        storage, "claims",
        "SELECT c.id, c.tx_from, o.tx_time FROM claims c LEFT JOIN transactions o ON o.id = c.opened_by"
        " WHERE o.tx_time IS NOT c.tx_from",
        lambda r: f"tx_from {r[1]} is not its opening transaction's tx_time ({r[2]})",
    )
    intervals += _rows(
        storage, "claims",
        "SELECT c.id, c.tx_to, x.tx_time FROM claims c LEFT JOIN transactions x ON x.id = c.closed_by"
        " WHERE c.closed_by IS NOT NULL AND x.tx_time IS NOT c.tx_to",
        lambda r: f"tx_to {r[1]} is not its closing transaction's tx_time ({r[2]})",
    )
    intervals += _rows(
        storage, "claims",
        "SELECT c.id, c.cardinality, p.cardinality FROM claims c LEFT JOIN predicates p ON p.name = c.predicate"
        " WHERE p.cardinality IS NOT c.cardinality",
        lambda r: f"cardinality {r[1]!r} differs from its predicate's ({r[2]!r})",
    )
    overlaps = _rows(
        storage, "claims",
        "SELECT b.id, a.id FROM claims a JOIN claims b"
        " ON a.scope = b.scope AND a.subject_key = b.subject_key AND a.predicate = b.predicate AND a.id < b.id"
        " WHERE a.tx_to IS NULL AND b.tx_to IS NULL"
        " AND (a.cardinality = 'one' OR a.value_key = b.value_key)"
        " AND a.valid_from < COALESCE(b.valid_to, '9999-12-31T23:59:59.999999Z')"
        " AND b.valid_from < COALESCE(a.valid_to, '9999-12-31T23:59:59.999999Z')",
        lambda r: f"overlaps current version {r[1]} in valid time",
    )
    transactions = _rows(
        storage, "transactions",
        "SELECT id, tx_time, previous FROM (SELECT id, tx_time, LAG(tx_time) OVER (ORDER BY id) AS previous"
        " FROM transactions) WHERE previous IS NOT NULL AND tx_time <= previous",
        lambda r: f"tx_time {r[1]} is not later than the previous transaction's ({r[2]})",
    )
    transactions += _rows(
        storage, "transactions",
        "SELECT id, principal FROM transactions WHERE NOT (principal GLOB 'operator:?*' OR principal GLOB 'agent:?*'"
        " OR principal GLOB 'digest:?*' OR principal GLOB 'import:?*')",
        lambda r: f"principal {r[1]!r} is of no known kind",
    )
    gate = _rows(storage, "erase_gate", "SELECT id, principal FROM erase_gate", lambda r: f"left open for {r[1]}")
    # An erase leaves a tombstone dated at its transaction; one that has none lost it (or never erased).
    if "version_hashes" in tables:
        gate += _rows(
            storage, "transactions",
            "SELECT DISTINCT v.erased_by FROM version_hashes v JOIN transactions t ON t.id = v.erased_by"
            " WHERE v.erased_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tombstones s WHERE s.erased_at = t.tx_time)",
            "an erase transaction without its tombstone (deleted?): the value could be written again",
        )
    return [
        Check.of("timestamps", times, "every stored timestamp has the one UTC form"),
        Check.of("intervals", intervals, "every version's intervals and transactions agree"),
        Check.of("no_overlap", overlaps, "no two current versions of a slot overlap in valid time"),
        Check.of("transactions", transactions, "transactions increase in time with their ids, by known principals"),
        Check.of("erase", gate, "the erase gate is closed; every erase left its tombstone"),
    ]


def check_chain(storage: Storage) -> tuple[Check, int, str]:
    problems, count, head = chain.check(storage)
    found = [Finding(p.table, p.row_id, p.problem) for p in problems]
    return (
        Check.of("hash_chain", found, f"{count} transactions chained; head {head[:16]}…", "{n} break(s) in the hash chain"),
        count,
        head,
    )


def verify_ledger(ledger: Ledger) -> VerifyReport:
    """Every ledger-side check, over one committed snapshot. Reads only: safe on a read-only ledger and
    while writers run."""
    storage = ledger.storage
    report = VerifyReport()
    with storage.snapshot():
        report.extend(check_sqlite(storage))
        report.extend(check_schema(storage))
        if "chain_start" not in _tables(storage):
            report.extend([Check("hash_chain", False, "the file predates the hash chain (migration 0006 not applied)")])
            return report
        report.extend(check_rows(storage))
        chained, report.transactions, report.chain_head = check_chain(storage)
        report.extend([chained])
    return report
