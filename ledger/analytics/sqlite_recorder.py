"""The companion's head reads on a SQLite ledger (see recorder.py), and every ledger row DuckDB reads on
SQLite: the feed (feed.py) reads tables and the companion's deltas through this connection, because
DuckDB's own sqlite scanner must not open a ledger this process holds (DESIGN §8)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from factledger.ledger.storage import Storage

from .recorder import HeadMark, SharedHeadReads


class SqliteHeadRecorder(SharedHeadReads):
    storage: Storage

    def __init__(self, storage: Storage, tables: Sequence[str] | None):
        super().__init__(storage, tables)
        self._file = _identity(storage.path)

    def table_names(self) -> list[str]:
        return [r[0] for r in self.storage.query("SELECT name FROM sqlite_master WHERE type = 'table'")]

    def schema(self) -> str:
        return "main"

    def mark(self) -> HeadMark:
        self._follow_the_file()
        # Both ends through the rowid: two index probes, no scan.
        row = self.storage.one(
            "SELECT id, tx_time, (SELECT tx_time FROM transactions ORDER BY id LIMIT 1) FROM transactions"
            " ORDER BY id DESC LIMIT 1"
        )
        return HeadMark(None, None, None) if row is None else HeadMark(int(row[0]), row[1], row[2])

    def _follow_the_file(self) -> None:
        # An open connection keeps reading the file it opened; a ledger moved into its place (a backup
        # restored with mv) is another file, which DuckDB's scanner (a connection per transaction) reads.
        current = _identity(self.storage.path)
        if current != self._file:
            path = self.storage.path
            self.storage.close()
            self.storage = Storage(path, read_only=True)
            self._file = current

    def top_claim(self) -> int:
        """The largest claim id (a ledger's size, for choosing the companion)."""
        return int(self.storage.one("SELECT max(id) FROM claims")[0] or 0)

    def columns(self, table: str) -> list[tuple[str, str]]:
        """(name, declared type) of each stored column of `table`, in order."""
        return [(r[1], r[2]) for r in self.storage.query(f"PRAGMA table_info({_quote(table)})")]

    def version(self) -> tuple[object, ...]:
        """Changes whenever the ledger may hold other rows than before: a commit by any other connection
        (`PRAGMA data_version`), or another file moved into the ledger's place."""
        self._follow_the_file()
        return (self._file, id(self.storage), self.storage.data_version())

    def copy_out(self, target: object, selects: Sequence[str]) -> list[str]:
        """The rows of each SELECT copied into the new SQLite file `target` in one read transaction
        (the analytics feed: DuckDB reads that copy, never the ledger)."""
        self._follow_the_file()
        return self.storage.copy_out(target, selects)

    def tx_time(self, tx_id: int) -> str | None:
        row = self.storage.one("SELECT tx_time FROM transactions WHERE id = ?", (tx_id,))
        return None if row is None else row[0]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _identity(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino
