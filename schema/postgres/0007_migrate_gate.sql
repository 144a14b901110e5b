-- factledger migrate gate (PostgreSQL 15; schema/sqlite/0014 is its twin). `factledger migrate` copies a
-- ledger by replaying its history through this schema's rules, transaction by transaction, with every
-- id and time as the source holds them. Three things of a source's history no rule lets a client write,
-- because a ledger only ever produces them itself:
--   * the hash row of a version an erase removed (a hole: no claim row, no salt, erased_by set);
--   * the chain start (legacy_through), fixed by 0003 when the ledger was created;
--   * the ledger secret, fixed by 0004 (every keyed hash of the source depends on it).
-- The gate lets exactly those be written, and only into an empty ledger, only in the transaction that
-- opened it: it opens only when nothing of history, the digest or erase is there; it names the opening
-- transaction (pg_current_xact_id) and every rule it relaxes checks that name; a deferred check refuses
-- a commit that leaves it open. The chain start and the secret change only before the first
-- transaction; a hole is written only by the replayed erasing transaction while it is the latest and
-- before its chain row. While it is open, no transaction past the copy's last (`through_tx`) is accepted.

CREATE TABLE migrate_gate (
    id          integer PRIMARY KEY CHECK (id = 1),
    through_tx  bigint NOT NULL CHECK (through_tx >= 0),         -- the source's latest transaction id
    opened_in   xid8 NOT NULL DEFAULT pg_current_xact_id()       -- the copy's own transaction
);

CREATE FUNCTION migrate_gate_empty_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.opened_in IS DISTINCT FROM pg_current_xact_id()
       OR EXISTS (SELECT 1 FROM transactions) OR EXISTS (SELECT 1 FROM predicates) OR EXISTS (SELECT 1 FROM claims)
       OR EXISTS (SELECT 1 FROM claim_provenance) OR EXISTS (SELECT 1 FROM version_hashes)
       OR EXISTS (SELECT 1 FROM tx_chain) OR EXISTS (SELECT 1 FROM tombstones) OR EXISTS (SELECT 1 FROM journal)
       OR EXISTS (SELECT 1 FROM proposals) OR EXISTS (SELECT 1 FROM rejections) OR EXISTS (SELECT 1 FROM confirmations)
       OR EXISTS (SELECT 1 FROM erased_texts) OR EXISTS (SELECT 1 FROM exports) OR EXISTS (SELECT 1 FROM digest_leases) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: the migrate gate opens only on an empty ledger, for the opening transaction';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER migrate_gate_empty_only BEFORE INSERT ON migrate_gate
    FOR EACH ROW EXECUTE FUNCTION migrate_gate_empty_only();
CREATE TRIGGER migrate_gate_no_update BEFORE UPDATE ON migrate_gate
    FOR EACH ROW EXECUTE FUNCTION factledger_refuse('the migrate gate is opened and closed, never changed');

CREATE FUNCTION migrate_gate_closed_at_commit() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM migrate_gate) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: the migrate gate must be closed before the copy commits';
    END IF;
    RETURN NULL;
END;
$$;
CREATE CONSTRAINT TRIGGER migrate_gate_closed_at_commit AFTER INSERT ON migrate_gate
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION migrate_gate_closed_at_commit();

-- True while the gate is open in this transaction.
CREATE FUNCTION factledger_migrating() RETURNS boolean
LANGUAGE sql VOLATILE
RETURN EXISTS (SELECT 1 FROM migrate_gate WHERE opened_in = pg_current_xact_id());

-- A gate that is open must not let the ledger grow past the copy.
CREATE FUNCTION transactions_within_migrate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.id > (SELECT through_tx FROM migrate_gate WHERE id = 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: the migrate gate is open: no transaction past the copy''s last until it is closed';
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER transactions_within_migrate AFTER INSERT ON transactions
    FOR EACH ROW EXECUTE FUNCTION transactions_within_migrate();

-- 0003's rule, and under the gate the hole an erase left: the hash row of a version that is not there,
-- erased by the latest (replayed, operator's) transaction before its chain row, opened (and closed)
-- before it, without its salt.
CREATE OR REPLACE FUNCTION version_hashes_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    version claims%ROWTYPE;
    latest bigint := (SELECT tx_id FROM ledger_head WHERE id = 1);
BEGIN
    IF NEW.erased_by IS NOT NULL THEN
        IF NOT factledger_migrating()
           OR EXISTS (SELECT 1 FROM claims WHERE id = NEW.claim_id)
           OR NEW.erased_by IS DISTINCT FROM latest
           OR (SELECT principal FROM transactions WHERE id = NEW.erased_by) !~ '^operator:.'
           OR EXISTS (SELECT 1 FROM tx_chain WHERE tx_id = NEW.erased_by)
           OR NOT NEW.opened_by < NEW.erased_by
           OR (NEW.closed_by IS NOT NULL AND NOT (NEW.opened_by < NEW.closed_by AND NEW.closed_by <= NEW.erased_by))
           OR NEW.salt IS NOT NULL THEN
            RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
                MESSAGE = 'factledger: a version hash is written by the transaction that opened the version';
        END IF;
        RETURN NEW;
    END IF;
    SELECT * INTO version FROM claims WHERE id = NEW.claim_id;
    IF NOT FOUND
       OR NEW.opened_by IS DISTINCT FROM version.opened_by
       OR NEW.closed_by IS DISTINCT FROM version.closed_by
       OR (NEW.opened_by IS DISTINCT FROM latest
           AND NEW.opened_by > (SELECT legacy_through FROM chain_start WHERE id = 1)) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation',
            MESSAGE = 'factledger: a version hash is written by the transaction that opened the version';
    END IF;
    RETURN NEW;
END;
$$;

-- The chain start and the secret are fixed, but for the copy's first step: before any transaction (and,
-- for the secret, any keyed row), under the gate.
CREATE FUNCTION migrate_first_step_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT factledger_migrating() OR NEW.id IS DISTINCT FROM OLD.id
       OR EXISTS (SELECT 1 FROM transactions) OR EXISTS (SELECT 1 FROM tombstones) OR EXISTS (SELECT 1 FROM rejections)
       OR EXISTS (SELECT 1 FROM confirmations) OR EXISTS (SELECT 1 FROM erased_texts) THEN
        RAISE EXCEPTION USING ERRCODE = 'integrity_constraint_violation', MESSAGE = 'factledger: ' || TG_ARGV[0];
    END IF;
    RETURN NEW;
END;
$$;
DROP TRIGGER chain_start_fixed ON chain_start;
CREATE TRIGGER chain_start_fixed BEFORE UPDATE ON chain_start
    FOR EACH ROW EXECUTE FUNCTION migrate_first_step_only('the chain start is fixed');
DROP TRIGGER ledger_secret_fixed ON ledger_secret;
CREATE TRIGGER ledger_secret_fixed BEFORE UPDATE ON ledger_secret
    FOR EACH ROW EXECUTE FUNCTION migrate_first_step_only('the ledger secret never changes (every stored hash depends on it)');
