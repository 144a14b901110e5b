"""evals/bench_ledger.py runs end to end at a toy size (figures are not checked: this is not a timed test)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "evals" / "bench_ledger.py"


def test_bench_ledger_runs_at_toy_size(tmp_path, capsys, monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_ledger", BENCH)
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_ledger", bench)  # dataclasses look their module up
    spec.loader.exec_module(bench)
    code = bench.main(["--sizes", "330", "--batch", "50", "--one-op", "10", "--lookups", "20", "--workdir", str(tmp_path), "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    (row,) = report["rows"]
    assert row["versions"] == 330 and row["operations"] == 210
    for name in ("batch_ops_per_s", "ratio_to_baseline", "schema_floor_ratio", "one_op_tx_per_s", "slot_as_of_p50_ms"):
        assert row[name] > 0
    assert list(tmp_path.iterdir()) == []  # the ledger files are removed
