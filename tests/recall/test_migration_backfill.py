"""A ledger that held claims before the recall migration gets its lexical rows when 0003 is applied, and
its vector index is built on first use."""

from __future__ import annotations

from factledger.ledger import Ledger
from factledger.recall import Recall

RECALL_OBJECTS = """
DROP TRIGGER recall_claims_insert_tx; DROP TRIGGER recall_claims_close; DROP TRIGGER recall_claims_delete;
DROP TRIGGER recall_predicate_retext; DROP VIEW memories; DROP VIEW recall_claim_text;
DROP TABLE recall_fts_terms; DROP TABLE recall_fts; DROP TABLE recall_fts_trigram; DROP TABLE recall_outbox;
DROP TABLE recall_index_state; DROP INDEX claims_window;
DELETE FROM schema_migrations WHERE version IN (3, 8, 23);  -- 0008 adds a column to recall_index_state, 0023 replaces 0003's insert trigger
"""


def test_existing_claims_are_indexed_by_the_migration(ledger_path, index_dir, embedder):
    ledger = Ledger.open(ledger_path)
    ledger.storage.executescript(RECALL_OBJECTS)  # the file as an older factledger left it
    with ledger.transaction(principal="operator:test") as tx:
        tx.add("s", "user", "said", "the lighthouse keeper waved", valid_from="2024-01-01")
        tx.add("s", "user", "said", "we ate grilled sardines", valid_from="2024-01-01")
    ledger.close()

    reopened = Ledger.open(ledger_path)  # applies 0003 again, with its backfill
    try:
        engine = Recall(reopened, index_dir, embedder=embedder)
        hits = engine.search("lighthouse", "s")
        assert hits[0].claim.value == "the lighthouse keeper waved"
        context = reopened.storage.one("SELECT context FROM recall_fts WHERE rowid = ?", (hits[0].claim.id,))[0]
        assert "sardines" in context  # the window was backfilled too
        assert engine.status().rows == 2 and engine.status().state == "ok"
    finally:
        reopened.close()
