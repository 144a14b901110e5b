"""SQL writes (`factledger sql --write`, `execute_write`): each statement's operations, refusals with
positions, the operator rule, dry runs, ERASE's confirmation, and bound parameters on reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.ledger import Ledger, PermissionDenied, ValidationError
from factledger.ledger.analytics import Analytics, QueryRefused, SqlSyntaxError, execute_write, plan_write

SLOT = "scope = 'home' AND subject = 'Ann' AND predicate = 'lives_in'"


@pytest.fixture()
def ledger_path(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger:
        with ledger.transaction(principal="operator:t") as tx:
            tx.define("lives_in", "one")
            tx.define("likes", "many")
            tx.add("home", "Ann", "lives_in", "Paris", valid_from="2024-01-01")
            tx.add("home", "Ann", "likes", "jazz", valid_from="2024-01-01")
    return path


def invoke(path: Path, *args: str, stdin: str | None = None):
    return CliRunner().invoke(cli, ["--db", str(path), *args], input=stdin, catch_exceptions=False)


@pytest.mark.parametrize(
    ("sql", "lines"),
    [
        (
            "INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to) VALUES"
            " ('home', 'Ann', 'likes', 'folk', '2024-02-01', NULL), ('home', 'Ann', 'likes', 'blues', CURRENT_TIMESTAMP, '2030-01-01T02:00:00+02:00')",
            [
                {"op": "add", "scope": "home", "subject": "Ann", "predicate": "likes", "value": "folk", "valid_from": "2024-02-01T00:00:00.000000Z"},
                {"op": "add", "scope": "home", "subject": "Ann", "predicate": "likes", "value": "blues", "valid_to": "2030-01-01T00:00:00.000000Z"},
            ],
        ),
        # an UPDATE changes what the portion holds: each version it overlaps, over the overlap
        (
            f"UPDATE claims FOR PORTION OF VALID_TIME FROM '2024-06-01' TO '2024-09-01' SET value = 'Rome' WHERE {SLOT}",
            [{"op": "supersede", "scope": "home", "subject": "Ann", "predicate": "lives_in", "value": "Rome",
              "valid_from": "2024-06-01T00:00:00.000000Z", "replaces": "Paris", "valid_to": "2024-09-01T00:00:00.000000Z"}],
        ),
        (
            f"UPDATE claims FOR PORTION OF VALID_TIME FROM '2023-06-01' TO '2024-09-01' SET value = 'Rome' WHERE {SLOT}",
            [{"op": "supersede", "scope": "home", "subject": "Ann", "predicate": "lives_in", "value": "Rome",
              "valid_from": "2024-01-01T00:00:00.000000Z", "replaces": "Paris", "valid_to": "2024-09-01T00:00:00.000000Z"}],
        ),
        # XTDB's open end (no TO) and TO NULL mean the same
        (
            f"UPDATE claims FOR PORTION OF VALID_TIME FROM '2024-06-01' SET value = 'Rome' WHERE {SLOT}",
            [{"op": "supersede", "scope": "home", "subject": "Ann", "predicate": "lives_in", "value": "Rome",
              "valid_from": "2024-06-01T00:00:00.000000Z", "replaces": "Paris"}],
        ),
        (
            f"UPDATE claims FOR PORTION OF VALID_TIME FROM '2024-06-01' TO NULL SET value = 'Rome' WHERE {SLOT}",
            [{"op": "supersede", "scope": "home", "subject": "Ann", "predicate": "lives_in", "value": "Rome",
              "valid_from": "2024-06-01T00:00:00.000000Z", "replaces": "Paris"}],
        ),
        # SUPERSEDE: apply's own word, over the whole portion
        (
            f"SUPERSEDE claims FOR PORTION OF VALID_TIME FROM '2023-06-01' TO '2024-09-01' SET value = 'Rome' WHERE {SLOT}",
            [{"op": "supersede", "scope": "home", "subject": "Ann", "predicate": "lives_in", "value": "Rome",
              "valid_from": "2023-06-01T00:00:00.000000Z", "valid_to": "2024-09-01T00:00:00.000000Z"}],
        ),
        (
            "SUPERSEDE claims SET value = 'blues' WHERE predicate = 'likes' AND value = 'jazz' AND subject = 'Ann' AND scope = 'home'",
            [{"op": "supersede", "scope": "home", "subject": "Ann", "predicate": "likes", "value": "blues", "replaces": "jazz"}],
        ),
        (
            f"DELETE FROM claims FOR PORTION OF VALID_TIME FROM '2024-03-01' TO '2024-04-01' WHERE {SLOT}",
            [{"op": "retract", "scope": "home", "subject": "Ann", "predicate": "lives_in",
              "valid_from": "2024-03-01T00:00:00.000000Z", "valid_to": "2024-04-01T00:00:00.000000Z"}],
        ),
        (
            f"DELETE FROM claims FOR ALL VALID_TIME WHERE {SLOT} AND value = 'Paris'",
            [{"op": "retract", "scope": "home", "subject": "Ann", "predicate": "lives_in", "value": "Paris", "all_valid_time": True}],
        ),
        (
            f"ERASE FROM claims WHERE {SLOT} AND value = 'Paris';",
            [{"op": "erase", "scope": "home", "subject": "Ann", "predicate": "lives_in", "value": "Paris"}],
        ),
    ],
)
def test_statements_become_apply_operations(sql: str, lines: list[dict], ledger_path: Path) -> None:
    with Ledger.open(ledger_path) as ledger:
        assert execute_write(ledger, sql, principal="operator:t", dry_run=True).lines() == lines


@pytest.mark.parametrize(
    ("sql", "column", "text", "reason"),
    [
        ("UPDATE claims SET value = 'x' WHERE scope = 'home' OR subject = 'Ann'", 37, "scope = 'home' OR subject = 'Ann'", "OR joins conditions on one column"),
        (f"UPDATE claims SET subject = 'Bob' WHERE {SLOT}", 19, "subject", "names the slot (in WHERE) and cannot be set"),
        (f"UPDATE claims FOR ALL VALID_TIME SET value = 'x' WHERE {SLOT}", 15, "FOR", "cannot be expressed"),
        (f"DELETE FROM claims FOR VALID_TIME AS OF '2024-01-01' WHERE {SLOT}", 20, "FOR", "FOR PORTION OF"),
        (f"DELETE FROM claims FOR SYSTEM_TIME AS OF '2024-01-01' WHERE {SLOT}", 20, "FOR SYSTEM_TIME", "system time"),
        ("ERASE FROM claims WHERE scope = 'home'", 19, "WHERE scope = 'home'", "subject, predicate"),
        ("INSERT INTO claims SELECT * FROM claims", 20, "SELECT * FROM claims", "VALUES"),
        ("INSERT INTO claims (scope, subject, predicate, value) VALUES ('a', 'b', 'c', 42)", 78, "42", "text literal"),
        ("INSERT INTO claims (scope, subject, predicate, value, tx_from) VALUES ('a', 'b', 'c', 'd', '2024-01-01')", 55, "tx_from", "writable"),
        ("INSERT INTO claim_versions (scope, subject, predicate, value) VALUES ('a', 'b', 'c', 'd')", 13, "claim_versions", "writes go to claims"),
        (f"UPDATE claims FOR PORTION OF VALID_TIME FROM 'soon' SET value = 'x' WHERE {SLOT}", 46, "'soon'", "not a timestamp"),
        ("SELECT * FROM claims", 1, "SELECT *", "INSERT, UPDATE, DELETE, SUPERSEDE or ERASE"),
        (f"DELETE FROM claims WHERE {SLOT}; DROP TABLE claims", 89, "DROP TABLE", "one statement only"),
        (f"DELETE FROM claims USING other WHERE {SLOT}", 26, "other", "USING cannot be expressed"),
        (f"UPDATE claims SET value = 'x' FROM other WHERE {SLOT}", 31, "FROM other", "FROM cannot be expressed"),
    ],
)
def test_refusals_name_the_position(sql: str, column: int, text: str, reason: str) -> None:
    with pytest.raises(QueryRefused) as caught:
        plan_write(sql)
    assert (caught.value.line, caught.value.column, caught.value.text) == (1, column, text)
    assert reason in caught.value.reason
    assert sql[column - 1 :].startswith(text.split()[0])


def test_system_time_portion_is_a_syntax_error() -> None:
    with pytest.raises(SqlSyntaxError, match="VALID_TIME"):
        plan_write(f"UPDATE claims FOR PORTION OF SYSTEM_TIME FROM '2024-01-01' SET value = 'x' WHERE {SLOT}")


def test_a_statement_is_one_transaction_and_a_bad_row_writes_nothing(ledger_path: Path) -> None:
    with Ledger.open(ledger_path) as ledger:
        before = ledger.storage.query("SELECT count(*) FROM transactions")[0][0]
        with pytest.raises(ValidationError, match="row 2"):
            execute_write(
                ledger,
                "INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to)"
                " VALUES ('home', 'Ann', 'likes', 'folk', '2024-01-01', NULL), ('home', 'Ann', 'likes', 'soul', '2024-05-01', '2024-02-01')",
                principal="operator:t",
            )
        assert ledger.storage.query("SELECT count(*) FROM transactions")[0][0] == before
        outcome = execute_write(
            ledger, f"UPDATE claims FOR PORTION OF VALID_TIME FROM $t SET value = 'Rome' WHERE {SLOT}",
            principal="operator:t", reason="moved", params={"t": "2024-06-01"},
        )
        assert outcome.result is not None and outcome.result.reason == "moved"
        record = ledger.transaction_record(outcome.result.id)
        assert record is not None and record.principal == "operator:t"
        held = {(v.value, v.valid_from, v.valid_to) for v in ledger.as_of(valid_at="2024-07-01") if v.predicate == "lives_in"}
        assert held == {("Rome", "2024-06-01T00:00:00.000000Z", None)}


def test_only_an_operator_writes_and_a_dry_run_writes_nothing(ledger_path: Path) -> None:
    with Ledger.open(ledger_path) as ledger:
        with pytest.raises(PermissionDenied):
            execute_write(ledger, f"DELETE FROM claims WHERE {SLOT}", principal="agent:bot")
        before = ledger.storage.query("SELECT count(*) FROM claims")[0][0]
        outcome = execute_write(ledger, f"DELETE FROM claims WHERE {SLOT}", principal="operator:t", dry_run=True)
        assert outcome.result is None and outcome.lines()[0]["op"] == "retract" and outcome.rows == 1
        assert ledger.storage.query("SELECT count(*) FROM claims")[0][0] == before
        with pytest.raises(PermissionDenied, match="erase function"):
            execute_write(ledger, f"ERASE FROM claims WHERE {SLOT}", principal="operator:t")


def test_cli_write_dry_run_prints_apply_lines_that_apply_accepts(ledger_path: Path, tmp_path: Path) -> None:
    sql = f"UPDATE claims FOR PORTION OF VALID_TIME FROM '2024-06-01' SET value = 'Rome' WHERE {SLOT}"
    dry = invoke(ledger_path, "sql", "--write", "--dry-run", sql)
    assert dry.exit_code == 0, dry.output
    lines = [json.loads(line) for line in dry.stdout.splitlines()]
    assert lines == [{"op": "supersede", "scope": "home", "subject": "Ann", "predicate": "lives_in", "value": "Rome",
                      "valid_from": "2024-06-01T00:00:00.000000Z", "replaces": "Paris"}]
    applied = invoke(ledger_path, "apply", "-", stdin=dry.stdout)
    assert applied.exit_code == 0, applied.output
    with Ledger.open(ledger_path) as ledger:
        assert {v.value for v in ledger.as_of(valid_at="2024-07-01") if v.predicate == "lives_in"} == {"Rome"}


def test_cli_write_refusals_exit_2_with_a_caret(ledger_path: Path) -> None:
    result = invoke(ledger_path, "sql", "--write", "ERASE FROM claims WHERE scope = 'home'")
    assert result.exit_code == 2
    assert "WHERE must name subject, predicate" in result.stderr and "^" in result.stderr
    read = invoke(ledger_path, "sql", f"DELETE FROM claims WHERE {SLOT}")
    assert read.exit_code == 2 and "--write" in read.stderr
    agent = invoke(ledger_path, "--principal", "agent:bot", "sql", "--write", f"DELETE FROM claims WHERE {SLOT}")
    assert agent.exit_code == 2 and "operator" in agent.stderr


def test_cli_erase_asks_like_factledger_erase(ledger_path: Path, tmp_path: Path) -> None:
    sql = f"ERASE FROM claims WHERE {SLOT} AND value = 'Paris'"
    index = ["--index-dir", str(tmp_path / "vectors")]
    declined = invoke(ledger_path, "sql", "--write", *index, sql, stdin="n\n")
    assert declined.exit_code == 2 and "Erase Ann lives_in Paris in scope home" in declined.output
    with Ledger.open(ledger_path) as ledger:
        assert ledger.storage.query("SELECT count(*) FROM tombstones")[0][0] == 0
    done = invoke(ledger_path, "sql", "--write", "--yes", "--json", *index, sql)
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert len(report["erased"]) == 1
    with Ledger.open(ledger_path) as ledger:
        assert ledger.is_erased("home", "Ann", "lives_in", "Paris")
        assert not [v for v in ledger.current() if v.predicate == "lives_in"]


def test_read_parameters_are_bound_as_data(ledger_path: Path) -> None:
    with Analytics(ledger_path) as analytics:
        rows = analytics.fetch("SELECT value FROM claims FOR VALID_TIME AS OF $t WHERE subject = $who ORDER BY 1", {"t": "2024-02-01T01:00:00+01:00", "who": "Ann"})[1]
        assert rows == [("Paris",), ("jazz",)]
        assert analytics.fetch("SELECT ? || $2", ["a", "'; DROP TABLE claims; --"])[1] == [("a'; DROP TABLE claims; --",)]
        with pytest.raises(QueryRefused, match="no value for parameter 'who'"):
            analytics.fetch("SELECT * FROM claims WHERE subject = $who")
        with pytest.raises(ValidationError, match="not used"):
            analytics.fetch("SELECT 1", {"x": 1})
        # positional values bind in the order the placeholders stand in the text, however deep each sits
        assert analytics.fetch("SELECT 1 WHERE (? = 'a' AND ? = 'b') AND ? = 'c'", ["a", "b", "c"])[1] == [(1,)]
    result = invoke(ledger_path, "sql", "--json", "SELECT value FROM claims WHERE predicate = $p", "--param", "p=lives_in")
    assert json.loads(result.stdout) == [{"value": "Paris"}]
    numbered = invoke(ledger_path, "sql", "--json", "SELECT value FROM claims WHERE predicate = $2 AND subject = $1",
                      "--param", "2=lives_in", "--param", "1=Ann")  # PostgreSQL's $1, $2 from the CLI
    assert json.loads(numbered.stdout) == [{"value": "Paris"}]
    gap = invoke(ledger_path, "sql", "SELECT $1, $3", "--param", "1=a", "--param", "3=c")
    assert gap.exit_code == 2 and "--param 2=… is missing" in gap.stderr


def test_limit_0_prints_the_header(ledger_path: Path) -> None:
    result = invoke(ledger_path, "sql", "SELECT subject, value FROM claims LIMIT 0")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].split() == ["subject", "value"]
    csv_out = invoke(ledger_path, "sql", "--format", "csv", "SELECT subject, value FROM claims LIMIT 0")
    assert csv_out.stdout == "subject,value\n"


def test_a_read_cannot_take_a_portion(ledger_path: Path) -> None:
    with Analytics(ledger_path) as analytics, pytest.raises(QueryRefused, match="FOR PORTION OF belongs to UPDATE"):
        analytics.fetch("SELECT * FROM claims FOR PORTION OF VALID_TIME FROM '2024-01-01'")
