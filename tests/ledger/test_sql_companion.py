"""The analytics companion kept in step with the ledger, on both engines: writes after it was built
(new versions, closes, predicates redefined) are copied before the next query answers, in the same
session and in the next one, without a rebuild; an erase rebuilds the file so that the erased value is
in none of its bytes; whatever the companion cannot serve falls back to the live path."""

from __future__ import annotations

from pathlib import Path

import pytest

from factledger.ledger import Ledger
from factledger.ledger.analytics import Analytics

from .sql_fixtures import NOW, build_history

ALL = "SELECT * FROM claims FOR ALL VALID_TIME FOR ALL SYSTEM_TIME ORDER BY id"
QUESTIONS = [
    ALL,
    "SELECT * FROM claims ORDER BY id",
    "SELECT * FROM transactions ORDER BY id",
    "SELECT * FROM corrections ORDER BY tx, old_id, new_id",
    "SELECT predicate, count(*) FROM claims FOR SYSTEM_TIME AS OF '2024-06-01' GROUP BY 1 ORDER BY 1",
    "SELECT * FROM slot_history('Ann', 'lives_in')",
]
SECRET = "Zanzibarstrasse"


@pytest.fixture(params=["sqlite", "postgres"])
def ledger_at(request, tmp_path):
    """(location, companion path) of a ledger holding the fixed history, on each engine."""
    if request.param == "sqlite":
        path = tmp_path / "ledger.db"
        build_history(path)
        return path, tmp_path / "ledger.db.analytics.duckdb"
    url = request.getfixturevalue("postgres_url")
    _replay_history(tmp_path, url)
    return url, tmp_path / "pg.analytics.duckdb"


def _replay_history(tmp_path: Path, url: str) -> None:
    from factledger.ledger.migrate import MigrationReport, copy_tables
    from factledger.ledger.migrate_pg import PostgresTables
    from factledger.ledger.migrate_sqlite import SqliteTables
    from factledger.ledger.pg_storage import PostgresStorage
    from factledger.ledger.storage import Storage

    path = tmp_path / "source.db"
    build_history(path)
    source, target = Storage(path, read_only=True), PostgresStorage(url)
    try:
        with source.snapshot(), target.atomic():
            copy_tables(SqliteTables(source), PostgresTables(target), ["predicates", "journal", "transactions", "claims",
                        "claim_provenance", "tombstones"], MigrationReport(str(path), "pg"))
    finally:
        source.close()
        target.close()


def _companion(location, companion_path) -> Analytics:
    analytics = Analytics(location, mode="companion", companion_path=companion_path, clock=lambda: NOW)
    assert analytics.mode == "companion", analytics.mode_note
    return analytics


def _live(location, query):
    with Analytics(location, mode="live", clock=lambda: NOW) as analytics:
        return analytics.sql(query).fetchall()


def _write_more(location) -> None:
    ledger = Ledger.open(location)
    try:
        with ledger.transaction(principal="operator:alice", reason="moved again") as tx:
            tx.supersede("home", "Ann", "lives_in", "Lima", valid_from="2025-06-01")
        with ledger.transaction(principal="agent:hermes", reason="new") as tx:
            tx.add("home", "Cem", "likes", "tea", valid_from="2025-01-01")
            tx.add("home", "Cem", "likes", "chess", valid_from="2025-01-01")
        with ledger.transaction(principal="digest:rules", reason="stopped") as tx:
            tx.retract("home", "Cem", "likes", "tea", valid_from="2025-03-01")
    finally:
        ledger.close()


def test_writes_are_copied_before_the_next_query_in_the_same_session(ledger_at):
    location, path = ledger_at
    with _companion(location, path) as analytics:
        assert analytics.last_refresh.rebuilt
        before = analytics.sql(ALL).fetchall()
        _write_more(location)
        after = analytics.sql(ALL).fetchall()
        report = analytics.last_refresh
        assert not report.rebuilt and report.transactions == 3
        assert report.versions >= 4 and report.closed >= 1  # tea was opened and closed since: copied closed
        assert len(after) > len(before)
        for question in QUESTIONS:
            assert analytics.sql(question).fetchall() == _live(location, question), question
        analytics.sql("SELECT 1").fetchall()
        assert not analytics.last_refresh.changed  # nothing new: nothing copied


