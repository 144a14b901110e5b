"""The erase part's recorder on PostgreSQL (ledger/erase_recorder.py): erase, the guard, exports, verify.

Scrub on PostgreSQL: a DELETE leaves the row as a dead tuple in its heap page (and its key in every
index, and its long values in the TOAST table) until VACUUM; plain VACUUM frees the space but does not
overwrite it, so the bytes can stay in the file. VACUUM FULL writes each table, its TOAST table and its
indexes anew and unlinks the old files; ANALYZE then replaces sampled values kept in pg_statistic;
CHECKPOINT flushes the rewritten pages and lets older WAL segments be recycled. What this cannot
reach — WAL segments not yet overwritten, WAL archives, base backups, replicas' files, server logs —
is the operator's (docs/RELIABILITY.md, "Erase on PostgreSQL").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from factledger.schema import migrations

from .erase_recorder import ExportRecord, Finding, GuardRow, TombstoneRow
from .errors import LedgerError, StorageError
from .model import ClaimVersion
from .sqlite_erase_recorder import ROW_KEYS, TIMESTAMP_COLUMNS, TOMBSTONE_LOST, migration_findings
from .storage import ScrubReport

REMAINS = (
    "PostgreSQL's WAL (pg_wal segments until they are recycled and overwritten, every WAL archive), base"
    " backups and replicas still hold earlier copies; they are the operator's to expire"
)
# Where verify builds the schema the migrations create, inside a transaction it rolls back.
_EXPECTED_SCHEMA = "factledger_expected"

# Every object of one schema with its definition (extensions' own functions left out). Names are schema-qualified in definitions where the
# search path needs it; _unqualified strips both schemas' names before comparing.
_CATALOG = """
SELECT 'table' AS kind, c.relname::text AS name,
       string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                  || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
                  || COALESCE(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
                  || CASE WHEN a.attidentity <> '' THEN ' IDENTITY ' || a.attidentity::text ELSE '' END,
                  ', ' ORDER BY a.attnum) AS definition
  FROM pg_class c
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
 WHERE c.relnamespace = %(schema)s::regnamespace AND c.relkind IN ('r', 'p')
 GROUP BY c.relname
UNION ALL
SELECT 'view', c.relname::text, pg_get_viewdef(c.oid)
  FROM pg_class c WHERE c.relnamespace = %(schema)s::regnamespace AND c.relkind IN ('v', 'm')
UNION ALL
SELECT 'constraint', r.relname::text || '.' || k.conname::text, pg_get_constraintdef(k.oid)
  FROM pg_constraint k JOIN pg_class r ON r.oid = k.conrelid
 WHERE k.connamespace = %(schema)s::regnamespace
UNION ALL
SELECT 'index', i.relname::text, pg_get_indexdef(i.oid)
  FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
 WHERE i.relnamespace = %(schema)s::regnamespace
UNION ALL
SELECT 'trigger', r.relname::text || '.' || t.tgname::text, pg_get_triggerdef(t.oid) || ' ' || t.tgenabled::text
  FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid
 WHERE r.relnamespace = %(schema)s::regnamespace AND NOT t.tgisinternal
UNION ALL
SELECT 'function', p.proname::text || '(' || pg_get_function_identity_arguments(p.oid) || ')',
       pg_get_function_result(p.oid) || ' ' || p.provolatile::text || ' ' || md5(p.prosrc)
  FROM pg_proc p WHERE p.pronamespace = %(schema)s::regnamespace
   AND NOT EXISTS (SELECT 1 FROM pg_depend e WHERE e.classid = 'pg_proc'::regclass AND e.objid = p.oid AND e.deptype = 'e')
