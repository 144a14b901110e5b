"""The PostgreSQL connection layer (ledger/pg_storage.py): migrations, transactions, rows, errors."""

from __future__ import annotations

import threading

import pytest

from factledger.ledger.engines import open_storage
from factledger.ledger.errors import BusyError, IntegrityError, StorageError
from factledger.ledger.pg_storage import PostgresStorage, redact_url
from factledger.schema import migrations


def test_first_open_applies_every_migration_once(empty_postgres_url):
    first = PostgresStorage(empty_postgres_url)
    assert first.schema_version == migrations("postgres")[-1].version
    first.close()
    again = PostgresStorage(empty_postgres_url)  # nothing left to apply: opens without error
    rows = again.query("SELECT version FROM schema_migrations ORDER BY version")
    assert [r["version"] for r in rows] == [m.version for m in migrations("postgres")]
    again.close()


def test_concurrent_first_opens_do_not_race(empty_postgres_url):
    errors: list[Exception] = []

    def open_once() -> None:
        try:
            PostgresStorage(empty_postgres_url).close()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_once) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_rows_read_by_name_and_position_and_times_are_canonical_text(postgres_url):
    storage = open_storage(postgres_url)
    assert storage.engine == "postgres"
    row = storage.one("SELECT 7 AS n, '2025-03-01T10:00:00.000001Z'::timestamptz AS at")
    assert row[0] == 7 and row["n"] == 7 and dict(row) == {"n": 7, "at": "2025-03-01T10:00:00.000001Z"}
    with pytest.raises(IndexError):
        row["missing"]
    storage.close()


def test_atomic_rolls_back_whole_and_nests_as_savepoints(postgres_url):
    storage = open_storage(postgres_url)
    storage.execute("CREATE TABLE t (x integer PRIMARY KEY)")
    with pytest.raises(RuntimeError):
        with storage.atomic():
            storage.execute("INSERT INTO t VALUES (1)")
            raise RuntimeError("boom")
    assert storage.query("SELECT x FROM t") == []
    with storage.atomic():
        storage.execute("INSERT INTO t VALUES (1)")
        with pytest.raises(IntegrityError):
            with storage.atomic():
                storage.execute("INSERT INTO t VALUES (2)")
                storage.execute("INSERT INTO t VALUES (1)")  # duplicate key: the savepoint rolls back
        assert storage.in_transaction
    assert [r[0] for r in storage.query("SELECT x FROM t")] == [1]
    storage.close()


def test_trigger_refusals_arrive_as_integrity_errors_without_the_prefix(postgres_url):
    storage = open_storage(postgres_url)
    with pytest.raises(IntegrityError) as caught:
        storage.execute("TRUNCATE predicates CASCADE")
    assert "factledger:" not in str(caught.value)
    storage.close()


def test_a_held_row_lock_past_the_timeout_is_busy(postgres_url):
    holder = PostgresStorage(postgres_url)
    waiter = PostgresStorage(postgres_url, timeout=0.2)
    holder.execute("CREATE TABLE t (x integer)")
    holder.execute("INSERT INTO t VALUES (1)")
    with holder.atomic():
        holder.execute("UPDATE t SET x = 2")
        with pytest.raises(BusyError):
            with waiter.atomic():
                waiter.execute("UPDATE t SET x = 3")
    holder.close()
    waiter.close()


def test_read_only_refuses_writes_and_unreachable_servers_name_the_url_without_password(postgres_url):
    reader = PostgresStorage(postgres_url, read_only=True)
    with pytest.raises(StorageError, match="read-only"):
        with reader.atomic():
            pass
    with pytest.raises(StorageError):
        reader.execute("CREATE TABLE t (x integer)")
    reader.close()
    url = "postgresql://me:secret@/nowhere?host=/nonexistent-socket-dir"
    with pytest.raises(StorageError) as caught:
        PostgresStorage(url)
    assert "secret" not in str(caught.value)
    assert redact_url("postgresql://me:secret@db.example:5433/x") == "postgresql://me:***@db.example:5433/x"


def test_iterate_streams_in_batches(postgres_url):
    storage = open_storage(postgres_url)
    values = [r[0] for r in storage.iterate("SELECT generate_series(1, 2500)", batch=1000)]
    assert values == list(range(1, 2501))
    storage.close()
