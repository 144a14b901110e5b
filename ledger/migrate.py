"""`factledger migrate`: copy a ledger exactly from one engine to the other (SQLite file ↔ PostgreSQL, or
file to file), then prove the copy.

The copy is a replay, not a bulk load: the target's triggers accept history only as it was written —
a version inserted open by the latest transaction, closed once by a later one, ids and times
increasing — so the copy writes it in that order, transaction by transaction (its row, the versions it
closed, the versions it opened with their hash rows, the hash rows of the versions it erased, its
provenance, the erased-text rules it wrote, its chain row), with every id, time and source text as the
source holds it. The whole copy is one transaction on the target, into an empty ledger only (anything
there is named, and nothing is written).

What a ledger only ever produces itself, the replay writes through the schema's migrate gate
(schema/sqlite/0014, schema/postgres/0007), which opens only on an empty ledger and only for the copy's
own transaction: the source's ledger secret, chain start and chain keying (the ledger's id, where its
links are keyed and with which key: the copy's links are the source's, so its heads hold for the copy
too; the chain key itself is outside both databases) (before the first transaction, so keyed
rows — tombstones, rejections, confirmations, erased-text rules — verify on the target as on the
source), and the hash rows of erased versions (the holes an erase left: no claim row, no salt), written
by the replayed erasing transaction. Every other rule of the target holds for the copy as for any
client. The gate is closed in the copy's transaction.

Not copied: each engine's bookkeeping (migrations, PostgreSQL's head row, the gates), and recall's
derived state — the lexical rows and outboxes are written by the target's own triggers as the replay
inserts claims and journal turns, and the vector folder (recall_index_state) is the target's own,
built from the ledger on first use. Refused, writing nothing: a non-empty target, a source table the
target engine has no table for when it holds rows, and a source whose digest leases are held (a run is
digesting it; copy when it has finished or its leases expired).

The proof (`prove`): as-of answers at random (valid_at, known_at) pairs, the chain heads, and every
copied table's row count and content digest (a sha256 of its rows in key order, each value in one
canonical form), on both sides.

The SQL lives in ledger/migrate_sqlite.py and ledger/migrate_pg.py, chosen by `storage.engine`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from .chain_key import ChainKey, default_key_path
from .engines import AnyStorage, describe_location, open_storage
from .errors import ValidationError
from .migrate_pg import PostgresTables
from .migrate_sqlite import SqliteTables
from .pg_storage import is_postgres_url
from .times import format_time, to_datetime, utc_now

TABLE_ACCESS = {"sqlite": SqliteTables, "postgres": PostgresTables}
# Rows a fresh target holds from its own migrations: not "something there"; the gate sets them.
SEEDED = {"chain_start", "ledger_secret", "chain_keying"}
# Copied by the replay, in this order around it; every other table both sides have is copied after,
# in FOREIGN_KEY_ORDER first (a rejection names its proposal).
BEFORE_REPLAY = ("predicates", "journal")
REPLAYED = ("transactions", "claims", "version_hashes", "claim_provenance", "erased_texts", "tx_chain")
FOREIGN_KEY_ORDER = ("proposals", "rejections")
DEFAULT_PAIRS = 200


class MigrationRefused(ValidationError):
    """The source or target is not one migrate can copy exactly; nothing was written."""


@dataclass
class TableProof:
    source_rows: int
    target_rows: int
    source_digest: str
    target_digest: str

    @property
    def ok(self) -> bool:
        return (self.source_rows, self.source_digest) == (self.target_rows, self.target_digest)


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
    tables: dict[str, TableProof] = field(default_factory=dict)  # every copied table, both sides
    checks: dict[str, bool] = field(default_factory=dict)  # further proofs a caller adds (recall, verify)
    chain_key: ChainKey | None = field(default=None, repr=False)  # the source's, which keys the copy's links too
    chain_key_note: str = ""  # what became of it for the copy

    @property
    def ok(self) -> bool:
        return (
            self.agreed == self.pairs
            and self.source_chain_head == self.target_chain_head
            and all(t.ok for t in self.tables.values())
            and all(self.checks.values())
        )

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
            "tables": {
                name: {"rows": t.target_rows, "digest": t.target_digest, "ok": t.ok}
                | ({} if t.ok else {"source_rows": t.source_rows, "source_digest": t.source_digest})
                for name, t in sorted(self.tables.items())
            },
            "checks": self.checks,
            "chain_key": self.chain_key_note or None,
            "ok": self.ok,
        }



def _access(storage: AnyStorage) -> SqliteTables | PostgresTables:
    return TABLE_ACCESS[storage.engine](storage)  # type: ignore[arg-type]


def source_chain_key(source: str | Path, chain_key: ChainKey | None | object = None) -> ChainKey | None:
    """The source's chain key: `chain_key` when one is given, else the key file beside a SQLite source."""
    if isinstance(chain_key, ChainKey):
        return chain_key
    path = default_key_path(source)
    return ChainKey.from_file(path) if path is not None and (path.exists() or path.is_symlink()) else None


