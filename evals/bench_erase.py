"""Erase benchmark: what leaving no copy costs on a ledger of --claims claim versions (default 100k).

Builds the ledger through LedgerTx (people in --scopes scopes, each with a `note` of its own words, so the
FTS vocabulary is large), journals --turns turns in the erased person's scope (half of them mention the
value), builds the vector index with the default embedder, then times, in order:

1. erase: `Ledger.erase` + `erase_mentions` in one transaction (the baseline: what erase cost before
   scrubbing existed, plus the scan of the person's turns);
2. vectors: `Recall.purge_erased` (drain, rewrite every row into fresh files, rebuild the indexes,
   remove older versions);
3. files: `Storage.scrub` (FTS5 'optimize' of every FTS table, then the WAL checkpoint with truncation);
4. secure_delete: one-operation transactions per second with the pragma on and off, on the same file.

    .venv/bin/python evals/bench_erase.py                  # 100k versions
    .venv/bin/python evals/bench_erase.py --claims 10000    # a quick run
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from factledger.digest import Journal, Turn, erase_mentions
from factledger.ledger import Ledger
from factledger.recall import Recall

VALUE = "Zagreb"


def build(path: Path, claims: int, scopes: int, turns: int) -> None:
    with Ledger.open(path) as ledger:
        with ledger.transaction(principal="import:bench") as tx:
            tx.define("note", "many")
            tx.define("lives_in", "one")
            tx.add("scope-0", "user", "lives_in", VALUE, valid_from="2020-01-01", source="journal:1")
        made, batch = 1, 2000
        while made < claims:
            with ledger.transaction(principal="import:bench") as tx:
                for i in range(made, min(made + batch, claims)):
                    tx.add(f"scope-{i % scopes}", f"person {i}", "note", f"word{i} thing{i % 977} item{i % 131}", valid_from="2020-01-01")
            made = min(made + batch, claims)
        journal = Journal(ledger)
        for i in range(turns):
            text = f"I was in {VALUE} on day {i}" if i % 2 else f"Nothing about it on day {i}"
            journal.append(Turn(scope="scope-0", text=text, said_at=f"2021-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"))


def one_op_rate(ledger: Ledger, count: int, secure: bool) -> float:
    ledger.storage.execute(f"PRAGMA secure_delete = {'ON' if secure else 'OFF'}")
    started = time.perf_counter()
    for i in range(count):
        with ledger.transaction(principal="agent:bench") as tx:
            tx.supersede("scope-1", "user", "lives_in", f"City{i}-{int(secure)}", valid_from="2022-01-01")
    ledger.storage.execute("PRAGMA secure_delete = ON")
    return count / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--scopes", type=int, default=100)
    parser.add_argument("--turns", type=int, default=2_000)
    parser.add_argument("--one-op", type=int, default=1_000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="factledger-bench-erase-"))
    try:
        path = folder / "ledger.db"
        started = time.perf_counter()
        build(path, args.claims, args.scopes, args.turns)
        figures: dict[str, object] = {"claims": args.claims, "turns": args.turns, "build_s": round(time.perf_counter() - started, 2)}
        with Ledger.open(path) as ledger:
            recall = Recall(ledger)
            started = time.perf_counter()
            recall.sync()
            figures["index_build_s"] = round(time.perf_counter() - started, 2)
            with ledger.transaction(principal="import:bench") as tx:
                tx.add("scope-1", "user", "lives_in", "Oslo", valid_from="2020-01-01")
            started = time.perf_counter()
            with ledger.storage.atomic():
                result = ledger.erase(scope="scope-0", subject="user", predicate="lives_in", value=VALUE, principal="operator:bench")
                mentions = erase_mentions(ledger, result)
            figures["erase_s"] = round(time.perf_counter() - started, 3)
            figures["turns_redacted"] = mentions.turns_redacted
            started = time.perf_counter()
            vectors = recall.purge_erased()
            figures["vector_purge_s"] = round(time.perf_counter() - started, 2)
            figures["vector_rows_rewritten"] = vectors["rows_rewritten"]
            wal = Path(str(path) + "-wal")
            figures["wal_bytes_before_scrub"] = wal.stat().st_size if wal.exists() else 0
            started = time.perf_counter()
            scrub = ledger.storage.scrub()
            figures["fts_optimize_and_wal_truncate_s"] = round(time.perf_counter() - started, 2)
            figures["wal_truncated"] = scrub.wal_truncated
            figures["one_op_tx_per_s_secure_delete_on"] = round(one_op_rate(ledger, args.one_op, True))
            figures["one_op_tx_per_s_secure_delete_off"] = round(one_op_rate(ledger, args.one_op, False))
            recall.close()
        print(json.dumps(figures, indent=2))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
