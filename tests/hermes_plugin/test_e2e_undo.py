"""Hermes's /undo: the undone turns leave the journal backlog, so they are never digested and never
recalled as episodes; the turns before them are digested as usual."""

from __future__ import annotations

import time

import pytest

from factledger.digest import Journal
from factledger.hermes_plugin.scripted_model import ModelReply

pytestmark = pytest.mark.both_engines  # each test also runs with database_url on PostgreSQL


def journaled_soon(hermes, scope: str, text: str, timeout: float = 10.0) -> bool:
    """Whether `text` waits in the backlog of `scope` within `timeout` (sync_turn is Hermes's thread)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with hermes.ledger() as ledger:
            if any(e.text == text for e in Journal(ledger).backlog(scopes=[scope])):
                return True
        time.sleep(0.05)
    return False


def undo(chat, db, turns: int = 1) -> None:
    """What Hermes's CLI /undo does (cli.py `_handle_undo`): soft-delete the transcript from the Nth
    last user message on in state.db, then tell the memory providers the transcript was rewound."""
    session_id = chat.agent.session_id
    recents = db.list_recent_user_messages(session_id, limit=10)
    db.rewind_to_message(session_id, recents[turns - 1]["id"])
    chat.agent._memory_manager.on_session_switch(session_id, parent_session_id="", reset=False, rewound=True)


def test_undone_turns_are_never_digested(hermes):
    from hermes_state import SessionDB

    hermes.update_settings(digest={"batch_size": 100, "max_delay_seconds": 3600})  # digest only when asked
    db = SessionDB(hermes.paths.home / "state.db")
    hermes.server.push(ModelReply.say("Noted."), ModelReply.say("Noted."), ModelReply.say("Noted."))
    chat = hermes.chat(platform="cli", session_db=db)
    chat.provider.session.digest_pending(wait=True)  # the session's opening flush (warm-up) is done
    durable = chat.provider.session.scopes.durable
    chat.say("I live in Lisbon.")
    chat.say("I work as a plumber.")
    chat.say("I live in Madrid.")
    assert journaled_soon(hermes, durable, "I live in Madrid.")  # the last turn is in

    undo(chat, db, turns=2)  # "/undo 2": the plumber and Madrid turns are gone from the transcript

    with hermes.ledger() as ledger:
        texts = [e.text for e in Journal(ledger).entries(scope=durable)]
    assert "I live in Lisbon." in texts
    assert not any("Madrid" in t or "plumber" in t for t in texts)
    chat.messages = chat.messages[: chat.messages.index(next(m for m in chat.messages if m.get("content") == "I work as a plumber."))]
    chat.end()
    with hermes.ledger() as ledger:
        facts = [(c.predicate, c.value) for c in ledger.current([durable])]
        assert ("lives_in", "Lisbon") in facts
        assert not any(value in ("Madrid", "plumber") for _, value in facts)
        assert Journal(ledger).backlog_size(scopes=[durable]) == 0


def test_an_undo_with_nothing_journaled_since_changes_nothing(hermes):
    from hermes_state import SessionDB

    hermes.update_settings(digest={"batch_size": 100, "max_delay_seconds": 3600})
    db = SessionDB(hermes.paths.home / "state.db")
    hermes.server.push(ModelReply.say("Noted."))
    chat = hermes.chat(platform="cli", session_db=db)
    chat.provider.session.digest_pending(wait=True)
    durable = chat.provider.session.scopes.durable
    chat.say("I live in Lisbon.")
    assert journaled_soon(hermes, durable, "I live in Lisbon.")
    counts = hermes.table_counts()
    # The transcript still holds the recorded turn (a rewind the host signalled with nothing cut).
    chat.agent._memory_manager.on_session_switch(chat.agent.session_id, parent_session_id="", reset=False, rewound=True)
    assert hermes.table_counts() == counts


def said_in_recall(chat, word: str) -> list[str]:
    """Episodes (what was said) that recall finds for `word` in the chat's readable scopes."""
    session = chat.provider.session
    session.recall.sync()
    return [h.sentence for h in session.recall.search(word, session.scopes.readable, limit=20) if h.claim is None]


