"""The command line: journal add, digest, review (operator only), all with --json."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli

TURNS = "\n".join(
    json.dumps(t)
    for t in [
        {"scope": "s", "session": "x", "role": "user", "text": "I live in Paris", "said_at": "2026-01-10T10:00:00Z"},
        {"scope": "s", "session": "x", "role": "assistant", "text": "Nice, Paris is lovely."},
        {"scope": "s", "session": "x", "text": "thanks"},
        {"scope": "s", "text": "I moved to Lisbon last month", "said_at": "2026-03-14T10:00:00Z"},
    ]
)


@pytest.fixture
def run(tmp_path, monkeypatch):
    for name in ("FACTLEDGER_DIGEST_MODEL", "FACTLEDGER_DIGEST_BASE_URL", "FACTLEDGER_DIGEST_POLICY"):
        monkeypatch.delenv(name, raising=False)
    db = str(tmp_path / "l.db")

    def invoke(*args: str, input: str | None = None, principal: str = "operator:ann"):
        return CliRunner().invoke(cli, ["--db", db, "--principal", principal, *args], input=input)

    return invoke


def test_journal_add_then_digest_json(run) -> None:
    added = run("journal", "add", "-", "--json", input=TURNS)
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout)["counts"] == {"stored": 3, "skipped": 1}
    digested = run("digest", "--json")
    assert digested.exit_code == 0, digested.output
    summary = json.loads(digested.stdout)  # stderr warns of the predicates it registered
    assert summary["extractor"] == "rules" and summary["entries_digested"] == 3 and summary["complete"]
    assert summary["proposals"]["applied"] == 2
    current = json.loads(run("current", "--json").stdout)
    assert [c["value"] for c in current] == ["Lisbon"]
    again = json.loads(run("digest", "--json").stdout)
    assert again["entries_seen"] == 0


def test_journal_add_refuses_a_bad_line_and_stores_nothing(run) -> None:
    bad = TURNS + "\n" + json.dumps({"scope": "s", "text": "I like tea", "role": "robot"})
    result = run("journal", "add", "-", input=bad)
    assert result.exit_code == 2
    assert "line 5: role:" in result.output
    # Nothing stored: not even the ledger file was created, so a read says there is none.
    listed = run("journal", "list", "--json")
    assert listed.exit_code == 2 and "no ledger at" in listed.stderr


def test_review_flow_from_the_command_line(run) -> None:
    run("journal", "add", "-", input=TURNS)
    assert run("digest", "--policy", "strict", "--json").exit_code == 0
    pending = json.loads(run("review", "list", "--json").stdout)
    assert [p["status"] for p in pending] == ["pending", "pending"]
    lisbon, paris = pending
    shown = json.loads(run("review", "show", str(lisbon["id"]), "--json").stdout)
    assert shown["turns"][0]["text"] == "I moved to Lisbon last month"
    assert "I moved to Lisbon last month" in run("review", "show", str(lisbon["id"])).output

    (accepted,) = json.loads(run("review", "accept", str(paris["id"]), "--json").stdout)
    assert (accepted["status"], accepted["decided_by"]) == ("applied", "operator:ann")
    (rejected,) = json.loads(run("review", "reject", str(lisbon["id"]), "--reason", "not true", "--json", principal="operator:bob").stdout)
    assert (rejected["status"], rejected["decided_by"]) == ("rejected", "operator:bob")

    memory = json.loads(run("review", "rejections", "--json").stdout)
    assert [(r["value"], r["rejected_by"]) for r in memory] == [("Lisbon", "operator:bob")]

    run("journal", "add", "-", input=json.dumps({"scope": "s", "text": "I moved to Lisbon!", "said_at": "2026-03-15T10:00:00Z"}))
    assert json.loads(run("digest", "--json").stdout)["proposals"]["rejected_again"] == 1
    again = json.loads(run("review", "list", "--status", "rejected_again", "--json").stdout)
    assert again[0]["rejection_id"] == memory[0]["id"]

    lifted = json.loads(run("review", "lift", str(memory[0]["id"]), "--json").stdout)
    assert lifted["lifted_by"] == "operator:ann"

    claim_id = json.loads(run("current", "--json").stdout)[0]["id"]
    confirmed = json.loads(run("review", "confirm", str(claim_id), "--json").stdout)
    assert confirmed["value"] == "Paris"
    assert json.loads(run("review", "confirmations", "--json").stdout)[0]["id"] == confirmed["id"]


@pytest.mark.parametrize("args", [["review", "list"], ["review", "accept", "1"], ["review", "lift", "1"]])
def test_review_refuses_non_operators(run, args) -> None:
    result = run(*args, principal="agent:hermes")
    assert result.exit_code == 2
    assert "only an operator may review" in result.output


def test_unknown_proposal_is_a_clear_error(run) -> None:
    created = run("apply", "-", input="")
    assert created.exit_code == 0 and "created a new ledger at" in created.stderr
    result = run("review", "accept", "42")
    assert result.exit_code == 2 and "proposal: no proposal #42" in result.output


def test_digest_exits_1_when_the_model_is_down(run, monkeypatch) -> None:
    from tests.support.fake_openai import FakeOpenAI, status

    run("journal", "add", "-", input=TURNS)
    with FakeOpenAI([status(500)] * 3) as server:
        monkeypatch.setenv("FACTLEDGER_DIGEST_MODEL", "fake-model")
        monkeypatch.setenv("FACTLEDGER_DIGEST_BASE_URL", server.base_url)
        monkeypatch.setenv("FACTLEDGER_DIGEST_TIMEOUT", "5")
        monkeypatch.setenv("FACTLEDGER_DIGEST_RETRY_BACKOFF", "0")
        result = run("digest", "--json")
    assert result.exit_code == 1
    summary = json.loads(result.output)
    # The first window (the two turns of session x, one model call) failed; the run stopped there.
    assert summary["entries_failed"] == 2 and summary["backlog"] == 3 and summary["extractor"] == "llm:fake-model"
