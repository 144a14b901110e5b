-- factledger, erase reaches transaction reasons and sources (PostgreSQL 15; schema/sqlite/0021 is its
-- twin, issue 21). A transaction's chain row hashes a salted hash of its reason and sources
-- (`text_hash`, with its salt `text_salt`) rather than the text itself, so an erase may redact a reason
-- that mentions the value: it sets `redacted_by` to itself and drops the salt, and only then may that
-- transaction's reason and sources change, by the erasing transaction, an operator's, the latest.
-- Chain rows written before this version have no text hash: their text stays as written.

ALTER TABLE tx_chain ADD COLUMN text_salt text;
ALTER TABLE tx_chain ADD COLUMN text_hash text CHECK (text_hash IS NULL OR length(text_hash) = 64);
ALTER TABLE tx_chain ADD COLUMN redacted_by bigint;

CREATE FUNCTION tx_chain_redact_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.tx_id IS DISTINCT FROM OLD.tx_id OR NEW.chain_hash IS DISTINCT FROM OLD.chain_hash
       OR NEW.text_hash IS DISTINCT FROM OLD.text_hash OR OLD.text_hash IS NULL OR OLD.redacted_by IS NOT NULL
       OR NEW.text_salt IS NOT NULL
       OR NEW.redacted_by IS DISTINCT FROM (SELECT tx_id FROM ledger_head WHERE id = 1)
       OR (SELECT principal FROM transactions WHERE id = NEW.redacted_by) !~ '^operator:.' THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: the chain is append-only (an erase may only drop a reason''s salt)';
    END IF;
    RETURN NEW;
END;
$$;
DROP TRIGGER tx_chain_no_update ON tx_chain;
CREATE TRIGGER tx_chain_no_update BEFORE UPDATE ON tx_chain
    FOR EACH ROW EXECUTE FUNCTION tx_chain_redact_only();

CREATE FUNCTION tx_chain_text_at_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.text_hash IS NOT NULL AND NEW.redacted_by IS NULL AND NEW.text_salt IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: a reason''s hash keeps its salt until an erase drops it';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER tx_chain_text_at_insert BEFORE INSERT ON tx_chain
    FOR EACH ROW EXECUTE FUNCTION tx_chain_text_at_insert();

CREATE FUNCTION transactions_redact_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.id IS DISTINCT FROM OLD.id OR NEW.tx_time IS DISTINCT FROM OLD.tx_time
       OR NEW.principal IS DISTINCT FROM OLD.principal
       OR (SELECT redacted_by FROM tx_chain WHERE tx_id = OLD.id) IS DISTINCT FROM (SELECT tx_id FROM ledger_head WHERE id = 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation', MESSAGE = 'factledger: transactions are append-only';
    END IF;
    RETURN NEW;
END;
$$;
DROP TRIGGER transactions_no_update ON transactions;
CREATE TRIGGER transactions_no_update BEFORE UPDATE ON transactions
    FOR EACH ROW EXECUTE FUNCTION transactions_redact_only();
