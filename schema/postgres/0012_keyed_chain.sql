-- factledger keyed chain (PostgreSQL 15; schema/sqlite/0022 is its twin; after 0011, reason hashes, so
-- every keyed link is over a v2 row). From the first transaction
-- after the chain is keyed, each link is an HMAC-SHA256 under the chain key, a secret kept outside the
-- database (ledger/chain_key.py); the links before it stay unkeyed sha256, and `verify` says which part
-- is which. One row: the ledger's public id (named in every head), the first keyed transaction, the
-- key's public fingerprint, and an HMAC of the ledger secret under the chain key. Keyed once, by a
-- writer holding a key (keyed_from = the next transaction), never changed again but by migrate's copy,
-- under the migrate gate, before any transaction.

CREATE TABLE chain_keying (
    id          integer PRIMARY KEY CHECK (id = 1),
    ledger_id   text NOT NULL CHECK (ledger_id ~ '^[0-9a-f]{32}$'),
    keyed_from  bigint CHECK (keyed_from IS NULL OR keyed_from >= 1),
    key_id      text CHECK (key_id IS NULL OR key_id ~ '^[0-9a-f]{16}$'),
    secret_mac  text CHECK (secret_mac IS NULL OR secret_mac ~ '^[0-9a-f]{64}$'),
    CHECK ((keyed_from IS NULL) = (key_id IS NULL) AND (key_id IS NULL) = (secret_mac IS NULL))
);
INSERT INTO chain_keying (id, ledger_id) VALUES (1, encode(gen_random_bytes(16), 'hex'));

CREATE FUNCTION chain_keying_once() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF factledger_migrating() AND NOT EXISTS (SELECT 1 FROM transactions) THEN
        RETURN NEW;
    END IF;
    IF NEW.id IS DISTINCT FROM OLD.id OR NEW.ledger_id IS DISTINCT FROM OLD.ledger_id OR OLD.keyed_from IS NOT NULL
       OR NEW.keyed_from IS DISTINCT FROM (SELECT tx_id + 1 FROM ledger_head WHERE id = 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: the chain is keyed once, from the next transaction, and stays keyed';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER chain_keying_once BEFORE UPDATE ON chain_keying
    FOR EACH ROW EXECUTE FUNCTION chain_keying_once();
CREATE TRIGGER chain_keying_no_insert BEFORE INSERT ON chain_keying
    FOR EACH ROW EXECUTE FUNCTION factledger_refuse('the chain keying is one row, made by its migration');
CREATE TRIGGER chain_keying_no_delete BEFORE DELETE ON chain_keying
    FOR EACH ROW EXECUTE FUNCTION factledger_refuse('the chain keying is never deleted');
CREATE TRIGGER chain_keying_no_truncate BEFORE TRUNCATE ON chain_keying
    FOR EACH STATEMENT EXECUTE FUNCTION factledger_refuse('the chain keying is never deleted');
