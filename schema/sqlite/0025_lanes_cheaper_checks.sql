-- factledger, version 25 (SQLite): the claim lanes' per-transaction statements (0023) with cheaper
-- lookups, the same rows written.
--
-- Each of the three statements asked, per version, "is it indexed already?" through the FTS5 table
-- (`SELECT 1 FROM recall_fts WHERE rowid = ?`): a virtual-table cursor per row. FTS5 keeps one
-- `recall_fts_docsize` row per indexed row, keyed by its rowid, written and deleted with it, so the
-- question is asked there, one b-tree seek. The trigram statement built every version's sentence to
-- look for a character outside printable ASCII; the sentence is made of its template, subject,
-- predicate display text and value only, so it is built (and looked at as before) only when one of
-- those has such a character. The rows written, their order and their contents are unchanged.

DROP TRIGGER recall_claims_insert_tx;

CREATE TRIGGER recall_claims_insert_tx
AFTER INSERT ON tx_chain
BEGIN
    INSERT INTO recall_outbox (claim_id, change)
    SELECT v.claim_id, 'insert' FROM version_hashes v JOIN claims c ON c.id = v.claim_id
     WHERE v.opened_by = NEW.tx_id AND NOT EXISTS (SELECT 1 FROM recall_fts_docsize f WHERE f.id = v.claim_id)
     ORDER BY v.claim_id;
    INSERT INTO recall_fts_trigram (rowid, body)
    SELECT t.id, t.text FROM version_hashes v JOIN claims c ON c.id = v.claim_id
      JOIN predicates p ON p.name = c.predicate JOIN recall_claim_text t ON t.id = v.claim_id
     WHERE v.opened_by = NEW.tx_id
       AND (p.template || p.display || c.subject || c.value) GLOB '*[^ -~]*' AND t.text GLOB '*[^ -~]*'
       AND NOT EXISTS (SELECT 1 FROM recall_fts_docsize f WHERE f.id = v.claim_id);
    INSERT INTO recall_fts (rowid, body, context)
    SELECT id, text, trim(COALESCE(before, '') || ' ' || COALESCE(after, ''))
      FROM (SELECT c.id AS id, t.text AS text,
                   lag(t.text) OVER (PARTITION BY c.scope ORDER BY c.id) AS before,
                   lead(t.text) OVER (PARTITION BY c.scope ORDER BY c.id) AS after
              FROM version_hashes v JOIN claims c ON c.id = v.claim_id JOIN recall_claim_text t ON t.id = c.id
             WHERE v.opened_by = NEW.tx_id AND NOT EXISTS (SELECT 1 FROM recall_fts_docsize f WHERE f.id = v.claim_id))
     ORDER BY id;
END;
