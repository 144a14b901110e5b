-- factledger recall (PostgreSQL 15): a claim's window neighbours found with one seek of claims_window.
--
-- 0006 found "the claim before me in my window" (same scope and opening transaction, largest smaller
-- id) as `WHERE scope = … AND opened_by = … AND id < … ORDER BY id DESC LIMIT 1`. For that correlated
-- lookup the planner walks the primary key backwards from the id and filters on the window, which for
-- the first claim of a transaction (it has no predecessor) reads every older version: a one-operation
-- transaction spent ~2 ms a version there at 10k versions, growing with the ledger
-- (evals/bench_ledger.py; docs/BENCHMARKS.md, "Ledger on PostgreSQL"). The same neighbour is the
-- largest (scope, opened_by, id) below the claim's own when it shares the claim's scope and opened_by:
-- a row comparison over claims_window (scope, opened_by, id), one index probe whatever the estimates.
-- Same rows, same texts: only how they are found changes. Written inline, not as SQL functions: a
-- function call per lookup (not inlined, it holds a subquery) doubled a batch's context time.
-- Nothing here refuses anything.

CREATE OR REPLACE VIEW recall_claim_context AS
SELECT me.id AS id,
       trim(COALESCE((SELECT t.text FROM recall_claim_text t WHERE t.id =
                       (SELECT w.id FROM (SELECT p.id, p.scope, p.opened_by FROM claims p
                                           WHERE (p.scope, p.opened_by, p.id) < (me.scope, me.opened_by, me.id)
                                           ORDER BY p.scope DESC, p.opened_by DESC, p.id DESC LIMIT 1) w
                         WHERE w.scope = me.scope AND w.opened_by = me.opened_by)), '')
            || ' ' ||
            COALESCE((SELECT t.text FROM recall_claim_text t WHERE t.id =
                       (SELECT w.id FROM (SELECT n.id, n.scope, n.opened_by FROM claims n
                                           WHERE (n.scope, n.opened_by, n.id) > (me.scope, me.opened_by, me.id)
                                           ORDER BY n.scope, n.opened_by, n.id LIMIT 1) w
                         WHERE w.scope = me.scope AND w.opened_by = me.opened_by)), '')) AS context
  FROM claims me;

-- Erase: the context of the claims before and after `pivot` in its window (a neighbour went).
CREATE OR REPLACE FUNCTION recall_claim_window_refresh(pivot_scope text, pivot_tx bigint, pivot_id bigint) RETURNS void
LANGUAGE sql AS $$
    UPDATE recall_fts f SET context = COALESCE(x.context, '')
      FROM recall_claim_context x
     WHERE x.id = f.id
       AND f.id IN ((SELECT w.id FROM (SELECT p.id, p.scope, p.opened_by FROM claims p
                                        WHERE (p.scope, p.opened_by, p.id) < (pivot_scope COLLATE "C", pivot_tx, pivot_id)
                                        ORDER BY p.scope DESC, p.opened_by DESC, p.id DESC LIMIT 1) w
                      WHERE w.scope = pivot_scope COLLATE "C" AND w.opened_by = pivot_tx),
                    (SELECT w.id FROM (SELECT n.id, n.scope, n.opened_by FROM claims n
                                        WHERE (n.scope, n.opened_by, n.id) > (pivot_scope COLLATE "C", pivot_tx, pivot_id)
                                        ORDER BY n.scope, n.opened_by, n.id LIMIT 1) w
                      WHERE w.scope = pivot_scope COLLATE "C" AND w.opened_by = pivot_tx));
$$;

-- 0006's statement-level insert trigger with the same lookups for the neighbours it re-contexts.
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
                     CROSS JOIN LATERAL (
                           (SELECT w.id FROM (SELECT p.id, p.scope, p.opened_by FROM claims p
                                               WHERE (p.scope, p.opened_by, p.id) < (n.scope, n.opened_by, n.id)
                                               ORDER BY p.scope DESC, p.opened_by DESC, p.id DESC LIMIT 1) w
                             WHERE w.scope = n.scope AND w.opened_by = n.opened_by)
                           UNION ALL
                           (SELECT w.id FROM (SELECT q.id, q.scope, q.opened_by FROM claims q
                                               WHERE (q.scope, q.opened_by, q.id) > (n.scope, n.opened_by, n.id)
                                               ORDER BY q.scope, q.opened_by, q.id LIMIT 1) w
                             WHERE w.scope = n.scope AND w.opened_by = n.opened_by)) nb
                     WHERE nb.id NOT IN (SELECT id FROM new_rows));
    INSERT INTO recall_fts_trigram (id, body)
    SELECT n.id, t.text FROM new_rows n JOIN recall_claim_text t ON t.id = n.id WHERE t.text ~ '[^ -~]';
    INSERT INTO recall_outbox (claim_id, change) SELECT id, 'insert' FROM new_rows ORDER BY id;
    RETURN NULL;
END;
$$;
