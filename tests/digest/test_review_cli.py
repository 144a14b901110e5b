"""`factledger review` as a reviewer uses it: show previews, bulk decisions, edits, messages that name
the kind of id."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli

TURNS = [
    {"scope": "s", "session": "a", "text": "We talked about the weather today", "said_at": "2026-01-01T09:00:00Z"},
    {"scope": "s", "session": "a", "text": "I live in Lisbon", "said_at": "2026-01-01T10:00:00Z"},
    {"scope": "s", "session": "a", "text": "I live in Paris", "said_at": "2026-02-01T10:00:00Z"},
    {"scope": "s", "session": "b", "text": "I love jazz", "said_at": "2026-02-02T10:00:00Z"},
    {"scope": "s", "session": "b", "text": "I love tea", "said_at": "2026-02-02T10:01:00Z"},
]


@pytest.fixture
def run(tmp_path, monkeypatch):
    for name in ("FACTLEDGER_DIGEST_MODEL", "FACTLEDGER_DIGEST_BASE_URL", "FACTLEDGER_DIGEST_POLICY"):
        monkeypatch.delenv(name, raising=False)
    db = str(tmp_path / "l.db")

    def invoke(*args: str, input: str | None = None, principal: str = "operator:ann"):
        return CliRunner().invoke(cli, ["--db", db, "--principal", principal, *args], input=input)

    assert run_ok(invoke("journal", "add", "-", input="\n".join(json.dumps(t) for t in TURNS)))
    assert run_ok(invoke("digest", "--policy", "strict"))
    return invoke


def run_ok(result):
    assert result.exit_code == 0, result.output
    return result


def ids(run) -> dict[str, int]:
    return {p["value"]: p["id"] for p in json.loads(run("review", "list", "--json").stdout)}


def test_show_has_context_reason_history_and_preview(run) -> None:
    p = ids(run)
    run_ok(run("review", "accept", str(p["Lisbon"])))
    out = run_ok(run("review", "show", str(p["Paris"]))).output
    assert "context (the turns before" in out and "We talked about the weather today" in out
    assert "strict policy" in out
    assert "slot history" in out and "'Lisbon'" in out
    assert "if accepted:" in out and "would cut claim version #" in out and "would write 'Paris'" in out
    shown = json.loads(run_ok(run("review", "show", str(p["Paris"]), "--json")).stdout)
    assert [c["value"] for c in shown["preview"]["closes"]] == ["Lisbon"]
    assert [t["text"] for t in shown["context"]][-1] == "I live in Lisbon"
    assert [h["value"] for h in shown["history"]] == ["Lisbon"]


def test_accept_message_names_what_it_closed(run) -> None:
    p = ids(run)
    first = run_ok(run("review", "accept", str(p["Lisbon"]))).stdout  # stderr: the predicate it registered
    assert first.startswith(f"accepted proposal #{p['Lisbon']}: ") and "ledger transaction #" in first and "closed nothing" in first
    second = run_ok(run("review", "accept", str(p["Paris"]))).output
    assert "closed claim version #" in second and "'Lisbon'" in second


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["review", "reject", "{jazz}"], "rejected proposal #{jazz}: add user likes 'jazz' (rejection #1)"),
        (["review", "accept", "99"], "error: proposal: no proposal #99"),
        (["review", "confirm", "99"], "error: claim: no claim version #99"),
        (["review", "lift", "99"], "error: rejection: no rejection #99"),
        (["review", "unconfirm", "99"], "error: confirmation: no confirmation #99"),
        (["review", "undo", "99"], "error: proposal: no proposal #99"),
        (["review", "undo", "{jazz}"], "error: proposal: proposal #{jazz} is pending: no reviewer's decision to undo"),
    ],
)
def test_every_message_names_the_kind_of_id(run, args, expected) -> None:
    p = ids(run)
    result = run(*[a.format(**p) for a in args])
    assert expected.format(**p) in result.output


def test_bulk_accept_and_all_from_session(run) -> None:
    p = ids(run)
    done = json.loads(run_ok(run("review", "accept", "--all-from-session", "b", "--json")).stdout)
    assert sorted(a["value"] for a in done) == ["jazz", "tea"] and all(a["status"] == "applied" for a in done)
    refused = run("review", "accept", str(p["Lisbon"]), str(p["Paris"]))
    assert refused.exit_code == 2 and "compete for the same slot" in refused.output
    assert {x["value"] for x in json.loads(run("review", "list", "--json").stdout)} == {"Lisbon", "Paris"}
    assert run("review", "accept").exit_code == 2
    assert "no open proposals from session 'b'" in run("review", "reject", "--all-from-session", "b").output


def test_edit_and_accept(run) -> None:
    p = ids(run)
    (done,) = json.loads(run_ok(run("review", "accept", str(p["Lisbon"]), "--value", "Porto", "--valid-from", "2025-12-01", "--json")).stdout)
    assert (done["value"], done["valid_from"], done["corrected"]) == ("Porto", "2025-12-01T00:00:00.000000Z", p["Lisbon"])
    current = json.loads(run("current", "--json").stdout)
    assert [c["value"] for c in current] == ["Porto"]
    bad = run("review", "accept", str(p["Paris"]), "--valid-from", "soon")
    assert bad.exit_code == 2 and "valid_from" in bad.output
    both = run("review", "accept", str(p["Paris"]), str(p["jazz"]), "--value", "x")
    assert both.exit_code == 2 and "one proposal at a time" in both.output


def test_undo_an_accept_from_the_command_line(run) -> None:
    p = ids(run)
    run_ok(run("review", "accept", str(p["Paris"])))
    said = run_ok(run("review", "undo", str(p["Paris"]), "--reason", "too fast")).output
    assert said.startswith(f"undid the accept of proposal #{p['Paris']} in ledger transaction #") and "pending again as proposal #" in said
    again = run("review", "undo", str(p["Paris"]))
    assert again.exit_code != 0 and "already undone" in again.output
