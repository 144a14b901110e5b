"""Ledger benchmark: batch apply against plain INSERTs, one-operation transactions, slot as-of latency.

For each size (claim versions) it builds a ledger file from scratch through the library's `LedgerTx`:
people who move city three times (an add and three supersedes of a `one` slot) and like music (two adds
and a supersede with `replaces` in a `many` slot), applied in rounds so each slot's operations land in
different transactions and real history accumulates (11 versions and 7 operations per person). Then:

1. batch apply: operations per second of that build (transactions of --batch operations), and the
   baseline: the same claim rows (and the transaction rows they reference) inserted with plain INSERTs
   in one transaction into the same table, with its triggers and secondary indexes dropped. The ratio is
   baseline time / ledger time (1.0 would mean the ledger costs nothing over bare inserts). A third
   figure, the schema floor, replays exactly the ledger's writes (per transaction: its row, the new
   versions, the closing UPDATEs) as plain statements into a database with the full schema: what the
   database's own constraints (triggers, partial unique indexes, foreign keys) cost with no Python
   logic at all, so baseline / floor is the best ratio any implementation of this schema could reach.
2. one-operation transactions per second on the built file (WAL): each a supersede of a random person's
   city, committed alone.
3. slot as-of latency (p50/p99): `Ledger.as_of(scope, valid_at, known_at, subject, predicate)` at random
   instants for random people; also the same read without a scope (every scope).

Every phase is timed twice: wall clock (what the targets ask for) and the process's CPU time, which
is what the figures would be on an idle machine when other processes compete for the cores.

Targets (issue 2): batch >= 20,000 ops/s and >= 0.3 of the baseline; >= 3,000 one-op tx/s; slot as-of
p50 <= 1 ms at 1M versions.

    .venv/bin/python evals/bench_ledger.py                 # 10k, 100k and 1M versions
    .venv/bin/python evals/bench_ledger.py --quick         # a toy run (seconds)
    .venv/bin/python evals/bench_ledger.py --sizes 10000,100000
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from factledger.ledger import Ledger, Storage
from factledger.ledger.writer_queue import LOCK_SUFFIXES

VERSIONS_PER_PERSON = 11
SCOPE = "bench"
CITIES = ["Paris", "Rome", "Oslo", "Lima", "Kyiv", "Porto", "Quito", "Hanoi"]
TARGETS = {"batch_ops_per_s": 20_000, "batch_ratio": 0.3, "one_op_tx_per_s": 3_000, "slot_p50_ms_at_1m": 1.0}

console = Console(stderr=True)


@dataclass
class Figures:
    versions: int
    operations: int
    transactions: int
    batch_seconds: float
    batch_cpu: float
    baseline_seconds: float
    baseline_cpu: float
    floor_seconds: float
    floor_cpu: float
    one_op_tx: int
    one_op_seconds: float
    one_op_cpu: float
    slot_ms: list[float]
    all_scopes_ms: list[float]

    @property
    def batch_ops_per_s(self) -> float:
        return self.operations / self.batch_seconds

    @property
    def ratio(self) -> float:
        return self.baseline_seconds / self.batch_seconds

    @property
    def one_op_tx_per_s(self) -> float:
        return self.one_op_tx / self.one_op_seconds

    def row(self) -> dict:
        return {
            "versions": self.versions,
            "operations": self.operations,
            "batch_ops_per_s": round(self.batch_ops_per_s),
            "batch_ops_per_cpu_s": round(self.operations / self.batch_cpu),
            "batch_versions_per_s": round(self.versions / self.batch_seconds),
            "baseline_rows_per_s": round(self.versions / self.baseline_seconds),
            "ratio_to_baseline": round(self.ratio, 3),
            "ratio_to_baseline_cpu": round(self.baseline_cpu / self.batch_cpu, 3),
            "schema_floor_ratio": round(self.baseline_seconds / self.floor_seconds, 3),
            "schema_floor_ratio_cpu": round(self.baseline_cpu / self.floor_cpu, 3),
            "one_op_tx_per_s": round(self.one_op_tx_per_s),
            "one_op_tx_per_cpu_s": round(self.one_op_tx / self.one_op_cpu),
            "slot_as_of_p50_ms": round(percentile(self.slot_ms, 50), 3),
            "slot_as_of_p99_ms": round(percentile(self.slot_ms, 99), 3),
            "all_scopes_as_of_p50_ms": round(percentile(self.all_scopes_ms, 50), 3),
        }


def remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", *LOCK_SUFFIXES):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def year(y: int) -> str:
    return f"{y}-01-01T00:00:00.000000Z"


def rounds(people: int) -> list[list[tuple]]:
    """The operations, round by round; a slot is touched at most once per round."""
    r0, r1, r2, r3 = [], [], [], []
    for i in range(people):
        who = f"person {i}"
        r0.append(("add", who, "lives_in", CITIES[i % 8], year(2000), None))
        r0.append(("add", who, "likes", "jazz", year(2000), None))
        r0.append(("add", who, "likes", "folk", year(2001), None))
        r1.append(("supersede", who, "lives_in", CITIES[(i + 1) % 8], year(2001), None))
        r2.append(("supersede", who, "lives_in", CITIES[(i + 2) % 8], year(2002), None))
        r2.append(("supersede", who, "likes", "blues", year(2002), "jazz"))
        r3.append(("supersede", who, "lives_in", CITIES[(i + 3) % 8], year(2003), None))
    return [r0, r1, r2, r3]


def apply_op(tx, op: tuple) -> None:
    kind, who, predicate, value, valid_from, replaces = op
    if kind == "add":
        tx.add(SCOPE, who, predicate, value, valid_from=valid_from)
    else:
        tx.supersede(SCOPE, who, predicate, value, valid_from=valid_from, replaces=replaces)


def build(ledger: Ledger, people: int, batch: int, progress: Progress) -> tuple[int, int, float, float]:
    with ledger.transaction(principal="import:bench", reason="predicates") as tx:
        tx.define("lives_in", "one", template="{subject} lives in {value}")
        tx.define("likes", "many")
    all_rounds = rounds(people)
    total = sum(len(r) for r in all_rounds)
    task = progress.add_task("batch apply", total=total)
    transactions = 0
    started, cpu = time.perf_counter(), time.process_time()
    for ops in all_rounds:
        for start in range(0, len(ops), batch):
            with ledger.transaction(principal="import:bench", reason="batch") as tx:
                for op in ops[start : start + batch]:
                    apply_op(tx, op)
            transactions += 1
            progress.advance(task, min(batch, len(ops) - start))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    progress.remove_task(task)
    return total, transactions, elapsed, cpu


def baseline(source: Ledger, path: Path) -> tuple[float, float]:
    """Plain INSERTs of the ledger's claim rows (and their transactions) into the same table, without its
    triggers and secondary indexes, in one transaction."""
    storage = Storage(path)
    objects = storage.query(
        "SELECT type, name FROM sqlite_master WHERE tbl_name = 'claims' AND type IN ('trigger', 'index') AND sql IS NOT NULL"
    )
    for obj in objects:
        storage.execute(f"DROP {obj['type'].upper()} {obj['name']}")
    storage.execute("DROP TRIGGER IF EXISTS transactions_time_increases")
    transactions = [tuple(r) for r in source.storage.query("SELECT id, tx_time, principal, reason, sources FROM transactions")]
    claims = [tuple(r) for r in source.storage.query("SELECT * FROM claims ORDER BY id")]
    predicates = [tuple(r) for r in source.storage.query("SELECT * FROM predicates")]
    columns = len(claims[0])
    started, cpu = time.perf_counter(), time.process_time()
    with storage.atomic():
        storage.executemany("INSERT INTO predicates VALUES (?, ?, ?, ?, ?, ?)", predicates)
        storage.executemany("INSERT INTO transactions VALUES (?, ?, ?, ?, ?)", transactions)
        storage.executemany(f"INSERT INTO claims VALUES ({', '.join('?' * columns)})", claims)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    count = storage.one("SELECT COUNT(*) FROM claims")[0]
    storage.close()
    remove(path)
    assert count == len(claims)
    return elapsed, cpu


def schema_floor(source: Ledger, path: Path) -> tuple[float, float]:
    """Replay the ledger's own writes, transaction by transaction, as plain statements into the full
    schema (triggers, partial unique indexes, foreign keys): the cost of the constraints alone."""
    storage = Storage(path)
    predicates = [tuple(r) for r in source.storage.query("SELECT * FROM predicates")]
    opened: dict[int, list[tuple]] = {}
    closed: dict[int, list[tuple]] = {}
    for r in source.storage.query("SELECT * FROM claims ORDER BY id"):
        row = tuple(r)
        opened.setdefault(r["opened_by"], []).append(row[:11] + (None, r["opened_by"], None, r["source"]))
        if r["closed_by"] is not None:
            closed.setdefault(r["closed_by"], []).append((r["tx_to"], r["closed_by"], r["id"]))
    transactions = [tuple(r) for r in source.storage.query("SELECT id, tx_time, principal, reason, sources FROM transactions ORDER BY id")]
    columns = len(next(iter(opened.values()))[0])
    started, cpu = time.perf_counter(), time.process_time()
    with storage.atomic():
        storage.executemany("INSERT INTO predicates VALUES (?, ?, ?, ?, ?, ?)", predicates)
    for tx in transactions:
        with storage.atomic():
            storage.execute("INSERT INTO transactions VALUES (?, ?, ?, ?, ?)", tx)
            if tx[0] in closed:
                storage.executemany("UPDATE claims SET tx_to = ?, closed_by = ? WHERE id = ?", closed[tx[0]])
            if tx[0] in opened:
                storage.executemany(f"INSERT INTO claims VALUES ({', '.join('?' * columns)})", opened[tx[0]])
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    storage.close()
    remove(path)
    return elapsed, cpu


def one_op_transactions(ledger: Ledger, people: int, count: int, rng: random.Random, progress: Progress) -> tuple[float, float]:
    task = progress.add_task("one-op transactions", total=count)
    chosen = rng.sample(range(people), min(count, people))
    started, cpu = time.perf_counter(), time.process_time()
    for n, i in enumerate(chosen):
        with ledger.transaction(principal="agent:bench", reason="one op") as tx:
            tx.supersede(SCOPE, f"person {i}", "lives_in", CITIES[(i + 4 + n) % 8], valid_from=year(2004))
        progress.advance(task)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    progress.remove_task(task)
    return elapsed, cpu


def lookups(ledger: Ledger, people: int, count: int, rng: random.Random, *, scoped: bool) -> list[float]:
    first = ledger.storage.one("SELECT MIN(tx_time) FROM transactions")[0]
    last = ledger.storage.one("SELECT MAX(tx_time) FROM transactions")[0]
    known = sorted(r[0] for r in ledger.storage.query("SELECT tx_time FROM transactions"))
    samples = []
    for _ in range(count):
        who = f"person {rng.randrange(people)}"
        valid_at = f"{rng.randint(1999, 2005)}-{rng.randint(1, 12):02d}-15T00:00:00.000000Z"
        known_at = rng.choice(known) if rng.random() < 0.5 else rng.choice([first, last])
        started = time.perf_counter()
        ledger.as_of([SCOPE] if scoped else None, valid_at=valid_at, known_at=known_at, subject=who, predicate="lives_in")
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def run_size(versions: int, *, batch: int, one_op: int, lookup_count: int, workdir: Path, seed: int) -> Figures:
    rng = random.Random(seed)
    people = max(1, versions // VERSIONS_PER_PERSON)
    folder = workdir / f"size-{versions}"
    folder.mkdir(parents=True, exist_ok=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console, transient=True) as progress:
        with Ledger.open(folder / "ledger.db") as ledger:
            operations, transactions, batch_seconds, batch_cpu = build(ledger, people, batch, progress)
            written = ledger.storage.one("SELECT COUNT(*) FROM claims")[0]
            assert written == people * VERSIONS_PER_PERSON, (written, people)
            # Best of three: cheap next to the build, and the machine is shared.
            baseline_seconds, baseline_cpu = min(baseline(ledger, folder / f"baseline{n}.db") for n in range(3))
            floor_seconds, floor_cpu = min(schema_floor(ledger, folder / f"floor{n}.db") for n in range(3))
            one_op_seconds, one_op_cpu = one_op_transactions(ledger, people, one_op, rng, progress)
            slot_ms = lookups(ledger, people, lookup_count, rng, scoped=True)
            all_scopes_ms = lookups(ledger, people, max(50, lookup_count // 10), rng, scoped=False)
    shutil.rmtree(folder)
    return Figures(
        versions=written,
        operations=operations,
        transactions=transactions,
        batch_seconds=batch_seconds,
        batch_cpu=batch_cpu,
        baseline_seconds=baseline_seconds,
        baseline_cpu=baseline_cpu,
        floor_seconds=floor_seconds,
        floor_cpu=floor_cpu,
        one_op_tx=min(one_op, people),
        one_op_seconds=one_op_seconds,
        one_op_cpu=one_op_cpu,
        slot_ms=slot_ms,
        all_scopes_ms=all_scopes_ms,
    )


def markdown(rows: list[dict]) -> str:
    headers = [
        ("versions", "claim versions"),
        ("batch_ops_per_s", "batch apply ops/s"),
        ("batch_ops_per_cpu_s", "… per CPU s"),
        ("batch_versions_per_s", "ledger versions/s"),
        ("baseline_rows_per_s", "baseline INSERT rows/s"),
        ("ratio_to_baseline", "ratio to baseline"),
        ("ratio_to_baseline_cpu", "… by CPU time"),
        ("schema_floor_ratio", "schema floor ratio"),
        ("schema_floor_ratio_cpu", "… by CPU time"),
        ("one_op_tx_per_s", "one-op tx/s"),
        ("one_op_tx_per_cpu_s", "… per CPU s"),
        ("slot_as_of_p50_ms", "slot as-of p50 ms"),
        ("slot_as_of_p99_ms", "slot as-of p99 ms"),
        ("all_scopes_as_of_p50_ms", "as-of, every scope, p50 ms"),
    ]
    lines = ["| " + " | ".join(h for _, h in headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        lines.append("| " + " | ".join(f"{row[k]:,}" if isinstance(row[k], int) else str(row[k]) for k, _ in headers) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="claim-version counts, comma-separated")
    parser.add_argument("--quick", action="store_true", help="a toy run: 2k and 10k versions, few samples")
    parser.add_argument("--batch", type=int, default=2000, help="operations per batch transaction")
    parser.add_argument("--one-op", type=int, default=3000, help="one-operation transactions to time per size")
    parser.add_argument("--lookups", type=int, default=3000, help="as-of lookups to time per size")
    parser.add_argument("--workdir", type=Path, default=None, help="where the ledger files go (default: a temp dir)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    sizes = [2000, 10000] if args.quick else [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    one_op = 200 if args.quick else args.one_op
    lookup_count = 300 if args.quick else args.lookups
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="factledger-bench-"))
    rows = []
    try:
        for size in sizes:
            console.print(f"[bold]{size:,} versions[/bold] ({platform.python_implementation()} {platform.python_version()})")
            figures = run_size(size, batch=args.batch, one_op=one_op, lookup_count=lookup_count, workdir=workdir, seed=args.seed)
            row = figures.row()
            rows.append(row)
            console.print(json.dumps(row))
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        print(json.dumps({"rows": rows, "targets": TARGETS}, indent=2))
    else:
        print(markdown(rows))
        print()
        print(verdict(rows))
    return 0


def verdict(rows: list[dict]) -> str:
    lines = []
    for row in rows:
        misses = []
        if row["batch_ops_per_s"] < TARGETS["batch_ops_per_s"]:
            misses.append(f"batch {row['batch_ops_per_s']:,} ops/s < {TARGETS['batch_ops_per_s']:,}")
        if row["ratio_to_baseline"] < TARGETS["batch_ratio"]:
            misses.append(f"ratio {row['ratio_to_baseline']} < {TARGETS['batch_ratio']}")
        if row["one_op_tx_per_s"] < TARGETS["one_op_tx_per_s"]:
            misses.append(f"one-op {row['one_op_tx_per_s']:,} tx/s < {TARGETS['one_op_tx_per_s']:,}")
        if row["versions"] >= 1_000_000 and row["slot_as_of_p50_ms"] > TARGETS["slot_p50_ms_at_1m"]:
            misses.append(f"slot p50 {row['slot_as_of_p50_ms']} ms > {TARGETS['slot_p50_ms_at_1m']} ms")
        lines.append(f"{row['versions']:,} versions: " + ("all targets met" if not misses else "MISSED: " + "; ".join(misses)))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
