-- factledger erase, version 7 (SQLite): keyed hashes, the erased-text guard and the manifest of exports.
-- Applied by ledger/storage.py, which registers factledger_hmac(secret, text) (HMAC-SHA256, hex) on
-- the connection before migrating; no other client migrates a ledger.

-- The per-ledger secret that keys every content hash. 32 bytes from SQLite's randomness source (the
-- operating system's, through the VFS). It travels with the file, as the tombstones must: a copy of
-- the ledger without it could not keep erased values out.
CREATE TABLE ledger_secret (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    secret  TEXT NOT NULL CHECK (length(secret) = 64)
);
INSERT INTO ledger_secret (id, secret) VALUES (1, lower(hex(randomblob(32))));

CREATE TRIGGER ledger_secret_fixed
BEFORE UPDATE ON ledger_secret
BEGIN
    SELECT RAISE(ABORT, 'factledger: the ledger secret never changes (every stored hash depends on it)');
END;

CREATE TRIGGER ledger_secret_kept
BEFORE DELETE ON ledger_secret
BEGIN
    SELECT RAISE(ABORT, 'factledger: the ledger secret is never deleted');
END;

-- Until now tombstones, rejections and confirmations were keyed on the unkeyed sha256 of the normalised
-- (scope, subject, predicate, value): a guess could be confirmed by hashing it. The keyed hash is
-- HMAC(secret, that sha256), so rows that kept only the unkeyed hash (tombstones) can be keyed here.
-- Tombstones are append-only (0006 refuses UPDATE and DELETE on them), so each gets a keyed twin and
-- the old row stays, unused: the documented transition (values erased before 0007 remain guessable
-- from their old row; every later tombstone is keyed only).
INSERT OR IGNORE INTO tombstones (content_hash, erased_at, principal, reason)
SELECT factledger_hmac((SELECT secret FROM ledger_secret), content_hash), erased_at, principal, reason FROM tombstones;
UPDATE rejections SET content_hash = factledger_hmac((SELECT secret FROM ledger_secret), content_hash);
UPDATE confirmations SET content_hash = factledger_hmac((SELECT secret FROM ledger_secret), content_hash);

-- The erased-text guard: the keyed hash of each erased value's normalised words, for the scopes of
-- the person it was erased for (exact scopes, or every scope under a prefix: Hermes scratch scopes).
-- Incoming turns and writes in those scopes are tested word n-gram by word n-gram against it, so the
-- value said again is redacted before it is stored. Nothing here reveals the value without the secret.
CREATE TABLE erased_texts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    match       TEXT NOT NULL CHECK (match IN ('exact', 'prefix')),
    scope       TEXT NOT NULL CHECK (length(scope) > 0),
    words       INTEGER NOT NULL CHECK (words > 0),        -- n of the n-gram to test
    text_hash   TEXT NOT NULL,                             -- keyed hash of the value's words joined by ' '
    erase_tx    INTEGER NOT NULL REFERENCES transactions(id),
    UNIQUE (match, scope, text_hash)
);

CREATE TRIGGER erased_texts_no_update
BEFORE UPDATE ON erased_texts
BEGIN
    SELECT RAISE(ABORT, 'factledger: the erased-text guard is append-only');
END;

CREATE TRIGGER erased_texts_no_delete
BEFORE DELETE ON erased_texts
WHEN NOT EXISTS (SELECT 1 FROM erase_gate)
BEGIN
    SELECT RAISE(ABORT, 'factledger: the erased-text guard is never deleted outside erase');
END;

-- The manifest of known exports: every `factledger export` made of this ledger, so an erase can say
-- which of them still hold the value (files outside the ledger are the operator's to delete).
CREATE TABLE exports (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    directory         TEXT NOT NULL,
    format            TEXT NOT NULL,
    snapshot_tx_time  TEXT,                                -- the last transaction the export holds
    exported_at       TEXT NOT NULL,
    tables            TEXT NOT NULL DEFAULT '[]'           -- JSON list of the tables written
);
