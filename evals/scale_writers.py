"""Many writer processes on one ledger, and the prefetch read under their load, on a SQLite file or on
PostgreSQL: the figures of docs/SCALING.md.

One ledger is populated with --users people (5 facts each, one durable scope per person, as
evals/bench_hermes.py does). Then:
1. prefetch, idle: `Recall.prompt_block(query, [scope], vectors="if_ready")` for random people (the read
   Hermes makes before each turn; the vector lane is left out, as before its index is ready): p50/p95;
2. one writer process alone: --txs one-operation transactions (an add each), committed one by one: tx/s
   (each writer process starts, opens the ledger, then waits for the signal that starts them all);
3. --writers processes at once, --txs each: committed tx/s from the first commit to the last (every
   process's clock is the machine's) and refused transactions;
4. the same again while this process runs a prefetch every --interval seconds (a stream of turns, not a
   closed loop that would take a core from the writers): the prefetch p50/p95 under that write load.
Each phase records the load average and the writer processes' CPU time (os.times of the children; a
PostgreSQL server's own CPU is not in it). The machine is shared: the figures carry its load.

    .venv/bin/python evals/scale_writers.py                       # a SQLite file in a temp dir
    .venv/bin/python evals/scale_writers.py --pg-throwaway        # a PostgreSQL cluster of its own
    .venv/bin/python evals/scale_writers.py --db postgresql://…   # a scratch database on that server
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_ledger import THROWAWAY_SETTINGS, PostgresBench, load_average, load_cluster_harness, percentile

from factledger.ledger import Ledger

QUERIES = ["where do I live", "what are my hobbies", "do I like sailing", "which city", "where do I work"]
CITIES = ["Berlin", "Lisbon", "Oslo", "Lyon", "Krakow", "Seville", "Porto", "Turin"]
HOBBIES = ["hiking", "baking bread", "chess", "sailing", "climbing", "knitting", "birdwatching"]


def scope_of(n: int) -> str:
    return f"hermes/durable/user{n}"


def populate(location: str, users: int) -> None:
    with Ledger.open(location) as ledger, ledger.transaction(principal="import:bench") as tx:
        tx.define("lives_in", "one", template="{subject} lives in {value}")
        tx.define("works_in", "one", template="{subject} works in {value}")
        tx.define("likes", "many", template="{subject} likes {value}")
        tx.define("note", "many")
        for n in range(users):
            tx.add(scope_of(n), "user", "lives_in", CITIES[n % len(CITIES)], valid_from="2024-01-01")
            tx.add(scope_of(n), "user", "works_in", CITIES[(n + 3) % len(CITIES)], valid_from="2024-01-01")
            for k in range(3):
                tx.add(scope_of(n), "user", "likes", HOBBIES[(n + k) % len(HOBBIES)], valid_from="2024-01-01")


def writer(location: str, phase: str, number: int, txs: int) -> None:
    """Hidden mode: one writer process; prints one JSON line (commit times, refusals)."""
    committed: list[float] = []
    errors: list[str] = []
    with Ledger.open(location) as ledger:
        print("ready", flush=True)  # start-up (imports, connecting) stays out of the timed window
        sys.stdin.readline()
        for j in range(txs):
            try:
                # Subjects new to each phase: a repeated add would be a no-op, writing no version.
                with ledger.transaction(principal="agent:bench", reason=f"{phase}-w{number}-t{j}") as tx:
                    tx.add("load", f"{phase} writer {number} item {j}", "note", f"entry {j}")
            except Exception as exc:  # counted and reported
                errors.append(f"{type(exc).__name__}: {exc}")
                continue
            committed.append(time.time())
    print(json.dumps({"committed": committed, "errors": errors[:5], "refused": len(errors)}))


def prefetch_once(recall, users: int, rng: random.Random) -> float:
    scope = scope_of(rng.randrange(users))
    started = time.perf_counter()
    recall.prompt_block(rng.choice(QUERIES), [scope], vectors="if_ready")
    return (time.perf_counter() - started) * 1000


def writers_phase(
    location: str, phase: str, count: int, txs: int, recall=None, users: int = 0, rng=None, interval: float = 0.0
) -> dict:
    before = load_average()
    cpu = _children_cpu()
    children = [
        subprocess.Popen(
            [sys.executable, __file__, "--writer", location, phase, str(n), str(txs)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        for n in range(count)
    ]
    for child in children:
        assert child.stdout.readline().strip() == "ready"
    for child in children:  # every writer starts at once
        child.stdin.write("go\n")
        child.stdin.flush()
    prefetch: list[float] = []
    if recall is not None:
        while any(child.poll() is None for child in children):
            prefetch.append(prefetch_once(recall, users, rng))
            time.sleep(interval)
    results = [json.loads(child.communicate()[0].strip().splitlines()[-1]) for child in children]
    cpu_after = _children_cpu()
    times = sorted(t for r in results for t in r["committed"])
    span = times[-1] - times[0] if len(times) > 1 else 0.0
    phase = {
        "writers": count,
        "committed": len(times),
        "refused": sum(r["refused"] for r in results),
        "tx_per_s": round((len(times) - 1) / span, 1) if span else 0.0,
        "writer_cpu_s": round(cpu_after - cpu, 2),
        "errors": [e for r in results for e in r["errors"]][:3],
        "load_avg": f"{before} → {load_average()}",
    }
    if prefetch:
        phase["prefetch_under_load"] = summary(prefetch)
    return phase


def _children_cpu() -> float:
    import os

    times = os.times()
    return times.children_user + times.children_system


def summary(ms: list[float]) -> dict:
    return {"n": len(ms), "p50_ms": round(statistics.median(ms), 3), "p95_ms": round(percentile(ms, 95), 3)}


def run(
    location: str, *, users: int, writers: int, txs: int, queries: int, index_dir: Path, seed: int, interval: float
) -> dict:
    from factledger.recall import Recall

    rng = random.Random(seed)
    populate(location, users)
    with Ledger.open(location) as ledger:
        recall = Recall(ledger, index_dir)
        for _ in range(20):
            prefetch_once(recall, users, rng)  # warm up
        idle_load = load_average()
        idle = [prefetch_once(recall, users, rng) for _ in range(queries)]
        single = writers_phase(location, "single", 1, txs)
        many = writers_phase(location, "many", writers, txs)
        loaded = writers_phase(location, "loaded", writers, txs, recall, users, rng, interval)
    return {
        "users": users,
        "prefetch_idle": {**summary(idle), "load_avg": idle_load},
        "one_writer": single,
        "many_writers": many,
        "many_writers_with_prefetch": loaded,
        "contended_over_single": round(many["tx_per_s"] / single["tx_per_s"], 2) if single["tx_per_s"] else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=None, help="a postgresql:// URL (a scratch database is made there)")
    parser.add_argument("--pg-throwaway", action="store_true", help="a PostgreSQL cluster started (and removed) here")
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--txs", type=int, default=150, help="one-operation transactions per writer process")
    parser.add_argument("--queries", type=int, default=300, help="idle prefetch samples")
    parser.add_argument("--interval", type=float, default=0.02, help="seconds between prefetches under load")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.db is not None and not args.db.startswith(("postgresql://", "postgres://")):
        parser.error("--db takes a postgresql:// URL (without it, a SQLite file in a temp dir)")
    cluster = bench = None
    with tempfile.TemporaryDirectory(prefix="factledger-scale-") as tmp:
        try:
            if args.pg_throwaway:
                cluster = load_cluster_harness().start_cluster(THROWAWAY_SETTINGS)
            url = cluster.url() if cluster is not None else args.db
            if url is not None:
                bench = PostgresBench(url)
                location = bench.location("scale")
            else:
                location = str(Path(tmp) / "ledger.db")
            report = run(
                location, users=args.users, writers=args.writers, txs=args.txs, queries=args.queries,
                index_dir=Path(tmp) / "vectors.lance", seed=args.seed, interval=args.interval,
            )
            report["engine"] = "postgres" if bench is not None else "sqlite"
            if bench is not None:
                bench.discard(location)
        finally:
            if bench is not None:
                bench.close()
            if cluster is not None:
                cluster.stop()
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--writer":
        writer(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(main())
