"""Ledger benchmark: batch apply against plain INSERTs, one-operation transactions, slot as-of latency,
on SQLite (a file) or PostgreSQL (`--db postgresql://…`, or `--pg-throwaway` for a cluster of its own).

For each size (claim versions) it builds a ledger from scratch through the library's `LedgerTx`: people
who move city three times (an add and three supersedes of a `one` slot) and like music (two adds and a
supersede with `replaces` in a `many` slot), applied in rounds so each slot's operations land in
different transactions and real history accumulates (11 versions and 7 operations per person). Then:

1. batch apply: operations per second of that build (transactions of --batch operations), and the
   baseline: the same claim rows (and the transaction rows they reference) inserted plainly in one
   transaction into the same tables with their triggers and secondary indexes dropped (SQLite: INSERTs;
   PostgreSQL: COPY, its own fastest load). The ratio is baseline time / ledger time (1.0 would mean the
   ledger costs nothing over bare inserts). A third figure, the schema floor, replays exactly the
   ledger's writes (per transaction: its row, the closing UPDATEs, the new versions, their hash-chain
   rows) as plain statements, with no Python logic, into a database with the full schema: what the
   database's own rules (triggers, partial unique indexes, exclusion constraints, foreign keys) cost,
   so baseline / floor is the best ratio any implementation of this schema could reach, and ledger /
   floor ("of floor") how close the ledger comes to it.
2. one-operation transactions per second on the built ledger: each a supersede of a random person's
   city, committed alone.
3. slot as-of latency (p50/p99): `Ledger.as_of(scope, valid_at, known_at, subject, predicate)` at random
   instants for random people; also the same read without a scope (every scope).

4. with --import-versions N[,M...] (SQLite): `factledger import` of a history of N versions (the same
   people, each round's operations in transactions of --batch lines with explicit tx times), run as the
   command itself in a child process with its progress bar, with its wall time, CPU time and peak RSS;
   beside it the baseline, the same claim rows (and transaction rows) inserted plainly in one transaction
   into the tables without their triggers and secondary indexes (rows streamed from the imported ledger
   in chunks; only the inserts are timed), and the ratios. Memory must not grow with the file: compare
   the peak RSS at two sizes.

5. with --journal-turns N (SQLite): N conversation turns (sessions of 20, two speakers) appended to the
   journal as one batch (`Journal.append_many`: their episode lanes written once for the batch,
   migration 0024) beside the same turns appended one by one in one transaction (the per-turn trigger),
   each into a fresh ledger, and the ratio.

Every phase is timed twice: wall clock (what the targets ask for) and CPU time, which is what the figures
would be on an idle machine when other processes compete for the cores. On PostgreSQL the CPU time is the
client's plus its server backend's (read from /proc when the server runs on this machine). Each row
records the load average (/proc/loadavg) at its start and end: the machine is shared.

Targets (issue 2): batch >= 20,000 ops/s and >= 0.3 of the baseline; >= 3,000 one-op tx/s; slot as-of
p50 <= 1 ms at 1M versions. Issue 11: the batch path >= 0.6 of the schema floor.

    .venv/bin/python evals/bench_ledger.py                 # SQLite: 10k, 100k and 1M versions
    .venv/bin/python evals/bench_ledger.py --quick         # a toy run (seconds)
    .venv/bin/python evals/bench_ledger.py --sizes 10000,100000
    .venv/bin/python evals/bench_ledger.py --import-versions 100000,1000000   # import only, SQLite
    .venv/bin/python evals/bench_ledger.py --journal-turns 5000               # journal batch vs one by one
    .venv/bin/python evals/bench_ledger.py --pg-throwaway  # PostgreSQL: initdb a cluster in /tmp, then stop it
    .venv/bin/python evals/bench_ledger.py --db 'postgresql://me@/postgres?host=/run/postgresql'
        # an existing server: scratch databases factledger_bench_* are created there and dropped (CREATEDB)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from factledger.ledger.chain_key import HEADS_FILE_SUFFIX, KEY_FILE_SUFFIX
from factledger.ledger import Ledger, Storage
from factledger.ledger.pg_storage import PostgresStorage
from factledger.ledger.sqlite_recorder import SqliteLedgerRecorder
from factledger.ledger.writer_queue import LOCK_SUFFIXES

VERSIONS_PER_PERSON = 11
SCOPE = "bench"
CITIES = ["Paris", "Rome", "Oslo", "Lima", "Kyiv", "Porto", "Quito", "Hanoi"]
TARGETS = {
    "batch_ops_per_s": 20_000, "batch_ratio": 0.3, "of_floor": 0.6, "one_op_tx_per_s": 3_000, "slot_p50_ms_at_1m": 1.0,
}
CLAIM_COLUMNS = (
    "id, scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from, valid_to, tx_from, tx_to,"
    " opened_by, closed_by, source"
)
# The throwaway cluster keeps fsync on and commits without waiting for the WAL flush: the durability of
# the SQLite file (WAL, synchronous=NORMAL: a crash of the machine may lose the last commits, never
# corrupts). tests/support/postgres_cluster.py turns fsync off for tests.
THROWAWAY_SETTINGS = {"fsync": "on", "full_page_writes": "on", "synchronous_commit": "off"}
CLUSTER_HARNESS = Path(__file__).resolve().parents[1] / "tests" / "support" / "postgres_cluster.py"

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
    unchained_floor_seconds: float  # the floor without the hash-chain rows, one replay
    one_op_tx: int
    one_op_seconds: float
    one_op_cpu: float
    slot_ms: list[float]
    all_scopes_ms: list[float]
    # After the one-op phase: writing the lexical rows its commits left pending (SQLite defers them
    # behind a watermark, a tail shorter than its bound), so the phase's figure can count them.
    catch_up_seconds: float = 0.0
    catch_up_cpu: float = 0.0
    engine: str = "sqlite"
    load: list[str] = field(default_factory=list)  # /proc/loadavg's 1-minute figure at start and end

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
            "engine": self.engine,
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
            "of_floor": round(self.floor_seconds / self.batch_seconds, 3),
            "of_floor_cpu": round(self.floor_cpu / self.batch_cpu, 3),
            "of_floor_without_chain": round(self.unchained_floor_seconds / self.batch_seconds, 3),
            "one_op_tx_per_s": round(self.one_op_tx_per_s),
            "one_op_tx_per_cpu_s": round(self.one_op_tx / self.one_op_cpu),
            "one_op_caught_up_tx_per_s": round(self.one_op_tx / (self.one_op_seconds + self.catch_up_seconds)),
            "one_op_caught_up_tx_per_cpu_s": round(self.one_op_tx / (self.one_op_cpu + self.catch_up_cpu)),
            "slot_as_of_p50_ms": round(percentile(self.slot_ms, 50), 3),
            "slot_as_of_p99_ms": round(percentile(self.slot_ms, 99), 3),
            "all_scopes_as_of_p50_ms": round(percentile(self.all_scopes_ms, 50), 3),
            "load_avg": " → ".join(self.load),
        }


def remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", *LOCK_SUFFIXES, KEY_FILE_SUFFIX, HEADS_FILE_SUFFIX):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def load_average() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


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


# -- timing -------------------------------------------------------------------------------------------


def backend_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a local process, e.g. a PostgreSQL backend; 0 when unreadable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Clock:
    """Wall and CPU time of a phase: this process's CPU plus that of the server backends in `pids`."""

    pids: list[int] = field(default_factory=list)

    def cpu(self) -> float:
        return time.process_time() + sum(backend_cpu(pid) for pid in self.pids)

    @contextmanager
    def phase(self) -> Iterator[list[float]]:
        """Yields a list that holds [wall seconds, CPU seconds] once the block ends."""
        spent: list[float] = []
        wall, cpu = time.perf_counter(), self.cpu()
        yield spent
        spent += [time.perf_counter() - wall, self.cpu() - cpu]


