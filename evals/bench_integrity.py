"""What the database-enforced history costs, and how long `verify` takes, with a baseline from the same run.

Two ledgers get the same writes: one as shipped (migration 0006's triggers, the hash chain written in
every transaction), one with 0006's triggers dropped and the chain step skipped (the 0001/0004
triggers that 0006 replaced put back). Printed: batch operations/s (many versions per transaction),
one-operation transactions/s, and `verify` (ledger side) time on the shipped ledger.

    .venv/bin/python evals/bench_integrity.py [--versions 20000] [--one-op 500] [--rounds 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
import time
from pathlib import Path
from unittest import mock

from factledger.ledger import Ledger, chain
from factledger.ledger.verify import verify_ledger
from factledger.schema import migrations


def _without_integrity(path: Path) -> None:
    """The baseline: the schema as it was before 0006 (its triggers gone, the replaced ones restored)."""
    sql = {m.version: m.sql for m in migrations("sqlite")}
    ledger = Ledger.open(path)
    storage = ledger.storage
    for name in re.findall(r"CREATE TRIGGER (\w+)", sql[6]):
        storage.execute(f"DROP TRIGGER IF EXISTS {name}")
        for version in (1, 4):
            found = re.search(rf"CREATE TRIGGER {name}\b.*?\nEND;", sql[version], re.S)
            if found:
                storage.executescript(found.group(0))
    ledger.close()


def _workload(ledger: Ledger, versions: int, one_op: int) -> tuple[float, float]:
    with ledger.transaction(principal="import:bench") as tx:
        tx.define("lives_in", "one")
    batch = 500
    started = time.perf_counter()
    for start in range(0, versions, batch):
        with ledger.transaction(principal="import:bench") as tx:
            for i in range(start, min(start + batch, versions)):
                tx.add("bench", f"person {i}", "lives_in", f"city {i % 50}", valid_from="2020-01-01")
    batch_rate = versions / (time.perf_counter() - started)
    started = time.perf_counter()
    for i in range(one_op):
        with ledger.transaction(principal="agent:bench") as tx:
            tx.supersede("bench", f"person {i}", "lives_in", f"town {i % 50}", valid_from="2022-01-01")
    return batch_rate, one_op / (time.perf_counter() - started)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", type=int, default=20000)
    parser.add_argument("--one-op", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="factledger-bench-integrity-"))
    figures: dict = {"versions": args.versions, "one_op": args.one_op, "rounds": args.rounds}
    best: dict[str, tuple[float, float]] = {}
    # Alternating rounds, best of each: a shared machine's noise and warm-up hit both sides alike.
    for round_ in range(args.rounds):
        for kind in ("baseline", "shipped"):
            path = folder / f"{kind}-{round_}.db"
            if kind == "baseline":
                _without_integrity(path)
                with mock.patch.object(chain, "record", lambda *a, **k: ""), Ledger.open(path) as ledger:
                    rates = _workload(ledger, args.versions, args.one_op)
            else:
                with Ledger.open(path) as ledger:
                    rates = _workload(ledger, args.versions, args.one_op)
                    started = time.perf_counter()
                    report = verify_ledger(ledger)
                    figures["verify_s"] = min(figures.get("verify_s", float("inf")), time.perf_counter() - started)
                    figures["verify_ok"] = report.ok
                    figures["claim_versions"] = ledger.storage.one("SELECT COUNT(*) FROM claims")[0]
            previous = best.get(kind, (0.0, 0.0))
            best[kind] = (max(previous[0], rates[0]), max(previous[1], rates[1]))
    figures["baseline_batch_ops_per_s"], figures["baseline_one_op_tx_per_s"] = best["baseline"]
    figures["batch_ops_per_s"], figures["one_op_tx_per_s"] = best["shipped"]
    figures["batch_ratio"] = figures["batch_ops_per_s"] / figures["baseline_batch_ops_per_s"]
    figures["one_op_ratio"] = figures["one_op_tx_per_s"] / figures["baseline_one_op_tx_per_s"]
    shutil.rmtree(folder)
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{figures['claim_versions']:,} claim versions")
        print(f"batch writes:   {figures['batch_ops_per_s']:,.0f} ops/s with 0006 and the chain,"
              f" {figures['baseline_batch_ops_per_s']:,.0f} without (ratio {figures['batch_ratio']:.2f})")
        print(f"one-op txs:     {figures['one_op_tx_per_s']:,.0f} tx/s with, {figures['baseline_one_op_tx_per_s']:,.0f}"
              f" without (ratio {figures['one_op_ratio']:.2f})")
        print(f"verify (ledger side): {figures['verify_s']:.2f} s, ok={figures['verify_ok']}")
    return figures


if __name__ == "__main__":
    main()
