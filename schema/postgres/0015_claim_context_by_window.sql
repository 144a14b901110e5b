-- factledger recall (PostgreSQL 15): the lexical rows of an INSERT's new claims, with their contexts
-- read from one scan of each window they belong to (issue 24).
--
-- A claim's window is its scope and opening transaction, and a claim is only ever inserted by the
-- latest transaction (claims_insert_open): a window holds that transaction's versions in that scope,
-- every one written in this same transaction. 0006/0013 computed each new row's context through
-- recall_claim_context, two neighbour seeks and two sentence lookups per row (~17 µs a row, a sixth of
-- the trigger). Here each window the statement touched is read once in id order, and lag/lead give
-- every row's neighbours' sentences: the same contexts (recall_claim_context's, which stays the
-- definition the erase path and the tests read), in one pass. The rows of the window that were there
-- before the statement and sit next to a new row are re-contexted from the same pass, as before.
-- The planner cannot know how many versions a new transaction has (it guesses the average per
-- transaction, 2,000 after a bulk load), and for a one-row window it hashed or merged a scan of every
-- claim: so each window is read by a lateral subquery that it cannot flatten (OFFSET 0), one seek of
-- claims_window per window, and each sentence by a lookup of its id (a scalar subquery). The trigram
-- rows come from the lexical rows just written (RETURNING), not from a join of the new rows with
-- recall_claim_text: a plan cached while claims was small hashed every claim's sentence for it (~6 ms
-- a one-operation transaction at 10k versions until the next ANALYZE).
-- Nothing here refuses anything.

CREATE OR REPLACE FUNCTION recall_claims_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    WITH written AS (
        INSERT INTO recall_fts (id, body, context)
        SELECT w.id, w.text, trim(COALESCE(w.before_text, '') || ' ' || COALESCE(w.after_text, ''))
          FROM (SELECT x.id, x.text, lag(x.text) OVER win AS before_text, lead(x.text) OVER win AS after_text
                  FROM (SELECT DISTINCT scope, opened_by FROM new_rows) k
                 CROSS JOIN LATERAL (SELECT c.scope, c.opened_by, c.id, (SELECT t.text FROM recall_claim_text t WHERE t.id = c.id) AS text
                                       FROM claims c WHERE c.scope = k.scope AND c.opened_by = k.opened_by OFFSET 0) x
                WINDOW win AS (PARTITION BY x.scope, x.opened_by ORDER BY x.id)) w
         WHERE w.id IN (SELECT id FROM new_rows)
         RETURNING id, body)
    INSERT INTO recall_fts_trigram (id, body) SELECT id, body FROM written WHERE body ~ '[^ -~]';
    UPDATE recall_fts f SET context = trim(COALESCE(w.before_text, '') || ' ' || COALESCE(w.after_text, ''))
      FROM (SELECT x.id, lag(x.id) OVER win AS before_id, lead(x.id) OVER win AS after_id,
                   lag(x.text) OVER win AS before_text, lead(x.text) OVER win AS after_text
              FROM (SELECT DISTINCT scope, opened_by FROM new_rows) k
             CROSS JOIN LATERAL (SELECT c.scope, c.opened_by, c.id, (SELECT t.text FROM recall_claim_text t WHERE t.id = c.id) AS text
                                   FROM claims c WHERE c.scope = k.scope AND c.opened_by = k.opened_by OFFSET 0) x
            WINDOW win AS (PARTITION BY x.scope, x.opened_by ORDER BY x.id)) w
     WHERE f.id = w.id
       AND w.id NOT IN (SELECT id FROM new_rows)
       AND (w.before_id IN (SELECT id FROM new_rows) OR w.after_id IN (SELECT id FROM new_rows));
    INSERT INTO recall_outbox (claim_id, change) SELECT id, 'insert' FROM new_rows ORDER BY id;
    RETURN NULL;
END;
$$;
