"""An operator-excluded chat leaves no trace (no journal, no recall block, no tool), its old backlog goes;
a subagent's result reaches the journal as evidence through Hermes's on_delegation."""

from __future__ import annotations

import time

import pytest

from factledger.digest import Journal
from factledger.hermes_plugin.scripted_model import ModelReply

from .hermes_support import parsed, tool_results

pytestmark = pytest.mark.both_engines  # each test also runs with database_url on PostgreSQL

GROUP = dict(platform="telegram", user_id="alice", chat_id="-100", chat_type="group")
OTHER = dict(platform="telegram", user_id="alice", chat_id="-200", chat_type="group")


def journaled_soon(hermes, scope: str, timeout: float = 10.0) -> bool:
    """Whether a turn of `scope` waits in the backlog within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with hermes.ledger() as ledger:
            if Journal(ledger).backlog_size(scopes=[scope]) >= 1:
                return True
        time.sleep(0.05)
    return False


def test_an_excluded_chat_leaves_no_trace(hermes):
    hermes.server.push(ModelReply.say("Noted."))
    before = hermes.chat(**GROUP)
    before.provider.session.digest_pending(wait=True)  # the session's opening flush (warm-up) is done
    before.say("I live in Lisbon.")  # journaled before the operator excluded the chat
    scratch = before.provider.session.scopes.scratch
    assert journaled_soon(hermes, scratch)  # Hermes calls sync_turn on its own worker thread
    hermes.update_settings(exclude={"chats": ["telegram:-100"]})

    seen = {}

    def reply(request):
        seen["tool"] = parsed(tool_results(request)[0])
        seen["system"] = request.system_text()
        return ModelReply.say("ok")

    hermes.server.push(ModelReply.call("factledger_remember", {"subject": "user", "predicate": "likes", "value": "tea"}), reply)
    chat = hermes.chat(**GROUP)
    assert chat.provider.session.excluded
    with hermes.ledger() as ledger:
        assert Journal(ledger).backlog_size(scopes=[scratch]) == 0  # the old backlog went on open
    counts = hermes.table_counts()
    chat.say("Where do I live? Also I like tea.")
    assert "error" in seen["tool"] and "excluded" in seen["tool"]["error"]
    assert chat.provider.prefetch("where do I live") == ""
    chat.end()
    assert hermes.table_counts() == counts  # nothing journaled, nothing remembered

    hermes.server.push(ModelReply.say("Noted."))
    other = hermes.chat(**OTHER)  # another chat of the same user still has memory
    assert not other.provider.session.excluded
    other.say("I like coffee.")
    scratch = other.provider.session.scopes.scratch
    assert journaled_soon(hermes, scratch)  # Hermes's sync_turn runs on its own worker thread: wait for it
    other.digest_now()
    with hermes.ledger() as ledger:
        assert Journal(ledger).entries(scope=scratch)


def test_a_subagents_result_is_journaled_as_evidence(hermes):
    hermes.server.push(ModelReply.say("ok"))
    chat = hermes.chat(platform="cli")
    chat.say("hello")
    chat.agent._memory_manager.on_delegation("find the user's office city", "The user's office is in Porto.", child_session_id="c1")
    with hermes.ledger() as ledger:
        texts = [e.text for e in Journal(ledger).backlog()]
    assert "A subagent I delegated to (task: find the user's office city) returned: The user's office is in Porto." in texts
