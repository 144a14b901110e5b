"""The session title Hermes gives a conversation (set after its first answer, renamed with /title,
passed to initialize when a titled session resumes) names the conversation of its episodes: in the
search tool's results and `factledger episodes`, on one line."""

from __future__ import annotations

import json

import pytest

from factledger.hermes_plugin.scripted_model import ModelReply

from .conftest import run_cli
from .hermes_support import parsed, tool_results
from .test_e2e_undo import journaled_soon

pytestmark = pytest.mark.both_engines


def search_results(hermes, chat, query: str) -> list[dict]:
    seen: dict = {}

    def after(request):
        seen["search"] = parsed(tool_results(request)[0])
        return ModelReply.say("ok")

    hermes.server.push(ModelReply.call("factledger_search", {"query": query}), after)
    chat.say(f"What did I say about {query}?")
    return [r for r in seen["search"]["results"] if r["kind"] == "said"]


def test_episodes_name_the_conversation_by_its_title(hermes):
    from hermes_state import SessionDB

    db = SessionDB(hermes.paths.home / "state.db")
    hermes.server.push(ModelReply.say("Noted."), ModelReply.say("Noted."))
    chat = hermes.chat(platform="cli", session_db=db)
    durable = chat.provider.session.scopes.durable
    chat.say("I am planning a trip to Lisbon.")
    db.set_session_title(chat.agent.session_id, "Trip planning")  # what Hermes's title generator does
    chat.say("I want to see the Alfama district.")
    assert journaled_soon(hermes, durable, "I want to see the Alfama district.")

    said = search_results(hermes, chat, "Lisbon Alfama")
    assert said and {r["conversation"] for r in said} == {"Trip planning"}

    db.set_session_title(chat.agent.session_id, "Lisbon in May")  # renamed (/title)
    hermes.server.push(ModelReply.say("Noted."))
    chat.say("I will fly in on the 3rd.")
    assert journaled_soon(hermes, durable, "I will fly in on the 3rd.")
    result = run_cli("--db", str(hermes.location), "episodes", "--scope", durable, "--json")
    assert result.exit_code == 0, result.output
    assert {e["conversation"] for e in json.loads(result.output)} == {"Lisbon in May"}


def test_a_resumed_titled_session_is_named_from_initialize(hermes):
    from hermes_state import SessionDB

    db = SessionDB(hermes.paths.home / "state.db")
    hermes.server.push(ModelReply.say("Noted."))
    first = hermes.chat(platform="cli", session_db=db)
    durable = first.provider.session.scopes.durable
    session_id = first.agent.session_id
    first.say("I am learning Portuguese.")
    assert journaled_soon(hermes, durable, "I am learning Portuguese.")
    first.end()
    # A title set while no agent ran (`hermes sessions rename`), with a line break of its own.
    db.set_session_title(session_id, "Language\nlessons")
    resumed = hermes.chat(platform="cli", session_db=db, session_id=session_id)
    with hermes.ledger() as ledger:
        from factledger.digest import Journal

        titles = Journal(ledger).session_titles([session_id])
    assert titles == {session_id: db.get_session_title(session_id)} and "\n" not in titles[session_id]
    assert resumed.provider.session is not None
