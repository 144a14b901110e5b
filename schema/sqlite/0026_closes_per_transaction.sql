-- factledger, version 26 (SQLite): a close's derived rows written once per transaction, and the
-- transaction-time form checks of claims asked only of a time that is not the latest transaction's.
--
-- 1. Closing a version queued an outbox `close` row per closed row (`recall_claims_close`, 0003): an
--    AUTOINCREMENT insert, with a read and a write of sqlite_sequence, in a trigger program of its
--    own, about a tenth of the schema's time on a batch (docs/BENCHMARKS.md). Like the lexical rows
--    (0023) it is now written from the transaction's chain row, the one row every complete
--    transaction writes exactly once after its closes: one statement over the versions the
--    transaction closed, found through their hash rows (`version_hashes_closed`: the mirror of a
--    close into the version's hash row, `claims_close_mirrored`, stays per row, so a raw client's
--    close is mirrored even without a chain row; an index on claims.closed_by would cost more than
--    the trigger it replaces). Not for a legacy chain row (`chain.backfill`: a transaction from
--    before the chain, whose closes were queued when they happened), unless the migrate gate is open
--    (`factledger migrate` replays those transactions too, and their closes were never queued in the
--    copy). Created last, it runs before `recall_claims_insert_tx` (SQLite runs the most recent
--    trigger first), so a transaction's closes are queued before its inserts, as they were. A raw
--    client that closes versions and writes no chain row queues no outbox row for them; `verify`
--    reports the missing chain row.
-- 2. `claims_tx_from_form_insert` and `claims_tx_to_form_update` check the text form only of a time
--    that differs from the latest transaction's tx_time: that one passed the same check when its
--    transaction was inserted (`transactions_tx_time_form_insert`, and a transaction's tx_time never
--    changes), and any other time is refused by `claims_opened_by_latest` /
--    `claims_closed_by_latest` anyway. A malformed time still differs from it, so it is still
--    refused here first, with the same message. Recreated here, they are still the most recent
--    triggers of their statements, so they still run first.

DROP TRIGGER recall_claims_close;

CREATE TRIGGER recall_claims_close
AFTER INSERT ON tx_chain
BEGIN
    INSERT INTO recall_outbox (claim_id, change)
    SELECT claim_id, 'close' FROM version_hashes
     WHERE closed_by = NEW.tx_id
       AND (NEW.tx_id > (SELECT legacy_through FROM chain_start) OR EXISTS (SELECT 1 FROM migrate_gate))
     ORDER BY claim_id;
END;

DROP TRIGGER claims_tx_from_form_insert;
DROP TRIGGER claims_tx_to_form_update;

CREATE TRIGGER claims_tx_from_form_insert
BEFORE INSERT ON claims
WHEN NEW.tx_from IS NOT (SELECT MAX(tx_time) FROM transactions)
 AND NOT (NEW.tx_from GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
          AND substr(NEW.tx_from, 12, 2) < '24' AND date(substr(NEW.tx_from, 1, 10), '+0 days') IS substr(NEW.tx_from, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: claims.tx_from must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;

CREATE TRIGGER claims_tx_to_form_update
BEFORE UPDATE OF tx_to ON claims
WHEN NEW.tx_to IS NOT (SELECT MAX(tx_time) FROM transactions)
 AND NOT (NEW.tx_to GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9][0-9][0-9][0-9]Z'
          AND substr(NEW.tx_to, 12, 2) < '24' AND date(substr(NEW.tx_to, 1, 10), '+0 days') IS substr(NEW.tx_to, 1, 10))
BEGIN
    SELECT RAISE(ABORT, 'factledger: claims.tx_to must be a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ');
END;
