"""The LanceDB companion: fed by the outbox in the claim's own transaction, checked against the ledger on
every hit, flagged and repaired when it disagrees, and rebuilt from nothing without loss."""

from __future__ import annotations

import shutil

import pytest

from factledger.ledger import ValidationError
from factledger.recall import Recall, RecallConfig, StaticEmbedder
from factledger.recall.vector_index import VectorRow

from .conftest import define, values, write

VECTOR_ONLY = "city of residence in germany"  # shares no content word with the claim


@pytest.fixture
def stocked(clocked_ledger, clock):
    define(clocked_ledger, clock, "lives_in", "one", "{subject} lives in {value}")
    write(clocked_ledger, clock, "2025-01-02T00:00:00Z", [
        ("add", "s", "user", "lives_in", "Berlin", {"valid_from": "2024-06-01", "source": "journal:1"}),
        ("add", "s", "user", "likes", "hiking in the alps", {"valid_from": "2024-06-01"}),
        ("add", "s", "user", "likes", "baking sourdough bread", {"valid_from": "2024-06-01"}),
    ])
    clock.now = "2025-02-01T00:00:00Z"
    return clocked_ledger


def outbox(ledger) -> int:
    return ledger.storage.one("SELECT COUNT(*) FROM recall_outbox")[0]


def test_outbox_is_written_with_the_claim_and_drained_by_sync(stocked, recall, clock):
    assert outbox(stocked) == 3
    recall.sync()  # the first sync builds the index from the ledger, which covers the queue
    assert outbox(stocked) == 0
    assert recall.status().rows == 3
    write(stocked, clock, "2025-03-01T00:00:00Z", [("add", "s", "user", "likes", "chess", {"valid_from": "2024-06-01"})])
    assert outbox(stocked) == 1
    assert recall.sync() == 1
    assert outbox(stocked) == 0 and recall.status().rows == 4


def test_failed_transaction_leaves_no_outbox_row(stocked, recall, clock):
    recall.sync()
    with pytest.raises(ValidationError):
        with stocked.transaction(principal="operator:test") as tx:
            tx.add("s", "user", "likes", "chess", valid_from="2024-06-01")
            tx.add("s", "user", "likes", "", valid_from="2024-06-01")
    assert outbox(stocked) == 0
    assert recall.status().claim_versions == 3


def test_supersede_queues_the_closed_and_the_new_version(stocked, recall, clock):
    recall.sync()
    write(stocked, clock, "2025-03-01T00:00:00Z", [("supersede", "s", "user", "lives_in", "Madrid", {"valid_from": "2025-02-15"})])
    changes = [r[0] for r in stocked.storage.query("SELECT change FROM recall_outbox ORDER BY seq")]
    assert changes.count("close") == 1 and changes.count("insert") == 2  # Berlin closed; Berlin-until and Madrid
    clock.now = "2025-04-01T00:00:00Z"
    hits = recall.search(VECTOR_ONLY, "s")
    assert "Berlin" not in values(hits)


def test_vector_lane_finds_a_paraphrase(stocked, recall):
    hits = recall.search(VECTOR_ONLY, "s")
    assert values(hits)[:1] == ["Berlin"]
    assert hits[0].scores.vector is not None and hits[0].scores.lexical is None


def _forge_a_row(recall, embedder) -> None:
    recall.sync()
    forged = VectorRow(
        kind="fact", id=9999, scope="s", valid_from="2024-01-01T00:00:00.000000Z", valid_to=None,
        tx_from="2025-01-01T00:00:00.000000Z", tx_to=None, vector=embedder.embed(["user lives in Lisbon"])[0],
    )
    recall.index.upsert([forged], embedder.dim)


def test_a_row_the_ledger_does_not_confirm_is_dropped_and_flagged(stocked, index_dir, embedder):
    # The index path (a scope too big to scan in process): the search reads the forged row back.
    recall = Recall(stocked, index_dir, config=RecallConfig(local_scan_items=0), embedder=embedder)
    _forge_a_row(recall, embedder)
    hits = recall.search(VECTOR_ONLY, "s")
    assert 9999 not in [h.claim.id for h in hits if h.claim]
    status = recall.status()
    assert status.needs_repair and "9999" in status.reason
    report = recall.repair()
    assert report.deleted == 1
    assert not recall.status().needs_repair
    assert ("fact", 9999) not in recall.index.rows_state()


def test_a_small_scope_is_scanned_from_the_ledger_so_a_forged_row_never_comes_back(stocked, recall, embedder):
    _forge_a_row(recall, embedder)
    hits = recall.search(VECTOR_ONLY, "s")
    assert 9999 not in [h.claim.id for h in hits if h.claim]
    assert values(hits)[:1] == ["Berlin"] and hits[0].scores.vector is not None
    assert not recall.status().needs_repair  # the index was never read; repair still finds the row
    assert recall.repair().deleted == 1


def test_a_stale_row_is_repaired(stocked, recall):
    recall.sync()
    claim_id = stocked.current("s", predicate="lives_in")[0].id
    recall.index.delete("fact", [claim_id])
    assert recall.repair().upserted == 1
    assert ("fact", claim_id) in recall.index.rows_state()


def test_losing_the_folder_loses_nothing(stocked, index_dir, embedder):
    first = Recall(stocked, index_dir, embedder=embedder)
    before = [h.to_dict() for h in first.search(VECTOR_ONLY, "s")]
    first.close()
    shutil.rmtree(index_dir)
    second = Recall(stocked, index_dir, embedder=embedder)
    after = [h.to_dict() for h in second.search(VECTOR_ONLY, "s")]
    assert after == before and values(second.search(VECTOR_ONLY, "s"))[:1] == ["Berlin"]
    assert second.status().rows == 3 and second.status().state == "ok"


def test_changing_the_embedder_rebuilds_the_index(stocked, index_dir, embedder, tmp_path):
    first = Recall(stocked, index_dir, embedder=embedder)
    first.sync()
    recorded = first.status().recorded_embedder
    copy = tmp_path / "another-static-model"
    shutil.copytree(str(_model_dir()), copy)
    other = StaticEmbedder(copy)
    assert other.identity != embedder.identity
    second = Recall(stocked, index_dir, embedder=other)
    assert second.status().state == "stale-embedder"
    second.sync()
    status = second.status()
    assert status.recorded_embedder == other.identity != recorded
    assert status.rows == 3 and status.state == "ok"


def test_lexical_preset_never_touches_the_index(stocked, index_dir):
    engine = Recall(stocked, index_dir, config=RecallConfig.preset("lexical"))
    assert values(engine.search("Berlin", "s"))[0] == "Berlin"
    assert not index_dir.exists()


def _model_dir():
    from importlib import resources

    return resources.files("factledger.recall").joinpath("models/minilm-l6-static")


def test_the_in_process_scan_finds_what_the_index_finds(stocked, index_dir, recall, embedder):
    """A small scope scanned in process gives the index search's hits with the same similarities."""
    indexes_only = Recall(stocked, index_dir, config=RecallConfig(local_scan_items=0), embedder=embedder)
    for query in (VECTOR_ONLY, "what does the user like to eat", "where is Berlin"):
        scanned = [(h.key, round(h.scores.vector or 0.0, 5), h.scores.fused) for h in recall.search(query, "s")]
        indexed = [(h.key, round(h.scores.vector or 0.0, 5), h.scores.fused) for h in indexes_only.search(query, "s")]
        assert scanned == indexed and scanned, query
    indexes_only.close()
