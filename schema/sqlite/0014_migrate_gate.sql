-- factledger, version 14 (SQLite): the migrate gate. `factledger migrate` copies a ledger from the other
-- engine (or another file) by replaying its history through this schema's rules, transaction by
-- transaction, with every id and time as the source holds them. Three things of a source's history no
-- rule lets a client write, because a ledger only ever produces them itself:
--   * the hash row of a version an erase removed (a hole: no claim row, no salt, erased_by set);
--   * the chain start (legacy_through), fixed by 0006 when the ledger was created;
--   * the ledger secret, fixed by 0007 (every keyed hash of the source depends on it).
-- The gate lets exactly those be written, and only into an empty ledger: it opens only when nothing of
-- history, the digest or erase is there; the chain start and the secret change only before the first
-- transaction; a hole is written only by the replayed erasing transaction while it is the latest and
-- before its chain row, so once the copy's last chain row is written the gate allows nothing more. The
-- copy closes it in its own transaction (SQLite has no commit-time check: `verify` reports a gate left
-- open); while it is open, no transaction past the copy's last (`through_tx`) is accepted.

CREATE TABLE migrate_gate (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    through_tx  INTEGER NOT NULL CHECK (through_tx >= 0)   -- the source's latest transaction id
);

CREATE TRIGGER migrate_gate_empty_only
BEFORE INSERT ON migrate_gate
WHEN EXISTS (SELECT 1 FROM transactions) OR EXISTS (SELECT 1 FROM predicates) OR EXISTS (SELECT 1 FROM claims)
  OR EXISTS (SELECT 1 FROM claim_provenance) OR EXISTS (SELECT 1 FROM version_hashes)
  OR EXISTS (SELECT 1 FROM tx_chain) OR EXISTS (SELECT 1 FROM tombstones) OR EXISTS (SELECT 1 FROM journal)
  OR EXISTS (SELECT 1 FROM proposals) OR EXISTS (SELECT 1 FROM rejections) OR EXISTS (SELECT 1 FROM confirmations)
  OR EXISTS (SELECT 1 FROM erased_texts) OR EXISTS (SELECT 1 FROM exports) OR EXISTS (SELECT 1 FROM digest_leases)
BEGIN
    SELECT RAISE(ABORT, 'factledger: the migrate gate opens only on an empty ledger');
END;

CREATE TRIGGER migrate_gate_no_update
BEFORE UPDATE ON migrate_gate
BEGIN
    SELECT RAISE(ABORT, 'factledger: the migrate gate is opened and closed, never changed');
END;

-- A gate left open must not let the ledger grow past the copy.
CREATE TRIGGER transactions_within_migrate
AFTER INSERT ON transactions
WHEN NEW.id > (SELECT through_tx FROM migrate_gate)
BEGIN
    SELECT RAISE(ABORT, 'factledger: the migrate gate is open: no transaction past the copy''s last until it is closed');
END;

-- 0006's rule, and under the gate the hole an erase left: the hash row of a version that is not there,
-- erased by the latest (replayed, operator's) transaction before its chain row, opened (and closed)
-- before it, without its salt.
DROP TRIGGER version_hashes_insert;
CREATE TRIGGER version_hashes_insert
BEFORE INSERT ON version_hashes
WHEN (NEW.erased_by IS NULL
      AND (NEW.opened_by IS NOT (SELECT opened_by FROM claims WHERE id = NEW.claim_id)
           OR NEW.closed_by IS NOT (SELECT closed_by FROM claims WHERE id = NEW.claim_id)
           OR (NEW.opened_by IS NOT (SELECT MAX(id) FROM transactions)
               AND NEW.opened_by > (SELECT legacy_through FROM chain_start))))
  OR (NEW.erased_by IS NOT NULL
      AND (NOT EXISTS (SELECT 1 FROM migrate_gate)
           OR EXISTS (SELECT 1 FROM claims WHERE id = NEW.claim_id)
           OR NEW.erased_by IS NOT (SELECT MAX(id) FROM transactions)
           OR NOT (SELECT principal FROM transactions WHERE id = NEW.erased_by) GLOB 'operator:?*'
           OR EXISTS (SELECT 1 FROM tx_chain WHERE tx_id = NEW.erased_by)
           OR NOT NEW.opened_by < NEW.erased_by
           OR (NEW.closed_by IS NOT NULL AND NOT (NEW.opened_by < NEW.closed_by AND NEW.closed_by <= NEW.erased_by))
           OR NEW.salt IS NOT NULL))
BEGIN
    SELECT RAISE(ABORT, 'factledger: a version hash is written by the transaction that opened the version');
END;

-- The chain start is fixed, but for the copy's first step: before any transaction, under the gate.
DROP TRIGGER chain_start_fixed;
CREATE TRIGGER chain_start_fixed
BEFORE UPDATE ON chain_start
WHEN NOT EXISTS (SELECT 1 FROM migrate_gate) OR EXISTS (SELECT 1 FROM transactions) OR NEW.id IS NOT OLD.id
BEGIN
    SELECT RAISE(ABORT, 'factledger: the chain start is fixed');
END;

-- The secret never changes, but for the copy's first step: the source's secret, before any transaction
-- or keyed row, under the gate (the keyed rows the copy brings then verify here as they did there).
DROP TRIGGER ledger_secret_fixed;
CREATE TRIGGER ledger_secret_fixed
BEFORE UPDATE ON ledger_secret
WHEN NOT EXISTS (SELECT 1 FROM migrate_gate) OR NEW.id IS NOT OLD.id
  OR EXISTS (SELECT 1 FROM transactions) OR EXISTS (SELECT 1 FROM tombstones) OR EXISTS (SELECT 1 FROM rejections)
  OR EXISTS (SELECT 1 FROM confirmations) OR EXISTS (SELECT 1 FROM erased_texts)
BEGIN
    SELECT RAISE(ABORT, 'factledger: the ledger secret never changes (every stored hash depends on it)');
END;