def build(ledger: Ledger, people: int, batch: int, progress: Progress, clock: Clock) -> tuple[int, int, float, float]:
    with ledger.transaction(principal="import:bench", reason="predicates") as tx:
        tx.define("lives_in", "one", template="{subject} lives in {value}")
        tx.define("likes", "many")
    all_rounds = rounds(people)
    total = sum(len(r) for r in all_rounds)
    task = progress.add_task("batch apply", total=total)
    transactions = 0
    with clock.phase() as spent:
        for ops in all_rounds:
            for start in range(0, len(ops), batch):
                with ledger.transaction(principal="import:bench", reason="batch") as tx:
                    # As `factledger apply` does (ledger/ops.py apply_batch): the batch's slots in one read.
                    tx.read_slots([(SCOPE, op[1], op[2]) for op in ops[start : start + batch]])
                    for op in ops[start : start + batch]:
                        apply_op(tx, op)
                transactions += 1
                progress.advance(task, min(batch, len(ops) - start))
        ledger.catch_up_lanes()  # nothing pending after batches this large; counted if there were
    progress.remove_task(task)
    return total, transactions, *spent


# -- what the baseline and the floor write ------------------------------------------------------------

# A claim as inserted (open): every column but tx_to and closed_by.
OPEN_COLUMNS = "id, scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from, valid_to, tx_from, opened_by, source"


@dataclass
class LedgerRows:
    """The built ledger's rows, read once through its storage (the same SQL on both engines)."""

    predicates: list[tuple]
    transactions: list[tuple]
    claims: list[tuple]  # CLAIM_COLUMNS
    opened: dict[int, list[tuple]]  # tx id -> OPEN_COLUMNS rows it inserted
    closed: dict[int, list[int]]  # tx id -> claim ids it closed
    hashes: dict[int, list[tuple]]  # tx id -> (claim_id, opened_by, closed_by NULL, salt, content_hash)
    chain: dict[int, str]  # tx id -> chain hash

    @classmethod
    def read(cls, storage) -> "LedgerRows":
        claims = [tuple(r) for r in storage.query(f"SELECT {CLAIM_COLUMNS} FROM claims ORDER BY id")]
        opened: dict[int, list[tuple]] = {}
        closed: dict[int, list[int]] = {}
        for row in claims:
            opened.setdefault(row[12], []).append(row[:11] + (row[12], row[14]))
            if row[13] is not None:
                closed.setdefault(row[13], []).append(row[0])
        hashes: dict[int, list[tuple]] = {}
        for r in storage.query("SELECT claim_id, opened_by, salt, content_hash FROM version_hashes ORDER BY claim_id"):
            hashes.setdefault(r[1], []).append((r[0], r[1], None, r[2], r[3]))
        return cls(
            predicates=[
                tuple(r)
                for r in storage.query("SELECT name, display, cardinality, description, template, defined_at FROM predicates")
            ],
            transactions=[
                tuple(r) for r in storage.query("SELECT id, tx_time, principal, reason, sources FROM transactions ORDER BY id")
            ],
            claims=claims,
            opened=opened,
            closed=closed,
            hashes=hashes,
            chain={r[0]: r[1] for r in storage.query("SELECT tx_id, chain_hash FROM tx_chain")},
        )


