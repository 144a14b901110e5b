"""The recall commands: search (single and batch), recall (prompt block), memories, index."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli

OPS = "\n".join(json.dumps(op) for op in [
    {"op": "define", "predicate": "lives_in", "cardinality": "one", "template": "{subject} lives in {value}"},
    {"op": "add", "scope": "s1", "subject": "user", "predicate": "lives_in", "value": "Berlin",
     "valid_from": "2024-06-01", "source": "journal:1"},
    {"op": "add", "scope": "s2", "subject": "user", "predicate": "lives_in", "value": "Paris", "valid_from": "2024-06-01"},
])


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "ledger.db"
    ops = tmp_path / "ops.jsonl"
    ops.write_text(OPS + "\n")
    result = CliRunner().invoke(cli, ["--db", str(path), "apply", str(ops)])
    assert result.exit_code == 0, result.output
    return path


def run(db, *args, input=None):
    return CliRunner().invoke(cli, ["--db", str(db), *args], input=input)


def test_search_json(db):
    result = run(db, "search", "where does the user live", "--scope", "s1", "--json")
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)
    assert [h["value"] for h in hits] == ["Berlin"]
    assert hits[0]["source"] == ["journal:1"] and hits[0]["valid_from"].startswith("2024-06-01")
    assert set(hits[0]["scores"]) >= {"lexical", "exact", "vector", "fused"}


def test_search_as_of_before_anything_finds_nothing(db):
    result = run(db, "search", "Berlin", "--scope", "s1", "--valid-at", "2024-01-01", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout) == []


def test_search_needs_a_scope(db):
    result = run(db, "search", "Berlin")
    assert result.exit_code == 2 and "scope" in result.output


def test_bad_time_is_a_clear_error(db):
    result = run(db, "search", "Berlin", "--scope", "s1", "--valid-at", "yesterday")
    assert result.exit_code == 2 and "valid_at" in result.output


def test_batch_prints_one_line_per_query(db):
    lines = "\n".join([
        json.dumps({"id": "q1", "query": "Berlin", "scope": "s1", "limit": 3}),
        json.dumps({"id": "q2", "query": "Paris", "scope": "s1"}),
        json.dumps({"id": "q3", "query": "Paris", "scope": "s2"}),
    ])
    result = run(db, "search", "--batch", "-", input=lines + "\n")
    assert result.exit_code == 0, result.output
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["id"] for o in out] == ["q1", "q2", "q3"]
    assert [h["value"] for h in out[0]["results"]] == ["Berlin"]
    assert out[1]["results"] == []  # scope isolation
    assert [h["value"] for h in out[2]["results"]] == ["Paris"]


def test_batch_reports_a_bad_line_and_goes_on(db):
    lines = json.dumps({"id": "bad", "query": "Berlin"}) + "\n" + json.dumps({"id": "ok", "query": "Berlin", "scope": "s1"})
    result = run(db, "search", "--batch", "-", input=lines + "\n")
    assert result.exit_code == 2
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert out[0]["id"] == "bad" and "scope" in out[0]["error"]
    assert out[1]["id"] == "ok" and out[1]["results"]


def test_recall_prints_the_prompt_block_or_nothing(db):
    result = run(db, "recall", "where does the user live", "--scope", "s1")
    assert result.exit_code == 0
    assert "never instructions" in result.stdout and "user lives in Berlin (since 2024-06-01)" in result.stdout
    assert run(db, "recall", "asdfghjkl", "--scope", "s1").stdout == ""


def test_memories(db):
    result = run(db, "memories", "--scope", "s2")
    assert result.stdout.strip().endswith("user lives in Paris (since 2024-06-01)")


def test_index_status_rebuild_repair(db, tmp_path):
    index = tmp_path / "elsewhere.lance"
    status = json.loads(run(db, "index", "status", "--index-dir", str(index), "--json").stdout)
    assert status["state"] == "missing" and status["pending"] == 2
    rebuilt = run(db, "index", "rebuild", "--index-dir", str(index), "--json")
    assert rebuilt.exit_code == 0, rebuilt.output
    assert json.loads(rebuilt.stdout)["written"] == 2
    status = json.loads(run(db, "index", "status", "--index-dir", str(index), "--json").stdout)
    assert status["state"] == "ok" and status["rows"] == 2 and status["pending"] == 0
    repaired = json.loads(run(db, "index", "repair", "--index-dir", str(index), "--json").stdout)
    assert repaired == {"upserted": 0, "deleted": 0, "rebuilt": False}
    assert index.is_dir() and not (tmp_path / "ledger.db.lance").exists()


TURNS = "\n".join(json.dumps(t) for t in [
    {"scope": "s1", "session": "x", "role": "user", "text": "I started pottery classes on Tuesdays",
     "said_at": "2024-07-02T10:00:00Z", "speaker": "Ada"},
    {"scope": "s1", "session": "x", "role": "assistant", "text": "Pottery is a lovely hobby",
     "said_at": "2024-07-02T10:01:00Z"},
    {"scope": "s1", "session": "y", "role": "user", "text": "the kiln broke again", "said_at": "2024-08-02T10:00:00Z"},
])


def test_episodes_search_kinds_and_prune(db):
    assert run(db, "journal", "add", "-", input=TURNS + "\n").exit_code == 0
    listed = run(db, "episodes", "--scope", "s1", "--json")
    assert listed.exit_code == 0, listed.output
    episodes = json.loads(listed.stdout)
    assert [(e["speaker"], e["session"]) for e in episodes] == [("Ada", "x"), ("assistant", "x"), ("user", "y")]
    only_x = json.loads(run(db, "episodes", "--scope", "s1", "--session", "x", "--json").stdout)
    assert len(only_x) == 2
    table = run(db, "episodes", "--scope", "s1")
    assert "Ada" in table.stdout and "pottery" in table.stdout
    hits = json.loads(run(db, "search", "pottery", "--scope", "s1", "--json").stdout)
    assert hits and {h["kind"] for h in hits} == {"episode"} and hits[0]["source"][0].startswith("journal:")
    facts_only = json.loads(run(db, "search", "pottery", "--scope", "s1", "--kind", "fact", "--json").stdout)
    assert facts_only == []
    text = run(db, "search", "pottery", "--scope", "s1")
    assert text.stdout.splitlines()[0].startswith("kind") and "episode" in text.stdout
    sql = run(db, "sql", "SELECT speaker, text FROM episodes ORDER BY id", "--format", "json")
    assert sql.exit_code == 0 and "Ada" in sql.stdout
    assert run(db, "digest", "--json").exit_code == 0  # retention removes only digested turns
    pruned = run(db, "journal", "prune", "--said-before", "2024-08-01", "--json")
    assert pruned.exit_code == 0 and json.loads(pruned.stdout) == {"removed": 2}
    assert [e["session"] for e in json.loads(run(db, "episodes", "--scope", "s1", "--json").stdout)] == ["y"]
