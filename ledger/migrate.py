"""`factledger migrate`: copy a ledger exactly from one engine to the other (SQLite file ↔ PostgreSQL),
then prove the copy by asking both the same as-of questions.

The copy is a replay, not a bulk load: the target's triggers accept history only as it was written —
a version inserted open by the latest transaction, closed once by a later one, ids and times
increasing — so the copy writes it in that order, transaction by transaction (its row, the versions it
closed, the versions it opened with their hash rows, its provenance, its chain row), with every id,
time and source text as the source holds it. No rule of the target is lifted for this: what it refuses
from a client, it refuses from migrate. The whole copy is one transaction on the target, into an empty
ledger only (anything there is named, and nothing is written).

What the replay cannot write through the target's rules, it refuses instead of forging:
- tables the target engine does not have yet, when they hold rows (listed by name);
- versions removed by an erase: their hash rows keep the chain verifiable, but re-creating them would
  need the erased content; copying such a ledger needs a gate the schema does not have yet.

The SQL lives in ledger/migrate_sqlite.py and ledger/migrate_pg.py, chosen by `storage.engine`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from .engines import AnyStorage, open_storage
from .errors import ValidationError
from .migrate_pg import PostgresTables
from .migrate_sqlite import SqliteTables
from .pg_storage import is_postgres_url, redact_url
from .times import format_time, to_datetime

TABLE_ACCESS = {"sqlite": SqliteTables, "postgres": PostgresTables}
# Rows a fresh target holds from its own migrations: not "something there".
SEEDED = {"chain_start", "ledger_secret"}
# Rows keyed with the ledger secret: copied only when both sides have the same secret.
KEYED = ("tombstones", "rejections", "confirmations", "erased_texts")
# Copied by the replay, in this order around it; every other table both sides have is copied after.
BEFORE_REPLAY = ("predicates", "journal")
REPLAYED = ("transactions", "claims", "version_hashes", "claim_provenance", "tx_chain")
DEFAULT_PAIRS = 200


class MigrationRefused(ValidationError):
    """The source or target is not one migrate can copy exactly; nothing was written."""


@dataclass
class MigrationReport:
    source: str
    target: str
    copied: dict[str, int] = field(default_factory=dict)  # table -> rows
    not_copied: list[str] = field(default_factory=list)  # source tables the target has no table for (empty)
    pairs: int = 0
    agreed: int = 0
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    source_chain_head: str | None = None
    target_chain_head: str | None = None

    @property
    def ok(self) -> bool:
        return self.agreed == self.pairs and self.source_chain_head == self.target_chain_head

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "copied": self.copied,
            "not_copied": self.not_copied,
            "pairs": self.pairs,
            "agreed": self.agreed,
            "disagreements": self.disagreements[:10],
            "source_chain_head": self.source_chain_head,
            "target_chain_head": self.target_chain_head,
            "ok": self.ok,
        }


def _named(location: str | Path) -> str:
    return redact_url(str(location)) if is_postgres_url(str(location)) else str(location)


def _access(storage: AnyStorage) -> SqliteTables | PostgresTables:
    return TABLE_ACCESS[storage.engine](storage)  # type: ignore[arg-type]


def migrate(source: str | Path, target: str | Path, *, pairs: int = DEFAULT_PAIRS, seed: int | None = None) -> MigrationReport:
    """Copy the ledger at `source` into the empty ledger at `target` (created or migrated as needed),
    then compare as-of answers at `pairs` random (valid_at, known_at) pairs and the chain heads."""
    if str(source) == str(target):
        raise MigrationRefused("--from and --to name the same ledger", field="to")
    if not is_postgres_url(str(source)) and not Path(source).is_file():
        raise MigrationRefused(f"no ledger file at {source}", field="from")
    report = MigrationReport(_named(source), _named(target))
    src_storage = open_storage(source, read_only=True)
    try:
        dst_storage = open_storage(target)
        try:
            src = _access(src_storage)
            copy_ledger(src, _access(dst_storage), report)
            times = probe_times(src)
            report.source_chain_head = src.chain_head()
            report.target_chain_head = _access(dst_storage).chain_head()
        finally:
            dst_storage.close()
    finally:
        src_storage.close()
    compare_as_of(source, target, report, times=times, pairs=pairs, seed=seed)
    return report


def copy_ledger(src: SqliteTables | PostgresTables, dst: SqliteTables | PostgresTables, report: MigrationReport) -> None:
    """The replay, inside one target transaction and one source snapshot; refusals write nothing."""
    with src.storage.snapshot():  # type: ignore[attr-defined]
        source_tables = src.tables()
        target_tables = dst.tables()
        present = {t: n for t in target_tables if t not in SEEDED and (n := dst.count(t)) > 0}
        if present:
            listed = ", ".join(f"{t} ({n} rows)" for t, n in sorted(present.items()))
            raise MigrationRefused(f"the target {report.target} is not empty: {listed}; migrate copies into an empty ledger only", field="to")
        missing = {t: src.count(t) for t in source_tables if t not in target_tables and t not in SEEDED}
        full = {t: n for t, n in missing.items() if n > 0}
        if full:
            listed = ", ".join(f"{t} ({n} rows)" for t, n in sorted(full.items()))
            raise MigrationRefused(
                f"the {dst.engine} engine has no table yet for: {listed}; these cannot be copied, so nothing was", field="from"
            )
        report.not_copied = sorted(missing) + sorted(t for t in SEEDED if t in source_tables)
        if "version_hashes" in source_tables and "claims" in source_tables:
            erased = src.count("version_hashes") - src.count("claims")
            if erased > 0:
                raise MigrationRefused(
                    f"{erased} claim version(s) were erased; their hash rows cannot be replayed through the target's "
                    "rules without the erased content, so migrate refuses erased ledgers for now", field="from"
                )
        if "ledger_secret" in source_tables and _secret(src) != _secret(dst):
            keyed = {t: n for t in KEYED if t in source_tables and (n := src.count(t)) > 0}
            if keyed:
                listed = ", ".join(f"{t} ({n} rows)" for t, n in keyed.items())
                raise MigrationRefused(
                    f"{listed} are keyed with the source's ledger secret, and the target's schema fixes its own"
                    " secret; migrate refuses ledgers with keyed rows for now", field="from"
                )
        with dst.storage.atomic():  # type: ignore[attr-defined]
            copy_tables(src, dst, [t for t in source_tables if t in target_tables and t not in SEEDED], report)


def copy_tables(src: Any, dst: Any, tables: list[str], report: MigrationReport) -> None:
    """Copy `tables` (present on both sides): the replay's tables transaction by transaction, the others
    whole, before or after it; then the id counters. The caller holds the transaction and the checks."""
    source_tables, target_tables = src.tables(), dst.tables()

    def columns(table: str) -> list[str]:
        return [c for c in source_tables[table] if c in target_tables[table]]

    for table in BEFORE_REPLAY:
        if table in tables:
            cols = columns(table)
            report.copied[table] = _copy(dst, table, cols, src.rows(table, cols))
    _replay(src, dst, [t for t in REPLAYED if t in tables], columns, report)
    for table in tables:
        if table not in BEFORE_REPLAY and table not in REPLAYED:
            cols = columns(table)
            report.copied[table] = _copy(dst, table, cols, src.rows(table, cols))
    dst.set_next_ids({t: n for t, n in src.next_ids().items() if t in tables})


def _secret(side: Any) -> str | None:
    if "ledger_secret" not in side.tables():
        return None
    rows = list(side.rows("ledger_secret", ["secret"]))
    return rows[0][0] if rows else None


def _copy(dst: Any, table: str, columns: list[str], rows: Iterable[tuple]) -> int:
    batch = list(rows)
    dst.insert(table, columns, batch)
    return len(batch)


def _replay(src: Any, dst: Any, tables: list[str], columns: Any, report: MigrationReport) -> None:
    """Transaction by transaction, as the ledger wrote them: the row, the closes, the opens (with their
    hash rows), provenance, the chain row."""
    for table in tables:
        report.copied[table] = 0
    if "transactions" not in tables:
        return
    tx_cols = columns("transactions")
    claim_cols = columns("claims") if "claims" in tables else []
    open_cols = [c for c in claim_cols if c not in ("tx_to", "closed_by")]
    hash_cols = [c for c in columns("version_hashes") if c not in ("closed_by", "erased_by")] if "version_hashes" in tables else []
    id_at, time_at = tx_cols.index("id"), tx_cols.index("tx_time")
    for tx in list(src.rows("transactions", tx_cols)):
        tx_id, tx_time = tx[id_at], tx[time_at]
        dst.insert("transactions", tx_cols, [tx])
        report.copied["transactions"] += 1
        if claim_cols:
            dst.close_versions(src.closed_by(tx_id), tx_id, tx_time)
            opened = src.by_transaction("claims", open_cols, "opened_by", tx_id)
            dst.insert("claims", open_cols, opened)
            report.copied["claims"] += len(opened)
        if hash_cols:
            hashes = src.by_transaction("version_hashes", hash_cols, "opened_by", tx_id)
            dst.insert("version_hashes", hash_cols, hashes)
            report.copied["version_hashes"] += len(hashes)
        for table in ("claim_provenance", "tx_chain"):
            if table in tables:
                cols = columns(table)
                rows = src.by_transaction(table, cols, "tx_id", tx_id)
                dst.insert(table, cols, rows)
                report.copied[table] += len(rows)


# -- the proof ------------------------------------------------------------------------------------


def _answer(versions: Iterable[Any]) -> list[tuple]:
    return sorted(
        (v.id, v.scope, v.subject_key, v.predicate, v.value, v.valid_from, v.valid_to, v.tx_from, v.tx_to, tuple(v.source))
        for v in versions
    )


def compare_as_of(source: str | Path, target: str | Path, report: MigrationReport, *, times: list[str], pairs: int,
                  seed: int | None) -> None:
    """Ask both ledgers what was true at valid_at as known at known_at, for `pairs` pairs drawn at random
    from `times` (the ledger's own interval ends, each a microsecond either side too)."""
    from .store import Ledger

    rng = random.Random(seed)
    report.pairs = pairs if times else 0
    with Ledger.open(source, read_only=True) as a, Ledger.open(target, read_only=True) as b:
        for _ in range(report.pairs):
            valid_at, known_at = rng.choice(times), rng.choice(times)
            left = _answer(a.as_of(None, valid_at=valid_at, known_at=known_at))
            right = _answer(b.as_of(None, valid_at=valid_at, known_at=known_at))
            if left == right:
                report.agreed += 1
            else:
                report.disagreements.append({"valid_at": valid_at, "known_at": known_at, "source": len(left), "target": len(right)})


def probe_times(src: SqliteTables | PostgresTables) -> list[str]:
    """Every interval end of the source's versions, and a microsecond before and after each."""
    stamps: set[str] = set()
    for row in src.rows("claims", ["valid_from", "valid_to", "tx_from", "tx_to"]):
        for t in row:
            if t is not None:
                moment = to_datetime(t)
                stamps.update(format_time(moment + timedelta(microseconds=d)) for d in (-1, 0, 1))
    return sorted(stamps)
