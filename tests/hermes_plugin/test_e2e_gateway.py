"""Two users through one process, as Hermes's gateway runs them: one agent and one provider instance per
session, all alive at once. Neither user sees the other's durable facts on any surface, and what one
chat keeps for itself is absent from another chat of the same user."""

from __future__ import annotations

import pytest

from factledger.hermes_plugin.scripted_model import ModelReply, ToolCall

from .hermes_support import parsed, tool_results

pytestmark = pytest.mark.both_engines  # each test also runs with database_url on PostgreSQL


def telegram(user: str, chat: str, chat_type: str = "dm") -> dict:
    return dict(platform="telegram", user_id=user, chat_id=chat, chat_type=chat_type)


def facts(search: dict) -> list[dict]:
    return [r for r in search["results"] if r["kind"] == "fact"]


def said(search: dict) -> list[dict]:
    """Episodes: what was said (evidence beside the facts)."""
    return [r for r in search["results"] if r["kind"] == "said"]


def ask_everything(server, seen: dict, key: str):
    """Script: the model calls search and history, then reports. Records the prefetch block and results."""

    def after(request):
        seen[key] = {"results": [parsed(c) for c in tool_results(request)]}
        return ModelReply.say("ok")

    def first(request):
        seen[f"{key}-block"] = request.memory_context()
        return ModelReply.call(
            "factledger_search", {"query": "where does the user live, what do they like"},
            ToolCall("factledger_history", {"subject": "user", "predicate": "lives_in"}),
        )

    server.push(first, after)


def test_two_users_in_one_process_see_only_their_own_memory(hermes):
    server = hermes.server
    server.push(ModelReply.say("Noted."), ModelReply.say("Noted."), ModelReply.say("Noted."))
    alice_dm = hermes.chat(**telegram("alice", "chat-alice"))
    bob_dm = hermes.chat(**telegram("bob", "chat-bob"))
    alice_group = hermes.chat(**telegram("alice", "team-room", "group"))
    alice_dm.say("I live in Paris.")
    bob_dm.say("I live in Rome.")
    alice_group.say("I like jazz.")  # said in a group: kept in that chat, not in Alice's long-term memory
    for chat in (alice_dm, bob_dm, alice_group):
        chat.digest_now()

    scopes = {name: chat.provider.session.scopes for name, chat in
              {"alice_dm": alice_dm, "bob_dm": bob_dm, "alice_group": alice_group}.items()}
    assert scopes["alice_dm"].durable == scopes["alice_group"].durable != scopes["bob_dm"].durable
    with hermes.ledger() as ledger:
        by_scope = {(c.scope, c.value) for c in ledger.current()}
    assert by_scope == {
        (scopes["alice_dm"].durable, "Paris"),
        (scopes["bob_dm"].durable, "Rome"),
        (scopes["alice_group"].scratch, "jazz"),
    }

    seen: dict = {}
    server.push(lambda request: (seen.__setitem__("alice-block", request.memory_context()), ModelReply.say("ok"))[1])
    alice_dm.say("Where do I live and what music do I like? Rome? jazz?")
    assert "Paris" in seen["alice-block"]
    assert "Rome" not in seen["alice-block"] and "jazz" not in seen["alice-block"]

    ask_everything(server, seen, "alice")
    alice_dm.say("What do you know about me?")
    search, history = seen["alice"]["results"]
    assert [r["value"] for r in facts(search)] == ["Paris"]
    assert all("I live in Rome" not in r["excerpt"] for r in said(search))  # what Bob said stays his
    assert [v["value"] for v in history["versions"]] == ["Paris"]

    ask_everything(server, seen, "bob")
    bob_dm.say("Where do I live and what music do I like? Paris? jazz?")
    assert "Rome" in seen["bob-block"] and "Paris" not in seen["bob-block"] and "jazz" not in seen["bob-block"]
    search, history = seen["bob"]["results"]
    assert [r["value"] for r in facts(search)] == ["Rome"]
    assert all("I live in Paris" not in r["excerpt"] for r in said(search))
    assert [v["value"] for v in history["versions"]] == ["Rome"]

    ask_everything(server, seen, "group")
    alice_group.say("What do I like? Where do I live?")
    search, _ = seen["group"]["results"]
    assert {(r["value"], r["memory"]) for r in facts(search)} == {("Paris", "long_term"), ("jazz", "this_chat")}


def test_a_gateway_user_without_an_id_gets_no_long_term_memory(hermes):
    server = hermes.server
    seen: dict = {}

    def after(request):
        seen["remember"] = parsed(tool_results(request)[0])
        return ModelReply.say("ok")

    server.push(ModelReply.call("factledger_remember", {"subject": "user", "predicate": "likes", "value": "tea"}), after)
    anonymous = hermes.chat(platform="telegram", chat_id="c1", chat_type="dm")
    anonymous.say("Remember that I like tea.")
    assert anonymous.provider.session.scopes.durable is None
    assert seen["remember"]["field"] == "keep" and "no long-term memory" in seen["remember"]["error"]
