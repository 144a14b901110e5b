-- factledger integrity schema, version 6 (SQLite): history the database enforces (DESIGN §8).
--
-- Any client of the file, not only factledger's code, meets these rules:
-- * one checked timestamp form, 'YYYY-MM-DDTHH:MM:SS.ffffffZ', wherever a timestamp is stored;
-- * transactions are append-only, in id and time order, of a known principal kind, and never ahead of
--   the clock by more than five minutes (ledger/store.py MAX_CLOCK_SKEW says the same in Python);
-- * a claim version is inserted only open, by the latest transaction, with tx_from equal to its time;
--   it is closed only by the latest transaction, with tx_to equal to its time; never deleted except by
--   a recorded erase (the version's hash row names the erasing transaction, which must be the latest);
-- * tombstones, predicates, provenance and the hash chain cannot be deleted or edited (a predicate's
--   template and description may change; nothing else of it).
-- A client can still drop a trigger: what it then writes is found by `factledger verify`, which checks
-- every row against these rules, this schema against the migrations, and the hash chain below.

-- == Transactions: append-only, in order, of known principals, not from the future ===============

DROP TRIGGER transactions_no_delete;
CREATE TRIGGER transactions_no_delete
BEFORE DELETE ON transactions
BEGIN
    SELECT RAISE(ABORT, 'factledger: transactions are never deleted');
END;

CREATE TRIGGER transactions_principal_kind
BEFORE INSERT ON transactions
WHEN NOT (NEW.principal GLOB 'operator:?*' OR NEW.principal GLOB 'agent:?*'
          OR NEW.principal GLOB 'digest:?*' OR NEW.principal GLOB 'import:?*')
BEGIN
    SELECT RAISE(ABORT, 'factledger: principal must be operator:, agent:, digest: or import:<name>');
END;

CREATE TRIGGER transactions_not_ahead
BEFORE INSERT ON transactions
WHEN NEW.tx_time > strftime('%Y-%m-%dT%H:%M:%f', 'now', '+5 minutes') || '999Z'
BEGIN
    SELECT RAISE(ABORT, 'factledger: tx_time is ahead of the clock by more than 5 minutes');
END;

-- Ids follow time: the latest transaction is the one with the largest id (and the largest tx_time).
CREATE TRIGGER transactions_id_increases
AFTER INSERT ON transactions
WHEN EXISTS (SELECT 1 FROM transactions WHERE id > NEW.id)
BEGIN
    SELECT RAISE(ABORT, 'factledger: a transaction id must be larger than every earlier one');
END;

-- == The hash chain's tables (written by ledger/chain.py in each transaction's own commit) =========

-- One row per claim version, kept when an erase removes the version: its content hash stays where the
-- content was, so the chain still verifies. The salt goes with the content: without it the hash
-- cannot confirm a guessed value.
CREATE TABLE version_hashes (
    claim_id      INTEGER PRIMARY KEY,
    opened_by     INTEGER NOT NULL REFERENCES transactions(id),
    closed_by     INTEGER REFERENCES transactions(id),
    erased_by     INTEGER REFERENCES transactions(id),
    salt          TEXT,
    content_hash  TEXT NOT NULL CHECK (length(content_hash) = 64),
    CHECK ((salt IS NULL) = (erased_by IS NOT NULL))
);
CREATE INDEX version_hashes_opened ON version_hashes (opened_by);
CREATE INDEX version_hashes_closed ON version_hashes (closed_by) WHERE closed_by IS NOT NULL;
CREATE INDEX version_hashes_erased ON version_hashes (erased_by) WHERE erased_by IS NOT NULL;

-- chain_hash = sha256(previous chain_hash, the transaction's fields, the content hashes of the versions
-- it opened, the ids it closed and the ids it erased); see ledger/chain.py.
CREATE TABLE tx_chain (
    tx_id       INTEGER PRIMARY KEY REFERENCES transactions(id),
    chain_hash  TEXT NOT NULL CHECK (length(chain_hash) = 64)
);

