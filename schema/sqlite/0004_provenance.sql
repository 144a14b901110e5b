-- Provenance that adds no version: an add (or supersede) of a value the slot already holds over the
-- interval writes no claim row, but who said it again, and where, is kept here. Erase follows these
-- references too, so a journal turn that repeated an erased value is removed with it.
CREATE TABLE claim_provenance (
    claim_id  INTEGER NOT NULL REFERENCES claims(id),
    tx_id     INTEGER NOT NULL REFERENCES transactions(id),
    source    TEXT NOT NULL,
    PRIMARY KEY (claim_id, tx_id, source)
) WITHOUT ROWID;

CREATE TRIGGER claim_provenance_no_update
BEFORE UPDATE ON claim_provenance
BEGIN
    SELECT RAISE(ABORT, 'factledger: provenance is append-only');
END;

CREATE TRIGGER claim_provenance_no_delete
BEFORE DELETE ON claim_provenance
WHEN NOT EXISTS (SELECT 1 FROM erase_gate)
BEGIN
    SELECT RAISE(ABORT, 'factledger: provenance is never deleted outside erase');
END;