def test_an_undone_turn_the_digest_already_took_leaves_memory(hermes):
    """Digested before the /undo: the fact only that turn supports is retracted (the value it replaced
    is believed again) and its episode leaves recall, in one ledger transaction by the session."""
    from hermes_state import SessionDB

    hermes.update_settings(digest={"batch_size": 100, "max_delay_seconds": 3600})
    db = SessionDB(hermes.paths.home / "state.db")
    hermes.server.push(ModelReply.say("Noted."), ModelReply.say("Noted."), ModelReply.say("Noted."))
    chat = hermes.chat(platform="cli", session_db=db)
    session = chat.provider.session
    session.digest_pending(wait=True)
    durable = session.scopes.durable
    chat.say("I live in Lisbon.")
    chat.say("I like jazz.")
    chat.say("I live in Madrid.")
    assert journaled_soon(hermes, durable, "I live in Madrid.")
    session.digest_pending(wait=True)
    with hermes.ledger() as ledger:
        assert {c.value for c in ledger.current([durable])} == {"Madrid", "jazz"}
        assert Journal(ledger).backlog_size(scopes=[durable]) == 0
    assert said_in_recall(chat, "Madrid")

    undo(chat, db, turns=2)

    with hermes.ledger() as ledger:
        assert {(c.predicate, c.value) for c in ledger.current([durable])} == {("lives_in", "Lisbon")}
        texts = [e.text for e in Journal(ledger).entries(scope=durable)]
        (undo_tx,) = [t for t in ledger.recorder.transactions() if t.reason.startswith("/undo")]
    assert "I live in Lisbon." in texts and not any("Madrid" in t or "jazz" in t for t in texts)
    assert undo_tx.principal == session.identity.principal and chat.agent.session_id in undo_tx.reason
    assert not said_in_recall(chat, "Madrid") and not said_in_recall(chat, "jazz")
    assert said_in_recall(chat, "Lisbon")


def test_the_gateways_undo_is_applied_when_the_session_is_rebuilt(hermes):
    """The gateway's /undo calls no provider hook: it rewinds state.db (gateway/session.py
    rewind_session) and evicts the session's agent, and the next message builds a new one for the same
    session id. The new provider instance finds the rewound turns and takes them back."""
    from hermes_state import SessionDB

    hermes.update_settings(digest={"batch_size": 100, "max_delay_seconds": 3600})
    db = SessionDB(hermes.paths.home / "state.db")
    who = dict(platform="telegram", user_id="alice", chat_id="chat-alice", chat_type="dm", session_db=db)
    hermes.server.push(ModelReply.say("Noted."), ModelReply.say("Noted."))
    chat = hermes.chat(**who)
    durable = chat.provider.session.scopes.durable
    chat.say("I live in Lisbon.")
    chat.say("I live in Madrid.")
    assert journaled_soon(hermes, durable, "I live in Madrid.")
    chat.digest_now()  # the gateway's session-expiry flush: the digest took both turns
    with hermes.ledger() as ledger:
        assert [c.value for c in ledger.current([durable])] == ["Madrid"]
    session_id = chat.agent.session_id

    # gateway/session.py SessionStore.rewind_session(session_id, 1), then _evict_cached_agent.
    recents = db.list_recent_user_messages(session_id, limit=10)
    db.rewind_to_message(session_id, recents[0]["id"])
    counts = hermes.table_counts()
    assert [c.value for c in ledger_current(hermes, durable)] == ["Madrid"]  # nothing told the old instance
    assert hermes.table_counts() == counts

    rebuilt = hermes.chat(session_id=session_id, **who)  # the next message's fresh agent
    assert rebuilt.provider.session is not chat.provider.session
    with hermes.ledger() as ledger:
        assert [c.value for c in ledger.current([durable])] == ["Lisbon"]
        assert not any("Madrid" in e.text for e in Journal(ledger).entries(scope=durable))
    rebuilt.messages = [m for m in chat.messages if "Madrid" not in str(m.get("content"))][:2]
    hermes.server.push(ModelReply.say("Noted."))
    rebuilt.say("I live in Porto.")  # the conversation goes on; later agents for it change nothing more
    assert journaled_soon(hermes, durable, "I live in Porto.")
    rebuilt.digest_now()
    assert [c.value for c in ledger_current(hermes, durable)] == ["Porto"]
    counts = hermes.table_counts()
    hermes.chat(session_id=session_id, **who)
    assert hermes.table_counts() == counts


def ledger_current(hermes, scope: str):
    with hermes.ledger() as ledger:
        return ledger.current([scope])