def test_the_next_session_copies_only_what_changed(ledger_at):
    location, path = ledger_at
    _companion(location, path).close()
    _write_more(location)
    with _companion(location, path) as analytics:
        report = analytics.last_refresh
        assert not report.rebuilt and report.transactions == 3
        for question in QUESTIONS:
            assert analytics.sql(question).fetchall() == _live(location, question), question


def test_a_redefined_predicate_renders_its_statements_again(ledger_at):
    location, path = ledger_at
    question = "SELECT id, statement FROM claims FOR ALL VALID_TIME FOR ALL SYSTEM_TIME WHERE predicate = 'likes' ORDER BY id"
    with _companion(location, path) as analytics:
        analytics.sql(question).fetchall()
        ledger = Ledger.open(location)
        try:
            with ledger.transaction(principal="operator:alice", reason="wording") as tx:
                tx.define("likes", "many", template="{subject} enjoys {value}")
        finally:
            ledger.close()
        rows = analytics.sql(question).fetchall()
        assert analytics.last_refresh.predicates_changed
        assert rows == _live(location, question) and all(" enjoys " in r[1] for r in rows)


def _bytes_hold(path: Path, text: str) -> bool:
    needle = text.encode("utf-8")
    files = [path, Path(f"{path}.wal")]
    return any(f.exists() and needle in f.read_bytes() for f in files)


def test_an_erased_value_leaves_the_companion_file(ledger_at):
    location, path = ledger_at
    ledger = Ledger.open(location)
    try:
        with ledger.transaction(principal="operator:alice", reason="address") as tx:
            tx.add("home", "Ann", "likes", SECRET, valid_from="2024-01-01")
    finally:
        ledger.close()
    with _companion(location, path) as analytics:
        assert analytics.sql(f"SELECT count(*) FROM claims WHERE value = '{SECRET}'").fetchone()[0] == 1
    assert _bytes_hold(path, SECRET), "the companion should hold the value before the erase"
    ledger = Ledger.open(location)
    try:
        ledger.erase(scope="home", subject="Ann", predicate="likes", value=SECRET, principal="operator:alice", reason="asked")
    finally:
        ledger.close()
    with _companion(location, path) as analytics:
        assert analytics.last_refresh.rebuilt and "erase" in analytics.last_refresh.reason
        assert analytics.sql(ALL).fetchall() == _live(location, ALL)
        assert not _bytes_hold(path, SECRET)
    assert not _bytes_hold(path, SECRET)


def test_an_erase_during_a_session_rebuilds_before_the_next_answer(ledger_at):
    location, path = ledger_at
    with _companion(location, path) as analytics:
        ledger = Ledger.open(location)
        try:
            with ledger.transaction(principal="operator:alice", reason="address") as tx:
                tx.add("home", "Ann", "likes", SECRET, valid_from="2024-01-01")
            assert analytics.sql(f"SELECT count(*) FROM claims WHERE value = '{SECRET}'").fetchone()[0] == 1
            ledger.erase(scope="home", subject="Ann", predicate="likes", value=SECRET, principal="operator:alice", reason="asked")
        finally:
            ledger.close()
        assert analytics.sql(f"SELECT count(*) FROM claims FOR ALL SYSTEM_TIME WHERE value = '{SECRET}'").fetchone()[0] == 0
        assert analytics.last_refresh.rebuilt
        assert not _bytes_hold(path, SECRET)
        assert analytics.sql(ALL).fetchall() == _live(location, ALL)


def test_a_second_session_in_the_process_reads_live(ledger_at):
    location, path = ledger_at
    with _companion(location, path):
        with Analytics(location, mode="companion", companion_path=path, clock=lambda: NOW) as second:
            assert second.mode == "live" and "another session" in second.mode_note
            assert second.sql(ALL).fetchall() == _live(location, ALL)


def test_a_damaged_companion_is_built_again(ledger_at):
    location, path = ledger_at
    path.write_bytes(b"not a duckdb file at all" * 100)
    with _companion(location, path) as analytics:
        assert analytics.last_refresh.rebuilt
        assert analytics.sql(ALL).fetchall() == _live(location, ALL)


def _write_another_ledger(path: Path) -> None:
    ledger = Ledger.open(path)
    try:
        with ledger.transaction(principal="operator:alice", reason="other") as tx:
            tx.add("home", "Dee", "lives_in", "Quito", valid_from="2024-01-01")
    finally:
        ledger.close()


