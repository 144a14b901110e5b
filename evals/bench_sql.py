"""Benchmark: as-of and history SQL over a large ledger, through DuckDB and through SQLite directly.

Builds a ledger of N claim versions (default 1,000,000) with a realistic shape: a couple of thousand
users, a skewed mix of `one` and `many` predicates, slots that change a few times (supersedes that cut
the old version in two, retracts that end it), transactions by digest, agent, operator and import
principals. Rows go in through the ledger's storage layer in one transaction (every database constraint
and trigger still runs). Then the same questions are asked:

- as-of aggregate: count of values per predicate valid at a past instant, as known at a past instant;
- history scan: the slots with the most versions over all time (every version of every slot);
- activity: transactions and versions opened per principal over a quarter;

through `factledger.ledger.analytics` (DuckDB over the SQLite file: the live ATTACH, an in-memory
snapshot, and the analytics companion, a DuckDB file kept in step) and, as the baseline in the same run,
through SQLite directly. Then the companion's upkeep: 1,000 one-operation transactions through the
ledger, and the refresh that brings the companion in step before the next answer. Prints the times and
the ratios; `--record` puts them in docs/BENCHMARKS.md in place of the last recorded run.

    .venv/bin/python evals/bench_sql.py [--versions 1000000] [--path /tmp/bench.db] [--record]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from factledger.ledger import Ledger
from factledger.ledger.times import FORMAT

START = datetime(2023, 1, 1, tzinfo=timezone.utc)
SPAN_SECONDS = 3 * 365 * 86400  # histories spread over three years
PAST = "2025-01-01T00:00:00.000000Z"  # the "as known then" instant of the as-of questions

ONE_PREDICATES = ["lives_in", "works_at", "birthday", "job_title", "timezone", "partner", "phone_model",
                  "car", "diet", "favourite_team", "language", "gym"]
MANY_PREDICATES = ["likes", "has_pet", "speaks", "allergic_to", "plays", "reads", "visited", "note"]
PRINCIPALS = [("digest:rules", 55), ("digest:llm", 20), ("agent:hermes", 18), ("operator:alice", 4), ("import:crm", 3)]
SUBJECTS = ["user"] * 6 + ["partner", "mother", "boss", "dog", "sister"]


def _stamp(seconds: float) -> str:
    return (START + timedelta(seconds=seconds)).strftime(FORMAT)


@dataclass
class _Row:
    scope: str
    subject: str
    predicate: str
    cardinality: str
    value: str
    valid_from: str
    valid_to: str | None
    tx_index: int
    closed_index: int | None = None


@dataclass
class _SlotState:
    open_rows: dict[str, _Row] = field(default_factory=dict)  # value -> its open version
    floor: str = ""  # the latest valid end written in the slot: new versions start at or after it


def _events(versions: int, rng: random.Random) -> list[tuple[float, tuple[str, str, str, str]]]:
    """(time, slot) change events; each event becomes one transaction writing about 2 versions."""
    predicates = [(p, "one") for p in ONE_PREDICATES] + [(p, "many") for p in MANY_PREDICATES]
    weights = [1.0 / (rank + 1) for rank in range(len(predicates))]  # Zipf-like popularity
    users = max(10, versions // 500)
    events = []
    target_events = int(versions * 0.7)  # about 1.6 versions per event: stop at `versions` below
    while len(events) < target_events:
        scope = f"user:{rng.randrange(users):05d}"
        predicate, cardinality = rng.choices(predicates, weights)[0]
        slot = (scope, rng.choice(SUBJECTS), predicate, cardinality)
        changes = min(1 + int(rng.expovariate(1 / 3)), 40)
        for _ in range(changes):
            events.append((rng.random() * SPAN_SECONDS, slot))
    events.sort(key=lambda e: e[0])
    return events[:target_events]


def build_ledger(path: Path, versions: int, *, seed: int = 7, progress: bool = True) -> int:
    """Write a ledger of about `versions` claim versions to `path` (a new file). Returns the count."""
    rng = random.Random(seed)
    events = _events(versions, rng)
    states: dict[tuple[str, str, str, str], _SlotState] = {}
    rows: list[_Row] = []
    transactions: list[tuple[str, str, str, str]] = []
    last_micro = -1
    for seconds, slot in events:
        if len(rows) >= versions:
            break
        micro = max(int(seconds * 1_000_000), last_micro + 1)
        last_micro = micro
        tx_time = _stamp(micro / 1_000_000)
        principal = rng.choices([p for p, _ in PRINCIPALS], [w for _, w in PRINCIPALS])[0]
        tx_index = len(transactions)
        scope, subject, predicate, cardinality = slot
        state = states.setdefault(slot, _SlotState())
        # Said a little before it was learned: valid from up to 30 days before the transaction.
        valid_from = max(_stamp(max(0.0, micro / 1_000_000 - rng.random() * 30 * 86400)), state.floor)
        value = f"{predicate}-{rng.randrange(60)}"
        kind = "add"
        if state.open_rows:
            kind = rng.choices(["supersede", "retract", "add"], [70, 15, 15] if cardinality == "many" else [80, 20, 0])[0]
        if kind in ("supersede", "retract"):
            old = rng.choice(list(state.open_rows.values()))
            if old.valid_from >= valid_from:  # the change cannot start before the version it cuts
                valid_from = tx_time
            if old.valid_from >= valid_from:
                kind = "add"
            else:
                old.closed_index = tx_index
                del state.open_rows[old.value]
                kept = _Row(scope, subject, predicate, cardinality, old.value, old.valid_from, valid_from, tx_index)
                rows.append(kept)  # the part before the portion, written again with the old value
                state.floor = valid_from
        if kind in ("add", "supersede"):
            if value in state.open_rows or (cardinality == "one" and state.open_rows):
                value = None  # already held, or a conflict: the transaction writes nothing
            if value is not None:
                row = _Row(scope, subject, predicate, cardinality, value, valid_from, None, tx_index)
                state.open_rows[value] = row
                rows.append(row)
        reason = {"add": "said in conversation", "supersede": "user corrected it", "retract": "no longer true"}[kind]
        transactions.append((tx_time, principal, reason, json.dumps([f"journal:{tx_index + 1}"])))
    rows = rows[:versions]  # the last change may have written one version past the target
    # Written as plain statements in the order the schema demands (0006_integrity.sql): each transaction,
    # then the versions it closes, then the ones it opens, then their hash rows (a trigger mirrors each
    # close into them, as for the ledger's own writes). Row i gets claim id i + 1. (The hashes are not
    # the versions' and no chain is written: `factledger verify` reports the file as written outside
    # factledger.)
    opened: dict[int, list[tuple]] = {}
    closing: dict[int, list[int]] = {}
    for number, r in enumerate(rows, start=1):
        opened.setdefault(r.tx_index, []).append(
            (
                r.scope, r.subject, r.subject.title() if r.subject != "user" else "User", r.predicate, r.cardinality,
                r.value, r.value, r.valid_from, r.valid_to, transactions[r.tx_index][0], r.tx_index + 1,
                json.dumps([f"journal:{r.tx_index + 1}"]),
            )
        )
        if r.closed_index is not None:
            closing.setdefault(r.closed_index, []).append(number)
    ledger = Ledger.open(path)
    storage = ledger.storage
    started = time.perf_counter()
    with storage.atomic():
        storage.executemany(
            "INSERT INTO predicates (name, display, cardinality, template, defined_at) VALUES (?, ?, ?, ?, ?)",
            [(p, p, "one", "{subject} " + p.replace("_", " ") + " {value}", "2022-12-31T00:00:00.000000Z") for p in ONE_PREDICATES]
            + [(p, p, "many", "{subject} " + p.replace("_", " ") + " {value}", "2022-12-31T00:00:00.000000Z") for p in MANY_PREDICATES],
        )
        for tx_index, tx in enumerate(transactions):
            storage.execute(
                "INSERT INTO transactions (id, tx_time, principal, reason, sources) VALUES (?, ?, ?, ?, ?)", (tx_index + 1, *tx)
            )
            if tx_index in closing:
                storage.executemany(
                    "UPDATE claims SET tx_to = ?, closed_by = ? WHERE id = ?",
                    [(tx[0], tx_index + 1, claim_id) for claim_id in closing[tx_index]],
                )
            if tx_index in opened:
                first = storage.one("SELECT coalesce(max(id), 0) + 1 FROM claims")[0]
                storage.executemany(
                    "INSERT INTO claims (scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from,"
                    " valid_to, tx_from, opened_by, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    opened[tx_index],
                )
                storage.executemany(
                    "INSERT INTO version_hashes (claim_id, opened_by, salt, content_hash) VALUES (?, ?, '', ?)",
                    [(first + k, tx_index + 1, "0" * 64) for k in range(len(opened[tx_index]))],
                )
    if progress:
        print(f"built {len(rows):,} versions, {len(transactions):,} transactions in {time.perf_counter() - started:.1f} s")
    ledger.close()
    return len(rows)


# -- the questions, in the analyst's SQL and in plain SQLite ---------------------------------------

AS_OF_SQL = (
    "SELECT predicate, count(*) AS n FROM claims"
    f" FOR VALID_TIME AS OF '{PAST}' FOR SYSTEM_TIME AS OF '{PAST}'"
    " GROUP BY predicate ORDER BY predicate"
)
AS_OF_SQLITE = (
    "SELECT predicate, count(*) AS n FROM claims"
    " WHERE valid_from <= :t AND (valid_to IS NULL OR valid_to > :t)"
    " AND tx_from <= :t AND (tx_to IS NULL OR tx_to > :t)"
    " GROUP BY predicate ORDER BY predicate"
)
HISTORY_SQL = (
    "SELECT scope, subject_key, predicate, count(*) AS versions, count(DISTINCT value_key) AS distinct_values"
    " FROM claims FOR ALL VALID_TIME FOR ALL SYSTEM_TIME"
    " GROUP BY scope, subject_key, predicate ORDER BY versions DESC, scope, subject_key, predicate LIMIT 10"
)
HISTORY_SQLITE = (
    "SELECT scope, subject_key, predicate, count(*) AS versions, count(DISTINCT value_key) AS distinct_values"
    " FROM claims GROUP BY scope, subject_key, predicate ORDER BY versions DESC, scope, subject_key, predicate LIMIT 10"
)
QUARTER = ("2025-01-01T00:00:00.000000Z", "2025-04-01T00:00:00.000000Z")
ACTIVITY_SQL = f"SELECT principal, transactions, versions_opened, versions_closed FROM activity('{QUARTER[0]}', '{QUARTER[1]}')"
ACTIVITY_SQLITE = (
    "SELECT t.principal, count(*) AS transactions, coalesce(sum(o.n), 0), coalesce(sum(x.n), 0)"
    " FROM transactions t"
    " LEFT JOIN (SELECT opened_by AS tx, count(*) AS n FROM claims GROUP BY opened_by) o ON o.tx = t.id"
    " LEFT JOIN (SELECT closed_by AS tx, count(*) AS n FROM claims WHERE closed_by IS NOT NULL GROUP BY closed_by) x"
    " ON x.tx = t.id"
    " WHERE t.tx_time >= :a AND t.tx_time < :b GROUP BY t.principal ORDER BY transactions DESC, t.principal"
)


@dataclass
class Question:
    name: str
    duck: str
    sqlite: str
    params: dict


QUESTIONS = [
    Question("as-of aggregate", AS_OF_SQL, AS_OF_SQLITE, {"t": PAST}),
    Question("history scan", HISTORY_SQL, HISTORY_SQLITE, {}),
    Question("activity per principal", ACTIVITY_SQL, ACTIVITY_SQLITE, {"a": QUARTER[0], "b": QUARTER[1]}),
]


PATHS = ("sqlite", "live", "snapshot", "companion")


def _timed_rounds(runs: dict, repeat: int) -> dict:
    """Each path's median wall and CPU seconds over `repeat` rounds, the paths taking turns within a
    round (so a busier minute on the shared machine falls on all of them), and its last rows. CPU
    time is the whole process's: DuckDB's worker threads count, SQLite's one thread is all it has."""
    walls: dict = {name: [] for name in runs}
    cpus: dict = {name: [] for name in runs}
    rows: dict = {}
    for _ in range(repeat):
        for name, run in runs.items():
            cpu, wall = time.process_time(), time.perf_counter()
            rows[name] = run()
            walls[name].append(time.perf_counter() - wall)
            cpus[name].append(time.process_time() - cpu)
    return {name: (statistics.median(walls[name]), statistics.median(cpus[name]), rows[name]) for name in runs}


