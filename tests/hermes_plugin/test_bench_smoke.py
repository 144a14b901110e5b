"""evals/bench_hermes.py still runs (toy size, no Hermes turns)."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def test_bench_runs_at_toy_size(hermes_runtime, tmp_path, monkeypatch):
    path = Path(__file__).resolve().parents[2] / "evals" / "bench_hermes.py"
    spec = importlib.util.spec_from_file_location("bench_hermes", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    report = bench.provider_benchmarks(tmp_path, users=20, queries=5)
    assert report["claims"] == 100 and report["scopes"] == 20
    assert "user lives in" in report["sample_block"]
    assert report["prefetch"]["provider"]["p50_ms"] > 0