def give_copy_the_key(target: str | Path, key: ChainKey | None) -> str:
    """The copy's links are keyed with the source's key: write it beside a SQLite target (0600) when none
    is there, so the copy can be written and verified. Says what it did ("" for an unkeyed source)."""
    if key is None:
        return ""
    path = default_key_path(target)
    if path is None:
        return f"the copy's chain is keyed with key {key.key_id}: its writers need that key (--chain-key FILE or --chain-key-env NAME)"
    if path.exists():
        return f"the copy's chain is keyed with key {key.key_id}; {path} was already there (left as it is)"
    key.write(path)
    return f"the copy's chain is keyed with key {key.key_id}: written to {path} (0600)"


def migrate(source: str | Path, target: str | Path, *, pairs: int = DEFAULT_PAIRS, seed: int | None = None,
            now: str | None = None, chain_key: ChainKey | None | object = None) -> MigrationReport:
    """Copy the ledger at `source` into the empty ledger at `target` (created or migrated as needed),
    then prove it: as-of answers at `pairs` random (valid_at, known_at) pairs, the chain heads, and
    every copied table's rows. `now` dates the check for held digest leases (default: the clock).
    `chain_key` is the source's (default: the key file beside a SQLite source); the copy's links are keyed
    with it, so it is written beside a SQLite target that has none (`report.chain_key_note` says so)."""
    if str(source) == str(target):
        raise MigrationRefused("--from and --to name the same ledger", field="to")
    if not is_postgres_url(str(source)) and not Path(source).is_file():
        raise MigrationRefused(f"no ledger file at {source}", field="from")
    report = MigrationReport(describe_location(source), describe_location(target))
    report.chain_key = source_chain_key(source, chain_key)
    src_storage = open_storage(source, read_only=True)
    try:
        dst_storage = open_storage(target)
        try:
            src, dst = _access(src_storage), _access(dst_storage)
            copy_ledger(src, dst, report, now=now or utc_now())
            times = probe_times(src)
            prove_tables(src, dst, report)
        finally:
            dst_storage.close()
    finally:
        src_storage.close()
    report.chain_key_note = give_copy_the_key(target, report.chain_key)
    compare_as_of(source, target, report, times=times, pairs=pairs, seed=seed)
    return report


def copy_ledger(src: SqliteTables | PostgresTables, dst: SqliteTables | PostgresTables, report: MigrationReport,
                *, now: str) -> None:
    """The replay, inside one target transaction and one source snapshot; refusals write nothing."""
    with src.storage.snapshot():  # type: ignore[attr-defined]
        source_tables = src.tables()
        target_tables = dst.tables()
        present = {t: n for t in target_tables if t not in SEEDED and (n := dst.count(t)) > 0}
        if present:
            listed = ", ".join(f"{t} ({n} rows)" for t, n in sorted(present.items()))
            raise MigrationRefused(f"the target {report.target} is not empty: {listed}; migrate copies into an empty ledger only", field="to")
        missing = {t: src.count(t) for t in source_tables if t not in target_tables}
        full = {t: n for t, n in missing.items() if n > 0}
        if full:
            listed = ", ".join(f"{t} ({n} rows)" for t, n in sorted(full.items()))
            raise MigrationRefused(
                f"the {dst.engine} engine has no table yet for: {listed}; these cannot be copied, so nothing was", field="from"
            )
        if "digest_leases" in source_tables:
            held = src.held_leases(now)
            if held:
                listed = ", ".join(f"entry {entry} by {holder} until {until}" for entry, holder, until in held[:5])
                raise MigrationRefused(
                    f"{len(held)} digest lease(s) are held on the source ({listed}): a digest run is working on it;"
                    " migrate when it has finished or its leases have expired", field="from"
                )
        report.not_copied = sorted(missing)
        with dst.storage.atomic():  # type: ignore[attr-defined]
            dst.open_gate(src.last_transaction_id())
            for table in sorted(SEEDED & set(source_tables) & set(target_tables)):
                rows = list(src.rows(table, source_tables[table]))
                dst.replace_seeded(table, source_tables[table], rows)
                report.copied[table] = len(rows)
            copy_tables(src, dst, [t for t in source_tables if t in target_tables and t not in SEEDED], report)
            dst.close_gate()