class SqliteBench:
    """Ledger files in a work folder; baseline and floor through the project's SQLite Storage."""

    engine = "sqlite"

    def __init__(self, workdir: Path):
        self.workdir = workdir

    def location(self, label: str) -> Path:
        return self.workdir / f"{label}.db"

    def discard(self, location: Path) -> None:
        remove(location)

    def backend_pids(self, ledger: Ledger) -> list[int]:
        return []  # SQLite runs in this process

    def baseline(self, rows: LedgerRows, location: Path) -> tuple[float, float]:
        """Plain INSERTs of the claim rows (and their transactions) into the same table, without its
        triggers and secondary indexes, in one transaction."""
        storage = Storage(location)
        objects = storage.query(
            "SELECT type, name FROM sqlite_master WHERE tbl_name = 'claims' AND type IN ('trigger', 'index') AND sql IS NOT NULL"
        )
        for obj in objects:
            storage.execute(f"DROP {obj['type'].upper()} {obj['name']}")
        storage.execute("DROP TRIGGER IF EXISTS transactions_time_increases")
        with Clock().phase() as spent, storage.atomic():
            storage.executemany("INSERT INTO predicates (name, display, cardinality, description, template, defined_at) VALUES (?, ?, ?, ?, ?, ?)", rows.predicates)
            storage.executemany("INSERT INTO transactions (id, tx_time, principal, reason, sources) VALUES (?, ?, ?, ?, ?)", rows.transactions)
            storage.executemany(f"INSERT INTO claims ({CLAIM_COLUMNS}) VALUES ({', '.join('?' * 15)})", rows.claims)
        count = storage.one("SELECT COUNT(*) FROM claims")[0]
        storage.close()
        self.discard(location)
        assert count == len(rows.claims)
        return spent[0], spent[1]

    def floor(self, rows: LedgerRows, location: Path, *, chain: bool = True) -> tuple[float, float]:
        """Replay the ledger's own writes, transaction by transaction, as plain statements into the full
        schema (triggers, partial unique indexes, foreign keys): the cost of the constraints alone.
        chain=False leaves out the hash-chain rows (the floor as measured before the chain existed)."""
        storage = Storage(location)
        lanes = SqliteLedgerRecorder(storage)
        with Clock().phase() as spent:
            with storage.atomic():
                storage.executemany("INSERT INTO predicates (name, display, cardinality, description, template, defined_at) VALUES (?, ?, ?, ?, ?, ?)", rows.predicates)
            for tx in rows.transactions:
                tx_id, tx_time = tx[0], tx[1]
                with storage.atomic():
                    storage.execute("INSERT INTO transactions (id, tx_time, principal, reason, sources) VALUES (?, ?, ?, ?, ?)", tx)
                    if tx_id in rows.closed:
                        storage.executemany(
                            "UPDATE claims SET tx_to = ?, closed_by = ? WHERE id = ?",
                            [(tx_time, tx_id, claim_id) for claim_id in rows.closed[tx_id]],
                        )
                    if tx_id in rows.opened:
                        storage.executemany(f"INSERT INTO claims ({OPEN_COLUMNS}) VALUES ({', '.join('?' * 13)})", rows.opened[tx_id])
                    if tx_id in rows.opened and chain:
                        storage.executemany(
                            "INSERT INTO version_hashes (claim_id, opened_by, closed_by, salt, content_hash) VALUES (?, ?, ?, ?, ?)",
                            rows.hashes[tx_id],
                        )
                    if chain:
                        storage.execute("INSERT INTO tx_chain (tx_id, chain_hash) VALUES (?, ?)", (tx_id, rows.chain[tx_id]))
                        # recall's lexical rows, when the ledger writes them (migration 0027: at once for a batch)
                        lanes.lanes_after_write(tx_id, len(rows.opened.get(tx_id, ())))
        storage.close()
        self.discard(location)
        return spent[0], spent[1]


