"""Scope derivation from Hermes's initialize kwargs: who shares memory with whom."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from factledger.hermes_plugin.scope import HermesIdentity, derive_scopes, frame, unframe
from factledger.ledger import ValidationError


def scopes(session_id: str = "s1", **kwargs):
    return derive_scopes(HermesIdentity.from_kwargs(session_id, kwargs))


TELEGRAM_DM = dict(platform="telegram", agent_identity="default", agent_workspace="hermes", chat_type="dm")


def test_durable_follows_the_user_across_chats_and_scratch_stays_in_its_chat():
    chat_a = scopes(**TELEGRAM_DM, user_id="42", chat_id="100")
    chat_b = scopes(**TELEGRAM_DM, user_id="42", chat_id="200")
    assert chat_a.durable is not None and chat_a.durable == chat_b.durable
    assert chat_a.scratch != chat_b.scratch
    assert chat_a.readable == (chat_a.durable, chat_a.scratch)


@pytest.mark.parametrize(
    "change",
    [
        {"user_id": "43"},
        {"agent_identity": "coder"},
        {"agent_workspace": "other"},
        {"platform": "discord"},
    ],
    ids=["another user", "another agent", "another workspace", "same id on another platform"],
)
def test_durable_memory_is_not_shared_beyond_one_user_and_agent(change):
    base = dict(TELEGRAM_DM, user_id="42", chat_id="100")
    assert scopes(**base).durable != scopes(**{**base, **change}).durable


def test_a_gateway_context_without_a_user_id_gets_no_shared_memory():
    anonymous = scopes(**TELEGRAM_DM, chat_id="100")
    other_anonymous = scopes(**TELEGRAM_DM, chat_id="200")
    assert anonymous.durable is None
    assert anonymous.readable == (anonymous.scratch,)
    assert anonymous.turns == anonymous.scratch
    assert anonymous.scratch != other_anonymous.scratch
    with pytest.raises(ValidationError) as err:
        anonymous.for_keep("long_term")
    assert err.value.field == "keep"


def test_local_front_ends_share_one_local_user_and_scratch_is_per_session():
    cli_one = scopes("session-1", platform="cli", agent_identity="default", agent_workspace="hermes")
    cli_two = scopes("session-2", platform="cli", agent_identity="default", agent_workspace="hermes")
    tui = scopes("session-3", platform="tui", agent_identity="default", agent_workspace="hermes")
    assert cli_one.durable is not None
    assert cli_one.durable == cli_two.durable == tui.durable
    assert cli_one.turns == cli_one.durable
    assert len({cli_one.scratch, cli_two.scratch, tui.scratch}) == 3


def test_a_shared_chat_journals_turns_into_its_scratch_scope():
    group = scopes(platform="discord", agent_identity="default", user_id="7", chat_id="g1", chat_type="group")
    dm = scopes(platform="discord", agent_identity="default", user_id="7", chat_id="d1", chat_type="dm")
    assert group.turns == group.scratch
    assert dm.turns == dm.durable == group.durable


def test_threads_of_one_chat_have_their_own_scratch():
    one = scopes(**TELEGRAM_DM, user_id="42", chat_id="100", thread_id="1")
    two = scopes(**TELEGRAM_DM, user_id="42", chat_id="100", thread_id="2")
    assert one.scratch != two.scratch and one.durable == two.durable


def test_a_delimiter_inside_an_id_cannot_forge_another_scope():
    # Without framing, ("a/b", "c") and ("a", "b/c") would join to the same text.
    forged = scopes(**TELEGRAM_DM, user_id="42", chat_id="100/5")
    honest = scopes(**TELEGRAM_DM, user_id="42", chat_id="100", thread_id="5")
    assert forged.scratch != honest.scratch
    forged_user = scopes(**{**TELEGRAM_DM, "agent_identity": "default/8:telegram"}, user_id="42")
    honest_user = scopes(**TELEGRAM_DM, user_id="8:telegram/42")
    assert forged_user.durable != honest_user.durable
    assert frame("a/b", "c") != frame("a", "b/c")
    assert frame("1:x") != frame("1", "x")


def test_keep_names_one_of_the_derived_scopes_only():
    s = scopes(**TELEGRAM_DM, user_id="42", chat_id="100")
    assert s.for_keep("long_term") == s.durable
    assert s.for_keep("this_chat") == s.scratch
    with pytest.raises(ValidationError):
        s.for_keep("hermes/durable/other-user")


def test_identity_reads_only_the_kwargs_it_knows_and_marks_non_primary_contexts():
    identity = HermesIdentity.from_kwargs("s", {"platform": "Telegram", "user_id": 42, "agent_context": "cron", "scope": "x"})
    assert identity.platform == "telegram" and identity.user_id == "42"
    assert not identity.is_primary
    assert identity.principal == "agent:default"


components = st.lists(st.text(alphabet="ab:/0123456789", max_size=6), max_size=5)


@given(components)
def test_frame_round_trips(parts):
    assert unframe(frame(*parts)) == parts


@given(components, components)
def test_frame_is_injective(left, right):
    if left != right:
        assert frame(*left) != frame(*right)


ids = st.text(alphabet="ab:/1", max_size=4)


@given(ids, ids, ids, ids)
def test_distinct_identities_never_share_a_durable_scope(user_a, agent_a, user_b, agent_b):
    a = scopes(platform="slack", user_id=user_a, agent_identity=agent_a or "default")
    b = scopes(platform="slack", user_id=user_b, agent_identity=agent_b or "default")
    if (user_a.strip(), agent_a.strip() or "default") != (user_b.strip(), agent_b.strip() or "default"):
        assert a.durable is None or a.durable != b.durable


def test_an_operator_names_scopes_in_words_and_reads_them_back_in_words():
    from factledger.hermes_plugin.scope import describe_scope, scope_for
    from factledger.ledger import ValidationError

    telegram = HermesIdentity("s1", platform="telegram", user_id="12345", chat_id="-100", chat_type="group",
                              agent_identity="coder", agent_workspace="hermes")
    scopes = derive_scopes(telegram)
    assert scope_for(profile="coder", user="telegram:12345") == scopes.durable
    assert scope_for(user="local") == derive_scopes(HermesIdentity("s", platform="tui", agent_identity="default",
                                                                   agent_workspace="hermes")).durable
    anonymous = derive_scopes(HermesIdentity("s", platform="discord", chat_id="-7", agent_identity="default",
                                             agent_workspace="hermes"))
    assert scope_for(chat="discord:-7") == anonymous.scratch
    assert describe_scope(scopes.durable) == "long-term memory of telegram user 12345 (profile coder)"
    assert describe_scope(scopes.scratch) == "chat memory of telegram user 12345 in telegram chat -100 (profile coder)"
    assert describe_scope(anonymous.scratch) == "memory of discord chat -7, no user id (profile default)"
    assert describe_scope("demo") == "scope demo"
    for words, field in ((dict(user="telegram"), "user"), (dict(), "user"), (dict(chat="local:x"), "chat")):
        with pytest.raises(ValidationError) as err:
            scope_for(**words)
        assert err.value.field == field
