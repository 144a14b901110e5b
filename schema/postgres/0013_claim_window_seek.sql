-- factledger recall (PostgreSQL 15): a claim's window neighbours found with one seek of claims_window.
--
-- 0006 found "the claim before me in my window" (same scope and opening transaction, largest smaller
-- id) as `WHERE scope = … AND opened_by = … AND id < … ORDER BY id DESC LIMIT 1`. For a correlated
-- lookup the planner often walks the primary key backwards from the id and filters on the window, which
-- for the first claim of a transaction (it has no predecessor) reads every older version: a
-- one-operation transaction cost ~2 ms a version at 10k versions, growing with the ledger
-- (evals/bench_ledger.py; docs/BENCHMARKS.md, "Ledger on PostgreSQL"). The same neighbour is the
-- largest (scope, opened_by, id) below the claim's own, when it shares the claim's scope and opened_by:
-- a row comparison over claims_window (scope, opened_by, id), one index probe whatever the plan's
-- estimates. Same rows, same texts: only how they are found changes. Nothing here refuses anything.

-- The neighbour before and after a claim in its window (NULL: none).
CREATE FUNCTION recall_claim_before(s text, tx bigint, claim bigint) RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE
RETURN (SELECT w.id FROM (SELECT p.id, p.scope, p.opened_by FROM claims p
                           WHERE (p.scope, p.opened_by, p.id) < (s COLLATE "C", tx, claim)
                           ORDER BY p.scope DESC, p.opened_by DESC, p.id DESC LIMIT 1) w
         WHERE w.scope = s COLLATE "C" AND w.opened_by = tx);

CREATE FUNCTION recall_claim_after(s text, tx bigint, claim bigint) RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE
RETURN (SELECT w.id FROM (SELECT n.id, n.scope, n.opened_by FROM claims n
                           WHERE (n.scope, n.opened_by, n.id) > (s COLLATE "C", tx, claim)
                           ORDER BY n.scope, n.opened_by, n.id LIMIT 1) w
         WHERE w.scope = s COLLATE "C" AND w.opened_by = tx);

CREATE OR REPLACE VIEW recall_claim_context AS
SELECT me.id AS id,
       trim(COALESCE((SELECT t.text FROM recall_claim_text t
                       WHERE t.id = recall_claim_before(me.scope, me.opened_by, me.id)), '')
            || ' ' ||
            COALESCE((SELECT t.text FROM recall_claim_text t
                       WHERE t.id = recall_claim_after(me.scope, me.opened_by, me.id)), '')) AS context
  FROM claims me;

CREATE OR REPLACE FUNCTION recall_claim_window_refresh(pivot_scope text, pivot_tx bigint, pivot_id bigint) RETURNS void
LANGUAGE sql AS $$
    UPDATE recall_fts f SET context = COALESCE(x.context, '')
      FROM recall_claim_context x
     WHERE x.id = f.id
       AND f.id IN (recall_claim_before(pivot_scope, pivot_tx, pivot_id),
                    recall_claim_after(pivot_scope, pivot_tx, pivot_id));
$$;

CREATE OR REPLACE FUNCTION recall_claims_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO recall_fts (id, body, context)
    SELECT n.id, t.text, x.context
      FROM new_rows n JOIN recall_claim_text t ON t.id = n.id JOIN recall_claim_context x ON x.id = n.id;
    UPDATE recall_fts f SET context = COALESCE(x.context, '')
      FROM recall_claim_context x
     WHERE x.id = f.id
       AND f.id IN (SELECT nb.id
                      FROM new_rows n
                     CROSS JOIN LATERAL (VALUES (recall_claim_before(n.scope, n.opened_by, n.id)),
                                                (recall_claim_after(n.scope, n.opened_by, n.id))) nb(id)
                     WHERE nb.id IS NOT NULL AND nb.id NOT IN (SELECT id FROM new_rows));
    INSERT INTO recall_fts_trigram (id, body)
    SELECT n.id, t.text FROM new_rows n JOIN recall_claim_text t ON t.id = n.id WHERE t.text ~ '[^ -~]';
    INSERT INTO recall_outbox (claim_id, change) SELECT id, 'insert' FROM new_rows ORDER BY id;
    RETURN NULL;
END;
$$;