class PostgresBench:
    """Scratch databases on one PostgreSQL server (created and dropped here; the role needs CREATEDB);
    baseline and floor through psycopg directly, the server's own fastest paths."""

    engine = "postgres"

    def __init__(self, url: str):
        import psycopg  # the PostgreSQL half only

        self.psycopg = psycopg
        self.url = url
        self.admin = psycopg.connect(url, autocommit=True)
        self.prefix = f"factledger_bench_{os.getpid()}_"

    def _url(self, name: str) -> str:
        parts = urlsplit(self.url)
        return urlunsplit(parts._replace(path="/" + name))

    def location(self, label: str) -> str:
        name = self.prefix + label
        self.admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        self.admin.execute(f'CREATE DATABASE "{name}"')
        return self._url(name)

    def discard(self, location: str) -> None:
        name = urlsplit(location).path.lstrip("/")
        self.admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def close(self) -> None:
        self.admin.close()

    def backend_pids(self, ledger: Ledger) -> list[int]:
        return [ledger.storage.one("SELECT pg_backend_pid()")[0]]

    def _connect(self, location: str):
        PostgresStorage(location).close()  # migrated, as a ledger would be
        conn = self.psycopg.connect(location, autocommit=True)
        conn.execute("SET TIME ZONE 'UTC'")
        return conn

    def baseline(self, rows: LedgerRows, location: str) -> tuple[float, float]:
        """COPY of the claim rows (and their transactions) into the same tables without their triggers,
        exclusion constraints and secondary indexes, in one transaction."""
        conn = self._connect(location)
        for table in ("claims", "transactions"):
            for (name,) in conn.execute(
                "SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal", (table,)
            ).fetchall():
                conn.execute(f'DROP TRIGGER "{name}" ON {table}')
        for (name,) in conn.execute(
            "SELECT conname FROM pg_constraint WHERE conrelid = 'claims'::regclass AND contype = 'x'"
        ).fetchall():
            conn.execute(f'ALTER TABLE claims DROP CONSTRAINT "{name}"')
        for (name,) in conn.execute(
            "SELECT i.indexrelid::regclass::text FROM pg_index i WHERE i.indrelid = 'claims'::regclass AND NOT i.indisprimary"
        ).fetchall():
            conn.execute(f"DROP INDEX {name}")
        loads = [
            ("predicates (name, display, cardinality, description, template, defined_at)", rows.predicates),
            ("transactions (id, tx_time, principal, reason, sources)", rows.transactions),
            (f"claims ({CLAIM_COLUMNS})", rows.claims),
        ]
        with Clock([conn.info.backend_pid]).phase() as spent, conn.transaction(), conn.cursor() as cursor:
            for target, table_rows in loads:
                with cursor.copy(f"COPY {target} FROM STDIN") as copy:
                    for row in table_rows:
                        copy.write_row(row)
        count = conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0]
        conn.close()
        self.discard(location)
        assert count == len(rows.claims)
        return spent[0], spent[1]

    def floor(self, rows: LedgerRows, location: str, *, chain: bool = True) -> tuple[float, float]:
        """Replay the ledger's own writes, transaction by transaction, as the PostgreSQL recorder's
        statements (one UPDATE of the closed ids, one INSERT from arrays of the versions and one of
        their hash rows) into the full schema."""
        conn = self._connect(location)
        insert_claims = (
            f"INSERT INTO claims ({OPEN_COLUMNS}) SELECT * FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[],"
            " %s::text[], %s::text[], %s::text[], %s::text[], %s::timestamptz[], %s::timestamptz[], %s::timestamptz[],"
            " %s::bigint[], %s::text[])"
        )
        insert_hashes = (
            "INSERT INTO version_hashes (claim_id, opened_by, closed_by, salt, content_hash)"
            " SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::text[], %s::text[])"
        )
        with Clock([conn.info.backend_pid]).phase() as spent, conn.cursor() as cursor:
            with conn.transaction():
                cursor.executemany(
                    "INSERT INTO predicates (name, display, cardinality, description, template, defined_at) VALUES (%s, %s, %s, %s, %s, %s)",
                    rows.predicates,
                )
            for tx in rows.transactions:
                tx_id, tx_time = tx[0], tx[1]
                with conn.transaction():
                    cursor.execute("INSERT INTO transactions (id, tx_time, principal, reason, sources) VALUES (%s, %s, %s, %s, %s)", tx)
                    if tx_id in rows.closed:
                        cursor.execute(
                            "UPDATE claims SET tx_to = %s, closed_by = %s WHERE id = ANY(%s)", (tx_time, tx_id, rows.closed[tx_id])
                        )
                    if tx_id in rows.opened:
                        cursor.execute(insert_claims, [list(column) for column in zip(*rows.opened[tx_id])])
                    if tx_id in rows.opened and chain:
                        cursor.execute(insert_hashes, [list(column) for column in zip(*rows.hashes[tx_id])])
                    if chain:
                        cursor.execute("INSERT INTO tx_chain (tx_id, chain_hash) VALUES (%s, %s)", (tx_id, rows.chain[tx_id]))
        conn.close()
        self.discard(location)
        return spent[0], spent[1]


def one_op_transactions(
    ledger: Ledger, people: int, count: int, rng: random.Random, progress: Progress, clock: Clock
) -> tuple[float, float, float, float]:
    """Wall and CPU seconds of the commits, then of writing the lexical rows they left pending."""
    task = progress.add_task("one-op transactions", total=count)
    chosen = rng.sample(range(people), min(count, people))
    with clock.phase() as spent:
        for n, i in enumerate(chosen):
            with ledger.transaction(principal="agent:bench", reason="one op") as tx:
                tx.supersede(SCOPE, f"person {i}", "lives_in", CITIES[(i + 4 + n) % 8], valid_from=year(2004))
            progress.advance(task)
    progress.remove_task(task)
    with clock.phase() as caught:
        ledger.catch_up_lanes()
    return spent[0], spent[1], caught[0], caught[1]


