"""`verify`, ledger side: every invariant of DESIGN §3 and §8 checked on every row, not trusted to the
triggers (a client of the file can drop a trigger; what it then wrote is found here, with its row).

Checks: the engine's own integrity (SQLite: integrity_check and foreign keys; PostgreSQL: every foreign
key, row by row); the schema against the migrations (every table, index, trigger and view present,
nothing extra, definitions unchanged); the intervals, timestamps and transaction rules on every row; the
hash chain (ledger/chain.py). The statements are the engine's erase recorder's (ledger/erase_recorder.py). Recall's checks live in factledger.recall.verify; the CLI
composes both into one VerifyReport.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import chain
from .erase_recorder import Finding, VerifyRecorder, erase_recorder
from .store import Ledger

ROW_LIMIT = 100  # rows listed per check; the count says how many there were

__all__ = ["Check", "Finding", "VerifyReport", "verify_ledger"]


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


def check_engine(recorder: VerifyRecorder) -> list[Check]:
    """The engine's own integrity checks (SQLite: integrity_check and foreign_key_check)."""
    return [Check.of(name, found, passed, failed) for name, found, passed, failed in recorder.engine_integrity()]


def check_schema(recorder: VerifyRecorder, expected: dict[tuple[str, str], str | None]) -> list[Check]:
    """The store's tables, indexes, triggers and views are exactly what the migrations create."""
    findings, compared = recorder.schema_findings(expected)
    return [
        Check.of(
            "schema",
            findings,
            f"{compared} tables, indexes, triggers and views as the migrations wrote them",
            "{n} schema object(s) differ from the migrations",
        )
    ]


def check_rows(recorder: VerifyRecorder) -> list[Check]:
    """The CHECKs and the trigger rules, on every row already stored."""
    return [
        Check.of("timestamps", recorder.bad_timestamps(), "every stored timestamp has the one UTC form"),
        Check.of("intervals", recorder.bad_intervals(), "every version's intervals and transactions agree"),
        Check.of("no_overlap", recorder.overlaps(), "no two current versions of a slot overlap in valid time"),
        Check.of("transactions", recorder.bad_transactions(), "transactions increase in time with their ids, by known principals"),
        Check.of("erase", recorder.erase_problems(), "the erase gate is closed; every erase left its tombstone"),
    ]


def check_chain(storage) -> tuple[Check, int, str]:
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
    recorder = erase_recorder(storage)
    report = VerifyReport()
    expected = recorder.expected_schema()
    with storage.snapshot():
        report.extend(check_engine(recorder))
        report.extend(check_schema(recorder, expected))
        if not recorder.has_chain():
            report.extend([Check("hash_chain", False, "the ledger predates the hash chain (migration 0006 not applied)")])
            return report
        report.extend(check_rows(recorder))
        chained, report.transactions, report.chain_head = check_chain(storage)
        report.extend([chained])
    return report
