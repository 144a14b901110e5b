"""A one-question session (`Analytics(first_query=…)`, what `factledger sql "…"` opens) over a current
companion, on both engines: it answers from the companion alone (no scanner extension loaded, no
ledger attached) exactly as the live path does; a write since the companion's last refresh, an erase,
a later query of a table the companion does not hold, or a listing of every view attach the ledger
first, so freshness and the erase rebuild hold as in a full session."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.ledger import Ledger
from factledger.ledger.analytics import Analytics

from .sql_fixtures import NOW
from .test_sql_companion import ALL, QUESTIONS, SECRET, _bytes_hold, _companion, _live, _write_more, ledger_at  # noqa: F401


def _one_question(location, path, query) -> Analytics:
    return Analytics(location, companion_path=path, clock=lambda: NOW, first_query=query)


def _scanner_loaded(analytics: Analytics) -> bool:
    """The ledger attached, or a scanner's functions registered (its extension loaded)."""
    con = analytics._con
    attached = con.execute("SELECT count(*) FROM duckdb_databases() WHERE database_name = 'ledger_file'").fetchone()[0]
    functions = con.execute(
        "SELECT count(*) FROM duckdb_functions() WHERE function_name IN ('sqlite_query', 'postgres_query')"
    ).fetchone()[0]
    return bool(attached or functions)


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_question_over_a_current_companion_reads_it_alone(ledger_at, question):
    location, path = ledger_at
    _companion(location, path).close()
    with _one_question(location, path, question) as analytics:
        assert analytics.mode == "companion" and not analytics.ledger_attached
        assert not _scanner_loaded(analytics)
        assert analytics.sql(question).fetchall() == _live(location, question)
        assert not analytics.ledger_attached and not analytics.last_refresh.changed


def test_a_write_since_the_last_refresh_is_copied_before_the_answer(ledger_at):
    location, path = ledger_at
    _companion(location, path).close()
    _write_more(location)
    with _one_question(location, path, ALL) as analytics:
        assert analytics.ledger_attached and analytics.last_refresh.transactions == 3
        assert analytics.sql(ALL).fetchall() == _live(location, ALL)


def test_a_write_during_the_session_is_seen_by_the_next_query(ledger_at):
    location, path = ledger_at
    _companion(location, path).close()
    with _one_question(location, path, ALL) as analytics:
        before = analytics.sql(ALL).fetchall()
        _write_more(location)
        after = analytics.sql(ALL).fetchall()
        assert analytics.ledger_attached and analytics.last_refresh.transactions == 3
        assert len(after) > len(before) and after == _live(location, ALL)


def test_an_erase_rebuilds_the_companion_before_a_one_question_session_answers(ledger_at):
    location, path = ledger_at
    ledger = Ledger.open(location)
    try:
        with ledger.transaction(principal="operator:alice", reason="address") as tx:
            tx.add("home", "Ann", "likes", SECRET, valid_from="2024-01-01")
    finally:
        ledger.close()
    _companion(location, path).close()
    assert _bytes_hold(path, SECRET)
    ledger = Ledger.open(location)
    try:
        ledger.erase(scope="home", subject="Ann", predicate="likes", value=SECRET, principal="operator:alice", reason="asked")
    finally:
        ledger.close()
    with _one_question(location, path, ALL) as analytics:
        assert analytics.last_refresh.rebuilt and "erase" in analytics.last_refresh.reason
        assert analytics.sql(ALL).fetchall() == _live(location, ALL)
    assert not _bytes_hold(path, SECRET)


@pytest.mark.parametrize("first", [
    "SELECT count(*) FROM episodes",
    "SELECT count(*) FROM claims JOIN episodes ON true",
    "SELECT count(*) FROM main.claim_versions",
    "SHOW TABLES",
])
def test_a_question_reading_other_tables_opens_the_full_session(ledger_at, first):
    location, path = ledger_at
    _companion(location, path).close()
    with _one_question(location, path, first) as analytics:
        assert analytics.ledger_attached and analytics.mode == "companion" and _scanner_loaded(analytics)
        assert analytics.fetch(first) == _full_answer(location, path, first)


def test_a_later_question_of_another_table_attaches_the_ledger(ledger_at):
    location, path = ledger_at
    _companion(location, path).close()
    later = "SELECT count(*) AS turns, count(DISTINCT session) AS sessions FROM episodes"
    with _one_question(location, path, ALL) as analytics:
        assert analytics.sql(ALL).fetchall() == _live(location, ALL)
        assert not analytics.ledger_attached
        answer = analytics.sql(later).fetchall()
        assert analytics.ledger_attached and answer == _live(location, later)
        assert analytics.sql(ALL).fetchall() == _live(location, ALL)  # the companion still serves claims


def test_listings_in_a_one_question_session_name_every_view(ledger_at):
    location, path = ledger_at
    _companion(location, path).close()
    full = Analytics(location, companion_path=path, clock=lambda: NOW)
    try:
        expected_views, expected_tables = full.describe(), full.fetch("SHOW TABLES")
    finally:
        full.close()
    with _one_question(location, path, ALL) as analytics:
        assert analytics.describe() == expected_views
    with _one_question(location, path, ALL) as analytics:
        assert analytics.fetch("SHOW TABLES") == expected_tables


def _full_answer(location, path, query):
    with Analytics(location, companion_path=path, clock=lambda: NOW) as analytics:
        return analytics.fetch(query)


def test_factledger_sql_answers_from_a_current_companion(tmp_path):
    from .sql_fixtures import build_history

    db = tmp_path / "ledger.db"
    build_history(db)
    path = tmp_path / "ledger.db.analytics.duckdb"
    _companion(db, path).close()
    question = "SELECT predicate, count(*) AS n FROM claims FOR ALL VALID_TIME FOR ALL SYSTEM_TIME GROUP BY 1 ORDER BY 1"
    result = CliRunner().invoke(cli, ["--db", str(db), "sql", question, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert [[r["predicate"], r["n"]] for r in json.loads(result.stdout)] == [list(r) for r in _live(db, question)]


def test_later_questions_of_the_companion_s_views_and_macros_need_no_ledger(ledger_at):
    location, path = ledger_at
    _companion(location, path).close()
    later = [*QUESTIONS, "SELECT * FROM slots ORDER BY ALL", "SELECT * FROM activity('2020-01-01', '2030-01-01')",
             "SELECT * FROM changes_between('2024-01-01', '2026-01-01') ORDER BY ALL", "DESCRIBE corrections"]
    with _one_question(location, path, "SELECT count(*) FROM transactions") as analytics:
        for question in later:
            assert analytics.fetch(question) == _full_answer(location, path, question), question
        assert not analytics.ledger_attached
