-- factledger, version 13 (SQLite): the manifest of known exports is append-only, as on PostgreSQL
-- (schema/postgres/0004_erase.sql). An entry deleted or edited would hide an export that holds an
-- erased value from the erase report.

CREATE TRIGGER exports_no_update
BEFORE UPDATE ON exports
BEGIN
    SELECT RAISE(ABORT, 'factledger: the manifest of exports is append-only');
END;

CREATE TRIGGER exports_no_delete
BEFORE DELETE ON exports
BEGIN
    SELECT RAISE(ABORT, 'factledger: the manifest of exports is append-only');
END;
