"""`factledger migrate`'s SQL for a SQLite ledger file: what it holds, its rows in order, and the
writes of a replay (ledger/migrate.py drives them; the PostgreSQL twin is ledger/migrate_pg.py).

Every time is the canonical text on both engines' sides of the copy, so rows pass through unchanged."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from .sqlite_recorder import SqliteLedgerRecorder
from .storage import Storage

# Engine bookkeeping that is never copied: SQLite's own tables, recall's derived state (the lexical rows
# and outboxes are written by the target's triggers; the vector folder is the target's own), the
# migrations record (the target has its own), the gates (always closed between transactions).
_SKIPPED = ("sqlite_%", "recall\\_%")
_OWN = {"schema_migrations", "erase_gate", "migrate_gate"}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class SqliteTables:
    """A SQLite ledger as migrate sees it."""

    engine = "sqlite"

    def __init__(self, storage: Storage):
        self.storage = storage

    def tables(self) -> dict[str, list[str]]:
        """Each copyable table with its columns, in declaration order."""
        names = [
            r[0]
            for r in self.storage.query(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE ? AND name NOT LIKE ? ESCAPE '\\'"
                " ORDER BY name",
                _SKIPPED,
            )
            if r[0] not in _OWN
        ]
        # FTS5 shadow and virtual tables are recall_*; everything else is an ordinary table.
        return {name: [c[1] for c in self.storage.query(f"PRAGMA table_info({_quote(name)})")] for name in names}

    def key_columns(self, table: str) -> list[str]:
        info = self.storage.query(f"PRAGMA table_info({_quote(table)})")
        keys = sorted((c[5], c[1]) for c in info if c[5])
        return [name for _, name in keys] or ["rowid"]

    def count(self, table: str) -> int:
        return int(self.storage.one(f"SELECT count(*) FROM {_quote(table)}")[0])

    def rows(self, table: str, columns: Sequence[str], *, where: str = "", params: Sequence[Any] = ()) -> Iterator[tuple]:
        order = ", ".join(_quote(c) if c != "rowid" else c for c in self.key_columns(table))
        cols = ", ".join(_quote(c) for c in columns)
        clause = f" WHERE {where}" if where else ""
        for row in self.storage.iterate(f"SELECT {cols} FROM {_quote(table)}{clause} ORDER BY {order}", params):
            yield tuple(row)

    def by_transaction(self, table: str, columns: Sequence[str], column: str, tx_id: int, *, unless: str = "") -> list[tuple]:
        """The rows whose `column` names the transaction (and whose `unless` column is NULL)."""
        where = f"{_quote(column)} = ?" + (f" AND {_quote(unless)} IS NULL" if unless else "")
        return list(self.rows(table, columns, where=where, params=(tx_id,)))

    def last_transaction_id(self) -> int:
        return int(self.storage.one("SELECT COALESCE(MAX(id), 0) FROM transactions")[0])

    def held_leases(self, now: str) -> list[tuple[int, str, str]]:
        """Digest leases not yet expired at `now`: (entry, holder, until)."""
        return [tuple(r) for r in self.storage.query(
            "SELECT entry_id, holder, until FROM digest_leases WHERE until > ? ORDER BY entry_id", (now,))]

    # -- the migrate gate (schema/sqlite/0014_migrate_gate.sql) ------------------------------------

    def open_gate(self, through_tx: int) -> None:
        self.storage.execute("INSERT INTO migrate_gate (id, through_tx) VALUES (1, ?)", (through_tx,))

    def close_gate(self) -> None:
        # The copy's claim lanes were deferred behind the watermark (migration 0027): written now, in the
        # copy's own transaction, so the target is complete when it commits.
        SqliteLedgerRecorder(self.storage).catch_up_lanes()
        self.storage.execute("DELETE FROM migrate_gate")

    def replace_seeded(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Set a one-row table the migrations seeded (the chain start, the secret) to the source's row."""
        for row in rows:
            values = dict(zip(columns, row))
            sets = ", ".join(f"{_quote(c)} = ?" for c in columns if c != "id")
            self.storage.execute(
                f"UPDATE {_quote(table)} SET {sets} WHERE id = ?", [v for c, v in values.items() if c != "id"] + [values["id"]]
            )

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        marks = ", ".join("?" for _ in columns)
        sql = f"INSERT INTO {_quote(table)} ({', '.join(_quote(c) for c in columns)}) VALUES ({marks})"
        if table != "journal" or len(rows) < 2:
            self.storage.executemany(sql, rows)
            return
        # Turns come in id order, after every turn the target has: one episode batch (migration 0024)
        # writes their lanes at once instead of a trigger per turn rewriting its predecessor's row.
        self.storage.execute("INSERT INTO recall_episode_batch (id, first_id) SELECT 1, COALESCE(MAX(id), 0) + 1 FROM journal")
        self.storage.executemany(sql, rows)
        self.storage.execute("DELETE FROM recall_episode_batch")

    def close_versions(self, ids: Sequence[int], tx_id: int, tx_time: str) -> None:
        self.storage.executemany(
            "UPDATE claims SET tx_to = ?, closed_by = ? WHERE id = ?", [(tx_time, tx_id, i) for i in ids]
        )

    def closed_by(self, tx_id: int) -> list[int]:
        return [r[0] for r in self.storage.query("SELECT id FROM claims WHERE closed_by = ? ORDER BY id", (tx_id,))]

    def next_ids(self) -> dict[str, int]:
        """The last id each AUTOINCREMENT table handed out (erased rows' ids included: never reused)."""
        if self.storage.one("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'") is None:
            return {}
        return {r[0]: int(r[1]) for r in self.storage.query("SELECT name, seq FROM sqlite_sequence")}

    def set_next_ids(self, last: dict[str, int]) -> None:
        """Move each AUTOINCREMENT table's counter past the source's last id (the others take max + 1)."""
        counted = {r[0] for r in self.storage.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%AUTOINCREMENT%'")}
        for table, value in last.items():
            if table not in counted:
                continue
            if self.storage.execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", (value, table)) == 0:
                self.storage.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (table, value))

    def chain_head(self) -> str | None:
        if self.storage.one("SELECT 1 FROM sqlite_master WHERE name = 'tx_chain'") is None:
            return None
        row = self.storage.one("SELECT chain_hash FROM tx_chain ORDER BY tx_id DESC LIMIT 1")
        return row[0] if row else None
