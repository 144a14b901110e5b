"""The Hermes demo: a newcomer sees a real Hermes turn with recall, no API key."""

from __future__ import annotations

import json

from .conftest import run_cli


def test_demo_shows_recall_and_history_in_real_turns(hermes_runtime, tmp_path):
    result = run_cli("hermes", "demo", "--dir", str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    turns = report["turns"]
    assert [t["session"] for t in turns] == [1, 1, 2, 2]
    assert turns[0]["recalled"] == ""
    city_question = turns[2]
    assert "user lives in Lisbon" in city_question["recalled"] and "Paris" not in city_question["recalled"]
    assert "Lisbon" in city_question["reply"]
    history_question = turns[3]
    assert [v["value"] for v in history_question["tool_calls"][0]["versions"] if v["current_belief"]] == ["Paris", "Lisbon"]
    assert "before that you lived in Paris" in history_question["reply"]
    assert "user lives in Lisbon" in report["current"] and "user works at Acme" in report["current"]
    assert (tmp_path / "hermes-home" / "plugins" / "factledger" / "__init__.py").exists()
