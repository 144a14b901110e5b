-- factledger, version 22 (SQLite; schema/postgres/0012 is its twin): the keyed chain (DESIGN §8; issue 21),
-- after 0021 (reason hashes), so every keyed link is over a v2 row. Until now every chain link was
-- an unkeyed sha256 anyone could recompute: a client that rewrote a value and every later link passed
-- `verify`. From the first transaction after the chain is keyed, each link is an HMAC-SHA256 under the
-- chain key, a secret kept outside the database (ledger/chain_key.py: a 0600 file, or a variable the
-- caller names); the links before it stay as they were, and `verify` says which part is which.
--
-- One row: the ledger's public id (named in every head `factledger head` prints, so a swapped ledger is
-- told apart from a truncated one), the first keyed transaction, the key's public fingerprint, and an
-- HMAC of the ledger secret under the chain key (so a replaced secret, which would let erased values
-- back in, is found). The ledger keys its chain once, when a writer that holds a key first opens it:
-- `keyed_from` is then the next transaction's id, and the row never changes again (migrate's copy sets
-- it from its source, under the migrate gate, before any transaction).

CREATE TABLE chain_keying (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    ledger_id   TEXT NOT NULL CHECK (length(ledger_id) = 32 AND NOT ledger_id GLOB '*[^0-9a-f]*'),
    keyed_from  INTEGER CHECK (keyed_from IS NULL OR keyed_from >= 1),
    key_id      TEXT CHECK (key_id IS NULL OR (length(key_id) = 16 AND NOT key_id GLOB '*[^0-9a-f]*')),
    secret_mac  TEXT CHECK (secret_mac IS NULL OR (length(secret_mac) = 64 AND NOT secret_mac GLOB '*[^0-9a-f]*')),
    CHECK ((keyed_from IS NULL) = (key_id IS NULL) AND (key_id IS NULL) = (secret_mac IS NULL))
);
INSERT INTO chain_keying (id, ledger_id) VALUES (1, lower(hex(randomblob(16))));

CREATE TRIGGER chain_keying_once
BEFORE UPDATE ON chain_keying
WHEN NOT (EXISTS (SELECT 1 FROM migrate_gate) AND NOT EXISTS (SELECT 1 FROM transactions))
 AND (NEW.id IS NOT OLD.id OR NEW.ledger_id IS NOT OLD.ledger_id OR OLD.keyed_from IS NOT NULL
      OR NEW.keyed_from IS NOT COALESCE((SELECT MAX(id) FROM transactions), 0) + 1)
BEGIN
    SELECT RAISE(ABORT, 'factledger: the chain is keyed once, from the next transaction, and stays keyed');
END;

CREATE TRIGGER chain_keying_no_delete
BEFORE DELETE ON chain_keying
BEGIN
    SELECT RAISE(ABORT, 'factledger: the chain keying is never deleted');
END;
