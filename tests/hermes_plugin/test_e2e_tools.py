"""The model's tools in real Hermes turns: search and history answer with the right JSON, remember
goes through the digest's gates, and nothing a model writes reaches review, confirm, lift or erase."""

from __future__ import annotations

import pytest


from factledger.digest import confirm, get_proposal
from factledger.hermes_plugin.scripted_model import ModelReply, ToolCall

from .hermes_support import parsed, tool_results

pytestmark = pytest.mark.both_engines  # each test also runs with database_url on PostgreSQL

CLI = dict(platform="cli")


def seed_paris_then_lisbon(hermes):
    hermes.server.push(ModelReply.say("Noted."), ModelReply.say("Noted."))
    chat = hermes.chat(**CLI)
    chat.say("I live in Paris.")
    chat.digest_now()
    chat.say("I moved to Lisbon.")
    chat.end()


def test_search_and_history_tools_return_the_ledgers_answer(hermes):
    seed_paris_then_lisbon(hermes)
    seen: dict[str, list] = {}

    def after_search(request):
        seen["search"] = tool_results(request)
        return ModelReply.call("factledger_history", {"subject": "user", "predicate": "lives_in"})

    def after_history(request):
        seen["history"] = tool_results(request)
        return ModelReply.say("done")

    hermes.server.push(ModelReply.call("factledger_search", {"query": "where does the user live"}), after_search, after_history)
    chat = hermes.chat(**CLI)
    assert chat.say("Remind me where I live and where I lived before.") == "done"

    (search,) = [parsed(c) for c in seen["search"]]
    assert search["as_of"] == {"valid_at": "now", "known_at": "now"}
    facts = [r for r in search["results"] if r["kind"] == "fact"]
    assert [(r["subject"], r["predicate"], r["value"], r["memory"]) for r in facts] == [
        ("user", "lives_in", "Lisbon", "long_term")
    ]
    assert search["results"][0]["fact"].startswith("user lives in Lisbon")  # the fact ranks first
    # what was said comes as evidence, labelled, with who said it and when
    said = [r for r in search["results"] if r["kind"] == "said"]
    assert said and all(r["speaker"] == "user" and r["said_at"] for r in said)

    assert len(seen["history"]) == 2  # the search result, then the history result
    history = parsed(seen["history"][-1])
    believed = {(v["value"], v["valid_to"] is None) for v in history["versions"] if v["current_belief"]}
    assert believed == {("Paris", False), ("Lisbon", True)}
    dropped = [v for v in history["versions"] if not v["current_belief"]]
    assert [v["value"] for v in dropped] == ["Paris"]
    assert dropped[0]["superseded_by"]["principal"] == "digest:rules"
    assert all(v["recorded_by"]["principal"] == "digest:rules" for v in history["versions"])


def test_search_as_of_a_past_time_shows_what_was_true_then(hermes):
    seed_paris_then_lisbon(hermes)
    with hermes.ledger() as ledger:
        paris = [h.version for h in ledger.history(subject="user", predicate="lives_in") if h.version.value == "Paris"]
    before_move = paris[0].valid_from
    seen = {}

    def reply(request):
        seen["result"] = parsed(tool_results(request)[0])
        return ModelReply.say("ok")

    hermes.server.push(ModelReply.call("factledger_search", {"query": "user lives in", "valid_at": before_move}), reply)
    hermes.chat(**CLI).say("Where did I live back then?")
    results = seen["result"]["results"]
    assert [r["value"] for r in results if r["kind"] == "fact"] == ["Paris"]
    # as of then, only what had been said by then: not the later turn about Lisbon
    assert all("Lisbon" not in r["excerpt"] for r in results if r["kind"] == "said")


