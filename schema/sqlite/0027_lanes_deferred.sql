-- factledger, version 27 (SQLite): the claims' lexical rows (FTS5 and trigram) written for many
-- transactions at once, behind a watermark, instead of in every transaction's commit.
--
-- Why: a commit that inserts one FTS5 row makes FTS5 flush a new segment (and its structure record)
-- for that row: about a third of the database's work in a one-operation transaction
-- (docs/BENCHMARKS.md). Written for many transactions at once, the rows go into one segment.
--
-- What stays per transaction: the outbox rows (`recall_claims_insert_tx` keeps its outbox statement,
-- `recall_claims_close` is recreated as it was), so the vector companion's queue still commits with
-- the claim.
--
-- The watermark `recall_lanes_through` is one row: the last chain row whose versions' lexical rows are
-- written. Every version opened by a transaction with a chain row past it is pending. Why a watermark
-- and not a table of pending transactions: a commit then writes nothing for the lanes at all (a
-- pending row would cost a b-tree insert per commit and a delete at catch-up), and the pending set is
-- read off the chain, which is append-only and in order (`tx_chain_append`).
--
-- The catch-up is one statement anyone can run: `UPDATE recall_lanes_through SET tx_id = <the chain's
-- last tx_id>`; the trigger below writes the pending rows first, as set statements over
-- `recall_claim_lanes_pending` and `recall_claim_trigram_pending`. Those views are what a read-only
-- reader scans for the tail it cannot write (recall/sqlite_recorder.py). The rows are those
-- `recall_claims_insert_tx` wrote: the window of a version is its transaction and scope, a version
-- already indexed (a legacy transaction's, given a chain row by `chain.backfill`) is left as it is, and
-- the trigram row is written only for a sentence outside printable ASCII.
--
-- A raw client cannot move the watermark back, past the chain, or delete it (refused below); moving
-- it forward writes the rows. An erased value is never in a later catch-up: the view reads claims, and
-- erase deletes the claims row. factledger's erase and a template change catch up first
-- (ledger/sqlite_erase_recorder.py, ledger/sqlite_recorder.py), so they meet the rows they met before:
-- an erase rewrites its neighbours' contexts and a template change the indexed sentences of its claims
-- (not their neighbours' contexts). Not from triggers on claims and predicates: a statement compiles
-- every trigger it may fire, and those would reach into recall's tables from the ledger's own writes.

CREATE TABLE IF NOT EXISTS recall_lanes_through (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    tx_id INTEGER NOT NULL
);

-- Everything committed so far was indexed by the per-transaction trigger. (Written so that it can run
-- again over its own result, as tests that rewind schema_migrations do: the watermark is kept.)
INSERT OR IGNORE INTO recall_lanes_through (id, tx_id) VALUES (1, COALESCE((SELECT MAX(tx_id) FROM tx_chain), 0));

DROP VIEW IF EXISTS recall_claim_lanes_pending;
CREATE VIEW recall_claim_lanes_pending AS
SELECT id, text, trim(COALESCE(before, '') || ' ' || COALESCE(after, '')) AS context
  FROM (SELECT c.id AS id, t.text AS text,
               lag(t.text) OVER (PARTITION BY c.scope, v.opened_by ORDER BY c.id) AS before,
               lead(t.text) OVER (PARTITION BY c.scope, v.opened_by ORDER BY c.id) AS after
          FROM tx_chain ch
          JOIN version_hashes v ON v.opened_by = ch.tx_id
          JOIN claims c ON c.id = v.claim_id
          JOIN recall_claim_text t ON t.id = c.id
         WHERE ch.tx_id > (SELECT tx_id FROM recall_lanes_through WHERE id = 1)
           AND NOT EXISTS (SELECT 1 FROM recall_fts_docsize f WHERE f.id = v.claim_id));

-- The trigram twin's pending rows: a sentence outside printable ASCII, built only when its template,
-- subject, predicate display text or value has such a character (0025). No window: apart from the view
-- above, so that writing them does not compute every pending row's context a second time.
DROP VIEW IF EXISTS recall_claim_trigram_pending;
CREATE VIEW recall_claim_trigram_pending AS
SELECT t.id AS id, t.text AS text
  FROM tx_chain ch
  JOIN version_hashes v ON v.opened_by = ch.tx_id
  JOIN claims c ON c.id = v.claim_id
  JOIN predicates p ON p.name = c.predicate
  JOIN recall_claim_text t ON t.id = v.claim_id
 WHERE ch.tx_id > (SELECT tx_id FROM recall_lanes_through WHERE id = 1)
   AND (p.template || p.display || c.subject || c.value) GLOB '*[^ -~]*' AND t.text GLOB '*[^ -~]*'
   AND NOT EXISTS (SELECT 1 FROM recall_fts_docsize f WHERE f.id = v.claim_id);

DROP TRIGGER recall_claims_insert_tx;

CREATE TRIGGER recall_claims_insert_tx
AFTER INSERT ON tx_chain
BEGIN
    INSERT INTO recall_outbox (claim_id, change)
    SELECT v.claim_id, 'insert' FROM version_hashes v JOIN claims c ON c.id = v.claim_id
     WHERE v.opened_by = NEW.tx_id AND NOT EXISTS (SELECT 1 FROM recall_fts_docsize f WHERE f.id = v.claim_id)
     ORDER BY v.claim_id;
END;

-- Recreated as 0026 wrote it, after the trigger above: SQLite runs the most recent trigger first, so a
-- transaction's closes are still queued before its inserts.
DROP TRIGGER recall_claims_close;
CREATE TRIGGER recall_claims_close
AFTER INSERT ON tx_chain
BEGIN
    INSERT INTO recall_outbox (claim_id, change)
    SELECT claim_id, 'close' FROM version_hashes
     WHERE closed_by = NEW.tx_id
       AND (NEW.tx_id > (SELECT legacy_through FROM chain_start) OR EXISTS (SELECT 1 FROM migrate_gate))
     ORDER BY claim_id;
END;

-- BEFORE, so the view still reads the old watermark: the rows written are exactly those pending.
DROP TRIGGER IF EXISTS recall_lanes_catch_up;
CREATE TRIGGER recall_lanes_catch_up
BEFORE UPDATE ON recall_lanes_through
BEGIN
    SELECT RAISE(ABORT, 'factledger: the lexical watermark moves only forward, to the last chain row')
     WHERE NEW.id IS NOT OLD.id OR NEW.tx_id < OLD.tx_id
        OR NEW.tx_id IS NOT COALESCE((SELECT MAX(tx_id) FROM tx_chain), 0);
    INSERT INTO recall_fts_trigram (rowid, body)
    SELECT id, text FROM recall_claim_trigram_pending;
    INSERT INTO recall_fts (rowid, body, context)
    SELECT id, text, context FROM recall_claim_lanes_pending ORDER BY id;
END;

DROP TRIGGER IF EXISTS recall_lanes_through_kept;
CREATE TRIGGER recall_lanes_through_kept
BEFORE DELETE ON recall_lanes_through
BEGIN
    SELECT RAISE(ABORT, 'factledger: the lexical watermark is never deleted');
END;
