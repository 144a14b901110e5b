"""A smoke run of evals/digest_eval.py: the script works, and the rules extractor stays precise."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

EVAL = Path(__file__).resolve().parents[2] / "evals" / "digest_eval.py"


def load_eval():
    spec = importlib.util.spec_from_file_location("digest_eval", EVAL)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["digest_eval"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_the_labelled_set_is_big_enough_and_well_formed() -> None:
    module = load_eval()
    dialogues = module.load(module.DATA)
    assert len(dialogues) >= 60
    assert len({d.id for d in dialogues}) == len(dialogues)
    assert all(d.turns for d in dialogues)


def test_eval_runs_at_toy_size(capsys, monkeypatch) -> None:
    monkeypatch.delenv("FACTLEDGER_DIGEST_MODEL", raising=False)
    module = load_eval()
    assert module.main(["--limit", "8", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["dialogues"] == 8 and "rules [all]" in result


def test_rules_precision_on_the_full_set(monkeypatch) -> None:
    module = load_eval()
    score = module.evaluate(module.load(module.DATA), module.RulesExtractor())
    assert score.precision >= 0.95, score.false_positives


def test_throughput_runs_at_toy_size() -> None:
    module = load_eval()
    figures = module.throughput(module.load(module.DATA)[:10], 30)
    assert figures["turns"] == 30 and figures["claims_applied"] > 0
