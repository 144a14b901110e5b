"""With a model named in the settings, the provider's background worker digests through the LLM
extractor (instructor over the OpenAI API) against a real local server, never on the turn's thread."""

from __future__ import annotations

from factledger.hermes_plugin.provider import FactledgerMemoryProvider
from factledger.hermes_plugin.scripted_model import ModelReply
from factledger.ledger import Ledger

CELLO = {
    "claims": [
        {"turn": 1, "op": "add", "subject": "user", "predicate": "plays", "cardinality": "many",
         "template": "{subject} plays {value}", "value": "the cello", "quote": "I play the cello"}
    ]
}


def test_a_configured_model_digests_in_the_background(hermes_runtime, tmp_path, model_server, monkeypatch):
    settings = tmp_path / "factledger" / "config.yaml"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        f"digest:\n  model:\n    base_url: {model_server.base_url}\n    name: digest-model\n    api_key_env: DIGEST_KEY\n"
    )
    monkeypatch.setenv("DIGEST_KEY", "sk-local")
    model_server.push(ModelReply.call("Extraction", CELLO))
    provider = FactledgerMemoryProvider()
    provider.initialize("s1", hermes_home=str(tmp_path), platform="cli")
    provider.sync_turn("I play the cello on weekends.", "Lovely.")
    assert model_server.requests == []  # journaling made no model call
    provider.on_session_end([])
    provider.shutdown()

    (request,) = model_server.requests  # one call for the window (the user turn and the reply)
    assert request.body["model"] == "digest-model"
    assert request.last_user_text().count("I play the cello on weekends.") == 1
    with Ledger.open(tmp_path / "factledger" / "ledger.db", read_only=True) as ledger:
        (claim,) = ledger.current(predicate="plays")
        tx = ledger.transaction_record(claim.opened_by)
    assert claim.value == "the cello" and tx.principal == "digest:llm:digest-model"