def lookups(ledger: Ledger, people: int, count: int, rng: random.Random, *, scoped: bool) -> list[float]:
    known = sorted(r[0] for r in ledger.storage.query("SELECT tx_time FROM transactions"))
    first, last = known[0], known[-1]
    samples = []
    for _ in range(count):
        who = f"person {rng.randrange(people)}"
        valid_at = f"{rng.randint(1999, 2005)}-{rng.randint(1, 12):02d}-15T00:00:00.000000Z"
        known_at = rng.choice(known) if rng.random() < 0.5 else rng.choice([first, last])
        started = time.perf_counter()
        ledger.as_of([SCOPE] if scoped else None, valid_at=valid_at, known_at=known_at, subject=who, predicate="lives_in")
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def run_size(bench, versions: int, *, batch: int, one_op: int, lookup_count: int, seed: int) -> Figures:
    rng = random.Random(seed)
    people = max(1, versions // VERSIONS_PER_PERSON)
    load = [load_average()]
    location = bench.location(f"{versions}_ledger")
    try:
        with Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console, transient=True
        ) as progress, Ledger.open(location) as ledger:
            clock = Clock(bench.backend_pids(ledger))
            operations, transactions, batch_seconds, batch_cpu = build(ledger, people, batch, progress, clock)
            written = ledger.storage.one("SELECT COUNT(*) FROM claims")[0]
            assert written == people * VERSIONS_PER_PERSON, (written, people)
            rows = LedgerRows.read(ledger.storage)
            # Best of three: cheap next to the build, and the machine is shared.
            baseline_seconds, baseline_cpu = min(bench.baseline(rows, bench.location(f"{versions}_baseline{n}")) for n in range(3))
            floor_seconds, floor_cpu = min(bench.floor(rows, bench.location(f"{versions}_floor{n}")) for n in range(3))
            unchained_seconds, _ = bench.floor(rows, bench.location(f"{versions}_unchained"), chain=False)
            del rows
            one_op_seconds, one_op_cpu, catch_up_seconds, catch_up_cpu = one_op_transactions(
                ledger, people, one_op, rng, progress, clock
            )
            slot_ms = lookups(ledger, people, lookup_count, rng, scoped=True)
            all_scopes_ms = lookups(ledger, people, max(50, lookup_count // 10), rng, scoped=False)
    finally:
        bench.discard(location)
    load.append(load_average())
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
        unchained_floor_seconds=unchained_seconds,
        one_op_tx=min(one_op, people),
        one_op_seconds=one_op_seconds,
        one_op_cpu=one_op_cpu,
        slot_ms=slot_ms,
        all_scopes_ms=all_scopes_ms,
        catch_up_seconds=catch_up_seconds,
        catch_up_cpu=catch_up_cpu,
        engine=bench.engine,
        load=load,
    )


# -- import of a history (`factledger import`) -----------------------------------------------------------


def round_ops(people: int, r: int) -> Iterator[tuple]:
    """Round r of `rounds(people)`, generated (a million versions' operations need not sit in memory)."""
    for i in range(people):
        who = f"person {i}"
        if r == 0:
            yield ("add", who, "lives_in", CITIES[i % 8], year(2000), None)
            yield ("add", who, "likes", "jazz", year(2000), None)
            yield ("add", who, "likes", "folk", year(2001), None)
        elif r == 1:
            yield ("supersede", who, "lives_in", CITIES[(i + 1) % 8], year(2001), None)
        elif r == 2:
            yield ("supersede", who, "lives_in", CITIES[(i + 2) % 8], year(2002), None)
            yield ("supersede", who, "likes", "blues", year(2002), "jazz")
        else:
            yield ("supersede", who, "lives_in", CITIES[(i + 3) % 8], year(2003), None)


def write_history(path: Path, people: int, batch: int) -> tuple[int, int]:
    """The benchmark's history as `factledger import` reads it, written line by line; (operations,
    transactions). Each round's operations in transactions of `batch` lines, a second apart, in the past."""
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    operations = transactions = 0
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"op": "define", "predicate": "lives_in", "cardinality": "one", "template": "{subject} lives in {value}"}) + "\n")
        out.write(json.dumps({"op": "define", "predicate": "likes", "cardinality": "many"}) + "\n")
        for r in range(4):
            for n, (kind, who, predicate, value, valid_from, replaces) in enumerate(round_ops(people, r)):
                line = {"op": kind, "scope": SCOPE, "subject": who, "predicate": predicate, "value": value, "valid_from": valid_from}
                if replaces is not None:
                    line["replaces"] = replaces
                if n % batch == 0:
                    at = start + timedelta(seconds=transactions)
                    line |= {"tx": f"t{transactions}", "tx_time": at.strftime("%Y-%m-%dT%H:%M:%S.000000Z")}
                    transactions += 1
                else:
                    line["tx"] = f"t{transactions - 1}"
                out.write(json.dumps(line) + "\n")
                operations += 1
    return operations, transactions


