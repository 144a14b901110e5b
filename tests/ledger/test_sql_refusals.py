"""Anything but one read-only query is refused, with the line, column and text of the offence, and the
ledger file is unchanged afterwards. DuckDB's own lock-down is checked as a second wall."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from factledger.ledger.analytics import Analytics, QueryRefused, SqlError, SqlSyntaxError

from .sql_fixtures import NOW, build_history, file_digest

# (statement, line, column, a word the offending text contains)
REFUSED: list[tuple[str, int, int, str]] = [
    ("DROP TABLE claims", 1, 1, "DROP"),
    ("drop view claims", 1, 1, "drop"),
    ("DeLeTe FROM claims", 1, 1, "DeLeTe"),
    ("INSERT INTO claims VALUES (1)", 1, 1, "INSERT"),
    ("UPDATE claims SET value = 'x'", 1, 1, "UPDATE"),
    ("CREATE TABLE t AS SELECT 1", 1, 1, "CREATE"),
    ("ALTER TABLE claims ADD COLUMN x INT", 1, 1, "ALTER"),
    ("ATTACH '/tmp/other.db' AS other", 1, 1, "ATTACH"),
    ("DETACH ledger_file", 1, 1, "DETACH"),
    ("COPY claims TO '/tmp/out.csv'", 1, 1, "COPY"),
    ("COPY (SELECT * FROM claims) TO '/tmp/out.parquet' (FORMAT parquet)", 1, 1, "COPY"),
    ("INSTALL httpfs", 1, 1, "INSTALL"),
    ("LOAD httpfs", 1, 1, "LOAD"),
    ("PRAGMA database_list", 1, 1, "PRAGMA"),
    ("SET enable_external_access = true", 1, 1, "SET"),
    ("RESET lock_configuration", 1, 1, "RESET"),
    ("EXPORT DATABASE '/tmp/dump'", 1, 1, "EXPORT"),
    ("CALL pragma_version()", 1, 1, "CALL"),
    ("CHECKPOINT", 1, 1, "CHECKPOINT"),
    ("BEGIN TRANSACTION", 1, 1, "BEGIN"),
    ("USE ledger_file", 1, 1, "USE"),
    # DESCRIBE, SUMMARIZE, EXPLAIN and SHOW TABLES are reads (test_sql_describing.py); SHOW … else is not
    ("SHOW ALL TABLES", 1, 1, "SHOW"),
    ("VALUES (1)", 1, 1, "VALUES"),
    # multi-statement input
    ("SELECT 1; DROP TABLE claims", 1, 11, "DROP"),
    ("SELECT 1 ;; DELETE FROM claims", 1, 13, "DELETE"),
    ("SELECT 1;\n-- harmless, surely\nDELETE FROM claims", 3, 1, "DELETE"),
    ("SELECT 1; SELECT 2", 1, 11, "SELECT"),
    # comment and case tricks
    ("/* SELECT */ DROP TABLE claims", 1, 14, "DROP"),
    ("-- SELECT\nDrOp TaBlE claims", 2, 1, "DrOp"),
    ("SELECT 1 /* ; */; /* SELECT */ insert INTO claims VALUES (2)", 1, 32, "insert"),
    # files, other databases, the environment
    ("SELECT * FROM read_csv('/etc/passwd')", 1, 15, "READ_CSV"),
    ("SELECT * FROM ReAd_PaRqUeT('x.parquet')", 1, 15, "READ_PARQUET"),
    ("SELECT * FROM read_text('/etc/hostname')", 1, 15, "read_text"),
    ("SELECT * FROM '/etc/passwd'", 1, 15, "/etc/passwd"),
    ('SELECT * FROM "ledger.db"', 1, 15, "ledger.db"),
    ("SELECT * FROM glob('/*')", 1, 15, "GLOB"),
    ("SELECT * FROM sqlite_scan('/tmp/x.db', 'claims')", 1, 15, "sqlite_scan"),
    ("SELECT * FROM query('SELECT 1')", 1, 15, "query"),
    ("SELECT getenv('HOME')", 1, 8, "GETENV"),
    ("SELECT\n  *\nFROM claims\nWHERE id IN (SELECT id FROM read_json('x.json'))", 4, 29, "READ_JSON"),
    # writes hidden inside a query
    ("WITH gone AS (DELETE FROM claims RETURNING *) SELECT * FROM gone", 1, 15, "DELETE"),
    ("SELECT * INTO copied FROM claims", 1, 10, "INTO"),
    ("WITH claims AS (SELECT 1 AS id) SELECT * FROM claims", 1, 6, "claims"),
    # temporal clauses where they do not belong, and times that are not times
    ("SELECT * FROM transactions FOR SYSTEM_TIME AS OF '2024-01-01'", 1, 28, "FOR"),
    ("SELECT * FROM claims FOR VALID_TIME AS OF 'soon'", 1, 43, "soon"),
]


@pytest.fixture(scope="module")
def analytics(history_path: Path):
    with Analytics(history_path, clock=lambda: NOW) as instance:
        yield instance


def test_the_list_is_long_enough() -> None:
    assert len(REFUSED) >= 25
    assert sum(1 for q, *_ in REFUSED if ";" in q) >= 4


@pytest.mark.parametrize(("query", "line", "column", "word"), REFUSED, ids=[q.replace("\n", "⏎")[:50] for q, *_ in REFUSED])
def test_refused_with_position(analytics: Analytics, history_path: Path, query: str, line: int, column: int, word: str) -> None:
    before = file_digest(history_path)
    with pytest.raises(QueryRefused) as caught:
        analytics.sql(query)
    error = caught.value
    assert (error.line, error.column) == (line, column), str(error)
    assert word.lower() in error.text.lower(), str(error)
    assert f"line {line}, column {column}" in str(error)
    assert file_digest(history_path) == before


@pytest.mark.parametrize(
    ("query", "line", "column", "text"),
    [
        ("SELECT * FROM claims FOR VALID_TIME SOMETIME", 1, 37, "SOMETIME"),
        ("SELECT * FROM claims\nFOR VALID_TIME AS OF '2024-01-01'\nFOR VALID_TIME ALL", 3, 1, "FOR"),
        ("SELECT * FROM claims FOR VALID_TIME FROM '2024-01-01' AND '2024-02-01'", 1, 55, "AND"),
        ("SELECT 1 FROM", 1, 10, "FROM"),
    ],
)
def test_syntax_errors_have_positions(analytics: Analytics, query: str, line: int, column: int, text: str) -> None:
    with pytest.raises(SqlSyntaxError) as caught:
        analytics.sql(query)
    assert (caught.value.line, caught.value.column, caught.value.text) == (line, column, text)


def test_empty_input_is_refused(analytics: Analytics) -> None:
    for query in ("", "  \n ", "-- nothing\n", ";"):
        with pytest.raises(SqlError):
            analytics.sql(query)


def test_queries_still_run_after_refusals(analytics: Analytics) -> None:
    assert analytics.fetch("SELECT count(*) FROM claims FOR ALL SYSTEM_TIME FOR ALL VALID_TIME")[1] == [(12,)]


def test_duckdb_itself_is_locked_down(analytics: Analytics) -> None:
    """Defence in depth: even statements that bypassed the guard could not reach files or settings."""
    settings = dict(
        analytics.fetch(
            "SELECT name, value FROM duckdb_settings() WHERE name IN"
            " ('enable_external_access', 'lock_configuration', 'python_enable_replacements')"
        )[1]
    )
    assert settings == {"enable_external_access": "false", "lock_configuration": "true", "python_enable_replacements": "false"}
    connection = analytics._con  # the raw connection, as if the guard had a hole
    for statement in ("SELECT * FROM read_csv('/etc/hostname')", "SET enable_external_access = true", "LOAD httpfs"):
        with pytest.raises(duckdb.Error):
            connection.execute(statement)
    with pytest.raises(duckdb.Error):
        connection.execute("INSERT INTO ledger_file.transactions (tx_time, principal) VALUES ('2030-01-01', 'operator:x')")


def test_the_file_is_opened_read_only(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    build_history(path)
    before = file_digest(path)
    path.chmod(0o444)
    try:
        with Analytics(path, clock=lambda: NOW) as analytics:
            assert analytics.fetch("SELECT count(*) FROM claim_versions")[1] == [(12,)]
    finally:
        path.chmod(0o644)
    assert file_digest(path) == before
