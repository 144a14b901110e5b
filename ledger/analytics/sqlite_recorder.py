"""The companion's head reads on a SQLite ledger (see recorder.py)."""

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

    def tx_time(self, tx_id: int) -> str | None:
        row = self.storage.one("SELECT tx_time FROM transactions WHERE id = ?", (tx_id,))
        return None if row is None else row[0]


def _identity(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino
