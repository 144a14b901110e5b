"""Analysts' describing reads: DESCRIBE, SUMMARIZE, EXPLAIN [ANALYZE] and SHOW TABLES run over the
ledger views (temporal clauses included) and keep every guard check on the query they describe."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.ledger.analytics import Analytics, QueryRefused


def test_describe_and_summarize_a_view_or_a_query(history_path: Path) -> None:
    with Analytics(history_path) as analytics:
        columns, rows = analytics.fetch("DESCRIBE claims FOR VALID_TIME ALL")
        assert columns[:2] == ["column_name", "column_type"]
        types = {name: kind for name, kind, *_ in rows}
        assert types["valid_from"] == "TIMESTAMP WITH TIME ZONE" and types["value"] == "VARCHAR"
        assert [r[0] for r in analytics.fetch("desc SELECT subject, count(*) AS n FROM claims GROUP BY 1")[1]] == ["subject", "n"]
        names, (row,) = analytics.fetch("SUMMARIZE SELECT value FROM claims FOR VALID_TIME ALL FOR SYSTEM_TIME ALL")
        summary = dict(zip(names, row))
        every = analytics.fetch("SELECT count(*) FROM claims FOR VALID_TIME ALL FOR SYSTEM_TIME ALL")[1][0][0]
        assert summary["column_name"] == "value" and summary["count"] == every
        current = analytics.fetch("SUMMARIZE claims")[1]
        assert {r[0] for r in current} >= {"subject", "value", "valid_from"}


def test_explain_shows_the_rewritten_plan(history_path: Path) -> None:
    with Analytics(history_path) as analytics:
        columns, rows = analytics.fetch("EXPLAIN SELECT count(*) FROM claims FOR VALID_TIME AS OF '2024-03-01'")
        assert columns == ["explain_key", "explain_value"] and rows[0][0] == "physical_plan"
        assert analytics.fetch("EXPLAIN ANALYZE SELECT count(*) FROM claims")[1][0][0] == "analyzed_plan"


def test_show_tables_lists_the_views(history_path: Path) -> None:
    with Analytics(history_path) as analytics:
        names = [r[0] for r in analytics.fetch("SHOW TABLES")[1]]
    assert names == sorted(names) and {"claims", "claim_versions", "slots", "transactions"} <= set(names)
    assert not any(n.startswith("recall_") or n == "ledger_secret" for n in names)


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("DESCRIBE 'ledger.db'", "files cannot be read"),
        ("SUMMARIZE read_csv('/etc/passwd')", "read_csv"),
        ("EXPLAIN SELECT * FROM read_parquet('x.parquet')", "read_parquet"),
        ("EXPLAIN ANALYZE DELETE FROM claims", "read-only"),
        ("DESCRIBE claims; DROP TABLE claims", "one statement only"),
        ("SHOW ALL TABLES", "read-only"),
    ],
)
def test_describing_keeps_the_guard(history_path: Path, query: str, reason: str) -> None:
    with Analytics(history_path) as analytics, pytest.raises(QueryRefused, match=reason):
        analytics.fetch(query)


def test_cli_prints_a_plan_as_drawn(history_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", str(history_path), "sql", "EXPLAIN SELECT count(*) FROM claims"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "┌" in result.stdout.splitlines()[0]


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".json"])
def test_output_format_follows_the_extension(history_path: Path, tmp_path: Path, suffix: str) -> None:
    target = tmp_path / f"result{suffix}"
    result = CliRunner().invoke(
        cli, ["--db", str(history_path), "sql", "SELECT subject, value FROM claims ORDER BY 1, 2", "-o", str(target)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        assert pq.read_table(target).column_names == ["subject", "value"]
    elif suffix == ".csv":
        assert target.read_text().splitlines()[0] == "subject,value"
    else:
        import json

        assert set(json.loads(target.read_text())[0]) == {"subject", "value"}


def test_an_unknown_extension_asks_for_a_format(history_path: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--db", str(history_path), "sql", "SELECT 1", "-o", str(tmp_path / "x.txt")])
    assert result.exit_code == 2 and "--format" in result.output
    assert not (tmp_path / "x.txt").exists()
