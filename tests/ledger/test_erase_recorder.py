"""The erase recorder's contract on both engines (ledger/erase_recorder.py), and what scrub leaves in
PostgreSQL's files after an erase."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from factledger.ledger.engines import erase_recorder
from factledger.ledger.erase_recorder import GuardRow
from factledger.ledger.storage import Storage

T1 = "2025-01-01T00:00:00.000000Z"
T2 = "2025-01-02T00:00:00.000000Z"


@pytest.fixture(params=["sqlite", "postgres"])
def storage(request, tmp_path: Path):
    if request.param == "sqlite":
        opened = Storage(tmp_path / "ledger.db")
    else:
        from factledger.ledger.pg_storage import PostgresStorage

        opened = PostgresStorage(request.getfixturevalue("postgres_url"))
    yield opened
    opened.close()


def raw(storage, *statements: str) -> None:
    """Statements from a second client of the same store (no factledger code)."""
    if storage.engine == "sqlite":
        conn = sqlite3.connect(storage.path, isolation_level=None)
        try:
            for statement in statements:
                conn.execute(statement)
        finally:
            conn.close()
    else:
        import psycopg

        with psycopg.connect(storage.url, autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)


def test_exports_are_recorded_and_listed_from_a_time(storage):
    recorder = erase_recorder(storage)
    first = recorder.add_export(directory="/tmp/a", fmt="csv", snapshot_tx_time=None, exported_at=T1, tables=["claims"])
    second = recorder.add_export(directory="/tmp/b", fmt="parquet", snapshot_tx_time=T1, exported_at=T2, tables=[])
    assert (first.directory, first.format, first.exported_at, first.tables) == ("/tmp/a", "csv", T1, ("claims",))
    assert second.snapshot_tx_time == T1 and second.id > first.id
    assert recorder.exports_since(T1) == [first, second]
    assert recorder.exports_since("2025-01-01T12:00:00.000000Z") == [second]


def test_a_raw_client_cannot_delete_an_export(storage):
    erase_recorder(storage).add_export(directory="/tmp/a", fmt="csv", snapshot_tx_time=None, exported_at=T1, tables=[])
    with pytest.raises(Exception, match="manifest of exports is append-only"):
        raw(storage, "DELETE FROM exports")
    assert len(erase_recorder(storage).exports_since(T1)) == 1


def test_guard_rules_cover_exact_scopes_and_prefixes(storage):
    recorder = erase_recorder(storage)
    raw(storage, f"INSERT INTO transactions (tx_time, principal) VALUES ('{T1}', 'operator:dpo')")
    tx_id = storage.one("SELECT MAX(id) FROM transactions")[0]
    with storage.atomic():
        recorder.add_guards([GuardRow("exact", "s", 1, "a" * 64, tx_id), GuardRow("prefix", "s/chat/", 2, "b" * 64, tx_id)])
        recorder.add_guards([GuardRow("exact", "s", 1, "a" * 64, tx_id)])  # already there: stays once
    assert recorder.guards_for("s") == [(1, "a" * 64)]
    assert recorder.guards_for("s/chat/new") == [(2, "b" * 64)]
    assert recorder.guards_for("t") == [] and recorder.guards_for("s/") == []
    assert recorder.prefix_scopes_covering("s/chat/x") == ["s/chat/"]
    assert recorder.prefix_scopes_covering("s") == []


def test_the_secret_is_there(storage):
    secret = erase_recorder(storage).secret()
    assert secret is not None and len(secret) == 64 and int(secret, 16) >= 0


def test_a_fresh_store_has_the_schema_its_migrations_create(storage):
    recorder = erase_recorder(storage)
    findings, compared = recorder.schema_findings(recorder.expected_schema())
    assert findings == [] and compared > 20


def test_a_dropped_trigger_is_found(storage):
    recorder = erase_recorder(storage)
    expected = recorder.expected_schema()
    raw(storage, "DROP TRIGGER exports_no_delete" + (" ON exports" if storage.engine == "postgres" else ""))
    findings, _ = recorder.schema_findings(expected)
    assert [(f.row, f.problem) for f in findings] == [
        ("exports_no_delete" if storage.engine == "sqlite" else "exports.exports_no_delete", "trigger missing (dropped, or a migration not applied)")
    ]


def test_rows_break_no_rule_in_a_fresh_store(storage):
    recorder = erase_recorder(storage)
    for check in (recorder.bad_timestamps, recorder.bad_intervals, recorder.overlaps, recorder.bad_transactions, recorder.erase_problems):
        assert check() == []
    assert all(found == [] for _, found, _, _ in recorder.engine_integrity())


def test_an_erase_gate_left_open_is_found(storage):
    if storage.engine == "sqlite":
        raw(
            storage,
            f"INSERT INTO transactions (tx_time, principal) VALUES ('{T1}', 'operator:dpo')",
            "INSERT INTO erase_gate (id, principal) VALUES (1, 'operator:dpo')",
        )
    else:  # PostgreSQL refuses to commit an open gate; a client that disabled the triggers could leave one
        raw(
            storage,
            f"INSERT INTO transactions (id, tx_time, principal) VALUES (1, '{T1}', 'operator:dpo')",
            "SET session_replication_role = replica",
            "INSERT INTO erase_gate (id, tx_id, principal) VALUES (1, 1, 'operator:dpo')",
        )
    assert [f.problem for f in erase_recorder(storage).erase_problems()] == ["left open for operator:dpo"]


# == PostgreSQL: what an erase leaves in the files, and what scrub removes =============================

VALUE = "Quokkaville-Zanzibar-7731"  # unlikely anywhere else in a cluster's files


def _database_files(storage, data_dir: Path) -> list[Path]:
    """Every file of the database's own directory (tables, TOAST, indexes, free-space and visibility maps,
    and its copy of the catalogs, pg_statistic included)."""
    oid = storage.one("SELECT oid FROM pg_database WHERE datname = current_database()")[0]
    return sorted(p for p in (data_dir / "base" / str(oid)).iterdir() if p.is_file())


def _relation_files(storage, data_dir: Path, table: str) -> list[Path]:
    """The heap files of `table` (every 1 GB segment and fork), its TOAST table's and its indexes'."""
    rows = storage.query(
        "SELECT pg_relation_filepath(c.oid) FROM pg_class c WHERE c.oid = %(t)s::regclass"
        " OR c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = %(t)s::regclass)"
        " OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = %(t)s::regclass)",
        {"t": table},
    )
    files = []
    for (relative,) in rows:
        base = data_dir / relative
        files += [p for p in base.parent.glob(base.name + "*") if p.name.split(".")[0].split("_")[0] == base.name]
    return files


def _holding(files: list[Path], needle: bytes) -> list[str]:
    return [p.name for p in files if needle in p.read_bytes()]


@pytest.fixture
def pg_storage(postgres_url):
    from factledger.ledger.pg_storage import PostgresStorage

    opened = PostgresStorage(postgres_url)
    yield opened
    opened.close()


def test_scrub_leaves_no_copy_in_the_tables_files(pg_storage, postgres_cluster):
    """A raw erase (recorded in version_hashes, through the gate, by the latest operator transaction) of a claim; its bytes stay in the heap
    file as a dead tuple after DELETE and CHECKPOINT, and are gone from every file of the database
    after scrub."""
    storage, needle = pg_storage, VALUE.encode()
    data_dir = postgres_cluster.data_dir
    raw(
        storage,
        f"INSERT INTO predicates (name, display, cardinality, defined_at) VALUES ('lives_in', 'lives in', 'one', '{T1}')",
        f"INSERT INTO transactions (id, tx_time, principal) VALUES (1, '{T1}', 'operator:dpo')",
        "INSERT INTO claims (id, scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from,"
        f" tx_from, opened_by) VALUES (1, 's', 'ann', 'Ann', 'lives_in', 'one', '{VALUE}', '{VALUE.lower()}', '{T1}', '{T1}', 1)",
        f"INSERT INTO version_hashes (claim_id, opened_by, salt, content_hash) VALUES (1, 1, 'salt', '{'0' * 64}')",
        "CHECKPOINT",
    )
    assert _holding(_relation_files(storage, data_dir, "claims"), needle)  # the scan can fail
    raw(
        storage,
        "BEGIN",
        f"INSERT INTO transactions (id, tx_time, principal) VALUES (2, '{T2}', 'operator:dpo')",
        "UPDATE version_hashes SET erased_by = 2, salt = NULL WHERE claim_id = 1",
        "INSERT INTO erase_gate (id, tx_id, principal) VALUES (1, 2, 'operator:dpo')",
        "DELETE FROM claims WHERE id = 1",
        "DELETE FROM erase_gate",
        "COMMIT",
        "CHECKPOINT",
    )
    assert _holding(_relation_files(storage, data_dir, "claims"), needle)  # a dead tuple: why scrub exists
    report = erase_recorder(storage).scrub(wait=2.0)
    assert report.complete and report.checkpointed and "claims" in report.rewritten_tables
    assert "WAL" in report.remains
    assert _holding(_relation_files(storage, data_dir, "claims"), needle) == []
    assert _holding(_database_files(storage, data_dir), needle) == []
    assert _holding(_database_files(storage, data_dir), VALUE.lower().encode()) == []
    # Out of the store's reach, and said so in the report and in docs/RELIABILITY.md: the WAL segments
    # still hold the insert's record until PostgreSQL recycles and overwrites them.
    wal = sorted(p for p in (data_dir / "pg_wal").iterdir() if p.is_file())
    assert _holding(wal, needle)


# == Through the ledger, on both engines ===========================================================

from factledger.ledger.verify import verify_ledger  # noqa: E402

from .erase_engines import engine_ledger  # noqa: E402,F401 (a fixture)


def _seed_and_erase(ledger, value: str = VALUE):
    with ledger.transaction(principal="operator:test") as tx:
        tx.define("lives_in", "one")
        tx.add("s", "Ann", "lives_in", value, valid_from="2020-01-01", source="journal:1")
        tx.add("s", "Bob", "lives_in", "Rome", valid_from="2020-01-01")
    with ledger.transaction(principal="agent:hermes") as tx:
        tx.add("s", "Ann", "lives_in", value, valid_from="2020-01-01", source="journal:2")  # said again: provenance
    return ledger.erase(scope="s", subject="Ann", predicate="lives_in", value=value, principal="operator:dpo", reason="request 7")


def test_verify_is_clean_after_an_erase(engine_ledger):
    result = _seed_and_erase(engine_ledger)
    assert result.sources == ["journal:1", "journal:2"]
    report = verify_ledger(engine_ledger)
    assert report.ok, [c.to_dict() for c in report.failed]
    assert report.transactions == 3 and [c.name for c in report.checks][:2] != []


def test_verify_names_a_lost_tombstone(engine_ledger):
    _seed_and_erase(engine_ledger)
    if engine_ledger.storage.engine == "sqlite":
        raw(engine_ledger.storage, "DROP TRIGGER tombstones_no_delete", "DELETE FROM tombstones")
    else:
        raw(engine_ledger.storage, "ALTER TABLE tombstones DISABLE TRIGGER USER", "DELETE FROM tombstones")
    report = verify_ledger(engine_ledger)
    failed = {c.name: c for c in report.failed}
    assert "erase" in failed and failed["erase"].rows[0].problem.startswith("an erase transaction without its tombstone")
    assert "schema" in failed or engine_ledger.storage.engine == "postgres"  # a disabled trigger: below
    if engine_ledger.storage.engine == "postgres":
        assert any("tombstones_no_delete" in str(f.row) for f in failed["schema"].rows)


def test_ledger_erase_and_scrub_leave_no_copy_in_the_database_files(postgres_url, postgres_cluster):
    from factledger.ledger import Ledger

    with Ledger.open(postgres_url) as ledger:
        _seed_and_erase(ledger)
        assert ledger.current(["s"], subject="Ann") == []
        report = ledger.scrub()
        assert report.complete and {"claims", "claim_provenance", "version_hashes"} <= set(report.rewritten_tables)
        files = _database_files(ledger.storage, postgres_cluster.data_dir)
        assert _holding(files, VALUE.encode()) == [] and _holding(files, VALUE.lower().encode()) == []
        assert _holding(files, b"Rome")  # the scan reads the files the values live in
