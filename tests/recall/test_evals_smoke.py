"""The negative-retrieval eval and the latency bench run end to end at toy size (figures are not checked
here: they are the evals' job; this only keeps the scripts working)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

EVALS = Path(__file__).resolve().parents[2] / "evals"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, EVALS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_negative_retrieval_passes(capsys):
    assert _load("negative_retrieval").main([]) == 0
    assert "OK" in capsys.readouterr().out


def test_bench_runs_at_toy_size(capsys):
    assert _load("bench_recall").main(["--sizes", "300", "--queries", "20", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["claims"] == 300 and rows[0]["write_to_searchable_p50_ms"] > 0
