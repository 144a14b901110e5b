"""The model's explicit writes go through the digest's gates: a value an operator rejected stays out,
and forget is a retraction that history keeps, never an erase."""

from __future__ import annotations

import json

import pytest

from factledger.digest import get_proposal, list_proposals, reject
from factledger.hermes_plugin.provider import FactledgerMemoryProvider
from factledger.ledger import Ledger


@pytest.fixture
def strict_provider(hermes_runtime, tmp_path):
    settings = tmp_path / "factledger" / "config.yaml"
    settings.parent.mkdir(parents=True)
    settings.write_text("digest:\n  policy: strict\n")
    provider = FactledgerMemoryProvider()
    provider.initialize("s1", hermes_home=str(tmp_path), platform="cli")
    yield provider
    provider.shutdown()


def call(provider, tool: str, **args) -> dict:
    return json.loads(provider.handle_tool_call(tool, args))


def test_a_value_an_operator_rejected_is_refused_to_the_model(strict_provider, tmp_path):
    strict_provider.sync_turn("I live in Atlantis.", "Noted.")
    strict_provider.on_session_end([])  # strict: the digest holds the proposal for review
    path = tmp_path / "factledger" / "ledger.db"
    with Ledger.open(path) as ledger:
        (held,) = list_proposals(ledger, status="pending")
        reject(ledger, held.id, principal="operator:alice", reason="a joke")

    refused = call(strict_provider, "factledger_remember", subject="user", predicate="lives_in", value="Atlantis")
    assert refused["status"] == "rejected" and "rejected" in refused["message"]
    with Ledger.open(path, read_only=True) as ledger:
        assert ledger.current(predicate="lives_in") == []


def test_forget_retracts_and_history_keeps_the_value(strict_provider, tmp_path):
    saved = call(strict_provider, "factledger_remember", subject="user", predicate="has", value="a red kayak",
                 valid_from="2024-01-01")
    assert saved["status"] == "applied"
    gone = call(strict_provider, "factledger_forget", subject="user", predicate="has", value="a red kayak",
                valid_from="2025-06-01", reason="sold it")
    assert gone["status"] == "applied"
    assert call(strict_provider, "factledger_search", query="kayak")["results"] == []
    then = call(strict_provider, "factledger_search", query="kayak", valid_at="2025-01-01")
    assert [r["value"] for r in then["results"]] == ["a red kayak"]
    history = call(strict_provider, "factledger_history", subject="user", predicate="has")["versions"]
    believed = [v for v in history if v["current_belief"]]
    assert [(v["valid_from"][:10], (v["valid_to"] or "")[:10]) for v in believed] == [("2024-01-01", "2025-06-01")]
    with Ledger.open(tmp_path / "factledger" / "ledger.db", read_only=True) as ledger:
        assert ledger.storage.one("SELECT COUNT(*) FROM tombstones")[0] == 0
        tx = ledger.transaction_record(gone["tx"])
        proposal = get_proposal(ledger, gone["proposal_id"])
    # The transaction names the proposal by id; the agent's words are on the proposal (erase reaches it).
    assert tx.principal == "agent:default" and tx.reason == f"explicit write: proposal #{proposal.id}"
    assert proposal.reason == "sold it"


def test_forgetting_nothing_is_a_clear_error(strict_provider):
    reply = call(strict_provider, "factledger_forget", subject="user", predicate="has", value="a yacht")
    assert "nothing to forget" in reply["error"] and reply["field"] == "value"
