-- factledger, version 23 (SQLite): recall's claim lanes written once per transaction, not once per row.
--
-- Until now `recall_claims_insert` ran for every claim row: it read the row's sentence and its
-- predecessor's, inserted the lexical row, then rewrote the predecessor's row to append the new words to
-- its context (an FTS5 update is a delete and a re-insert: each sentence was tokenised about three
-- times), and wrote the trigram row and the outbox row. It was three quarters of the cost of the schema
-- on a batch (docs/BENCHMARKS.md). SQLite has no statement-level triggers; the one row every complete
-- transaction writes exactly once, after its versions and their hash rows, is its chain row. So the lanes
-- are written from there, as set statements over the versions the transaction opened (found through
-- their hash rows, `version_hashes_opened`), each with its final context at once: the sentences of its
-- neighbours in the transaction's window (same scope, same opening transaction), as
-- `recall_claim_context` defines it. The replay of `factledger migrate` writes chain rows the same way,
-- so a copy is indexed as before. A version already indexed (the legacy chain rows `chain.backfill`
-- writes for versions indexed long ago) is left as it is.
--
-- A client that inserts versions without their hash rows and chain row (no refusal stops it at the
-- claims INSERT, as none did before for the lexical rows) leaves them unindexed; `verify` reports the
-- missing chain row, hash rows and lexical rows.

DROP TRIGGER recall_claims_insert;

CREATE TRIGGER recall_claims_insert_tx
AFTER INSERT ON tx_chain
BEGIN
    INSERT INTO recall_outbox (claim_id, change)
    SELECT v.claim_id, 'insert' FROM version_hashes v JOIN claims c ON c.id = v.claim_id
     WHERE v.opened_by = NEW.tx_id AND NOT EXISTS (SELECT 1 FROM recall_fts f WHERE f.rowid = v.claim_id)
     ORDER BY v.claim_id;
    INSERT INTO recall_fts_trigram (rowid, body)
    SELECT t.id, t.text FROM version_hashes v JOIN recall_claim_text t ON t.id = v.claim_id
     WHERE v.opened_by = NEW.tx_id AND t.text GLOB '*[^ -~]*'
       AND NOT EXISTS (SELECT 1 FROM recall_fts f WHERE f.rowid = v.claim_id);
    INSERT INTO recall_fts (rowid, body, context)
    SELECT id, text, trim(COALESCE(before, '') || ' ' || COALESCE(after, ''))
      FROM (SELECT c.id AS id, t.text AS text,
                   lag(t.text) OVER (PARTITION BY c.scope ORDER BY c.id) AS before,
                   lead(t.text) OVER (PARTITION BY c.scope ORDER BY c.id) AS after
              FROM version_hashes v JOIN claims c ON c.id = v.claim_id JOIN recall_claim_text t ON t.id = c.id
             WHERE v.opened_by = NEW.tx_id AND NOT EXISTS (SELECT 1 FROM recall_fts f WHERE f.rowid = v.claim_id))
     ORDER BY id;
END;
