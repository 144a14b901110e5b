"""Every command with `--db` naming a SQLite file and a PostgreSQL URL: one scripted session (apply,
the reads, the journal and digest, review, erase and scrub, verify, export, sql, the index) exits 0 on
both, and where an answer is the ledger's (not an engine's bookkeeping) both print the same JSON.

Times the ledger stamps (transaction times, said-at defaults, digested-at) come from each run's own
clock, so each distinct such time is replaced by its order of appearance before comparing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli

OPS = [
    {"op": "define", "predicate": "lives_in", "cardinality": "one", "template": "{subject} lives in {value}", "tx": "setup"},
    {"op": "define", "predicate": "likes", "cardinality": "many", "tx": "setup"},
    {"op": "add", "scope": "s", "subject": "Ann", "predicate": "lives_in", "value": "Paris", "valid_from": "2024-01-01", "tx": "first"},
    {"op": "add", "scope": "s", "subject": "Ann", "predicate": "likes", "value": "jazz", "valid_from": "2024-01-01", "tx": "first"},
    {"op": "supersede", "scope": "s", "subject": "Ann", "predicate": "lives_in", "value": "Rome", "valid_from": "2024-06-01"},
]
TURNS = [
    {"scope": "u", "session": "chat-1", "role": "user", "text": "I live in Lisbon.", "said_at": "2024-03-01T10:00:00Z"},
    {"scope": "u", "session": "chat-1", "role": "assistant", "text": "Noted.", "said_at": "2024-03-01T10:00:01Z"},
    {"scope": "u", "session": "chat-1", "role": "user", "text": "I like tea.", "said_at": "2024-03-01T10:01:00Z"},
    {"scope": "u", "session": "chat-1", "role": "user", "text": "I work at Acme.", "said_at": "2024-03-01T10:02:00Z"},
]
INPUT_TIMES = {"2024-01-01", "2024-06-01"}

# (name, arguments, whether the JSON is compared across engines, what to drop from it before comparing)
STEPS: list[tuple[str, list[str], bool, tuple[str, ...]]] = [
    ("apply", ["apply", "{ops}"], True, ()),
    ("current", ["current", "--json"], True, ()),
    ("as-of", ["as-of", "--valid-at", "2024-03-01", "--json"], True, ()),
    ("history", ["history", "--scope", "s", "--subject", "Ann", "--predicate", "lives_in", "--json"], True, ()),
    ("predicates", ["predicates", "--json"], True, ()),
    ("memories", ["memories", "--scope", "s", "--json"], True, ()),
    ("journal add", ["journal", "add", "{turns}", "--json"], True, ()),
    ("journal list", ["journal", "list", "--json"], True, ()),
    ("digest", ["digest", "--rules", "--policy", "strict", "--json"], True, ()),
    ("review list", ["review", "list", "--json"], True, ()),
    ("review accept", ["review", "accept", "{first_proposal}", "--json"], True, ()),
    ("review reject", ["review", "reject", "{second_proposal}", "--reason", "not so", "--json"], True, ()),
    ("review rejections", ["review", "rejections", "--json"], True, ()),
    ("episodes", ["episodes", "--scope", "u", "--json"], True, ()),
    ("search", ["search", "Lisbon", "--scope", "u", "--json"], True, ()),
    ("recall", ["recall", "where does the user live", "--scope", "u", "--json"], True, ()),
    ("sql", ["sql", "SELECT scope, subject, predicate, value FROM claims ORDER BY scope, subject, predicate, value", "--json"], True, ()),
    ("erase", ["erase", "--scope", "s", "--subject", "Ann", "--predicate", "likes", "--value", "jazz", "--yes", "--json"], True, ("scrub", "tombstones")),  # keyed by each ledger's own secret
    ("scrub", ["scrub", "--json"], False, ()),
    ("current after erase", ["current", "--json"], True, ()),
    ("verify", ["verify", "--json"], False, ()),
    ("export", ["export", "{export_dir}", "--format", "csv", "--json"], False, ()),
    ("index status", ["index", "status", "--json"], False, ()),
]

_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")


def normalise(value: Any, times: dict[str, str], drop: tuple[str, ...]) -> Any:
    """The JSON with each time the run's clock stamped replaced by its order of appearance, and the
    keys in `drop` (scores, engine-specific reports) left out."""
    if isinstance(value, dict):
        return {k: normalise(v, times, drop) for k, v in value.items() if k not in drop}
    if isinstance(value, list):
        return [normalise(v, times, drop) for v in value]
    if isinstance(value, str) and _TIME.fullmatch(value) and not value.startswith("2024-"):
        return times.setdefault(value, f"<time {len(times) + 1}>")
    return value


def run_session(location: str, tmp_path: Path) -> dict[str, tuple[int, Any]]:
    (tmp_path / "ops.jsonl").write_text("".join(json.dumps(op) + "\n" for op in OPS))
    (tmp_path / "turns.jsonl").write_text("".join(json.dumps(t) + "\n" for t in TURNS))
    runner = CliRunner()
    fills = {"ops": str(tmp_path / "ops.jsonl"), "turns": str(tmp_path / "turns.jsonl"), "export_dir": str(tmp_path / "export")}
    outputs: dict[str, tuple[int, Any]] = {}
    for name, args, _, _ in STEPS:
        argv = [a.format(**fills) if "{" in a and not a.startswith("SELECT") else a for a in args]
        result = runner.invoke(cli, ["--db", location, "--principal", "operator:tester", *argv], catch_exceptions=False)
        lines = [line for line in result.stdout.splitlines() if line.strip()]
        try:
            parsed = json.loads(result.stdout) if lines else None
        except json.JSONDecodeError:
            parsed = [json.loads(line) for line in lines]  # JSON Lines (apply)
        outputs[name] = (result.exit_code, parsed)
        assert result.exit_code == 0, f"{name} on {location}: {result.output}"
        if name == "review list":
            ids = [p["id"] for p in (parsed["proposals"] if isinstance(parsed, dict) else parsed)]
            assert len(ids) >= 2, parsed
            fills["first_proposal"], fills["second_proposal"] = str(ids[-1]), str(ids[-2])
    return outputs


def both_sessions(tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # PostgreSQL's default vector folder
    monkeypatch.delenv("FACTLEDGER_DB", raising=False)
    (tmp_path / "sqlite").mkdir()
    (tmp_path / "postgres").mkdir()
    sqlite = run_session(str(tmp_path / "sqlite" / "ledger.db"), tmp_path / "sqlite")
    postgres = run_session(postgres_url, tmp_path / "postgres")
    return sqlite, postgres


@pytest.mark.slow  # one scripted session per engine (~10 s): every command, checked three ways below
def test_every_command_on_both_engines(tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch):
    sessions = both_sessions(tmp_path, postgres_url, monkeypatch)
    answers_alike(sessions)
    engine_reports(sessions)
    did_what_it_says(sessions)


def answers_alike(sessions) -> None:
    """Every step exits 0 on both; the ledger's answers are the same JSON."""
    sqlite, postgres = sessions
    sqlite_times: dict[str, str] = {}
    postgres_times: dict[str, str] = {}
    for name, _, compared, drop in STEPS:
        assert sqlite[name][0] == postgres[name][0] == 0
        if compared:
            assert normalise(postgres[name][1], postgres_times, drop) == normalise(sqlite[name][1], sqlite_times, drop), name


