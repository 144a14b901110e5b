"""Recall latency: the prompt block (query embedding included) at 10k and 100k current claims, and the
lag from a committed write to its being searchable by every lane.

    .venv/bin/python evals/bench_recall.py [--sizes 10000 100000] [--queries 300] [--json]

Targets at 100k: prompt block p50 <= 15 ms, p95 <= 40 ms. The baseline printed beside each figure is
a plain ledger read in the same process (`Ledger.current` of one slot), so machines can be compared.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from factledger.ledger import Ledger
from factledger.recall import Recall

SCOPE = "bench"
NAMES = ["Anna", "Bruno", "Chen", "Dara", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kemal", "Lena", "Mateo",
         "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zofia"]
CITIES = ["Berlin", "Lisbon", "Oslo", "Lyon", "Krakow", "Seville", "Porto", "Turin", "Bergen", "Utrecht", "Graz", "Bilbao",
          "Tallinn", "Riga", "Ghent", "Malmo", "Split", "Brno", "Cork", "Basel"]
HOBBIES = ["hiking", "baking bread", "playing chess", "painting landscapes", "sailing", "climbing", "knitting",
           "birdwatching", "running marathons", "growing tomatoes", "restoring old bicycles", "playing the cello",
           "writing poetry", "brewing beer", "photographing bridges", "learning Japanese", "swimming in lakes"]
THINGS = ["a red kayak", "an old typewriter", "a vintage camera", "a grey cat", "a small sailboat", "a telescope",
          "a sourdough starter", "a record collection", "an electric guitar", "a greenhouse", "a motorbike"]
PREDICATES = [("lives_in", "one", "{subject} lives in {value}", CITIES),
              ("works_in", "one", "{subject} works in {value}", CITIES),
              ("likes", "many", "{subject} likes {value}", HOBBIES),
              ("owns", "many", "{subject} owns {value}", THINGS),
              ("visited", "many", "{subject} visited {value}", CITIES)]
QUERIES = ["where does {name} live", "{name}'s hobbies", "who owns a kayak", "people who like sailing",
           "bicycles", "what does {name} own", "trip to {city}", "cello players", "a telescope for stars",
           "where does {name} work", "photography of bridges", "who grows vegetables"]


def fill(ledger: Ledger, count: int, start: int, rng: random.Random) -> int:
    """Add `count` current claims (subjects 'Name N'), in transactions of 5000."""
    written = 0
    while written < count:
        with ledger.transaction(principal="import:bench") as tx:
            if start == 0 and written == 0:
                for name, card, template, _ in PREDICATES:
                    tx.define(name, card, template=template)
            for _ in range(min(5000, count - written)):
                i = start + written
                predicate, _, _, pool = PREDICATES[i % len(PREDICATES)]
                subject = f"{NAMES[i % len(NAMES)]} {i // len(PREDICATES)}"
                value = f"{rng.choice(pool)} #{i}" if predicate != "lives_in" and predicate != "works_in" else rng.choice(pool)
                tx.add(SCOPE, subject, predicate, value, valid_from="2024-01-01", source=f"bench:{i}")
                written += 1
    return written


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(recall: Recall, ledger: Ledger, size: int, queries: int, rng: random.Random) -> dict:
    texts = []
    for _ in range(queries):
        name = f"{rng.choice(NAMES)} {rng.randrange(size // len(PREDICATES))}"
        texts.append(rng.choice(QUERIES).format(name=name, city=rng.choice(CITIES)))
    for text in texts[:20]:  # warm caches
        recall.prompt_block(text, SCOPE)
    block_ms, empty = [], 0
    for text in texts:
        started = time.perf_counter()
        block = recall.prompt_block(text, SCOPE)
        block_ms.append(1000 * (time.perf_counter() - started))
        empty += block == ""
    base_ms = []
    for text in texts[:100]:
        started = time.perf_counter()
        ledger.current(SCOPE, subject="Anna 0", predicate="lives_in")
        base_ms.append(1000 * (time.perf_counter() - started))
    return {
        "claims": size,
        "queries": queries,
        "prompt_block_p50_ms": round(statistics.median(block_ms), 2),
        "prompt_block_p95_ms": round(percentile(block_ms, 0.95), 2),
        "empty_blocks": empty,
        "baseline_slot_read_p50_ms": round(statistics.median(base_ms), 3),
    }


def write_lag(recall: Recall, ledger: Ledger, samples: int = 20) -> dict:
    """Commit a new claim, then search until the vector lane (the last to learn) returns it."""
    lags = []
    for n in range(samples):
        value = f"a hand-built harpsichord number {n}"
        with ledger.transaction(principal="import:bench") as tx:
            tx.add(SCOPE, "Lag Probe", "owns", value, valid_from="2024-01-01", source=f"lag:{n}")
        committed = time.perf_counter()
        while True:
            hits = recall.search("harpsichord keyboard instrument", SCOPE, limit=50)
            if any(h.claim.value == value and h.scores.vector is not None for h in hits):
                break
            if time.perf_counter() - committed > 10:
                raise RuntimeError("a committed claim did not become searchable within 10 s")
        lags.append(1000 * (time.perf_counter() - committed))
    return {"write_to_searchable_p50_ms": round(statistics.median(lags), 2), "write_to_searchable_max_ms": round(max(lags), 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rng = random.Random(5)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger.open(Path(tmp) / "bench.db")
        recall = Recall(ledger)
        have = 0
        for size in sorted(args.sizes):
            started = time.perf_counter()
            have += fill(ledger, size - have, have, rng)
            load_s = time.perf_counter() - started
            started = time.perf_counter()
            recall.rebuild()
            index_s = time.perf_counter() - started
            row = measure(recall, ledger, size, args.queries, rng)
            row.update({"load_s": round(load_s, 1), "index_rebuild_s": round(index_s, 1),
                        "ann_index": recall.status().vector_index})
            row.update(write_lag(recall, ledger))
            results.append(row)
            if not args.json:
                print(json.dumps(row))
        recall.close()
        ledger.close()
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        last = results[-1]
        ok = last["prompt_block_p50_ms"] <= 15 and last["prompt_block_p95_ms"] <= 40
        print(f"at {last['claims']} claims: p50 {last['prompt_block_p50_ms']} ms (target 15), "
              f"p95 {last['prompt_block_p95_ms']} ms (target 40): {'within target' if ok else 'OVER TARGET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