-- Transactions up to legacy_through were written before this migration; the ledger hashes them once,
-- as they stand, the first time it opens the file for writing.
CREATE TABLE chain_start (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    legacy_through  INTEGER NOT NULL
);
INSERT INTO chain_start (id, legacy_through) VALUES (1, (SELECT COALESCE(MAX(id), 0) FROM transactions));

CREATE TRIGGER chain_start_fixed
BEFORE UPDATE ON chain_start
BEGIN
    SELECT RAISE(ABORT, 'factledger: the chain start is fixed');
END;

CREATE TRIGGER chain_start_no_delete
BEFORE DELETE ON chain_start
BEGIN
    SELECT RAISE(ABORT, 'factledger: the chain start is fixed');
END;

CREATE TRIGGER tx_chain_append
BEFORE INSERT ON tx_chain
WHEN NEW.tx_id <= COALESCE((SELECT MAX(tx_id) FROM tx_chain), 0)
  OR (NEW.tx_id IS NOT (SELECT MAX(id) FROM transactions)
      AND NEW.tx_id > (SELECT legacy_through FROM chain_start))
BEGIN
    SELECT RAISE(ABORT, 'factledger: the chain grows in order, one row by the latest transaction');
END;

CREATE TRIGGER tx_chain_no_update
BEFORE UPDATE ON tx_chain
BEGIN
    SELECT RAISE(ABORT, 'factledger: the chain is append-only');
END;

CREATE TRIGGER tx_chain_no_delete
BEFORE DELETE ON tx_chain
BEGIN
    SELECT RAISE(ABORT, 'factledger: the chain is append-only');
END;

-- A hash row mirrors its version's opening and closing, and is written by the opening transaction.
CREATE TRIGGER version_hashes_insert
BEFORE INSERT ON version_hashes
WHEN NEW.opened_by IS NOT (SELECT opened_by FROM claims WHERE id = NEW.claim_id)
  OR NEW.closed_by IS NOT (SELECT closed_by FROM claims WHERE id = NEW.claim_id)
  OR NEW.erased_by IS NOT NULL
  OR (NEW.opened_by IS NOT (SELECT MAX(id) FROM transactions)
      AND NEW.opened_by > (SELECT legacy_through FROM chain_start))
BEGIN
    SELECT RAISE(ABORT, 'factledger: a version hash is written by the transaction that opened the version');
END;