def test_remember_writes_as_the_agent_and_an_operator_confirmed_value_is_held(hermes):
    seed_paris_then_lisbon(hermes)
    with hermes.ledger(read_only=False) as ledger:
        (lisbon,) = [c for c in ledger.current() if c.value == "Lisbon"]
        confirm(ledger, lisbon.id, principal="operator:alice", reason="checked with the user")
    seen = {}

    def reply(request):
        seen["results"] = [parsed(c) for c in tool_results(request)]
        return ModelReply.say("ok")

    hermes.server.push(
        ModelReply.call(
            "factledger_remember", {"subject": "user", "predicate": "likes", "value": "jazz", "reason": "user said so"},
            ToolCall("factledger_remember", {"subject": "user", "predicate": "lives_in", "value": "Madrid"}),
        ),
        reply,
    )
    hermes.chat(**CLI).say("I like jazz. Also I live in Madrid now.")
    liked, moved = seen["results"]
    assert liked["status"] == "applied" and liked["memory"] == "long_term"
    assert moved["status"] == "held" and "confirmed" in moved["message"]
    with hermes.ledger() as ledger:
        current = {(c.predicate, c.value) for c in ledger.current()}
        tx = ledger.transaction_record(liked["tx"])
        proposal = get_proposal(ledger, liked["proposal_id"])
    assert ("likes", "jazz") in current and ("lives_in", "Lisbon") in current and ("lives_in", "Madrid") not in current
    # The transaction names the proposal by id; the agent's words are on the proposal (erase reaches it).
    assert tx.principal.startswith("agent:") and tx.reason == f"explicit write: proposal #{proposal.id}"
    assert proposal.reason == "user said so"


FORBIDDEN_CALLS = [
    ToolCall("factledger_remember", {"subject": "user", "predicate": "lives_in", "value": "Madrid", "status": "applied"}),
    ToolCall("factledger_remember", {"subject": "user", "predicate": "lives_in", "value": "Madrid", "principal": "operator:root"}),
    ToolCall("factledger_remember", {"subject": "user", "predicate": "lives_in", "value": "Madrid", "scope": "hermes/other-user"}),
    ToolCall("factledger_forget", {"subject": "user", "predicate": "lives_in", "erase": True}),
    ToolCall("factledger_forget", {"subject": "user", "predicate": "lives_in", "action": "confirm", "proposal_id": 1}),
    ToolCall("factledger_search", {"query": "x", "action": "accept", "proposal_id": 1}),
    ToolCall("factledger_history", {"subject": "user", "predicate": "lives_in", "lift": 1}),
    ToolCall("factledger_remember", "{\"op\": \"erase\", \"subject\": \"user\""),  # not even JSON
    ToolCall("factledger_review", {"action": "accept", "proposal_id": 1}),
    ToolCall("factledger_erase", {"subject": "user", "predicate": "lives_in"}),
]


def test_a_model_that_tries_to_review_confirm_or_erase_gets_errors_and_changes_nothing(hermes):
    seed_paris_then_lisbon(hermes)
    with hermes.ledger(read_only=False) as ledger:
        (lisbon,) = [c for c in ledger.current() if c.value == "Lisbon"]
        confirm(ledger, lisbon.id, principal="operator:alice")
    # A held proposal an "accept" could target:
    hermes.server.push(ModelReply.call("factledger_remember", {"subject": "user", "predicate": "lives_in", "value": "Madrid"}),
                       ModelReply.say("ok"))
    madrid = hermes.chat(**CLI)
    madrid.say("I live in Madrid.")
    madrid.end()  # its turn is journaled and digested before the snapshot
    before = hermes.table_counts()
    assert before["open_proposals"] >= 1  # held: Madrid would replace an operator-confirmed value
    seen = {}

    def reply(request):
        seen["results"] = tool_results(request)
        return ModelReply.say("ok")

    hermes.server.push(ModelReply(tool_calls=tuple(FORBIDDEN_CALLS)), reply)
    attempt = hermes.chat(**CLI)
    attempt.say("Accept the Madrid change, confirm it, and erase Lisbon for good.")
    attempt.end()

    assert len(seen["results"]) == len(FORBIDDEN_CALLS)
    for call, result in zip(FORBIDDEN_CALLS, seen["results"]):
        text = result if isinstance(result, str) else str(result)
        assert "error" in text.lower(), (call, result)
    after = hermes.table_counts()
    assert after.pop("journal") >= before.pop("journal")  # the turn itself is journaled, as every turn is
    assert after == before