"""


def _unqualified(definition: str | None, schemas: Sequence[str]) -> str | None:
    if definition is None:
        return None
    for schema in schemas:
        definition = definition.replace(f"{schema}.", "")
    return definition


class PostgresErasureRecorder:
    def __init__(self, storage: Any):
        self.storage = storage

    # -- erase ----------------------------------------------------------------------------------

    def secret(self) -> str | None:
        if not self._exists("ledger_secret"):
            return None
        row = self.storage.one("SELECT secret FROM ledger_secret WHERE id = 1")
        return None if row is None else str(row[0])

    def slot_versions(self, scope: str, subject_key: str, predicate: str, value_key: str | None) -> list[ClaimVersion]:
        sql = "SELECT * FROM claims WHERE scope = %s AND subject_key = %s AND predicate = %s"
        params: list[object] = [scope, subject_key, predicate]
        if value_key is not None:
            sql += " AND value_key = %s"
            params.append(value_key)
        return [ClaimVersion.from_row(r) for r in self.storage.query(sql + " ORDER BY id", params)]

    def family_versions(
        self, scopes: Sequence[str], subject_key: str, predicate: str, value_keys: Sequence[str]
    ) -> list[ClaimVersion]:
        rows = self.storage.query(
            "SELECT * FROM claims WHERE scope = ANY(%s) AND subject_key = %s AND predicate = %s"
            " AND value_key = ANY(%s) ORDER BY id",
            (list(scopes), subject_key, predicate, list(value_keys)),
        )
        return [ClaimVersion.from_row(r) for r in rows]

    def delete_versions(self, tx_id: int, principal: str, claim_ids: Sequence[int]) -> list[str]:
        storage, ids = self.storage, list(claim_ids)
        with storage.atomic():
            storage.execute("INSERT INTO erase_gate (id, tx_id, principal) VALUES (1, %s, %s)", (tx_id, principal))
            repeated = [
                r[0]
                for r in storage.query(
                    # Byte order, as SQLite sorts text.
                    'SELECT DISTINCT source COLLATE "C" FROM claim_provenance WHERE claim_id = ANY(%s) ORDER BY 1',
                    (ids,),
                )
            ]
            storage.execute("DELETE FROM claim_provenance WHERE claim_id = ANY(%s)", (ids,))
            storage.execute("DELETE FROM claims WHERE id = ANY(%s)", (ids,))
            storage.execute("DELETE FROM erase_gate")
        return repeated

    def add_tombstones(self, rows: Sequence[TombstoneRow]) -> None:
        self.storage.executemany(
            "INSERT INTO tombstones (content_hash, erased_at, principal, reason) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (content_hash) DO NOTHING",
            [(r.content_hash, r.erased_at, r.principal, r.reason) for r in rows],
        )

    def add_guards(self, rows: Sequence[GuardRow]) -> None:
        self.storage.executemany(
            "INSERT INTO erased_texts (match, scope, words, text_hash, erase_tx) VALUES (%s, %s, %s, %s, %s)"
            " ON CONFLICT (match, scope, text_hash) DO NOTHING",
            [(r.match, r.scope, r.words, r.text_hash, r.erase_tx) for r in rows],
        )

    def prefix_scopes_covering(self, scope: str) -> list[str]:
        rows = self.storage.query(
            "SELECT DISTINCT scope FROM erased_texts WHERE match = 'prefix' AND starts_with(%s, scope)", (scope,)
        )
        return [r[0] for r in rows]

    def any_tombstone(self, content_hashes: Sequence[str]) -> bool:
        found = self.storage.one("SELECT 1 FROM tombstones WHERE content_hash = ANY(%s) LIMIT 1", (list(content_hashes),))
        return found is not None

    def guards_for(self, scope: str) -> list[tuple[int, str]]:
        rows = self.storage.query(
            "SELECT words, text_hash FROM erased_texts"
            " WHERE (match = 'exact' AND scope = %(scope)s) OR (match = 'prefix' AND starts_with(%(scope)s, scope))",
            {"scope": scope},
        )
        return [(int(r[0]), r[1]) for r in rows]

    def scrub(self, *, wait: float = 2.0) -> ScrubReport:
        """VACUUM (FULL, ANALYZE) of every table of the ledger's schema, then CHECKPOINT when permitted.

        Every table, not a list: an erase deletes and rewrites rows in several parts' tables (claims,
        provenance, version hashes, journal turns, proposals, the lexical index), and a table this
        module does not know of must not keep a dead copy. VACUUM FULL takes each table's ACCESS
        EXCLUSIVE lock in turn: readers and writers of that table wait up to the lock timeout."""
        storage = self.storage
        if storage.in_transaction:
            raise StorageError("scrub cannot run inside a transaction")
        if storage.read_only:
            return ScrubReport((), False, 0, "the ledger is read-only", engine="postgres", remains=REMAINS)
        tables = [
            r[0]
            for r in storage.query(
                "SELECT c.relname FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace"
                " AND c.relkind = 'r' ORDER BY c.relname"
            )
        ]
        rewritten: list[str] = []
        busy = ""
        for table in tables:
            try:
                storage.execute(f'VACUUM (FULL, ANALYZE) "{table}"')  # names from the catalog
                rewritten.append(table)
            except LedgerError as exc:
                busy = f"{table} was not rewritten ({exc}); run scrub again"
        checkpointed = False
        try:
            storage.execute("CHECKPOINT")  # superuser or pg_checkpoint
            checkpointed = True
        except LedgerError as exc:
            busy = busy or f"CHECKPOINT is not permitted for this role ({exc}); grant pg_checkpoint"
        return ScrubReport(
            (), False, 0, busy, engine="postgres", rewritten_tables=tuple(rewritten), checkpointed=checkpointed,
            remains=REMAINS,
        )

    # -- the manifest of exports ----------------------------------------------------------------

    def add_export(
        self, *, directory: str, fmt: str, snapshot_tx_time: str | None, exported_at: str, tables: Sequence[str]
    ) -> ExportRecord:
        with self.storage.atomic():
            row = self.storage.one(
                "INSERT INTO exports (directory, format, snapshot_tx_time, exported_at, tables)"
                " VALUES (%s, %s, %s, %s, %s) RETURNING *",
                (directory, fmt, snapshot_tx_time, exported_at, json.dumps(list(tables))),
            )
        return ExportRecord.from_row(row)

    def exports_since(self, since: str) -> list[ExportRecord]:
        rows = self.storage.query("SELECT * FROM exports WHERE exported_at >= %s ORDER BY id", (since,))
        return [ExportRecord.from_row(r) for r in rows]

    # -- verify ---------------------------------------------------------------------------------

    def _exists(self, table: str) -> bool:
        return self.storage.one("SELECT to_regclass(%s) IS NOT NULL", (table,))[0]

    def _columns(self) -> set[tuple[str, str]]:
        rows = self.storage.query(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()"
        )
        return {(r[0], r[1]) for r in rows}

    def _rows(self, table: str, sql: str, problem: str | Callable[[Any], str]) -> list[Finding]:
        return [Finding(table, r[0], problem(r) if callable(problem) else problem) for r in self.storage.query(sql)]

    def engine_integrity(self) -> list[tuple[str, list[Finding], str, str]]:
        """PostgreSQL checks every reference itself, unless a superuser switched the checks off
        (session_replication_role = replica skips the foreign-key triggers): every single-column
        foreign key of the schema is checked row by row here."""
        keys = self.storage.query(
            "SELECT r.relname, a.attname, p.relname, b.attname FROM pg_constraint k"
            " JOIN pg_class r ON r.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid"
            " JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]"
            " JOIN pg_attribute b ON b.attrelid = k.confrelid AND b.attnum = k.confkey[1]"
            " WHERE k.contype = 'f' AND cardinality(k.conkey) = 1 AND k.connamespace = current_schema()::regnamespace"
            " ORDER BY 1, 2"
        )
        found: list[Finding] = []
        for child, column, parent, referenced in keys:
            found += self._rows(
                child,
                f'SELECT c."{column}" FROM "{child}" c WHERE c."{column}" IS NOT NULL'
                f' AND NOT EXISTS (SELECT 1 FROM "{parent}" p WHERE p."{referenced}" = c."{column}")',
                lambda r, column=column, parent=parent: f"{column} {r[0]!r} references a missing {parent} row",
            )
        return [("foreign_keys", found, "every reference resolves", "{n} row(s) break the rule")]

    def _catalog(self, schema: str) -> dict[tuple[str, str], str | None]:
        rows = self.storage.query(_CATALOG, {"schema": schema})
        return {(r[0], r[1]): _unqualified(r[2], (schema, _EXPECTED_SCHEMA, "public")) for r in rows}

    def expected_schema(self) -> dict[tuple[str, str], str | None]:
        """Every object the migrations create, built in a scratch schema inside a transaction that is
        rolled back (nothing stays; works on a read-only connection, which may still begin READ WRITE)."""
        storage = self.storage
        if storage.in_transaction:
            raise StorageError("the expected schema is built outside any transaction")
        with storage.pinned():  # one raw transaction on one connection, ended by ROLLBACK whatever happens
            storage.execute("BEGIN READ WRITE")
            try:
                storage.execute(f"CREATE SCHEMA {_EXPECTED_SCHEMA}")
                storage.execute(f"SET LOCAL search_path TO {_EXPECTED_SCHEMA}, public")
                for migration in migrations("postgres"):
                    storage.execute(migration.sql)
                return self._catalog(_EXPECTED_SCHEMA)
            finally:
                storage.execute("ROLLBACK")

    def schema_findings(self, expected: dict[tuple[str, str], str | None]) -> tuple[list[Finding], int]:
        schema = self.storage.one("SELECT current_schema()")[0]
        actual = self._catalog(schema)
        actual.pop(("table", "schema_migrations"), None)  # bookkeeping, written by pg_storage.py
        for key in [k for k in actual if k[1].startswith("schema_migrations")]:
            actual.pop(key)
        findings = []
        for (kind, name), definition in sorted(expected.items()):
            if (kind, name) not in actual:
                findings.append(Finding("pg_catalog", name, f"{kind} missing (dropped, or a migration not applied)"))
            elif actual[(kind, name)] != definition:
                findings.append(Finding("pg_catalog", name, f"{kind} differs from its migration's SQL"))
        for (kind, name) in sorted(set(actual) - set(expected)):
            findings.append(Finding("pg_catalog", name, f"{kind} not created by any migration"))
        known = {m.version for m in migrations("postgres")}
        applied = {r[0] for r in self.storage.query("SELECT version FROM schema_migrations")}
        return findings + migration_findings(known, applied), len(expected)

    def has_chain(self) -> bool:
        return self._exists("tx_chain")

    def check_constraints(self) -> list[Finding]:
        """PostgreSQL evaluates every CHECK constraint on every write, for every client (there is no switch
        like SQLite's ignore_check_constraints, and session_replication_role skips triggers and foreign
        keys, not CHECKs); a dropped or weakened one is a schema finding. Nothing to query row by row."""
        return []

    def bad_timestamps(self) -> list[Finding]:
        columns = self._columns()
        times: list[Finding] = []
        for table, names in TIMESTAMP_COLUMNS.items():
            key = ROW_KEYS.get(table, "id")
            for column in names:
                if (table, column) not in columns:
                    continue
                # The bounds of 0001's factledger_time_ok, spelled out: a raw client may have dropped it.
                times += self._rows(
                    table,
                    f"SELECT {key}, {column}::text FROM {table} WHERE {column} IS NOT NULL AND NOT"
                    f" ({column} >= '0001-01-01 00:00:00+00'::timestamptz AND {column} < '10000-01-01 00:00:00+00'::timestamptz)",
                    lambda r, column=column: f"{column} {r[1]!r} is not a UTC timestamp YYYY-MM-DDTHH:MM:SS.ffffffZ",
                )
        return times

    def bad_intervals(self) -> list[Finding]:
        checks = [
            ("SELECT id, valid_from, valid_to FROM claims WHERE valid_to IS NOT NULL AND valid_from >= valid_to",
             lambda r: f"valid time [{r[1]}, {r[2]}) is empty or reversed"),
            ("SELECT id, tx_from, tx_to FROM claims WHERE tx_to IS NOT NULL AND tx_from >= tx_to",
             lambda r: f"transaction time [{r[1]}, {r[2]}) is empty or reversed"),
            ("SELECT id FROM claims WHERE (tx_to IS NULL) <> (closed_by IS NULL)",
             lambda r: "tx_to and closed_by disagree about whether the version is closed"),
            ("SELECT c.id, c.tx_from, o.tx_time FROM claims c LEFT JOIN transactions o ON o.id = c.opened_by"
             " WHERE o.tx_time IS DISTINCT FROM c.tx_from",
             lambda r: f"tx_from {r[1]} is not its opening transaction's tx_time ({r[2]})"),
            ("SELECT c.id, c.tx_to, x.tx_time FROM claims c LEFT JOIN transactions x ON x.id = c.closed_by"
             " WHERE c.closed_by IS NOT NULL AND x.tx_time IS DISTINCT FROM c.tx_to",
             lambda r: f"tx_to {r[1]} is not its closing transaction's tx_time ({r[2]})"),
            ("SELECT c.id, c.cardinality, p.cardinality FROM claims c LEFT JOIN predicates p ON p.name = c.predicate"
             " WHERE p.cardinality IS DISTINCT FROM c.cardinality",
             lambda r: f"cardinality {r[1]!r} differs from its predicate's ({r[2]!r})"),
        ]
        return [f for sql, problem in checks for f in self._rows("claims", sql, problem)]

    def overlaps(self) -> list[Finding]:
        return self._rows(
            "claims",
            "SELECT b.id, a.id FROM claims a JOIN claims b"
            " ON a.scope = b.scope AND a.subject_key = b.subject_key AND a.predicate = b.predicate AND a.id < b.id"
            " WHERE a.tx_to IS NULL AND b.tx_to IS NULL"
            " AND (a.cardinality = 'one' OR a.value_key = b.value_key)"
            " AND tstzrange(a.valid_from, a.valid_to) && tstzrange(b.valid_from, b.valid_to)",
            lambda r: f"overlaps current version {r[1]} in valid time",
        )

    def bad_transactions(self) -> list[Finding]:
        found = self._rows(
            "transactions",
            "SELECT id, tx_time, previous FROM (SELECT id, tx_time, LAG(tx_time) OVER (ORDER BY id) AS previous"
            " FROM transactions) t WHERE previous IS NOT NULL AND tx_time <= previous",
            lambda r: f"tx_time {r[1]} is not later than the previous transaction's ({r[2]})",
        )
        found += self._rows(
            "transactions",
            "SELECT id, principal FROM transactions WHERE principal !~ '^(operator|agent|digest|import):.'",
            lambda r: f"principal {r[1]!r} is of no known kind",
        )
        return found

    def erase_problems(self) -> list[Finding]:
        gate = self._rows("erase_gate", "SELECT id, principal FROM erase_gate", lambda r: f"left open for {r[1]}")
        if self._exists("migrate_gate"):  # schema/*/migrate_gate: closed by the copy that opened it
            gate += self._rows("migrate_gate", "SELECT id, through_tx FROM migrate_gate",
                               lambda r: f"left open by a copy (through transaction {r[1]})")
        if self._exists("version_hashes"):
            gate += self._rows(
                "transactions",
                "SELECT DISTINCT v.erased_by FROM version_hashes v JOIN transactions t ON t.id = v.erased_by"
                " WHERE v.erased_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tombstones s WHERE s.erased_at = t.tx_time)",
                TOMBSTONE_LOST,
            )
        return gate
