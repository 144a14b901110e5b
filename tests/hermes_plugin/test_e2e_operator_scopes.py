"""Through Hermes's real agents: an operator's alias joins a person's platforms (a fact said on one is
recalled on the other), and long-term recall switched off for a group keeps it out of that group."""

from __future__ import annotations

import pytest

from factledger.hermes_plugin.scripted_model import ModelReply

pytestmark = pytest.mark.both_engines  # each test also runs with database_url on PostgreSQL

TELEGRAM_DM = dict(platform="telegram", user_id="12345", chat_id="12345", chat_type="dm")
DISCORD_DM = dict(platform="discord", user_id="67890", chat_id="d1", chat_type="dm")
TELEGRAM_GROUP = dict(platform="telegram", user_id="12345", chat_id="-100", chat_type="group")


def said_on_telegram(hermes) -> None:
    hermes.server.push(ModelReply.say("Noted."))
    chat = hermes.chat(**TELEGRAM_DM)
    chat.say("I live in Lisbon.")
    chat.end()  # digests what the session left


def test_an_alias_recalls_the_same_persons_facts_on_another_platform(hermes):
    said_on_telegram(hermes)
    stranger = hermes.chat(**DISCORD_DM)
    assert "Lisbon" not in stranger.provider.prefetch("where do I live")  # no alias yet: another person
    stranger.end()

    hermes.update_settings(aliases={"discord:67890": "telegram:12345"})
    same_person = hermes.chat(**DISCORD_DM)
    assert "user lives in Lisbon" in same_person.provider.prefetch("where do I live")


def test_long_term_recall_switched_off_for_a_group(hermes):
    said_on_telegram(hermes)
    group = hermes.chat(**TELEGRAM_GROUP)
    assert "user lives in Lisbon" in group.provider.prefetch("where do I live")  # the default, as before
    group.end()

    hermes.update_settings(recall={"group_long_term": {"off": ["telegram:-100"]}})
    group = hermes.chat(**TELEGRAM_GROUP)
    assert "Lisbon" not in group.provider.prefetch("where do I live")
    assert group.provider.session.call_tool("factledger_profile", {})["facts"] == []
    dm = hermes.chat(**TELEGRAM_DM)
    assert "user lives in Lisbon" in dm.provider.prefetch("where do I live")


def test_an_operators_plain_off_key_switches_long_term_recall_off_in_that_groups_platform(hermes):
    # Written as an operator writes it, comments and all: YAML alone would read `off:` as the key False
    # (and the setting as empty), so the group would still recall long-term memory.
    said_on_telegram(hermes)
    text = hermes.paths.settings_path.read_text("utf-8")  # the installed file (database_url included)
    default = "    off: []               #"
    assert text.count(default) == 1
    hermes.paths.settings_path.write_text(text.replace(default, "    off: [telegram]       # private groups;"), "utf-8")
    group = hermes.chat(**TELEGRAM_GROUP)
    assert "Lisbon" not in group.provider.prefetch("where do I live")
    dm = hermes.chat(**TELEGRAM_DM)
    assert "user lives in Lisbon" in dm.provider.prefetch("where do I live")
