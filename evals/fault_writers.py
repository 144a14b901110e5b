"""Concurrent writers on one ledger: lost, duplicated, refused, the worst wait and ops/s, against one
writer in the same run.

Two kinds of writer, each measured alone (the baseline) and then many at once on a fresh ledger:
- `factledger apply` processes, each applying its own JSON Lines file of one-operation transactions
  (every line its own transaction, tagged by its reason `w<i>-t<j>`). A process that gives up prints
  where to resume; the eval resumes it with `--from-line` and counts that as a resume, not a loss.
- the same concurrent `apply` run with the writers' queue switched off in the child processes (SQLite's
  polling only, as before the queue): how often a writer gave up (`resumes`) and how long one waited.
- library writers: processes running threads, each thread with its own `Ledger` connection, one
  `ledger.transaction()` per write.

Counted against the ledger afterwards: lost = acknowledged (printed by `apply`, returned by the library)
but not in the ledger; duplicated = a tag committed more than once; refused = a tag never applied by
the end (after resumes). ops/s counts from the first acknowledgement to the last. Worst wait = the longest gap between two acknowledgements of one writer (its
own work included), and the longest single `transaction()` call for library writers.

    .venv/bin/python evals/fault_writers.py [--procs 8] [--txs 300] [--lib-procs 8] [--lib-threads 8]
        [--lib-txs 20] [--ops-per-tx 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from factledger.ledger import Ledger

FACTLEDGER = str(Path(sys.executable).with_name("factledger"))
# The comparison in the same run: `factledger` as it waited before the writers' queue (SQLite's polling only).
POLLING_ONLY = [
    sys.executable, "-c",
    "import sys; from factledger.ledger import writer_queue; writer_queue.fcntl = None; "
    "from factledger.cli.main import main; sys.argv[0] = 'factledger'; main()",
]
RESUME = re.compile(r"--from-line (\d+)")


def prepare(db: Path) -> None:
    with Ledger.open(db) as ledger, ledger.transaction(principal="operator:eval") as tx:
        tx.define("note", "many")


def tags_in(db: Path) -> dict[str, int]:
    with Ledger.open(db) as ledger:
        rows = ledger.storage.query(
            "SELECT reason, COUNT(*) AS n FROM transactions WHERE reason LIKE 'w%-t%' GROUP BY reason"
        )
    return {r["reason"]: int(r["n"]) for r in rows}


def operation_lines(writer: int, txs: int, ops_per_tx: int = 1) -> list[str]:
    """txs transactions of ops_per_tx adds each (one `tx` group per transaction), tagged by reason."""
    lines = []
    for j in range(txs):
        for k in range(ops_per_tx):
            op = {"op": "add", "scope": "eval", "subject": f"writer {writer} item {j}.{k}", "predicate": "note",
                  "value": f"entry {j}"}
            if ops_per_tx > 1:
                op["tx"] = f"t{j}"
            if k == 0:
                op["reason"] = f"w{writer}-t{j}"
            lines.append(json.dumps(op))
    return lines


@dataclass
class Outcome:
    kind: str
    writers: int
    expected: set[str] = field(default_factory=set)
    acked: set[str] = field(default_factory=set)
    worst_wait: float = 0.0
    worst_queued: float = 0.0  # library writers: the longest wait for the turn alone
    resumes: int = 0
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    first_ack: float = float("inf")  # time.monotonic() (one clock for every process on the machine)
    last_ack: float = 0.0
    present: dict[str, int] = field(default_factory=dict)

    def summary(self) -> dict:
        lost = sorted(self.acked - set(self.present))
        duplicated = sorted(t for t, n in self.present.items() if n > 1)
        refused = sorted(self.expected - set(self.present))
        committed = sum(1 for t in self.expected if t in self.present)
        return {
            "kind": self.kind,
            "writers": self.writers,
            "transactions": len(self.expected),
            "committed": committed,
            "lost": len(lost),
            "duplicated": len(duplicated),
            "refused": len(refused),
            "resumes": self.resumes,
            "worst_wait_s": round(self.worst_wait, 3),
            "worst_queued_s": round(self.worst_queued, 3),
            "seconds": round(self.seconds, 2),
            # From the first acknowledgement to the last: process start-up is not writing.
            "ops_per_s": round(committed / (self.last_ack - self.first_ack), 1) if self.last_ack > self.first_ack else 0.0,
            "errors": self.errors[:5],
        }


def _run_apply(db: Path, path: Path, writer: int, outcome: Outcome, guard: threading.Lock, command: list[str]) -> None:
    """One `factledger apply` process, resumed from where it says until its file is done."""
    start_line = 1
    while True:
        args = [*command, "--db", str(db), "--principal", "agent:eval", "apply", str(path)]
        if start_line > 1:
            args += ["--from-line", str(start_line)]
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stderr_lines: list[str] = []
        reader = threading.Thread(target=lambda: stderr_lines.extend(proc.stderr), daemon=True)
        reader.start()
        last = None
        for line in proc.stdout:
            now = time.monotonic()
            if last is not None:
                with guard:
                    outcome.worst_wait = max(outcome.worst_wait, now - last)
            last = now
            with guard:
                outcome.acked.add(json.loads(line)["reason"])
                outcome.first_ack = min(outcome.first_ack, now)
                outcome.last_ack = max(outcome.last_ack, now)
        proc.wait()
        reader.join()
        if proc.returncode == 0:
            return
        text = "".join(stderr_lines)
        found = RESUME.search(text)
        with guard:
            outcome.errors.append(f"writer {writer}: exit {proc.returncode}: {text.strip()[-300:]}")
        if not found:
            return
        with guard:
            outcome.resumes += 1
        start_line = int(found.group(1))


def apply_phase(root: Path, writers: int, txs: int, ops_per_tx: int = 1, *, polling_only: bool = False) -> Outcome:
    db = root / f"apply-{writers}{'-polling' if polling_only else ''}.db"
    prepare(db)
    outcome = Outcome("apply processes", writers)
    command = POLLING_ONLY if polling_only else [FACTLEDGER]
    files = []
    for i in range(writers):
        path = root / f"ops-{writers}-{i}.jsonl"
        path.write_text("\n".join(operation_lines(i, txs, ops_per_tx)) + "\n")
        files.append(path)
        outcome.expected.update(f"w{i}-t{j}" for j in range(txs))
    guard = threading.Lock()
    threads = [threading.Thread(target=_run_apply, args=(db, files[i], i, outcome, guard, command)) for i in range(writers)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    outcome.seconds = time.monotonic() - started
    outcome.present = tags_in(db)
    return outcome


def library_worker(db: str, process: int, threads: int, txs: int, ops_per_tx: int) -> None:
    """Hidden mode: one process of library writers; prints one JSON result line at the end."""
    acked: list[str] = []
    errors: list[str] = []
    waits: list[float] = []
    acked_at: list[float] = []
    queued: list[float] = []  # of which waiting for the turn (the writers' queue)
    guard = threading.Lock()

    def thread_body(thread: int) -> None:
        writer = process * threads + thread
        ledger = Ledger.open(db)
        try:
            for j in range(txs):
                began = time.monotonic()
                try:
                    with ledger.transaction(principal="agent:eval", reason=f"w{writer}-t{j}") as tx:
                        for k in range(ops_per_tx):
                            tx.add("eval", f"writer {writer} item {j}.{k}", "note", f"entry {j}")
                except Exception as exc:  # counted as refused, reported
                    with guard:
                        errors.append(f"writer {writer} t{j}: {exc}")
                    continue
                with guard:
                    acked.append(f"w{writer}-t{j}")
                    acked_at.append(time.monotonic())
                    waits.append(acked_at[-1] - began)
                    queued.append(ledger.storage.last_wait)
        finally:
            ledger.close()

    pool = [threading.Thread(target=thread_body, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    print(json.dumps({"acked": acked, "errors": errors, "worst": max(waits, default=0.0), "worst_queued": max(queued, default=0.0),
                      "first": min(acked_at, default=0.0), "last": max(acked_at, default=0.0)}))


def library_phase(root: Path, procs: int, threads: int, txs: int, ops_per_tx: int = 1) -> Outcome:
    db = root / f"library-{procs}x{threads}.db"
    prepare(db)
    outcome = Outcome("library writers", procs * threads)
    outcome.expected = {f"w{w}-t{j}" for w in range(procs * threads) for j in range(txs)}
    started = time.monotonic()
    children = [
        subprocess.Popen(
            [sys.executable, __file__, "--library-worker", str(db), str(p), str(threads), str(txs), str(ops_per_tx)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for p in range(procs)
    ]
    for child in children:
        out, err = child.communicate()
        if child.returncode != 0:
            outcome.errors.append(f"process exit {child.returncode}: {err.strip()[-300:]}")
            continue
        result = json.loads(out.strip().splitlines()[-1])
        outcome.acked.update(result["acked"])
        outcome.errors.extend(result["errors"])
        outcome.worst_wait = max(outcome.worst_wait, result["worst"])
        outcome.worst_queued = max(outcome.worst_queued, result["worst_queued"])
        if result["acked"]:
            outcome.first_ack = min(outcome.first_ack, result["first"])
            outcome.last_ack = max(outcome.last_ack, result["last"])
    outcome.seconds = time.monotonic() - started
    outcome.present = tags_in(db)
    return outcome


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--procs", type=int, default=8, help="concurrent `factledger apply` processes")
    parser.add_argument("--txs", type=int, default=300, help="transactions per apply process")
    parser.add_argument("--lib-procs", type=int, default=8)
    parser.add_argument("--lib-threads", type=int, default=8)
    parser.add_argument("--lib-txs", type=int, default=20, help="transactions per library thread")
    parser.add_argument("--ops-per-tx", type=int, default=1, help="operations per transaction (longer transactions)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    k = args.ops_per_tx
    results = []
    with tempfile.TemporaryDirectory(prefix="fault-writers-") as tmp:
        root = Path(tmp)
        phases = [
            ("apply, 1 writer (baseline)", lambda: apply_phase(root, 1, args.txs, k)),
            (f"apply, {args.procs} writers", lambda: apply_phase(root, args.procs, args.txs, k)),
            (f"apply, {args.procs}, SQLite polling only", lambda: apply_phase(root, args.procs, args.txs, k, polling_only=True)),
            ("library, 1 writer (baseline)", lambda: library_phase(root, 1, 1, args.lib_txs * args.lib_threads, k)),
            (f"library, {args.lib_procs} x {args.lib_threads} writers",
             lambda: library_phase(root, args.lib_procs, args.lib_threads, args.lib_txs, k)),
        ]
        for label, run in phases:
            summary = run().summary()
            summary["phase"] = label
            results.append(summary)
            if not args.json:
                print(
                    f"{label:34s} committed {summary['committed']:5d}/{summary['transactions']:<5d} "
                    f"lost {summary['lost']} duplicated {summary['duplicated']} refused {summary['refused']} "
                    f"resumes {summary['resumes']}  worst wait {summary['worst_wait_s']:.3f} s"
                    + (f" (in the queue {summary['worst_queued_s']:.3f} s)" if summary["worst_queued_s"] else "")
                    + "  "
                    f"{summary['ops_per_s']:.1f} tx/s  ({summary['seconds']:.1f} s)",
                    flush=True,
                )
                for error in summary["errors"]:
                    print(f"    {error}")
        for base, many in ((0, 1), (0, 2), (3, 4)):
            ratio = results[many]["ops_per_s"] / results[base]["ops_per_s"] if results[base]["ops_per_s"] else 0.0
            results[many]["ops_ratio_to_baseline"] = round(ratio, 2)
            if not args.json:
                print(f"{results[many]['phase']}: throughput {ratio:.2f}x the single writer of this run")
    if args.json:
        print(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "--library-worker":
        library_worker(sys.argv[2], *(int(a) for a in sys.argv[3:]))
    else:
        main()
