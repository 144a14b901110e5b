"""Full Hermes turns: a fact said in one session is recalled in a later one, and a move shows the new
city as current and not the old one."""

from __future__ import annotations

import pytest

from factledger.hermes_plugin.provider import SYSTEM_PROMPT_BLOCK
from factledger.hermes_plugin.scripted_model import ModelReply
from factledger.recall import PROMPT_HEADING

pytestmark = pytest.mark.both_engines  # each test also runs with database_url on PostgreSQL

CLI = dict(platform="cli")


def test_a_fact_from_one_session_is_in_the_next_sessions_prefetch(hermes):
    server = hermes.server
    server.push(ModelReply.say("Noted: you live in Paris."))
    first = hermes.chat(**CLI)
    assert first.say("I live in Paris.") == "Noted: you live in Paris."
    # Nothing relevant yet when the fact was said: the first request carried no recalled block.
    assert server.requests[0].memory_context() == ""
    durable = first.provider.session.scopes.durable
    first.end()  # CLI exit: on_session_end digests what the session left

    with hermes.ledger() as ledger:
        assert [(c.subject, c.predicate, c.value) for c in ledger.current([durable])] == [("user", "lives_in", "Paris")]

    server.push(lambda request: ModelReply.say("You live in Paris." if "Paris" in request.memory_context() else "I don't know."))
    second = hermes.chat(**CLI)
    assert second.say("Where do I live?") == "You live in Paris."
    request = server.requests[-1]
    assert PROMPT_HEADING in request.memory_context()
    assert "user lives in Paris" in request.memory_context()
    assert SYSTEM_PROMPT_BLOCK.splitlines()[0] in request.system_text()


def test_after_a_move_the_prefetch_shows_the_new_city_as_current(hermes):
    server = hermes.server
    server.push(ModelReply.say("Noted."), ModelReply.say("Congratulations on the move!"))
    chat = hermes.chat(**CLI)
    chat.say("I live in Paris.")
    chat.digest_now()
    chat.say("I moved to Berlin.")
    chat.end()

    server.push(lambda request: ModelReply.say(request.memory_context()))
    later = hermes.chat(**CLI)
    later.say("Which city do I live in now?")
    block = server.requests[-1].memory_context()
    assert "user lives in Berlin" in block
    assert "Paris" not in block

    with hermes.ledger() as ledger:
        history = ledger.history(subject="user", predicate="lives_in")
    believed = [h.version for h in history if h.version.tx_to is None]
    (paris,) = [v for v in believed if v.value == "Paris"]
    (berlin,) = [v for v in believed if v.value == "Berlin"]
    assert paris.valid_to == berlin.valid_from and berlin.valid_to is None  # Paris is the past, not erased


def test_a_query_that_matches_nothing_gets_no_block(hermes):
    server = hermes.server
    server.push(ModelReply.say("Noted."), ModelReply.say("ok"))
    chat = hermes.chat(**CLI)
    chat.say("I live in Paris.")
    chat.digest_now()
    chat.say("Tell me a joke about penguins.")
    assert server.requests[-1].memory_context() == ""


def test_a_turn_of_this_session_contradicting_a_fact_is_shown_beside_it_before_any_digest(hermes):
    """Issue 20: the older fact must not hide the newer turn. The turn is journaled by sync_turn and is
    in the very next prefetch, with no digest run in between."""
    server = hermes.server
    server.push(ModelReply.say("Noted."))
    first = hermes.chat(**CLI)
    first.say("I work at Globex.")
    durable = first.provider.session.scopes.durable
    first.end()
    with hermes.ledger() as ledger:
        assert [c.value for c in ledger.current([durable])] == ["Globex"]

    # digest only when asked; blocks may repeat items (so the fact shown a turn ago is shown again)
    hermes.update_settings(digest={"batch_size": 100, "max_delay_seconds": 3600},
                           recall={"repeat_after_turns": 0})
    server.push(ModelReply.say("Congratulations!"), lambda request: ModelReply.say(request.memory_context()))
    second = hermes.chat(**CLI)
    second.say("Not at Globex anymore, I'm with Initech now.")
    block = second.say("Where do I work?")
    with hermes.ledger() as ledger:
        assert [c.value for c in ledger.current([durable])] == ["Globex"]  # undigested
    lines = block.splitlines()
    (fact,) = [i for i, line in enumerate(lines) if line.startswith("- user works at Globex")]
    assert lines[fact + 1].startswith("  said since, ")
    assert lines[fact + 1].endswith('user: "Not at Globex anymore, I\'m with Initech now."')