-- Only closing (mirrored from claims) and erasing (by the latest transaction, an operator's) change a
-- hash row; erasing also drops the salt.
CREATE TRIGGER version_hashes_update
BEFORE UPDATE ON version_hashes
WHEN NEW.claim_id IS NOT OLD.claim_id
  OR NEW.opened_by IS NOT OLD.opened_by
  OR NEW.content_hash IS NOT OLD.content_hash
  OR (NEW.closed_by IS NOT OLD.closed_by
      AND (OLD.closed_by IS NOT NULL OR NEW.closed_by IS NOT (SELECT MAX(id) FROM transactions)))
  OR (NEW.erased_by IS NOT OLD.erased_by
      AND (OLD.erased_by IS NOT NULL
           OR NEW.erased_by IS NOT (SELECT MAX(id) FROM transactions)
           OR NOT (SELECT principal FROM transactions WHERE id = NEW.erased_by) GLOB 'operator:?*'))
  OR (NEW.salt IS NOT OLD.salt AND NEW.erased_by IS NULL)
BEGIN
    SELECT RAISE(ABORT, 'factledger: a version hash changes only when its version is closed or erased');
END;

CREATE TRIGGER version_hashes_no_delete
BEFORE DELETE ON version_hashes
BEGIN
    SELECT RAISE(ABORT, 'factledger: version hashes are never deleted (erase keeps them)');
END;

-- == Claims: opened and closed only by the latest transaction, deleted only by a recorded erase ====

CREATE TRIGGER claims_opened_by_latest
BEFORE INSERT ON claims
WHEN NEW.opened_by IS NOT (SELECT MAX(id) FROM transactions)
  OR NEW.tx_from IS NOT (SELECT MAX(tx_time) FROM transactions)
BEGIN
    SELECT RAISE(ABORT, 'factledger: a claim version is opened by the latest transaction, with tx_from equal to its tx_time');
END;

-- Ids are never reused, not even an erased version's (its hash row keeps the id).
CREATE TRIGGER claims_id_increases
AFTER INSERT ON claims
WHEN NEW.id <= (SELECT MAX(claim_id) FROM version_hashes)
BEGIN
    SELECT RAISE(ABORT, 'factledger: a claim id must be larger than every earlier one');
END;

CREATE TRIGGER claims_closed_by_latest
BEFORE UPDATE OF tx_to, closed_by ON claims
WHEN NEW.tx_to IS NOT NULL
 AND (NEW.closed_by IS NOT (SELECT MAX(id) FROM transactions)
      OR NEW.tx_to IS NOT (SELECT MAX(tx_time) FROM transactions))
BEGIN
    SELECT RAISE(ABORT, 'factledger: a claim version is closed by the latest transaction, with tx_to equal to its tx_time');
END;

CREATE TRIGGER claims_close_mirrored
AFTER UPDATE OF closed_by ON claims
BEGIN
    UPDATE version_hashes SET closed_by = NEW.closed_by WHERE claim_id = NEW.id;
END;

-- The overlap check on every insert (inserts are open now, so the condition on tx_to is gone).
DROP TRIGGER claims_no_overlap;
CREATE TRIGGER claims_no_overlap
BEFORE INSERT ON claims
WHEN EXISTS (
    SELECT 1 FROM claims c
     WHERE c.scope = NEW.scope AND c.subject_key = NEW.subject_key AND c.predicate = NEW.predicate
       AND c.tx_to IS NULL
       AND (NEW.cardinality = 'one' OR c.value_key = NEW.value_key)
       AND c.valid_from < COALESCE(NEW.valid_to, '9999-12-31T23:59:59.999999Z')
       AND NEW.valid_from < COALESCE(c.valid_to, '9999-12-31T23:59:59.999999Z'))
BEGIN
    SELECT RAISE(ABORT, 'factledger: valid-time overlap in a slot');
END;

-- After the overlap and latest-transaction checks, so that it runs before them.
CREATE TRIGGER claims_insert_open
BEFORE INSERT ON claims
WHEN NEW.tx_to IS NOT NULL OR NEW.closed_by IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'factledger: a claim version is inserted open (tx_to NULL); a later transaction closes it');
END;