def engine_reports(sessions) -> None:
    """The engine-specific reports (scrub, verify, export) say what each engine did."""
    sqlite, postgres = sessions
    assert sqlite["scrub"][1]["complete"] is True and sqlite["scrub"][1]["wal_truncated"] is True
    pg_scrub = postgres["scrub"][1]
    assert pg_scrub["complete"] is True and pg_scrub["engine"] == "postgres" and "claims" in pg_scrub["rewritten_tables"]
    assert postgres["erase"][1]["scrub"]["complete"] is True
    for outputs in (sqlite, postgres):
        assert outputs["verify"][1]["ok"] is True, outputs["verify"][1]
    rows = [{t["name"]: t["rows"] for t in outputs["export"][1]["tables"]} for outputs in (sqlite, postgres)]
    ledger_tables = {"claims", "transactions", "predicates", "journal", "proposals", "rejections", "tombstones"}
    assert ledger_tables <= set(rows[0]) & set(rows[1])
    assert {t: rows[0][t] for t in ledger_tables} == {t: rows[1][t] for t in ledger_tables}


def did_what_it_says(sessions) -> None:
    """The compared answers are not empty ones: the script really wrote, digested, reviewed and erased."""
    _, postgres = sessions
    assert postgres["digest"][1]["proposals"]["pending"] == 3  # strict: held for review
    (accepted,) = postgres["review accept"][1]
    assert accepted["status"] == "applied" and [v["value"] for v in accepted["opened"]] == ["Lisbon"]
    assert [r["value"] for r in postgres["review rejections"][1]] == ["tea"]
    assert [e["text"] for e in postgres["episodes"][1]] == ["I live in Lisbon.", "I like tea.", "I work at Acme."]
    assert postgres["search"][1][0]["kind"] == "fact" and postgres["search"][1][0]["value"] == "Lisbon"
    assert postgres["search"][1][0]["scores"]["lexical"] > 0  # the lexical lane ranked it, as FTS5 does
    before = {(c["scope"], c["predicate"], c["value"]) for c in postgres["current"][1]}
    after = {(c["scope"], c["predicate"], c["value"]) for c in postgres["current after erase"][1]}
    assert before - after == {("s", "likes", "jazz")} and ("u", "lives_in", "Lisbon") in after
