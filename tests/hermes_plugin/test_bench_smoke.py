"""evals/bench_hermes.py still runs (toy size, no Hermes turns)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest


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


@pytest.mark.slow  # real `hermes chat` processes
def test_the_timings_eval_runs_hermes_and_prints_each_target():
    # One alternating run through Hermes's own CLI: every figure is measured and every target is judged
    # (whether a target is met depends on the machine: the figures are docs/BENCHMARKS.md's).
    import json
    import subprocess
    import sys

    path = Path(__file__).resolve().parents[2] / "evals" / "hermes_timings.py"
    done = subprocess.run([sys.executable, str(path), "--runs", "1", "--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert set(report["targets_met"]) == {"start +0.5 s", "exit +0.3 s", "factledger status 1.0 s"}
    assert all(isinstance(met, bool) for met in report["targets_met"].values())
    spans = {"start", "exit", "total", "start cpu", "exit cpu", "hermes memory status"}
    assert set(report["medians_s"]["with"]) == spans | {"factledger status", "digested after exit"}
    assert set(report["medians_s"]["without"]) == spans
    assert all(value >= 0 for value in report["medians_s"]["with"].values())