def _load() -> float:
    return os.getloadavg()[0]


def _normal(rows) -> list[tuple]:
    return [tuple(r) for r in rows]


def write_one_op_transactions(path: Path, count: int) -> float:
    """`count` transactions of one operation each through the ledger: every other one supersedes a value
    open since the build (closing an old version), the rest add to new slots; returns their seconds."""
    from factledger.ledger import Storage

    storage = Storage(path, read_only=True)
    try:
        open_slots = storage.query(
            "SELECT scope, subject, predicate FROM claims WHERE tx_to IS NULL AND valid_to IS NULL AND cardinality = 'one'"
            " ORDER BY id LIMIT ?", (count,)
        )
    finally:
        storage.close()
    ledger = Ledger.open(path)
    started = time.perf_counter()
    try:
        for n in range(count):
            with ledger.transaction(principal="agent:hermes", reason="upkeep") as tx:
                if n % 2 == 0 and n // 2 < len(open_slots):
                    scope, subject, predicate = open_slots[n // 2]
                    tx.supersede(scope, subject, predicate, f"changed-{n}")
                else:
                    tx.add(f"upkeep:{n}", "user", "likes", f"thing-{n}")
    finally:
        ledger.close()
    return time.perf_counter() - started


def run(path: Path, versions: int, repeat: int, *, writes: int = 1000) -> dict:
    from factledger.ledger import Storage
    from factledger.ledger.analytics import Analytics

    figures: dict = {"versions": versions, "questions": [], "repeat": repeat, "load_before": _load()}
    companion_file = Path(f"{path}.analytics.duckdb")
    for leftover in (companion_file, Path(f"{companion_file}.wal")):
        leftover.unlink(missing_ok=True)
    storage = Storage(path, read_only=True)
    started = time.perf_counter()
    live = Analytics(path, mode="live")
    figures["live_open_s"] = time.perf_counter() - started
    started = time.perf_counter()
    snapshot = Analytics(path, snapshot=True)
    figures["snapshot_load_s"] = time.perf_counter() - started
    started = time.perf_counter()
    Analytics(path, mode="companion").close()  # no companion yet: this is its one build
    figures["companion_build_s"] = time.perf_counter() - started
    started = time.perf_counter()
    companion = Analytics(path, mode="companion")
    figures["companion_open_s"] = time.perf_counter() - started
    figures["companion_mb"] = companion_file.stat().st_size / 1e6
    try:
        for q in QUESTIONS:
            timed = _timed_rounds({
                "sqlite": lambda: storage.query(q.sqlite, q.params),
                "live": lambda: live.fetch(q.duck)[1],
                "snapshot": lambda: snapshot.fetch(q.duck)[1],
                "companion": lambda: companion.fetch(q.duck)[1],
            }, repeat)
            answers = [_normal(timed[name][2]) for name in PATHS]
            entry: dict = {"name": q.name, "same_answer": all(a == answers[0] for a in answers)}
            for name in PATHS:
                entry[f"{name}_s"], entry[f"{name}_cpu_s"] = timed[name][0], timed[name][1]
            figures["questions"].append(entry)
        # Upkeep: the writes, then the refresh the next query runs first (timed on its own), then the
        # as-of aggregate again, checked against SQLite directly.
        storage.close()
        figures["writes"] = writes
        figures["writes_s"] = write_one_op_transactions(path, writes)
        started = time.perf_counter()
        refreshed = companion.refresh()
        figures["refresh_s"] = time.perf_counter() - started
        figures["refresh"] = {"transactions": refreshed.transactions, "versions": refreshed.versions,
                              "closed": refreshed.closed, "rebuilt": refreshed.rebuilt}
        idle = []
        for _ in range(21):
            started = time.perf_counter()
            companion.refresh()
            idle.append(time.perf_counter() - started)
        figures["idle_refresh_s"] = statistics.median(idle)
        storage = Storage(path, read_only=True)
        as_of = QUESTIONS[0]
        figures["after_writes_same"] = _normal(storage.query(as_of.sqlite, as_of.params)) == _normal(companion.fetch(as_of.duck)[1])
    finally:
        live.close()
        snapshot.close()
        companion.close()
        storage.close()
    figures["sessions"] = _sessions(path, repeat)
    figures["load_after"] = _load()
    return figures


def _sessions(path: Path, repeat: int) -> dict:
    """What one `factledger sql` call pays beyond starting Python: open, the as-of aggregate, close; a
    session without a mode (the companion exists, so it is used and refreshed) told its one question as
    `factledger sql` tells it (`first_query`: the companion alone answers), the same session not told
    (views over every table, the scanner loaded and the ledger attached), and SQLite opened and asked
    directly."""
    from factledger.ledger import Storage
    from factledger.ledger.analytics import Analytics

    as_of = QUESTIONS[0]
    # The upkeep's writes ran while a reader held the ledger open, so SQLite could not checkpoint them:
    # every new connection would replay their WAL (≈25 ms on both sides). A ledger at rest has none.
    import sqlite3

    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()

    def one_question_session():
        with Analytics(path, first_query=as_of.duck) as analytics:
            assert analytics.mode == "companion", analytics.mode_note
            return analytics.fetch(as_of.duck)[1]

    def full_session():
        with Analytics(path) as analytics:
            assert analytics.mode == "companion", analytics.mode_note
            return analytics.fetch(as_of.duck)[1]

    def sqlite_session():
        storage = Storage(path, read_only=True)
        try:
            return storage.query(as_of.sqlite, as_of.params)
        finally:
            storage.close()

    timed = _timed_rounds({"sqlite": sqlite_session, "one_question": one_question_session, "full": full_session}, repeat)
    return {name: {"wall_s": timed[name][0], "cpu_s": timed[name][1]} for name in timed}


def report(figures: dict) -> str:
    lines = [
        f"{figures['versions']:,} claim versions; DuckDB live open {figures['live_open_s']:.2f} s,"
        f" snapshot load {figures['snapshot_load_s']:.2f} s; companion: first build {figures['companion_build_s']:.2f} s"
        f" ({figures['companion_mb']:.0f} MB), open {figures['companion_open_s']:.2f} s. Medians of {figures['repeat']}"
        " rounds (the paths take turns in each), wall clock, CPU seconds of the process in brackets; every companion"
        " query includes its check for changes. Load average"
        f" {figures['load_before']:.2f} before, {figures['load_after']:.2f} after.",
        "",
        "| question | SQLite | DuckDB live (ATTACH) | ratio | DuckDB snapshot | ratio | companion | ratio | ratio by CPU | same answer |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for q in figures["questions"]:
        lines.append(
            f"| {q['name']} | {q['sqlite_s']:.3f} s ({q['sqlite_cpu_s']:.3f}) | {q['live_s']:.3f} s ({q['live_cpu_s']:.3f})"
            f" | {q['sqlite_s'] / q['live_s']:.1f}x"
            f" | {q['snapshot_s']:.3f} s ({q['snapshot_cpu_s']:.3f}) | {q['sqlite_s'] / q['snapshot_s']:.1f}x"
            f" | {q['companion_s']:.3f} s ({q['companion_cpu_s']:.3f}) | {q['sqlite_s'] / q['companion_s']:.1f}x"
            f" | {q['sqlite_cpu_s'] / max(q['companion_cpu_s'], 1e-6):.1f}x | {'yes' if q['same_answer'] else 'NO'} |"
        )
    as_of = figures["questions"][0]
    under = all(q["live_s"] < 1 and q["snapshot_s"] < 1 and q["companion_s"] < 1 for q in figures["questions"])
    companion_ratio = as_of["sqlite_s"] / as_of["companion_s"]
    refresh = figures["refresh"]
    sessions = figures["sessions"]
    one_ratio = sessions["sqlite"]["wall_s"] / sessions["one_question"]["wall_s"]
    lines += [
        "",
        f"upkeep: {figures['writes']:,} one-operation transactions through the ledger took {figures['writes_s']:.1f} s;"
        f" the refresh after them {figures['refresh_s'] * 1000:.0f} ms ({refresh['transactions']} transactions,"
        f" {refresh['versions']} versions copied, {refresh['closed']} closes{', REBUILT' if refresh['rebuilt'] else ''});"
        f" a refresh with nothing new {figures['idle_refresh_s'] * 1000:.2f} ms (median of 21);"
        f" the as-of aggregate after it equals SQLite's: {'yes' if figures['after_writes_same'] else 'NO'}",
        "",
        _sessions_line(sessions),
        "",
        f"targets: every DuckDB query under 1 s: {'met' if under else 'NOT met'};"
        f" as-of aggregate >= 5x SQLite through the companion: {companion_ratio:.1f}x"
        f" ({'met' if companion_ratio >= 5 else 'NOT met'});"
        f" snapshot {as_of['sqlite_s'] / as_of['snapshot_s']:.1f}x, live {as_of['sqlite_s'] / as_of['live_s']:.1f}x;"
        f" one question per session >= 5x SQLite's one connection: {one_ratio:.1f}x ({'met' if one_ratio >= 5 else 'NOT met'})",
    ]
    return "\n".join(lines)


def _sessions_line(sessions: dict, load_before: float | None = None, load_after: float | None = None) -> str:
    one_ratio = sessions["sqlite"]["wall_s"] / sessions["one_question"]["wall_s"]
    load = "" if load_before is None else f" (load average {load_before:.2f} before, {load_after:.2f} after)"
    return (
        f"one session (open, the as-of aggregate, close; Python's imports not counted): SQLite"
        f" {sessions['sqlite']['wall_s']:.3f} s ({sessions['sqlite']['cpu_s']:.3f}); the companion told its one question"
        f" (`first_query`, as `factledger sql` opens it) {sessions['one_question']['wall_s']:.3f} s"
        f" ({sessions['one_question']['cpu_s']:.3f}), {one_ratio:.1f}x, by CPU"
        f" {sessions['sqlite']['cpu_s'] / max(sessions['one_question']['cpu_s'], 1e-6):.1f}x; a full session (every view, the"
        f" ledger attached) {sessions['full']['wall_s']:.3f} s ({sessions['full']['cpu_s']:.3f}),"
        f" {sessions['sqlite']['wall_s'] / sessions['full']['wall_s']:.1f}x{load}"
    )


START_MARK = "<!-- evals/bench_sql.py --record replaces from here -->"
END_MARK = "<!-- evals/bench_sql.py --record replaces up to here -->"


def record(text: str, command: str, doc: Path | None = None) -> Path:
    """Put this run's figures in docs/BENCHMARKS.md in place of the last recorded ones (between the two
    marks of its SQL section): the doc keeps one current table, and git keeps the earlier runs."""
    doc = doc or Path(__file__).resolve().parent.parent / "docs" / "BENCHMARKS.md"
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    figures = f"{START_MARK}\n{stamp}, `{command}`, on a 2-core machine shared with other jobs.\n\n{text.strip()}\n{END_MARK}"
    current = doc.read_text("utf-8") if doc.exists() else "# factledger benchmarks\n"
    if START_MARK in current and END_MARK in current:
        before, rest = current.split(START_MARK, 1)
        after = rest.split(END_MARK, 1)[1]
        doc.write_text(before + figures + after, "utf-8")
    else:
        doc.write_text(current.rstrip("\n") + f"\n\n## SQL (`evals/bench_sql.py`)\n\n{figures}\n", "utf-8")
    return doc


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--versions", type=int, default=1_000_000)
    parser.add_argument("--path", type=Path, default=None, help="ledger file to build (default: a temporary one)")
    parser.add_argument("--reuse", action="store_true", help="use --path as it is if it exists")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--writes", type=int, default=1000, help="one-operation transactions for the upkeep figure")
    parser.add_argument("--record", action="store_true", help="put the figures in docs/BENCHMARKS.md in place of the last recorded run")
    parser.add_argument("--sessions-only", action="store_true",
                        help="only the one-session figures, over an existing ledger whose companion exists (with --reuse)")
    args = parser.parse_args(argv)
    import tempfile

    folder = None
    path = args.path
    if path is None:
        folder = tempfile.TemporaryDirectory(prefix="factledger-bench-sql-")
        path = Path(folder.name) / "ledger.db"
    try:
        if not (args.reuse and path.exists()):
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            build_ledger(path, args.versions)
        if args.sessions_only:
            load_before = _load()
            sessions = _sessions(path, args.repeat)
            print(_sessions_line(sessions, load_before, _load()))
            return {"sessions": sessions}
        figures = run(path, args.versions, args.repeat, writes=args.writes)
        text = report(figures)
        print(text)
        if args.record:
            command = "python evals/bench_sql.py " + " ".join(argv if argv is not None else __import__("sys").argv[1:])
            print(f"recorded in {record(text, command.strip())}")
        return figures
    finally:
        if folder is not None:
            folder.cleanup()


if __name__ == "__main__":
    main()
