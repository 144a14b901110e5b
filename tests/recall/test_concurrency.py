"""One Recall used from several threads, and two instances on one ledger file, while claims are written."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from factledger.ledger import Ledger
from factledger.recall import Recall


def test_threads_and_two_instances_agree(ledger_path, index_dir, embedder):
    writer = Ledger.open(ledger_path)
    with writer.transaction(principal="operator:test") as tx:
        for i in range(40):
            tx.add("s", f"person {i}", "likes", f"collecting stamps from country {i}", valid_from="2024-01-01")
    first = Recall(writer, index_dir, embedder=embedder)
    reader_ledger = Ledger.open(ledger_path)
    second = Recall(reader_ledger, index_dir, embedder=embedder)

    def search(n: int) -> list[int]:
        engine = first if n % 2 else second
        return [h.claim.id for h in engine.search("stamps from country 7", "s", limit=5)]

    def write(n: int) -> None:
        with writer.transaction(principal="operator:test") as tx:
            tx.add("s", f"late person {n}", "likes", f"late hobby {n}", valid_from="2024-01-01")

    with ThreadPoolExecutor(max_workers=4) as pool:
        searches = [pool.submit(search, n) for n in range(24)]
        writes = [pool.submit(write, n) for n in range(6)]
        results = [f.result() for f in searches]
        [f.result() for f in writes]
    assert all(r and r[0] == results[0][0] for r in results)
    assert [h.claim.value for h in second.search("late hobby 5", "s", limit=1)] == ["late hobby 5"]
    assert first.status().state in ("ok", "behind") and not first.status().needs_repair
    second.close()
    first.close()
    reader_ledger.close()
    writer.close()
