-- factledger hash chain (PostgreSQL 15): the tables of schema/sqlite/0006_integrity.sql's chain, with the
-- same refusals, enforced by PostgreSQL for any client (DESIGN §8). ledger/chain.py writes them in each
-- transaction's own commit, through the ledger recorder; the hashes are of canonical time text, so one
-- history hashes the same on both engines.

-- One row per claim version, kept when an erase removes the version: its content hash stays where the
-- content was, so the chain still verifies. The salt goes with the content: without it the hash
-- cannot confirm a guessed value.
CREATE TABLE version_hashes (
    claim_id      bigint PRIMARY KEY,
    opened_by     bigint NOT NULL REFERENCES transactions(id),
    closed_by     bigint REFERENCES transactions(id),
    erased_by     bigint REFERENCES transactions(id),
    salt          text,
    content_hash  text NOT NULL CHECK (length(content_hash) = 64),
    CHECK ((salt IS NULL) = (erased_by IS NOT NULL))
);
CREATE INDEX version_hashes_opened ON version_hashes (opened_by);
CREATE INDEX version_hashes_closed ON version_hashes (closed_by) WHERE closed_by IS NOT NULL;
CREATE INDEX version_hashes_erased ON version_hashes (erased_by) WHERE erased_by IS NOT NULL;

-- chain_hash = sha256(previous chain_hash, the transaction's fields, the content hashes of the versions
-- it opened, the ids it closed and the ids it erased); see ledger/chain.py.
CREATE TABLE tx_chain (
    tx_id       bigint PRIMARY KEY REFERENCES transactions(id),
    chain_hash  text NOT NULL CHECK (length(chain_hash) = 64)
);

-- Transactions up to legacy_through were written before the chain: none, unless this migration runs
-- over a database that already holds transactions (the ledger then hashes them once, as they stand).
CREATE TABLE chain_start (
    id              integer PRIMARY KEY CHECK (id = 1),
    legacy_through  bigint NOT NULL
);
INSERT INTO chain_start (id, legacy_through) VALUES (1, (SELECT COALESCE(MAX(id), 0) FROM transactions));

CREATE TRIGGER chain_start_fixed BEFORE UPDATE ON chain_start
    FOR EACH ROW EXECUTE FUNCTION factledger_refuse('the chain start is fixed');
CREATE TRIGGER chain_start_no_insert BEFORE INSERT ON chain_start
    FOR EACH ROW EXECUTE FUNCTION factledger_refuse('the chain start is fixed');
CREATE TRIGGER chain_start_no_delete BEFORE DELETE ON chain_start
    FOR EACH ROW EXECUTE FUNCTION factledger_refuse('the chain start is fixed');
CREATE TRIGGER chain_start_no_truncate BEFORE TRUNCATE ON chain_start
    FOR EACH STATEMENT EXECUTE FUNCTION factledger_refuse('the chain start is fixed');

-- The chain grows in order, one row by the latest transaction (or, for a legacy transaction, in order).
CREATE FUNCTION tx_chain_append() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.tx_id <= COALESCE((SELECT MAX(tx_id) FROM tx_chain), 0)
       OR (NEW.tx_id IS DISTINCT FROM (SELECT tx_id FROM ledger_head WHERE id = 1)
           AND NEW.tx_id > (SELECT legacy_through FROM chain_start WHERE id = 1)) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: the chain grows in order, one row by the latest transaction';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER tx_chain_append BEFORE INSERT ON tx_chain
    FOR EACH ROW EXECUTE FUNCTION tx_chain_append();
CREATE TRIGGER tx_chain_no_update BEFORE UPDATE ON tx_chain
    FOR EACH ROW EXECUTE FUNCTION factledger_refuse('the chain is append-only');
CREATE TRIGGER tx_chain_no_delete BEFORE DELETE ON tx_chain
    FOR EACH ROW EXECUTE FUNCTION factledger_refuse('the chain is append-only');
CREATE TRIGGER tx_chain_no_truncate BEFORE TRUNCATE ON tx_chain
    FOR EACH STATEMENT EXECUTE FUNCTION factledger_refuse('the chain is append-only');

-- A hash row mirrors its version's opening and closing, and is written by the opening transaction.
CREATE FUNCTION version_hashes_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    version claims%ROWTYPE;
BEGIN
    SELECT * INTO version FROM claims WHERE id = NEW.claim_id;
    IF NOT FOUND
       OR NEW.opened_by IS DISTINCT FROM version.opened_by
       OR NEW.closed_by IS DISTINCT FROM version.closed_by
       OR NEW.erased_by IS NOT NULL
       OR (NEW.opened_by IS DISTINCT FROM (SELECT tx_id FROM ledger_head WHERE id = 1)
           AND NEW.opened_by > (SELECT legacy_through FROM chain_start WHERE id = 1)) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: a version hash is written by the transaction that opened the version';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER version_hashes_insert BEFORE INSERT ON version_hashes
    FOR EACH ROW EXECUTE FUNCTION version_hashes_insert();

-- Only closing (mirrored from claims) and erasing (by the latest transaction, an operator's) change a
-- hash row; erasing also drops the salt.
CREATE FUNCTION version_hashes_update() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    latest bigint := (SELECT tx_id FROM ledger_head WHERE id = 1);
BEGIN
    IF NEW.claim_id IS DISTINCT FROM OLD.claim_id
       OR NEW.opened_by IS DISTINCT FROM OLD.opened_by
       OR NEW.content_hash IS DISTINCT FROM OLD.content_hash
       OR (NEW.closed_by IS DISTINCT FROM OLD.closed_by
           AND (OLD.closed_by IS NOT NULL OR NEW.closed_by IS DISTINCT FROM latest))
       OR (NEW.erased_by IS DISTINCT FROM OLD.erased_by
           AND (OLD.erased_by IS NOT NULL
                OR NEW.erased_by IS DISTINCT FROM latest
                OR (SELECT principal FROM transactions WHERE id = NEW.erased_by) !~ '^operator:.'))
       OR (NEW.salt IS DISTINCT FROM OLD.salt AND NEW.erased_by IS NULL) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: a version hash changes only when its version is closed or erased';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER version_hashes_update BEFORE UPDATE ON version_hashes
    FOR EACH ROW EXECUTE FUNCTION version_hashes_update();
CREATE TRIGGER version_hashes_no_delete BEFORE DELETE ON version_hashes
    FOR EACH ROW EXECUTE FUNCTION factledger_refuse('version hashes are never deleted (erase keeps them)');
CREATE TRIGGER version_hashes_no_truncate BEFORE TRUNCATE ON version_hashes
    FOR EACH STATEMENT EXECUTE FUNCTION factledger_refuse('version hashes are never deleted (erase keeps them)');

-- Closing a version is mirrored into its hash row (in the same statement's transaction).
CREATE FUNCTION claims_close_mirrored() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE version_hashes SET closed_by = NEW.closed_by WHERE claim_id = NEW.id;
    RETURN NULL;
END;
$$;
CREATE TRIGGER claims_close_mirrored AFTER UPDATE OF closed_by ON claims
    FOR EACH ROW EXECUTE FUNCTION claims_close_mirrored();

-- Ids are never reused, not even an erased version's (its hash row keeps the id).
CREATE FUNCTION claims_id_increases() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.id <= (SELECT MAX(claim_id) FROM version_hashes) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: a claim id must be larger than every earlier one';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER claims_id_increases BEFORE INSERT ON claims
    FOR EACH ROW EXECUTE FUNCTION claims_id_increases();
