-- factledger ledger schema, version 1 (SQLite).
-- Timestamps are TEXT in one fixed-width UTC form, 'YYYY-MM-DDTHH:MM:SS.ffffffZ', so that text
-- comparison is time comparison. An open interval end is NULL (+infinity).

CREATE TABLE predicates (
    name         TEXT PRIMARY KEY,              -- normalised key
    display      TEXT NOT NULL,                 -- original text
    cardinality  TEXT NOT NULL CHECK (cardinality IN ('one', 'many')),
    description  TEXT NOT NULL DEFAULT '',
    template     TEXT NOT NULL DEFAULT '{subject} {predicate} {value}',
    defined_at   TEXT NOT NULL
);

-- A predicate's cardinality is fixed once claims use it: the constraints below rely on it.
CREATE TRIGGER predicates_cardinality_fixed
BEFORE UPDATE OF cardinality ON predicates
WHEN NEW.cardinality <> OLD.cardinality
 AND EXISTS (SELECT 1 FROM claims WHERE predicate = OLD.name)
BEGIN
    SELECT RAISE(ABORT, 'factledger: predicate cardinality cannot change once claims use it');
END;

CREATE TABLE transactions (
    id         INTEGER PRIMARY KEY,
    tx_time    TEXT NOT NULL UNIQUE,
    principal  TEXT NOT NULL CHECK (principal GLOB '[a-z]*:?*'),
    reason     TEXT NOT NULL DEFAULT '',
    sources    TEXT NOT NULL DEFAULT '[]'        -- JSON array of provenance references
);

-- Transaction time is strictly increasing, whatever the wall clock does.
CREATE TRIGGER transactions_time_increases
BEFORE INSERT ON transactions
WHEN NEW.tx_time <= (SELECT MAX(tx_time) FROM transactions)
BEGIN
    SELECT RAISE(ABORT, 'factledger: tx_time must be later than every earlier transaction');
END;

CREATE TRIGGER transactions_no_update
BEFORE UPDATE ON transactions
BEGIN
    SELECT RAISE(ABORT, 'factledger: transactions are append-only');
END;

-- Set (and cleared) only inside erase, in the same SQLite transaction: the one door for DELETE.
CREATE TABLE erase_gate (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    principal  TEXT NOT NULL CHECK (principal GLOB 'operator:?*')
);

CREATE TRIGGER transactions_no_delete
BEFORE DELETE ON transactions
WHEN NOT EXISTS (SELECT 1 FROM erase_gate)
BEGIN
    SELECT RAISE(ABORT, 'factledger: transactions are never deleted outside erase');
END;

CREATE TABLE claims (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, even after erase
    scope        TEXT NOT NULL,
    subject_key  TEXT NOT NULL,
    subject      TEXT NOT NULL,                 -- display text
    predicate    TEXT NOT NULL REFERENCES predicates(name),
    cardinality  TEXT NOT NULL CHECK (cardinality IN ('one', 'many')),  -- copied from the predicate
    value        TEXT NOT NULL,                 -- display text
    value_key    TEXT NOT NULL,                 -- normalised form
    valid_from   TEXT NOT NULL,
    valid_to     TEXT,
    tx_from      TEXT NOT NULL,
    tx_to        TEXT,
    opened_by    INTEGER NOT NULL REFERENCES transactions(id),
    closed_by    INTEGER REFERENCES transactions(id),
    source       TEXT NOT NULL DEFAULT '[]',    -- JSON array of provenance references
    CHECK (valid_to IS NULL OR valid_from < valid_to),
    CHECK (tx_to IS NULL OR tx_from < tx_to),
    CHECK ((tx_to IS NULL) = (closed_by IS NULL))
);

-- One open current version per `one` slot, and per (slot, value) for `many`.
CREATE UNIQUE INDEX claims_one_open ON claims (scope, subject_key, predicate)
    WHERE tx_to IS NULL AND valid_to IS NULL AND cardinality = 'one';
CREATE UNIQUE INDEX claims_many_open ON claims (scope, subject_key, predicate, value_key)
    WHERE tx_to IS NULL AND valid_to IS NULL AND cardinality = 'many';
-- Slot lookups (current, as-of, history) at any size.
CREATE INDEX claims_slot ON claims (scope, subject_key, predicate, valid_from);
-- Current truth of a scope.
CREATE INDEX claims_current ON claims (scope, predicate) WHERE tx_to IS NULL;

CREATE TRIGGER claims_cardinality_matches
BEFORE INSERT ON claims
WHEN NEW.cardinality IS NOT (SELECT cardinality FROM predicates WHERE name = NEW.predicate)
BEGIN
    SELECT RAISE(ABORT, 'factledger: claim cardinality differs from its predicate');
END;

-- No valid-time overlap among current versions of a `one` slot (and of one value in a `many` slot).
CREATE TRIGGER claims_no_overlap
BEFORE INSERT ON claims
WHEN NEW.tx_to IS NULL AND EXISTS (
    SELECT 1 FROM claims c
     WHERE c.scope = NEW.scope AND c.subject_key = NEW.subject_key AND c.predicate = NEW.predicate
       AND c.tx_to IS NULL
       AND (NEW.cardinality = 'one' OR c.value_key = NEW.value_key)
       AND c.valid_from < COALESCE(NEW.valid_to, '9999-12-31T23:59:59.999999Z')
       AND NEW.valid_from < COALESCE(c.valid_to, '9999-12-31T23:59:59.999999Z'))
BEGIN
    SELECT RAISE(ABORT, 'factledger: valid-time overlap in a slot');
END;

-- The only UPDATE a claim ever receives: closing transaction time, once.
CREATE TRIGGER claims_close_only
BEFORE UPDATE ON claims
WHEN OLD.tx_to IS NOT NULL
  OR NEW.tx_to IS NULL
  OR NEW.closed_by IS NULL
  OR NEW.id IS NOT OLD.id
  OR NEW.scope IS NOT OLD.scope
  OR NEW.subject_key IS NOT OLD.subject_key
  OR NEW.subject IS NOT OLD.subject
  OR NEW.predicate IS NOT OLD.predicate
  OR NEW.cardinality IS NOT OLD.cardinality
  OR NEW.value IS NOT OLD.value
  OR NEW.value_key IS NOT OLD.value_key
  OR NEW.valid_from IS NOT OLD.valid_from
  OR NEW.valid_to IS NOT OLD.valid_to
  OR NEW.tx_from IS NOT OLD.tx_from
  OR NEW.opened_by IS NOT OLD.opened_by
  OR NEW.source IS NOT OLD.source
BEGIN
    SELECT RAISE(ABORT, 'factledger: claims are append-only; only tx_to may be set, once');
END;

CREATE TRIGGER claims_no_delete
BEFORE DELETE ON claims
WHEN NOT EXISTS (SELECT 1 FROM erase_gate)
BEGIN
    SELECT RAISE(ABORT, 'factledger: claims are never deleted outside erase');
END;

-- Erase leaves a tombstone keyed on a hash of the normalised (scope, subject, predicate, value), so
-- nothing can write the value back.
CREATE TABLE tombstones (
    content_hash  TEXT PRIMARY KEY,
    erased_at     TEXT NOT NULL,
    principal     TEXT NOT NULL,
    reason        TEXT NOT NULL DEFAULT ''
);
