-- factledger, version 21 (SQLite): erase reaches transaction reasons and sources (issue 21).
--
-- A transaction's reason and sources are free text ("Maya said she is treated at Vexmoor Clinic") and
-- were hashed into its chain row as written, so erase could not redact them without breaking `verify`.
-- From this version a transaction's chain row hashes a salted hash of its reason and sources instead
-- (`text_hash`, kept in the chain row, with its salt `text_salt`), as a version's content hash stands for
-- its content (ledger/chain.py). An erase redacts a reason or source that mentions the value: it sets
-- `redacted_by` to itself and drops the salt (the kept hash then confirms no guess), and only then may
-- the transaction's reason and sources change, by that erasing transaction, an operator's, the latest.
-- Chain rows written before this version have no text hash: their text stays as written (erase names
-- them as copies it cannot reach).

ALTER TABLE tx_chain ADD COLUMN text_salt TEXT;
ALTER TABLE tx_chain ADD COLUMN text_hash TEXT CHECK (text_hash IS NULL OR length(text_hash) = 64);
ALTER TABLE tx_chain ADD COLUMN redacted_by INTEGER;

DROP TRIGGER tx_chain_no_update;
CREATE TRIGGER tx_chain_no_update
BEFORE UPDATE ON tx_chain
WHEN NEW.tx_id IS NOT OLD.tx_id OR NEW.chain_hash IS NOT OLD.chain_hash OR NEW.text_hash IS NOT OLD.text_hash
  OR OLD.text_hash IS NULL OR OLD.redacted_by IS NOT NULL OR NEW.text_salt IS NOT NULL
  OR NEW.redacted_by IS NOT (SELECT MAX(id) FROM transactions)
  OR NOT (SELECT principal FROM transactions WHERE id = NEW.redacted_by) GLOB 'operator:?*'
BEGIN
    SELECT RAISE(ABORT, 'factledger: the chain is append-only (an erase may only drop a reason''s salt)');
END;

CREATE TRIGGER tx_chain_text_at_insert
BEFORE INSERT ON tx_chain
WHEN NEW.text_hash IS NOT NULL AND NEW.redacted_by IS NULL AND NEW.text_salt IS NULL
BEGIN
    SELECT RAISE(ABORT, 'factledger: a reason''s hash keeps its salt until an erase drops it');
END;

DROP TRIGGER transactions_no_update;
CREATE TRIGGER transactions_no_update
BEFORE UPDATE ON transactions
WHEN NEW.id IS NOT OLD.id OR NEW.tx_time IS NOT OLD.tx_time OR NEW.principal IS NOT OLD.principal
  OR (SELECT redacted_by FROM tx_chain WHERE tx_id = OLD.id) IS NOT (SELECT MAX(id) FROM transactions)
BEGIN
    SELECT RAISE(ABORT, 'factledger: transactions are append-only');
END;
