"""A smoke run of evals/knowledge_update.py: its scenario file is well formed, its judge reads a question
as the eval's docstring says, and a scenario goes through the Hermes capture path and scores."""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from factledger.recall.text import sentence

EVAL = Path(__file__).resolve().parents[2] / "evals" / "knowledge_update.py"


def load_eval():
    spec = importlib.util.spec_from_file_location("knowledge_update", EVAL)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["knowledge_update"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_the_own_scenarios_are_varied_and_well_formed() -> None:
    module = load_eval()
    scenarios = module.load(module.OWN)
    assert len(scenarios) >= 20 and len({s["id"] for s in scenarios}) == len(scenarios)
    questions = [q for s in scenarios for q in s["questions"]]
    assert {q["kind"] for q in questions} == {"current", "past", "never"}
    assert all(any(q["kind"] == "never" for q in s["questions"]) for s in scenarios)
    assert all("valid_at" in q for q in questions if q["kind"] == "past")
    assert sum(q.get("expect") is None and q["kind"] != "never" for q in questions) >= 5  # "nothing any more"


@dataclass
class FakeClaim:
    subject_key: str
    predicate: str


@dataclass
class FakeHit:
    claim: FakeClaim
    text: str

    @property
    def sentence(self) -> str:
        return sentence(self.text, "2026-01-01T00:00:00.000000Z", None)


def hit(subject: str, predicate: str, text: str) -> FakeHit:
    return FakeHit(FakeClaim(subject, predicate), text)


MANAGER = {"kind": "current", "q": "who's my manager?", "expect": "Dana", "stale": ["Priya"]}
CAR = {"kind": "current", "q": "what car do I drive?", "expect": None, "stale": ["Civic"]}


@pytest.mark.parametrize(
    ("hits", "text", "question", "right", "stale"),
    [
        ([hit("user", "manager", "user's manager is Dana")], "", MANAGER, True, []),
        # another slot may name a stale word for its own reason
        ([hit("user", "manager", "user's manager is Dana"), hit("priya", "team", "Priya is on the platform team")], "", MANAGER, True, []),
        # the same slot shown with the old value as current is wrong
        ([hit("user", "manager", "user's manager is Dana"), hit("user", "manager", "user's manager is Priya")], "", MANAGER, False, ["Priya"]),
        ([], "", MANAGER, False, []),
        # the value in an excerpt counts for the block
        ([], 'Past conversation:\n- 2026-01-01, user: "Dana is my manager now"', MANAGER, True, []),
        ([], "", CAR, True, []),
        ([hit("user", "has", "user has 2015 Honda Civic")], "", CAR, False, ["Civic"]),
        ([hit("user", "manager", "user's manager is Danae")], "", MANAGER, False, []),  # whole words only
    ],
)
def test_the_judge(hits, text, question, right, stale) -> None:
    module = load_eval()
    assert module.judge(hits, text, question) == (right, stale)


def test_a_scenario_through_the_capture_path(capsys) -> None:
    module = load_eval()
    first = module.load(module.OWN)[0]
    assert module.main(["--data", str(module.OWN), "--only", first["id"], "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["digest"] == "rules"
    overall = report["overall"]
    assert overall["questions"] == len(first["questions"])
    assert overall["answered"] + overall["never"] == overall["questions"]
    assert 0.0 <= overall["facts_right"] <= 1.0 and 0.0 <= overall["never_empty"] <= 1.0
