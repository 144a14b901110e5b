"""`verify`, ledger side: every invariant of DESIGN §3 and §8 checked on every row, not trusted to the
triggers (a client of the file can drop a trigger; what it then wrote is found here, with its row).

Checks: the engine's own integrity (SQLite: integrity_check, every CHECK constraint row by row — a
read-only connection's integrity_check skips them — and foreign keys; PostgreSQL: every foreign key,
row by row); the schema against the migrations (every table, index, trigger and view present, nothing
extra, definitions unchanged); the intervals, timestamps and transaction rules on every row; the hash
chain (ledger/chain.py), keyed links with the chain key, an erase's tombstones and guard rules in the
keyed part; the ledger secret against the one the chain was keyed with; and, given a head
(ledger/head.py), that the ledger extends it. The statements are the engine's erase recorder's (ledger/erase_recorder.py). Recall's checks live in factledger.recall.verify; the CLI
composes both into one VerifyReport.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import chain
from .chain_key import ChainKey
from .errors import LedgerError
from .engines import erase_recorder
from .erase_recorder import Finding, VerifyRecorder
from .head import Head, compare
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
    keyed_part: str = ""  # which transactions are keyed, which not (chain.ChainCheck.keyed_part)
    against: str = ""  # the head checked against, and where it came from ("" when none)

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
            "keyed": self.keyed_part,
            "against": self.against or None,
            "checks": [c.to_dict() for c in self.checks],
        }


# -- the checks -------------------------------------------------------------------------------------


def check_engine(recorder: VerifyRecorder) -> list[Check]:
    """The engine's own integrity checks (SQLite: integrity_check and foreign_key_check), and every CHECK
    constraint on every row where the engine's own check skips them."""
    checks = [Check.of(name, found, passed, failed) for name, found, passed, failed in recorder.engine_integrity()]
    checks.append(Check.of(
        "check_constraints", recorder.check_constraints(), "every row meets its table's CHECK constraints",
        "{n} row(s) break a CHECK constraint (written with the checks switched off?)",
    ))
    return checks


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


def check_chain(storage, key: ChainKey | None, secret: str | None) -> tuple[list[Check], chain.ChainCheck]:
    """The hash chain (keyed links with `key`), the key itself, and the ledger secret."""
    result = chain.check(storage, key, secret=secret)
    found = [Finding(p.table, p.row_id, p.problem) for p in result.problems if p.table != "ledger_secret"]
    secret_found = [Finding(p.table, p.row_id, p.problem) for p in result.problems if p.table == "ledger_secret"]
    if secret is None:
        secret_found.append(Finding("ledger_secret", 1, "missing: tombstones and rejections cannot be checked or kept"))
    keying = result.keying
    if keying is not None and keying.keyed and result.key_problem:
        key_check = Check("chain_key", False, f"the keyed part cannot be checked: {result.key_problem}")
    elif keying is not None and not keying.keyed and key is not None and result.last_tx > 0:
        key_check = Check("chain_key", False,
                          f"a chain key was given ({key.source or 'explicit'}, key {key.key_id}) but the chain is not keyed:"
                          " anyone could have recomputed its links (its keying removed?). If no writer ever held this"
                          " key, open the ledger for writing once with it to key the chain from there on")
    elif keying is not None and keying.keyed:
        key_check = Check("chain_key", True, f"keyed links checked with key {keying.key_id}")
    else:
        key_check = Check("chain_key", True, "no chain key: the chain is not keyed (anyone could recompute its links)")
    head = result.head
    checks = [
        Check.of("hash_chain", found, f"{result.count} transactions chained; {result.keyed_part}; head {head[:16]}…",
                 "{n} break(s) in the hash chain"),
        key_check,
    ]
    if secret is not None or secret_found:
        checked = "and matches the one the chain was keyed with" if keying is not None and keying.keyed and not result.key_problem else "(not keyed: nothing to compare it with)"
        checks.append(Check.of("ledger_secret", secret_found, f"present {checked}", "{n} problem(s) with the ledger secret"))
    return checks, result


def check_against(storage, head: Head, key: ChainKey | None, where: str) -> Check:
    found, held = compare(storage, head, key)
    return Check.of("against_head", [Finding(t, r, p) for t, r, p in found], f"{held} ({where})",
                    f"{{n}} difference(s) from {where}")


def verify_ledger(
    ledger: Ledger, *, chain_key: ChainKey | None | bool = True, against: Head | None = None, against_from: str = ""
) -> VerifyReport:
    """Every ledger-side check, over one committed snapshot. Reads only: safe on a read-only ledger and
    while writers run. `chain_key`: the key to check keyed links with (True: the ledger's own, as it was
    opened with); `against`: a head the ledger must extend (`against_from` says where it came from)."""
    storage = ledger.storage
    recorder = erase_recorder(storage)
    key = ledger.chain_key if chain_key is True else (chain_key or None)
    report = VerifyReport()
    expected = recorder.expected_schema()
    with storage.snapshot():
        report.extend(check_engine(recorder))
        report.extend(check_schema(recorder, expected))
        if not recorder.has_chain():
            report.extend([Check("hash_chain", False, "the ledger predates the hash chain (migration 0006 not applied)")])
            return report
        report.extend(check_rows(recorder))
        secret = _secret(recorder)
        checks, result = check_chain(storage, key, secret)
        report.extend(checks)
        report.transactions, report.chain_head, report.keyed_part = result.count, result.head, result.keyed_part
        if against is not None:
            report.against = against_from or "the head given"
            report.extend([check_against(storage, against, key, report.against)])
    return report


def _secret(recorder) -> str | None:
    try:
        return recorder.secret()
    except LedgerError:  # a ledger from before migration 0007 has no secret table
        return None
