"""The operator's scope settings: the alias map (one person on several platforms) and the switch for
long-term recall in shared chats. Validated with errors naming the field; defaults as before."""

from __future__ import annotations

import pytest

from factledger.hermes_plugin.scope import HermesIdentity, derive_scopes
from factledger.hermes_plugin.settings import ProviderSettings
from factledger.ledger import ValidationError

TELEGRAM = HermesIdentity(session_id="s1", platform="telegram", user_id="12345", chat_id="12345", chat_type="dm")
DISCORD = HermesIdentity(session_id="s2", platform="discord", user_id="67890", chat_id="c9", chat_type="dm")


def test_an_alias_gives_both_identities_one_durable_scope_and_keeps_scratch_apart():
    settings = ProviderSettings.from_mapping({"aliases": {"Discord:67890": "telegram:12345"}})
    joined, own = derive_scopes(DISCORD, settings.aliases), derive_scopes(TELEGRAM, settings.aliases)
    assert joined.durable == own.durable == derive_scopes(TELEGRAM).durable  # the target keeps its memory
    assert joined.scratch == derive_scopes(DISCORD).scratch != own.scratch


def test_an_unknown_alias_changes_nothing():
    settings = ProviderSettings.from_mapping({"aliases": {"discord:99999": "telegram:12345"}})
    for identity in (DISCORD, TELEGRAM, HermesIdentity(session_id="s3", platform="cli")):
        assert derive_scopes(identity, settings.aliases) == derive_scopes(identity)


def test_a_local_front_end_is_named_local():
    settings = ProviderSettings.from_mapping({"aliases": {"telegram:12345": "cli:local"}})
    assert settings.aliases == {"telegram:12345": "local:local"}
    assert derive_scopes(TELEGRAM, settings.aliases).durable == derive_scopes(HermesIdentity(session_id="x", platform="tui")).durable


@pytest.mark.parametrize(
    ("aliases", "field"),
    [
        (["telegram:1"], "aliases"),
        ({"telegram": "discord:1"}, "aliases"),
        ({"telegram:1": "discord:"}, "aliases[telegram:1]"),
        ({"telegram:1": "telegram:1"}, "aliases[telegram:1]"),
        ({"telegram:1": "discord:2", "discord:2": "slack:3"}, "aliases[telegram:1]"),
        ({"telegram:1": ["discord:2"]}, "aliases[telegram:1]"),
    ],
)
def test_a_bad_alias_map_is_refused_naming_the_field(aliases, field):
    with pytest.raises(ValidationError) as error:
        ProviderSettings.from_mapping({"aliases": aliases})
    assert error.value.field == field


GROUP = dict(platform="telegram", chat_id="-100", chat_type="group")


def test_long_term_recall_in_shared_chats_is_on_by_default():
    settings = ProviderSettings()
    assert settings.recalls_long_term(**GROUP)
    identity = HermesIdentity(session_id="s", user_id="u", **GROUP)
    scopes = derive_scopes(identity)
    assert scopes.readable == (scopes.durable, scopes.scratch)


@pytest.mark.parametrize(
    ("group", "where", "expected"),
    [
        ({"off": ["telegram"]}, GROUP, False),
        ({"off": ["telegram:-100"]}, GROUP, False),
        ({"off": ["-100"]}, GROUP, False),
        ({"off": ["telegram:-200"]}, GROUP, True),
        ({"off": ["telegram"], "on": ["telegram:-100"]}, GROUP, True),  # the chat's entry wins
        ({"default": False}, GROUP, False),
        ({"default": False, "on": ["telegram"]}, GROUP, True),
        ({"default": False}, dict(platform="telegram", chat_id="5", chat_type="dm"), True),  # DMs always
        ({"off": ["discord"]}, GROUP, True),
    ],
)
def test_the_group_switch(group, where, expected):
    settings = ProviderSettings.from_mapping({"recall": {"group_long_term": group}})
    assert settings.recalls_long_term(**where) is expected


@pytest.mark.parametrize(
    ("group", "field"),
    [
        ({"default": "no"}, "recall.group_long_term.default"),
        ({"off": {"a": 1}}, "recall.group_long_term.off"),
        ("off", "recall.group_long_term"),
    ],
)
def test_a_bad_group_switch_is_refused_naming_the_field(group, field):
    with pytest.raises(ValidationError) as error:
        ProviderSettings.from_mapping({"recall": {"group_long_term": group}})
    assert error.value.field == field


def test_a_stable_alternate_user_id_keeps_the_scope_when_the_user_id_changes():
    before = HermesIdentity.from_kwargs("s1", dict(platform="signal", user_id="+351911111111", user_id_alt="uuid-1"))
    after = HermesIdentity.from_kwargs("s2", dict(platform="signal", user_id="+351922222222", user_id_alt="uuid-1"))
    assert derive_scopes(before).durable == derive_scopes(after).durable
    plain = HermesIdentity.from_kwargs("s3", dict(platform="signal", user_id="+351911111111"))
    assert derive_scopes(plain).durable != derive_scopes(before).durable  # no alt id: the user id, as before
