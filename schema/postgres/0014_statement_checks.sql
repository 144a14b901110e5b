-- factledger (PostgreSQL 15): three per-row checks of the write path run once per statement, over the
-- statement's new rows (a transition table), with the same refusals and messages (issue 24).
--
-- The ledger writes a transaction's versions, and their hash rows, each in one INSERT from arrays; a
-- BEFORE ROW trigger ran its plpgsql function (and its lookups of the head, the predicate, the largest
-- hash id, the version) once per row. An AFTER ... FOR EACH STATEMENT trigger that raises aborts the
-- INSERT just as well: nothing of the statement is written, for any client. What changes is only which
-- error a row that breaks several rules at once reports first: the row's CHECK constraints, unique
-- indexes, exclusion constraints and foreign keys are now checked before these rules, not after (a
-- closed version that also overlaps reports the overlap). Every single-rule forgery gets the message
-- it got before (tests/postgres/test_schema_refusals.py, tests/ledger/test_migrate_gate.py).
-- AFTER STATEMENT triggers fire in name order, so the id rule still comes before the opening rules,
-- and both before recall's lexical lanes (recall_claims_insert).

-- 0003: ids are never reused, not even an erased version's (its hash row keeps the id).
DROP TRIGGER claims_id_increases ON claims;
CREATE OR REPLACE FUNCTION claims_id_increases() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM new_rows WHERE id <= (SELECT MAX(claim_id) FROM version_hashes)) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: a claim id must be larger than every earlier one';
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER claims_id_increases AFTER INSERT ON claims
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION claims_id_increases();

-- 0001: a version is inserted open, by the latest transaction, with tx_from equal to its time, and with
-- its predicate's cardinality (the three rules in 0001's order).
DROP TRIGGER claims_insert_open ON claims;
CREATE OR REPLACE FUNCTION claims_insert_open() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    head ledger_head%ROWTYPE;
BEGIN
    IF EXISTS (SELECT 1 FROM new_rows WHERE tx_to IS NOT NULL OR closed_by IS NOT NULL) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: a claim version is inserted open (tx_to NULL); a later transaction closes it';
    END IF;
    SELECT * INTO head FROM ledger_head WHERE id = 1;
    IF EXISTS (SELECT 1 FROM new_rows WHERE opened_by IS DISTINCT FROM head.tx_id OR tx_from IS DISTINCT FROM head.tx_time) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: a claim version is opened by the latest transaction, with tx_from equal to its tx_time';
    END IF;
    IF EXISTS (SELECT 1 FROM new_rows n LEFT JOIN predicates p ON p.name = n.predicate
                WHERE n.cardinality IS DISTINCT FROM p.cardinality) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: claim cardinality differs from its predicate';
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER claims_insert_open AFTER INSERT ON claims
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION claims_insert_open();

-- 0003 as 0007 left it: a hash row mirrors its version's opening and is written by the opening
-- transaction. The hash rows of opened versions (erased_by NULL: every row the ledger writes) are checked
-- once per statement. A hole (erased_by set: only migrate's copy, under the migrate gate, writes one)
-- keeps 0007's row trigger, limited by WHEN to those rows, so a forged hole is refused before its CHECK
-- constraints as it was (tests/ledger/test_migrate_gate.py pins that message).
DROP TRIGGER version_hashes_insert ON version_hashes;
CREATE TRIGGER version_hashes_insert BEFORE INSERT ON version_hashes
    FOR EACH ROW WHEN (NEW.erased_by IS NOT NULL) EXECUTE FUNCTION version_hashes_insert();

CREATE FUNCTION version_hashes_insert_opened() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM new_rows n LEFT JOIN claims c ON c.id = n.claim_id
                WHERE n.erased_by IS NULL
                  AND (c.id IS NULL
                       OR n.opened_by IS DISTINCT FROM c.opened_by
                       OR n.closed_by IS DISTINCT FROM c.closed_by
                       OR (n.opened_by IS DISTINCT FROM (SELECT tx_id FROM ledger_head WHERE id = 1)
                           AND n.opened_by > (SELECT legacy_through FROM chain_start WHERE id = 1)))) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: a version hash is written by the transaction that opened the version';
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER version_hashes_insert_opened AFTER INSERT ON version_hashes
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION version_hashes_insert_opened();
