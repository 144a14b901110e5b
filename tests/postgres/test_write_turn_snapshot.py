"""A writer that waited for the write turn while an erase committed sees the erase's tombstones: the
value erased cannot be written back by a transaction that started waiting before the erase committed."""

from __future__ import annotations

import threading
import time

import pytest

from factledger.ledger import Ledger

psycopg = pytest.importorskip("psycopg")


def test_a_write_turn_that_waited_sees_the_tombstones_committed_meanwhile(postgres_url):
    with Ledger.open(postgres_url) as ledger, psycopg.connect(postgres_url) as holder:
        holder.execute("SELECT 1 FROM ledger_head WHERE id = 1 FOR UPDATE")  # the turn, held as an erase holds it
        seen: dict[str, bool] = {}

        def write() -> None:
            with ledger.transaction(principal="operator:test") as tx:
                seen["tombstones"] = tx._has_erasures

        writer = threading.Thread(target=write)
        writer.start()
        deadline = time.monotonic() + 30
        while holder.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
        ).fetchone()[0] == 0:
            assert time.monotonic() < deadline, "the writer never waited for the turn"
            time.sleep(0.01)
        holder.execute("INSERT INTO tombstones (content_hash, erased_at, principal) VALUES (%s, %s, 'operator:test')",
                       ("a" * 64, "2026-01-01T00:00:00Z"))
        holder.commit()
        writer.join(30)
        assert seen == {"tombstones": True}
