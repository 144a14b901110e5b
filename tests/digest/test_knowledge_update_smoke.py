"""A smoke run of evals/knowledge_update.py: the scenario file is well formed, a few scenarios go through
the capture path (journal -> digest -> recall) and score, and the facts/evidence split is honoured."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

EVAL = Path(__file__).resolve().parents[2] / "evals" / "knowledge_update.py"


def load_eval():
    spec = importlib.util.spec_from_file_location("knowledge_update", EVAL)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["knowledge_update"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_the_scenarios_are_many_varied_and_well_formed() -> None:
    module = load_eval()
    scenarios = module.load(module.DATA)
    assert len(scenarios) >= 40 and len({s["id"] for s in scenarios}) == len(scenarios)
    assert {"move", "job", "correction", "retraction", "preference", "third_person", "event"} <= {s["category"] for s in scenarios}
    assert all(len(s["sessions"]) >= 1 and s["questions"] for s in scenarios)
    assert sum(len(s["sessions"]) >= 2 for s in scenarios) >= 35  # multi-session
    questions = [q for s in scenarios for q in s["questions"]]
    assert any("valid_at" in q or "known_at" in q for q in questions) and any("valid_at" not in q for q in questions)


def test_only_the_facts_part_counts() -> None:
    module = load_eval()
    block = "Recalled memory (...):\n- user lives in Porto (since 2025-05-01)\nPast conversation (evidence):\n- 2025-01-10 user: I live in Lisbon."
    facts = module.facts_part(block)
    assert module.mentions(facts, "Porto") and not module.mentions(facts, "Lisbon")
    assert not module.mentions("user lives in Portofino", "Porto")


def test_a_few_scenarios_through_the_capture_path(capsys) -> None:
    module = load_eval()
    assert module.main(["--only", "move-1", "correct-1", "pref-1", "third-1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["extractor"] == "rules" and report["scenarios"] == 4
    assert report["overall"]["questions"] == 8
    # Each of these is handled by the rules extractor: now and as of the past, no stale value as current.
    assert report["overall"]["score"] == 1.0 and report["overall"]["stale_shown_as_current"] == 0, report["failures"]
