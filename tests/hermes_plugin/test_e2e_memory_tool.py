"""Hermes's own memory tool: its writes reach factledger's journal as evidence (assistant turns)."""

from __future__ import annotations

import pytest

import yaml

from factledger.hermes_plugin.scripted_model import ModelReply

pytestmark = pytest.mark.both_engines  # each test also runs with database_url on PostgreSQL


def test_builtin_memory_writes_are_journaled_as_evidence(hermes):
    config_path = hermes.paths.config_yaml
    config = yaml.safe_load(config_path.read_text())
    config["memory"]["memory_enabled"] = True
    config["memory"]["user_profile_enabled"] = True
    config_path.write_text(yaml.safe_dump(config))

    hermes.server.push(
        ModelReply.call("memory", {"action": "add", "target": "user", "content": "Prefers answers in French."}),
        ModelReply.say("I'll remember that."),
    )
    chat = hermes.chat(platform="cli")
    chat.say("Please always answer me in French.")
    scope = chat.provider.session.scopes.turns
    chat.end()

    with hermes.ledger() as ledger:
        rows = ledger.storage.query("SELECT scope, role, text FROM journal ORDER BY id")
    entries = [(r["scope"], r["role"], r["text"]) for r in rows]
    assert (scope, "assistant", "Noted in Hermes memory (user): Prefers answers in French.") in entries
    assert (scope, "user", "Please always answer me in French.") in entries