@dataclass
class ImportFigures:
    versions: int
    operations: int
    transactions: int
    file_mb: float
    seconds: float
    cpu: float
    peak_rss_mb: float
    baseline_seconds: float
    baseline_cpu: float
    load: list[str] = field(default_factory=list)

    def row(self) -> dict:
        return {
            "versions": self.versions,
            "operations": self.operations,
            "transactions": self.transactions,
            "file_mb": round(self.file_mb, 1),
            "import_seconds": round(self.seconds, 1),
            "import_cpu_seconds": round(self.cpu, 1),
            "import_ops_per_s": round(self.operations / self.seconds),
            "import_ops_per_cpu_s": round(self.operations / self.cpu),
            "import_versions_per_s": round(self.versions / self.seconds),
            "peak_rss_mb": round(self.peak_rss_mb, 1),
            "baseline_rows_per_s": round(self.versions / self.baseline_seconds),
            "ratio_to_baseline": round(self.baseline_seconds / self.seconds, 3),
            "ratio_to_baseline_cpu": round(self.baseline_cpu / self.cpu, 3),
            "load_avg": " → ".join(self.load),
        }


def run_import_command(db: Path, history: Path) -> tuple[float, float, float, int]:
    """`factledger --db DB import HISTORY --summary --progress` in a child process (the bar on this
    process's stderr): wall seconds, CPU seconds, peak RSS in MiB, and its exit code."""
    command = [sys.executable, "-c", "from factledger.cli.main import cli; cli(prog_name='factledger')",
               "--db", str(db), "import", str(history), "--summary", "--progress"]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, child.returncode


def baseline_from(source: Path, location: Path, chunk: int = 50_000) -> tuple[float, float]:
    """SqliteBench.baseline over a ledger file too large to hold: its transaction and claim rows read in
    chunks and inserted plainly in one transaction (claims without triggers and secondary indexes);
    only the inserts are timed."""
    storage = Storage(location)
    for obj in storage.query(
        "SELECT type, name FROM sqlite_master WHERE tbl_name = 'claims' AND type IN ('trigger', 'index') AND sql IS NOT NULL"
    ):
        storage.execute(f"DROP {obj['type'].upper()} {obj['name']}")
    storage.execute("DROP TRIGGER IF EXISTS transactions_time_increases")
    reader = Storage(source, read_only=True)
    wall = cpu = 0.0
    statements = [
        ("SELECT name, display, cardinality, description, template, defined_at FROM predicates",
         "INSERT INTO predicates (name, display, cardinality, description, template, defined_at) VALUES (?, ?, ?, ?, ?, ?)"),
        ("SELECT id, tx_time, principal, reason, sources FROM transactions ORDER BY id",
         "INSERT INTO transactions (id, tx_time, principal, reason, sources) VALUES (?, ?, ?, ?, ?)"),
        (f"SELECT {CLAIM_COLUMNS} FROM claims ORDER BY id", f"INSERT INTO claims ({CLAIM_COLUMNS}) VALUES ({', '.join('?' * 15)})"),
    ]
    with storage.atomic():
        for select, insert in statements:
            rows = reader.iterate(select)
            while True:
                block = [tuple(r) for _, r in zip(range(chunk), rows)]
                if not block:
                    break
                with Clock().phase() as spent:
                    storage.executemany(insert, block)
                wall, cpu = wall + spent[0], cpu + spent[1]
    count = storage.one("SELECT COUNT(*) FROM claims")[0]
    expected = reader.one("SELECT COUNT(*) FROM claims")[0]
    reader.close()
    storage.close()
    remove(location)
    assert count == expected, (count, expected)
    return wall, cpu