def copy_tables(src: Any, dst: Any, tables: list[str], report: MigrationReport) -> None:
    """Copy `tables` (present on both sides): the replay's tables transaction by transaction, the others
    whole, before or after it; then the id counters. The caller holds the transaction, the gate and the
    checks."""
    source_tables, target_tables = src.tables(), dst.tables()

    def columns(table: str) -> list[str]:
        return [c for c in source_tables[table] if c in target_tables[table]]

    for table in BEFORE_REPLAY:
        if table in tables:
            cols = columns(table)
            report.copied[table] = _copy(dst, table, cols, src.rows(table, cols))
    _replay(src, dst, [t for t in REPLAYED if t in tables], columns, report)
    rest = [t for t in tables if t not in BEFORE_REPLAY and t not in REPLAYED]
    for table in sorted(rest, key=lambda t: (t not in FOREIGN_KEY_ORDER, FOREIGN_KEY_ORDER.index(t) if t in FOREIGN_KEY_ORDER else 0, t)):
        cols = columns(table)
        report.copied[table] = _copy(dst, table, cols, src.rows(table, cols))
    dst.set_next_ids({t: n for t, n in src.next_ids().items() if t in tables})


COPY_CHUNK = 10_000  # rows a copy holds at once: a table of any size in flat memory


def _copy(dst: Any, table: str, columns: list[str], rows: Iterable[tuple]) -> int:
    copied = 0
    rows = iter(rows)
    while batch := list(itertools.islice(rows, COPY_CHUNK)):
        dst.insert(table, columns, batch)
        copied += len(batch)
    return copied


def _replay(src: Any, dst: Any, tables: list[str], columns: Any, report: MigrationReport) -> None:
    """Transaction by transaction, as the ledger wrote them: the row, the closes, the opens (with their
    hash rows), the holes of the versions it erased, provenance, erased-text rules, the chain row."""
    for table in tables:
        report.copied[table] = 0
    if "transactions" not in tables:
        return
    tx_cols = columns("transactions")
    claim_cols = columns("claims") if "claims" in tables else []
    open_cols = [c for c in claim_cols if c not in ("tx_to", "closed_by")]
    hash_cols = columns("version_hashes") if "version_hashes" in tables else []
    opened_hash_cols = [c for c in hash_cols if c not in ("closed_by", "erased_by")]
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
            # A version's hash row comes with its opening, unless an erase removed the version: then
            # the erasing transaction brings it whole (the hole), through the migrate gate.
            kept = src.by_transaction("version_hashes", opened_hash_cols, "opened_by", tx_id, unless="erased_by")
            holes = src.by_transaction("version_hashes", hash_cols, "erased_by", tx_id)
            dst.insert("version_hashes", opened_hash_cols, kept)
            dst.insert("version_hashes", hash_cols, holes)
            report.copied["version_hashes"] += len(kept) + len(holes)
        for table, column in (("claim_provenance", "tx_id"), ("erased_texts", "erase_tx"), ("tx_chain", "tx_id")):
            if table in tables:
                cols = columns(table)
                rows = src.by_transaction(table, cols, column, tx_id)
                dst.insert(table, cols, rows)
                report.copied[table] += len(rows)


def canonical(value: Any) -> Any:
    """One form of a stored value on both engines: flags as 0/1 (SQLite's), everything else as read
    (times already come back as the canonical text from either engine)."""
    if isinstance(value, bool):
        return int(value)
    return value


def table_digest(rows: Iterable[tuple]) -> tuple[int, str]:
    """(row count, sha256 of the rows in key order, each value in its canonical form)."""
    digest, count = hashlib.sha256(), 0
    for row in rows:
        digest.update(json.dumps([canonical(v) for v in row], ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        digest.update(b"\n")
        count += 1
    return count, digest.hexdigest()


def prove_tables(src: Any, dst: Any, report: MigrationReport) -> None:
    """Every copied table's row count and content digest on both sides (the columns both have, in the
    source's order), and the chain heads."""
    source_tables, target_tables = src.tables(), dst.tables()
    for table in report.copied:
        cols = [c for c in source_tables[table] if c in target_tables[table]]
        left, right = table_digest(src.rows(table, cols)), table_digest(dst.rows(table, cols))
        report.tables[table] = TableProof(left[0], right[0], left[1], right[1])
    report.source_chain_head = src.chain_head()
    report.target_chain_head = dst.chain_head()


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
    with Ledger.open(source, read_only=True, chain_key=None) as a, Ledger.open(target, read_only=True, chain_key=None) as b:
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
                for d in (-1, 0, 1):
                    try:
                        stamps.add(format_time(moment + timedelta(microseconds=d)))
                    except OverflowError:  # nothing lies before an unknown start (the earliest instant)
                        pass
    return sorted(stamps)
