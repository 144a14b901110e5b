"""The companion's head reads on a SQLite ledger (see recorder.py)."""

from __future__ import annotations

from factledger.ledger.storage import Storage

from .recorder import HeadMark, SharedHeadReads


class SqliteHeadRecorder(SharedHeadReads):
    storage: Storage

    def mark(self) -> HeadMark:
        # Both ends through the rowid: two index probes, no scan.
        row = self.storage.one(
            "SELECT id, tx_time, (SELECT tx_time FROM transactions ORDER BY id LIMIT 1) FROM transactions"
            " ORDER BY id DESC LIMIT 1"
        )
        return HeadMark(None, None, None) if row is None else HeadMark(int(row[0]), row[1], row[2])

    def tx_time(self, tx_id: int) -> str | None:
        row = self.storage.one("SELECT tx_time FROM transactions WHERE id = ?", (tx_id,))
        return None if row is None else row[0]