def run_import(workdir: Path, versions: int, *, batch: int) -> ImportFigures:
    people = max(1, versions // VERSIONS_PER_PERSON)
    history = workdir / f"history_{versions}.jsonl"
    db = workdir / f"{versions}_imported.db"
    load = [load_average()]
    try:
        operations, transactions = write_history(history, people, batch)
        file_mb = history.stat().st_size / 2**20
        seconds, cpu, rss, code = run_import_command(db, history)
        if code != 0:
            raise SystemExit(f"factledger import exited with {code}")
        storage = Storage(db, read_only=True)
        written = storage.one("SELECT COUNT(*) FROM claims")[0]
        storage.close()
        assert written == people * VERSIONS_PER_PERSON, (written, people)
        baseline_seconds, baseline_cpu = min(baseline_from(db, workdir / f"{versions}_import_baseline{n}.db") for n in range(2))
    finally:
        history.unlink(missing_ok=True)
        remove(db)
    load.append(load_average())
    return ImportFigures(written, operations, transactions + 1, file_mb, seconds, cpu, rss, baseline_seconds, baseline_cpu, load)


def import_markdown(rows: list[dict]) -> str:
    headers = [
        ("versions", "claim versions"), ("operations", "operations"), ("transactions", "transactions"),
        ("file_mb", "file MiB"), ("import_seconds", "import s"), ("import_cpu_seconds", "… CPU s"),
        ("import_ops_per_s", "ops/s"), ("import_ops_per_cpu_s", "… per CPU s"), ("import_versions_per_s", "versions/s"),
        ("peak_rss_mb", "peak RSS MiB"), ("baseline_rows_per_s", "baseline rows/s"),
        ("ratio_to_baseline", "ratio to baseline"), ("ratio_to_baseline_cpu", "… by CPU time"), ("load_avg", "load avg"),
    ]
    lines = ["| " + " | ".join(h for _, h in headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        lines.append("| " + " | ".join(f"{row[k]:,}" if isinstance(row[k], int) else str(row[k]) for k, _ in headers) + " |")
    return "\n".join(lines)


# -- journal turns: one batch against one by one ---------------------------------------------------------

WORDS = "pottery class teacher studio clay kiln glaze cello sunday music garden tea coffee train city river".split()


def bench_turns(count: int, tag: str, rng: random.Random) -> list:
    from factledger.digest import Turn  # the journal half only

    return [
        Turn(scope="user:bench", text=f"{tag} {i} " + " ".join(rng.choice(WORDS) for _ in range(14)), session=f"s{i // 20}",
             role="user" if i % 2 == 0 else "assistant", said_at=format_said_at(i))
        for i in range(count)
    ]


def format_said_at(i: int) -> str:
    return (datetime(2024, 3, 1, tzinfo=timezone.utc) + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")


def run_journal(workdir: Path, count: int, seed: int) -> dict:
    from factledger.digest import Journal

    figures: dict[str, object] = {"turns": count, "load_avg": [load_average()]}
    for label in ("one_by_one", "batch"):
        location = workdir / f"journal_{label}.db"
        turns = bench_turns(count, label, random.Random(seed))
        try:
            with Ledger.open(location) as ledger:
                journal = Journal(ledger)
                with Clock().phase() as spent, ledger.storage.atomic():
                    outcomes = journal.append_many(turns) if label == "batch" else [journal.append(t) for t in turns]
                assert all(o.status == "stored" for o in outcomes)
                episodes = ledger.storage.one("SELECT COUNT(*) FROM recall_episode_fts")[0]
                assert episodes == count, (episodes, count)
        finally:
            remove(location)
        figures[f"{label}_turns_per_s"] = round(count / spent[0])
        figures[f"{label}_turns_per_cpu_s"] = round(count / spent[1])
        figures[f"{label}_cpu"] = spent[1]
    figures["speedup_cpu"] = round(figures.pop("one_by_one_cpu") / figures.pop("batch_cpu"), 2)  # type: ignore[operator]
    figures["load_avg"] = " → ".join([*figures["load_avg"], load_average()])  # type: ignore[misc]
    return figures


def markdown(rows: list[dict]) -> str:
    headers = [
        ("engine", "engine"),
        ("versions", "claim versions"),
        ("batch_ops_per_s", "batch apply ops/s"),
        ("batch_ops_per_cpu_s", "… per CPU s"),
        ("batch_versions_per_s", "ledger versions/s"),
        ("baseline_rows_per_s", "baseline rows/s"),
        ("ratio_to_baseline", "ratio to baseline"),
        ("ratio_to_baseline_cpu", "… by CPU time"),
        ("schema_floor_ratio", "schema floor ratio"),
        ("schema_floor_ratio_cpu", "… by CPU time"),
        ("of_floor", "ledger / floor"),
        ("of_floor_cpu", "… by CPU time"),
        ("of_floor_without_chain", "… of floor without chain rows"),
        ("one_op_tx_per_s", "one-op tx/s"),
        ("one_op_tx_per_cpu_s", "… per CPU s"),
        ("one_op_caught_up_tx_per_s", "one-op tx/s, lanes caught up"),
        ("one_op_caught_up_tx_per_cpu_s", "… per CPU s"),
        ("slot_as_of_p50_ms", "slot as-of p50 ms"),
        ("slot_as_of_p99_ms", "slot as-of p99 ms"),
        ("all_scopes_as_of_p50_ms", "as-of, every scope, p50 ms"),
        ("load_avg", "load avg"),
    ]
    lines = ["| " + " | ".join(h for _, h in headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        lines.append("| " + " | ".join(f"{row[k]:,}" if isinstance(row[k], int) else str(row[k]) for k, _ in headers) + " |")
    return "\n".join(lines)


def load_cluster_harness():
    """tests/support/postgres_cluster.py, by path: the same throwaway cluster the test suite starts."""
    spec = importlib.util.spec_from_file_location("factledger_postgres_cluster", CLUSTER_HARNESS)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=None, help="claim-version counts, comma-separated (default 10000,100000,1000000; none with --import-versions alone)")
    parser.add_argument("--import-versions", default=None, help="SQLite: time `factledger import` of histories of these many versions (comma-separated)")
    parser.add_argument("--journal-turns", type=int, default=None, help="SQLite: time this many journal turns appended as one batch against one by one")
    parser.add_argument("--quick", action="store_true", help="a toy run: 2k and 10k versions, few samples")
    parser.add_argument("--batch", type=int, default=2000, help="operations per batch transaction")
    parser.add_argument("--one-op", type=int, default=3000, help="one-operation transactions to time per size")
    parser.add_argument("--lookups", type=int, default=3000, help="as-of lookups to time per size")
    parser.add_argument("--workdir", type=Path, default=None, help="SQLite: where the ledger files go (default: a temp dir)")
    parser.add_argument("--db", default=None, help="a postgresql:// URL: run on that server (scratch databases, CREATEDB)")
    parser.add_argument("--pg-throwaway", action="store_true", help="run on a PostgreSQL cluster started (and removed) here")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.db is not None and not args.db.startswith(("postgresql://", "postgres://")):
        parser.error("--db takes a postgresql:// URL (SQLite runs in --workdir)")
    if args.db is not None and args.pg_throwaway:
        parser.error("--db and --pg-throwaway exclude each other")
    if (args.import_versions is not None or args.journal_turns is not None) and (args.db is not None or args.pg_throwaway):
        parser.error("--import-versions and --journal-turns run on SQLite only")
    if args.journal_turns is not None and args.journal_turns < 2:
        parser.error("--journal-turns: at least 2 turns")
    imports = [] if args.import_versions is None else [int(s.replace("_", "")) for s in args.import_versions.split(",") if s.strip()]
    if any(n < VERSIONS_PER_PERSON for n in imports):
        parser.error(f"--import-versions: each size must be at least {VERSIONS_PER_PERSON} versions")
    sizes_text = args.sizes if args.sizes is not None else ("" if imports or args.journal_turns else "10000,100000,1000000")
    sizes = [2000, 10000] if args.quick else [int(s.replace("_", "")) for s in sizes_text.split(",") if s.strip()]
    one_op = 200 if args.quick else args.one_op
    lookup_count = 300 if args.quick else args.lookups
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="factledger-bench-"))
    cluster = None
    rows: list[dict] = []
    imported: list[dict] = []
    journal: dict | None = None
    try:
        if args.pg_throwaway:
            cluster = load_cluster_harness().start_cluster(THROWAWAY_SETTINGS)
        url = cluster.url() if cluster is not None else args.db
        bench = PostgresBench(url) if url is not None else SqliteBench(workdir)
        try:
            for size in sizes:
                console.print(
                    f"[bold]{bench.engine}, {size:,} versions[/bold] ({platform.python_implementation()} {platform.python_version()})"
                )
                figures = run_size(bench, size, batch=args.batch, one_op=one_op, lookup_count=lookup_count, seed=args.seed)
                row = figures.row()
                rows.append(row)
                console.print(json.dumps(row))
            if args.journal_turns is not None:
                console.print(f"[bold]journal, {args.journal_turns:,} turns[/bold]: one batch, and one by one")
                journal = run_journal(workdir, args.journal_turns, args.seed)
                console.print(json.dumps(journal))
            for size in imports:
                console.print(f"[bold]factledger import, {size:,} versions[/bold] (a child process; its bar below)")
                imported.append(run_import(workdir, size, batch=args.batch).row())
                console.print(json.dumps(imported[-1]))
        finally:
            if isinstance(bench, PostgresBench):
                bench.close()
    finally:
        if cluster is not None:
            cluster.stop()
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        print(json.dumps({"rows": rows, "imports": imported, "journal": journal, "targets": TARGETS}, indent=2))
        return 0
    if rows:
        print(markdown(rows))
        print()
        print(verdict(rows))
    if imported:
        print()
        print(import_markdown(imported))
    if journal is not None:
        print()
        print("| journal turns | one by one turns/s | … per CPU s | one batch turns/s | … per CPU s | batch speed-up by CPU time | load avg |")
        print("|---|---|---|---|---|---|---|")
        print(f"| {journal['turns']:,} | {journal['one_by_one_turns_per_s']:,} | {journal['one_by_one_turns_per_cpu_s']:,} |"
              f" {journal['batch_turns_per_s']:,} | {journal['batch_turns_per_cpu_s']:,} | {journal['speedup_cpu']} | {journal['load_avg']} |")
    return 0


def verdict(rows: list[dict]) -> str:
    lines = []
    for row in rows:
        misses = []
        if row["batch_ops_per_s"] < TARGETS["batch_ops_per_s"]:
            misses.append(f"batch {row['batch_ops_per_s']:,} ops/s < {TARGETS['batch_ops_per_s']:,}")
        if row["ratio_to_baseline"] < TARGETS["batch_ratio"]:
            misses.append(f"ratio {row['ratio_to_baseline']} < {TARGETS['batch_ratio']}")
        if row["of_floor"] < TARGETS["of_floor"]:
            misses.append(f"ledger / floor {row['of_floor']} < {TARGETS['of_floor']}")
        if row["one_op_tx_per_s"] < TARGETS["one_op_tx_per_s"]:
            misses.append(f"one-op {row['one_op_tx_per_s']:,} tx/s < {TARGETS['one_op_tx_per_s']:,}")
        if row["versions"] >= 1_000_000 and row["slot_as_of_p50_ms"] > TARGETS["slot_p50_ms_at_1m"]:
            misses.append(f"slot p50 {row['slot_as_of_p50_ms']} ms > {TARGETS['slot_p50_ms_at_1m']} ms")
        label = f"{row['engine']}, {row['versions']:,} versions: "
        lines.append(label + ("all targets met" if not misses else "MISSED: " + "; ".join(misses)))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
