"""PostgresStorage's pool: threads sharing one storage each hold their own connection for a block, so one
waiting on a row lock does not hold up another's read; every block and statement gives its connection
back, whatever happens inside; a pool that is all in use makes the next caller wait, then BusyError."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from factledger.ledger import BusyError, Ledger, StorageError
from factledger.ledger.pg_storage import PostgresPool, PostgresStorage

SETTLE = 10.0  # upper bound on waiting for another thread to reach a state (never a measured time)


def waiting_on_locks(url: str) -> int:
    """Backends of this database waiting for a lock right now."""
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).fetchone()[0]


def until(condition, what: str) -> None:
    deadline = time.monotonic() + SETTLE
    while not condition():
        assert time.monotonic() < deadline, f"never saw: {what}"
        time.sleep(0.02)


def server_connections(url: str) -> int:
    """The server's connections to this database but the one asking, once any just closed have gone."""
    with psycopg.connect(url, autocommit=True) as conn:
        deadline = time.monotonic() + SETTLE
        while True:
            count = conn.execute(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()[0]
            if count == 0 or time.monotonic() > deadline:
                return count
            time.sleep(0.02)


def test_a_thread_blocked_on_a_row_lock_does_not_block_another_threads_read(postgres_url):
    ledger = Ledger(PostgresStorage(postgres_url))
    with ledger.transaction(principal="operator:test") as tx:
        tx.add("home", "ann", "lives_in", "Paris", valid_from="2024-01-01")
    holding, release, results, errors = threading.Event(), threading.Event(), [], []

    def first_writer() -> None:
        try:
            with ledger.transaction(principal="operator:test") as tx:
                tx.add("home", "ann", "likes", "jazz", valid_from="2024-01-01")
                holding.set()
                assert release.wait(SETTLE)
        except BaseException as exc:  # reported below: an assert in a thread would vanish
            errors.append(exc)

    def second_writer() -> None:
        try:
            with ledger.transaction(principal="operator:test") as tx:  # waits on the ledger's head row
                tx.add("home", "ann", "likes", "tea", valid_from="2024-01-01")
            results.append("second committed")
        except BaseException as exc:
            errors.append(exc)

    first = threading.Thread(target=first_writer)
    first.start()
    assert holding.wait(SETTLE)
    second = threading.Thread(target=second_writer)
    second.start()
    until(lambda: waiting_on_locks(postgres_url) == 1, "the second writer waiting on the head row's lock")

    # Meanwhile this thread reads through the same storage: its own connection, the committed state.
    assert [(c.predicate, c.value) for c in ledger.current(["home"])] == [("lives_in", "Paris")]
    assert ledger.storage.pool_status().in_use == 2  # the two writers' connections; the read gave its back
    assert results == []

    release.set()
    first.join(SETTLE)
    second.join(SETTLE)
    assert errors == [] and results == ["second committed"]
    assert sorted(c.value for c in ledger.current(["home"], predicate="likes")) == ["jazz", "tea"]
    assert ledger.storage.pool_status().in_use == 0
    ledger.close()


def test_every_block_and_statement_gives_its_connection_back(postgres_url):
    storage = PostgresStorage(postgres_url)
    storage.execute("CREATE TABLE t (x integer PRIMARY KEY)")
    with storage.atomic():
        storage.execute("INSERT INTO t VALUES (1)")
        with storage.atomic():  # a savepoint on the same connection
            storage.execute("INSERT INTO t VALUES (2)")
        assert storage.pool_status().in_use == 1
    with pytest.raises(RuntimeError):
        with storage.atomic():
            storage.execute("INSERT INTO t VALUES (3)")
            raise RuntimeError("boom")
    with pytest.raises(StorageError):
        with storage.atomic():
            storage.execute("INSERT INTO t VALUES (4)")
            storage.execute("SELECT no_such_column FROM t")
    with pytest.raises(StorageError):
        storage.query("SELECT no_such_column FROM t")
    with storage.snapshot():
        assert [r[0] for r in storage.query("SELECT x FROM t ORDER BY x")] == [1, 2]
    stream = storage.iterate("SELECT generate_series(1, 5000)", batch=100)
    assert next(stream) == (1,) and storage.pool_status().in_use == 1  # the stream holds one while open
    stream.close()
    assert storage.pool_status().in_use == 0
    threads = [threading.Thread(target=lambda: storage.query("SELECT x FROM t")) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(SETTLE)
    status = storage.pool_status()
    assert status.in_use == 0 and status.waiting == 0
    assert [r[0] for r in storage.query("SELECT x FROM t ORDER BY x")] == [1, 2]  # 3 and 4 rolled back
    storage.close()
    assert storage.pool_status().size == 0
    assert server_connections(postgres_url) == 0


def test_a_pool_all_in_use_makes_the_next_caller_busy(postgres_url):
    storage = PostgresStorage(postgres_url, timeout=0.2, pool_size=1)
    caught: list[BaseException] = []

    def read() -> None:
        try:
            storage.query("SELECT 1")
        except BaseException as exc:
            caught.append(exc)

    with storage.atomic():  # this thread holds the only connection
        reader = threading.Thread(target=read)
        reader.start()
        reader.join(SETTLE)
    assert len(caught) == 1 and isinstance(caught[0], BusyError) and "pool" in str(caught[0])
    assert storage.query("SELECT 1")[0][0] == 1  # given back: the next caller gets it
    storage.close()


def test_storages_on_one_shared_pool_leave_it_open_when_closed(postgres_url):
    pool = PostgresPool(postgres_url, size=4)
    writer, reader = PostgresStorage(pool), PostgresStorage(pool)
    with writer.atomic():
        writer.execute("CREATE TABLE t (x integer)")
        writer.execute("INSERT INTO t VALUES (1)")
        assert reader.query("SELECT to_regclass('t') IS NULL")[0][0]  # not committed: another connection
    writer.close()
    assert reader.query("SELECT x FROM t")[0][0] == 1
    reader.close()
    assert pool.status().in_use == 0 and pool.status().size >= 1  # still open for other storages
    pool.close()
    assert server_connections(postgres_url) == 0
