"""`factledger migrate`'s SQL for a PostgreSQL ledger: what it holds, its rows in order, and the writes
of a replay (ledger/migrate.py drives them; the SQLite twin is ledger/migrate_sqlite.py).

Times cross as the canonical text: PostgresStorage reads every timestamptz back in that form, and
PostgreSQL reads 'YYYY-MM-DDTHH:MM:SS.ffffffZ' into timestamptz exactly (the Z fixes the zone)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from .pg_storage import PostgresStorage

# Never copied: the migrations record (the target has its own), the engine's head row (the target's
# triggers move it as the replay inserts transactions), the gates (always closed between transactions),
# recall's derived state (the lexical rows and outboxes are written by the target's triggers; the vector
# folder is the target's own).
_OWN = {"schema_migrations", "ledger_head", "erase_gate", "migrate_gate"}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class PostgresTables:
    """A PostgreSQL ledger as migrate sees it."""

    engine = "postgres"

    def __init__(self, storage: PostgresStorage):
        self.storage = storage
        self._types: dict[str, dict[str, str]] = {}

    def tables(self) -> dict[str, list[str]]:
        rows = self.storage.query(
            "SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c"
            " JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name"
            " WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'"
            " ORDER BY c.table_name, c.ordinal_position"
        )
        tables: dict[str, list[str]] = {}
        for table, column, kind in rows:
            if table in _OWN or table.startswith("recall_"):
                continue
            tables.setdefault(table, []).append(column)
            self._types.setdefault(table, {})[column] = kind
        return tables

    def key_columns(self, table: str) -> list[str]:
        rows = self.storage.query(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)"
            " WHERE i.indrelid = to_regclass(%s) AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)",
            (_quote(table),),
        )
        return [r[0] for r in rows] or ["ctid"]

    def count(self, table: str) -> int:
        return int(self.storage.one(f"SELECT count(*) FROM {_quote(table)}")[0])

    def rows(self, table: str, columns: Sequence[str], *, where: str = "", params: Sequence[Any] = ()) -> Iterator[tuple]:
        if not self._types:
            self.tables()
        types = self._types.get(table, {})
        # Text keys in code point order (as SQLite's BINARY compares), whatever the column's collation.
        order = ", ".join(
            "ctid" if c == "ctid" else _quote(c) + (' COLLATE "C"' if types.get(c) == "text" else "")
            for c in self.key_columns(table)
        )
        cols = ", ".join(_quote(c) for c in columns)
        clause = f" WHERE {where}" if where else ""
        for row in self.storage.query(f"SELECT {cols} FROM {_quote(table)}{clause} ORDER BY {order}", params):
            yield tuple(row)

    def by_transaction(self, table: str, columns: Sequence[str], column: str, tx_id: int, *, unless: str = "") -> list[tuple]:
        """The rows whose `column` names the transaction (and whose `unless` column is NULL)."""
        where = f"{_quote(column)} = %s" + (f" AND {_quote(unless)} IS NULL" if unless else "")
        return list(self.rows(table, columns, where=where, params=(tx_id,)))

    def last_transaction_id(self) -> int:
        return int(self.storage.one("SELECT COALESCE(MAX(id), 0) FROM transactions")[0])

    def held_leases(self, now: str) -> list[tuple[int, str, str]]:
        """Digest leases not yet expired at `now`: (entry, holder, until)."""
        return [tuple(r) for r in self.storage.query(
            "SELECT entry_id, holder, until FROM digest_leases WHERE until > %s::timestamptz ORDER BY entry_id", (now,))]

    # -- the migrate gate (schema/postgres/0007_migrate_gate.sql) ----------------------------------

    def open_gate(self, through_tx: int) -> None:
        self.storage.execute("INSERT INTO migrate_gate (id, through_tx) VALUES (1, %s)", (through_tx,))

    def close_gate(self) -> None:
        self.storage.execute("DELETE FROM migrate_gate")

    def replace_seeded(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Set a one-row table the migrations seeded (the chain start, the secret) to the source's row."""
        for row in rows:
            values = dict(zip(columns, row))
            sets = ", ".join(f"{_quote(c)} = %s" for c in columns if c != "id")
            self.storage.execute(
                f"UPDATE {_quote(table)} SET {sets} WHERE id = %s", [v for c, v in values.items() if c != "id"] + [values["id"]]
            )

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        if not self._types:
            self.tables()
        types = self._types.get(table, {})
        # SQLite keeps flags as 0/1; a boolean column here takes them as booleans.
        flags = [i for i, c in enumerate(columns) if types.get(c) == "boolean"]
        if flags:
            rows = [tuple(bool(v) if i in flags and v is not None else v for i, v in enumerate(row)) for row in rows]
        marks = ", ".join("%s" for _ in columns)
        self.storage.executemany(
            f"INSERT INTO {_quote(table)} ({', '.join(_quote(c) for c in columns)}) OVERRIDING SYSTEM VALUE VALUES ({marks})",
            rows,
        )

    def close_versions(self, ids: Sequence[int], tx_id: int, tx_time: str) -> None:
        self.storage.executemany(
            "UPDATE claims SET tx_to = %s, closed_by = %s WHERE id = %s", [(tx_time, tx_id, i) for i in ids]
        )

    def closed_by(self, tx_id: int) -> list[int]:
        return [r[0] for r in self.storage.query("SELECT id FROM claims WHERE closed_by = %s ORDER BY id", (tx_id,))]

    def next_ids(self) -> dict[str, int]:
        """The last id each identity column handed out (erased rows' ids included: never reused)."""
        rows = self.storage.query(
            "SELECT table_name, pg_sequence_last_value(pg_get_serial_sequence(quote_ident(table_name), column_name))"
            " FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'"
        )
        last = {r[0]: int(r[1]) for r in rows if r[1] is not None}
        # Claim ids are drawn after the largest ever committed, erased ones included (their hash rows),
        # not from the identity's sequence (ledger/pg_recorder.py).
        if self.storage.one("SELECT to_regclass('version_hashes') IS NOT NULL")[0]:
            hashed = self.storage.one("SELECT COALESCE(MAX(claim_id), 0) FROM version_hashes")[0]
            last["claims"] = max(last.get("claims", 0), int(hashed))
        return last

    def set_next_ids(self, last: dict[str, int]) -> None:
        if not self._types:
            self.tables()
        for table, value in last.items():
            if table in self._types and "id" in self._types[table]:
                self.storage.one(
                    "SELECT setval(pg_get_serial_sequence(%s, 'id'), GREATEST(%s, (SELECT COALESCE(MAX(id), 0) FROM "
                    + _quote(table) + "), 1))",
                    (_quote(table), value),
                )

    def chain_head(self) -> str | None:
        if self.storage.one("SELECT to_regclass('tx_chain') IS NOT NULL")[0] is False:
            return None
        row = self.storage.one("SELECT chain_hash FROM tx_chain ORDER BY tx_id DESC LIMIT 1")
        return row[0] if row else None