def test_a_different_ledger_in_its_place_is_not_mixed_in(tmp_path):
    path = tmp_path / "ledger.db"
    build_history(path)
    companion = tmp_path / "c.duckdb"
    _companion(path, companion).close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    _write_another_ledger(path)
    with _companion(path, companion) as analytics:
        assert analytics.last_refresh.rebuilt
        assert analytics.sql(ALL).fetchall() == _live(path, ALL)


def test_the_default_mode_follows_the_ledger_size(tmp_path, monkeypatch):
    from factledger.ledger.analytics import engine

    path = tmp_path / "ledger.db"
    build_history(path)
    with Analytics(path, clock=lambda: NOW) as analytics:
        assert analytics.mode == "live"
    monkeypatch.setattr(engine, "COMPANION_FROM", 5)
    with Analytics(path, clock=lambda: NOW) as analytics:
        assert analytics.mode == "companion"
    monkeypatch.setattr(engine, "COMPANION_FROM", 10**9)
    with Analytics(path, clock=lambda: NOW) as analytics:  # it exists now: kept in use
        assert analytics.mode == "companion"
    with Analytics(path, mode="live", clock=lambda: NOW) as analytics:
        assert analytics.mode == "live"


# Every clause kind, at interval ends and between them, with times given as literals (the companion
# filters its open-ended columns) and computed at run time (where a time may even be 'infinity').
CLAUSE_QUESTIONS = [
    "SELECT id FROM claims FOR VALID_TIME AS OF '2024-02-15' FOR SYSTEM_TIME AS OF '2024-10-01' ORDER BY id",
    "SELECT id FROM claims FOR VALID_TIME FROM '2024-02-01' TO '2024-04-01' FOR ALL SYSTEM_TIME ORDER BY id",
    "SELECT id FROM claims FOR ALL VALID_TIME FOR SYSTEM_TIME BETWEEN '2024-03-01' AND '2024-09-01' ORDER BY id",
    "SELECT id FROM claims FOR VALID_TIME AS OF TIMESTAMP '2024-07-01 00:00:00' ORDER BY id",
    "SELECT id FROM claims FOR VALID_TIME AS OF (SELECT max(valid_from) FROM claim_versions)"
    " FOR SYSTEM_TIME AS OF (SELECT max(tx_from) FROM claim_versions) ORDER BY id",
    "SELECT id FROM claims FOR VALID_TIME AS OF CAST('2024-01-01' AS TIMESTAMPTZ) + INTERVAL 200 DAY ORDER BY id",
    "SELECT id FROM claims FOR VALID_TIME AS OF (SELECT 'infinity'::TIMESTAMPTZ) FOR ALL SYSTEM_TIME ORDER BY id",
    "SELECT id FROM claims FOR ALL VALID_TIME FOR SYSTEM_TIME FROM '2024-06-01' TO (SELECT 'infinity'::TIMESTAMPTZ) ORDER BY id",
]


@pytest.mark.parametrize("question", CLAUSE_QUESTIONS)
def test_temporal_clauses_answer_as_the_live_path(ledger_at, question):
    location, path = ledger_at
    with _companion(location, path) as analytics:
        got = analytics.sql(question).fetchall()
    assert got == _live(location, question)


def test_the_hidden_interval_ends_stay_hidden(ledger_at):
    location, path = ledger_at
    with _companion(location, path) as analytics:
        for question in ("SELECT * FROM claims LIMIT 0", "SELECT * FROM claim_versions LIMIT 0",
                         "SELECT * FROM claims FOR ALL VALID_TIME FOR ALL SYSTEM_TIME LIMIT 0"):
            columns = analytics.sql(question).columns
            with Analytics(location, mode="live", clock=lambda: NOW) as live:
                assert columns == live.sql(question).columns, question


def test_a_ledger_moved_into_place_during_a_session_is_not_mixed_in(tmp_path):
    path = tmp_path / "ledger.db"
    build_history(path)
    with _companion(path, tmp_path / "c.duckdb") as analytics:
        analytics.sql(ALL).fetchall()
        other = tmp_path / "other.db"
        _write_another_ledger(other)
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        other.replace(path)  # as `mv backup.db ledger.db` would
        rows = analytics.sql(ALL).fetchall()
        assert analytics.last_refresh.rebuilt
        assert rows == _live(path, ALL)
