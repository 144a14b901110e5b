"""The Hermes provider keys the ledger's chain with a key beside its settings and records the ledger's
signed head when a session ends, so a later `factledger verify` proves the ledger still extends it (both
engines: the SQLite file, and a `database_url`)."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.hermes_plugin.provider import FactledgerMemoryProvider
from factledger.hermes_plugin.settings import ProviderSettings
from factledger.ledger.chain_key import ChainKey
from factledger.ledger.head import last_recorded_head

pytestmark = pytest.mark.both_engines


def session(hermes_home, session_id: str) -> FactledgerMemoryProvider:
    provider = FactledgerMemoryProvider()
    provider.initialize(session_id, hermes_home=str(hermes_home.home), platform="cli", agent_identity="default")
    return provider


def test_a_session_end_records_a_head_that_verify_checks(hermes_runtime, hermes_home) -> None:
    provider = session(hermes_home, "s1")
    stored = json.loads(provider.handle_tool_call("factledger_remember", {"subject": "user", "predicate": "likes", "value": "tea"}))
    assert "error" not in stored, stored
    provider.shutdown()
    location = ProviderSettings.load(hermes_home.settings_path).ledger_location(hermes_home.ledger_path)
    key_file = hermes_home.chain_key_path(location)
    heads = hermes_home.heads_path(location)
    assert key_file.parent == hermes_home.settings_path.parent and not os.stat(key_file).st_mode & 0o077
    head = last_recorded_head(heads)
    assert head is not None and head.signed and head.tx >= 1 and head.mac_ok(ChainKey.from_file(key_file))
    # A second session that writes nothing records no second head; one that writes records the next.
    session(hermes_home, "s2").shutdown()
    assert heads.read_text().count("\n") == 1
    again = session(hermes_home, "s3")
    again.handle_tool_call("factledger_remember", {"subject": "user", "predicate": "likes", "value": "chess"})
    again.shutdown()
    assert heads.read_text().count("\n") == 2 and last_recorded_head(heads).tx > head.tx
    result = CliRunner().invoke(cli, ["--db", str(location), "--chain-key", str(key_file), "verify", "--json",
                                      "--against", str(heads)])
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["against_head"]["ok"] and checks["hash_chain"]["ok"] and checks["chain_key"]["ok"], checks