-- The gate alone no longer opens the door: the version must be recorded as erased by the latest
-- transaction (an operator's), whose chain row names it.
DROP TRIGGER claims_no_delete;
CREATE TRIGGER claims_no_delete
BEFORE DELETE ON claims
WHEN NOT EXISTS (SELECT 1 FROM erase_gate)
  OR NOT EXISTS (SELECT 1 FROM version_hashes v
                  WHERE v.claim_id = OLD.id AND v.erased_by = (SELECT MAX(id) FROM transactions))
BEGIN
    SELECT RAISE(ABORT, 'factledger: claims are never deleted outside a recorded erase');
END;

DROP TRIGGER claim_provenance_no_delete;
CREATE TRIGGER claim_provenance_no_delete
BEFORE DELETE ON claim_provenance
WHEN NOT EXISTS (SELECT 1 FROM erase_gate)
  OR NOT EXISTS (SELECT 1 FROM version_hashes v
                  WHERE v.claim_id = OLD.claim_id AND v.erased_by = (SELECT MAX(id) FROM transactions))
BEGIN
    SELECT RAISE(ABORT, 'factledger: provenance is never deleted outside a recorded erase');
END;

CREATE TRIGGER erase_gate_by_latest
BEFORE INSERT ON erase_gate
WHEN NEW.principal IS NOT (SELECT principal FROM transactions WHERE id = (SELECT MAX(id) FROM transactions))
BEGIN
    SELECT RAISE(ABORT, 'factledger: the erase gate opens only for the latest transaction''s operator');
END;

-- == Tombstones and predicates stay ==================================================================

CREATE TRIGGER tombstones_no_update
BEFORE UPDATE ON tombstones
BEGIN
    SELECT RAISE(ABORT, 'factledger: tombstones are never edited');
END;

CREATE TRIGGER tombstones_no_delete
BEFORE DELETE ON tombstones
BEGIN
    SELECT RAISE(ABORT, 'factledger: tombstones are never deleted');
END;

CREATE TRIGGER predicates_no_delete
BEFORE DELETE ON predicates
BEGIN
    SELECT RAISE(ABORT, 'factledger: predicates are never deleted');
END;

CREATE TRIGGER predicates_fixed
BEFORE UPDATE ON predicates
WHEN NEW.name IS NOT OLD.name
  OR NEW.display IS NOT OLD.display
  OR NEW.cardinality IS NOT OLD.cardinality
  OR NEW.defined_at IS NOT OLD.defined_at
BEGIN
    SELECT RAISE(ABORT, 'factledger: a predicate''s name, display, cardinality and defined_at are fixed; only its template and description change');
END;

-- == One timestamp form ==========================================================================
-- Created last: SQLite runs the most recent trigger first, so a malformed time is reported as such
-- before any rule that compares it.
-- GLOB checks the shape, the substr/date pair the hour and the calendar (SQLite's date() alone
-- accepts 2024-02-30; with '+0 days' it normalises it to another date, which the comparison refuses;
-- IS, not =, because date() of a month 13 is NULL).

CREATE TRIGGER predicates_defined_at_form_insert
BEFORE INSERT ON predicates
WHEN NOT (NEW.defined_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.defined_at, 12, 2) < '24' AND date(substr(NEW.defined_at, 1, 10), '+0 days') IS substr(NEW.defined_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: predicates.defined_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER transactions_tx_time_form_insert
BEFORE INSERT ON transactions
WHEN NOT (NEW.tx_time GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.tx_time, 12, 2) < '24' AND date(substr(NEW.tx_time, 1, 10), '+0 days') IS substr(NEW.tx_time, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: transactions.tx_time must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER claims_valid_from_form_insert
BEFORE INSERT ON claims
WHEN NOT (NEW.valid_from GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.valid_from, 12, 2) < '24' AND date(substr(NEW.valid_from, 1, 10), '+0 days') IS substr(NEW.valid_from, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: claims.valid_from must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER claims_valid_to_form_insert
BEFORE INSERT ON claims
WHEN NOT (NEW.valid_to GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.valid_to, 12, 2) < '24' AND date(substr(NEW.valid_to, 1, 10), '+0 days') IS substr(NEW.valid_to, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: claims.valid_to must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER claims_tx_from_form_insert
BEFORE INSERT ON claims
WHEN NOT (NEW.tx_from GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.tx_from, 12, 2) < '24' AND date(substr(NEW.tx_from, 1, 10), '+0 days') IS substr(NEW.tx_from, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: claims.tx_from must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER claims_tx_to_form_update
BEFORE UPDATE OF tx_to ON claims
WHEN NOT (NEW.tx_to GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.tx_to, 12, 2) < '24' AND date(substr(NEW.tx_to, 1, 10), '+0 days') IS substr(NEW.tx_to, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: claims.tx_to must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER tombstones_erased_at_form_insert
BEFORE INSERT ON tombstones
WHEN NOT (NEW.erased_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.erased_at, 12, 2) < '24' AND date(substr(NEW.erased_at, 1, 10), '+0 days') IS substr(NEW.erased_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: tombstones.erased_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER journal_said_at_form_insert
BEFORE INSERT ON journal
WHEN NOT (NEW.said_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.said_at, 12, 2) < '24' AND date(substr(NEW.said_at, 1, 10), '+0 days') IS substr(NEW.said_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: journal.said_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER journal_appended_at_form_insert
BEFORE INSERT ON journal
WHEN NOT (NEW.appended_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.appended_at, 12, 2) < '24' AND date(substr(NEW.appended_at, 1, 10), '+0 days') IS substr(NEW.appended_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: journal.appended_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER journal_digested_at_form_insert
BEFORE INSERT ON journal
WHEN NOT (NEW.digested_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.digested_at, 12, 2) < '24' AND date(substr(NEW.digested_at, 1, 10), '+0 days') IS substr(NEW.digested_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: journal.digested_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER journal_digested_at_form_update
BEFORE UPDATE OF digested_at ON journal
WHEN NOT (NEW.digested_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.digested_at, 12, 2) < '24' AND date(substr(NEW.digested_at, 1, 10), '+0 days') IS substr(NEW.digested_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: journal.digested_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER proposals_valid_from_form_insert
BEFORE INSERT ON proposals
WHEN NOT (NEW.valid_from GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.valid_from, 12, 2) < '24' AND date(substr(NEW.valid_from, 1, 10), '+0 days') IS substr(NEW.valid_from, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: proposals.valid_from must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER proposals_valid_to_form_insert
BEFORE INSERT ON proposals
WHEN NOT (NEW.valid_to GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.valid_to, 12, 2) < '24' AND date(substr(NEW.valid_to, 1, 10), '+0 days') IS substr(NEW.valid_to, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: proposals.valid_to must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER proposals_created_at_form_insert
BEFORE INSERT ON proposals
WHEN NOT (NEW.created_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.created_at, 12, 2) < '24' AND date(substr(NEW.created_at, 1, 10), '+0 days') IS substr(NEW.created_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: proposals.created_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER proposals_decided_at_form_insert
BEFORE INSERT ON proposals
WHEN NOT (NEW.decided_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.decided_at, 12, 2) < '24' AND date(substr(NEW.decided_at, 1, 10), '+0 days') IS substr(NEW.decided_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: proposals.decided_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER proposals_decided_at_form_update
BEFORE UPDATE OF decided_at ON proposals
WHEN NOT (NEW.decided_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.decided_at, 12, 2) < '24' AND date(substr(NEW.decided_at, 1, 10), '+0 days') IS substr(NEW.decided_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: proposals.decided_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER rejections_rejected_at_form_insert
BEFORE INSERT ON rejections
WHEN NOT (NEW.rejected_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.rejected_at, 12, 2) < '24' AND date(substr(NEW.rejected_at, 1, 10), '+0 days') IS substr(NEW.rejected_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: rejections.rejected_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER rejections_lifted_at_form_insert
BEFORE INSERT ON rejections
WHEN NOT (NEW.lifted_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.lifted_at, 12, 2) < '24' AND date(substr(NEW.lifted_at, 1, 10), '+0 days') IS substr(NEW.lifted_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: rejections.lifted_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER rejections_lifted_at_form_update
BEFORE UPDATE OF lifted_at ON rejections
WHEN NOT (NEW.lifted_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.lifted_at, 12, 2) < '24' AND date(substr(NEW.lifted_at, 1, 10), '+0 days') IS substr(NEW.lifted_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: rejections.lifted_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER confirmations_confirmed_at_form_insert
BEFORE INSERT ON confirmations
WHEN NOT (NEW.confirmed_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.confirmed_at, 12, 2) < '24' AND date(substr(NEW.confirmed_at, 1, 10), '+0 days') IS substr(NEW.confirmed_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: confirmations.confirmed_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER confirmations_lifted_at_form_insert
BEFORE INSERT ON confirmations
WHEN NOT (NEW.lifted_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.lifted_at, 12, 2) < '24' AND date(substr(NEW.lifted_at, 1, 10), '+0 days') IS substr(NEW.lifted_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: confirmations.lifted_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER confirmations_lifted_at_form_update
BEFORE UPDATE OF lifted_at ON confirmations
WHEN NOT (NEW.lifted_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.lifted_at, 12, 2) < '24' AND date(substr(NEW.lifted_at, 1, 10), '+0 days') IS substr(NEW.lifted_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: confirmations.lifted_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER recall_index_state_flagged_at_form_update
BEFORE UPDATE OF flagged_at ON recall_index_state
WHEN NOT (NEW.flagged_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
         AND substr(NEW.flagged_at, 12, 2) < '24' AND date(substr(NEW.flagged_at, 1, 10), '+0 days') IS substr(NEW.flagged_at, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: recall_index_state.flagged_at must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;
