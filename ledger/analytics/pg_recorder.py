"""The companion's head reads on a PostgreSQL ledger (see recorder.py)."""

from __future__ import annotations

from factledger.ledger.pg_storage import PostgresStorage

from .recorder import HeadMark, SharedHeadReads


class PostgresHeadRecorder(SharedHeadReads):
    storage: PostgresStorage

    def table_names(self) -> list[str]:
        return [r[0] for r in self.storage.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        )]

    def schema(self) -> str:
        return self.storage.one("SELECT current_schema()")[0]

    def mark(self) -> HeadMark:
        # The one-row head every transaction moves (schema/postgres/0001), and the first transaction.
        row = self.storage.one(
            "SELECT h.tx_id, h.tx_time, (SELECT tx_time FROM transactions ORDER BY id LIMIT 1)"
            " FROM ledger_head AS h WHERE h.id = 1"
        )
        if row is None or not row[0]:
            return HeadMark(None, None, None)
        return HeadMark(int(row[0]), row[1], row[2])

    def tx_time(self, tx_id: int) -> str | None:
        row = self.storage.one("SELECT tx_time FROM transactions WHERE id = %s", (tx_id,))
        return None if row is None else row[0]
