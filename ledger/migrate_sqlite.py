"""`factledger migrate`'s SQL for a SQLite ledger file: what it holds, its rows in order, and the
writes of a replay (ledger/migrate.py drives them; the PostgreSQL twin is ledger/migrate_pg.py).

Every time is the canonical text on both engines' sides of the copy, so rows pass through unchanged."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from .storage import Storage

# Engine bookkeeping that is never copied: SQLite's own tables, recall's derived indexes (rebuilt from
# the ledger by the target's first search), the migrations record (the target has its own).
_SKIPPED = ("sqlite_%", "recall\\_%")
_OWN = {"schema_migrations", "erase_gate"}


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
        for row in self.storage.query(f"SELECT {cols} FROM {_quote(table)}{clause} ORDER BY {order}", params):
            yield tuple(row)

    def by_transaction(self, table: str, columns: Sequence[str], column: str, tx_id: int) -> list[tuple]:
        return list(self.rows(table, columns, where=f"{_quote(column)} = ?", params=(tx_id,)))

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            marks = ", ".join("?" for _ in columns)
            self.storage.executemany(
                f"INSERT INTO {_quote(table)} ({', '.join(_quote(c) for c in columns)}) VALUES ({marks})", rows
            )

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
        for table, value in last.items():
            if self.storage.execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", (value, table)) == 0:
                self.storage.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (table, value))

    def chain_head(self) -> str | None:
        if self.storage.one("SELECT 1 FROM sqlite_master WHERE name = 'tx_chain'") is None:
            return None
        row = self.storage.one("SELECT chain_hash FROM tx_chain ORDER BY tx_id DESC LIMIT 1")
        return row[0] if row else None
