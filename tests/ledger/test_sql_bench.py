"""The SQL benchmark runs end to end at toy size, and DuckDB and SQLite give the same answers."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "evals" / "bench_sql.py"


def test_bench_sql_runs_at_toy_size(tmp_path: Path, capsys, monkeypatch) -> None:
    spec = importlib.util.spec_from_file_location("bench_sql", BENCH)
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_sql", bench)  # dataclasses look their module up there
    spec.loader.exec_module(bench)
    figures = bench.main(["--versions", "3000", "--repeat", "1", "--writes", "40", "--path", str(tmp_path / "bench.db")])
    assert [q["name"] for q in figures["questions"]] == ["as-of aggregate", "history scan", "activity per principal"]
    assert all(q["same_answer"] for q in figures["questions"])
    # the companion's upkeep: the 40 transactions copied by one refresh, no rebuild, still the same answer
    assert figures["refresh"]["transactions"] == 40 and not figures["refresh"]["rebuilt"]
    assert figures["after_writes_same"]
    out = capsys.readouterr().out
    assert "3,000 claim versions" in out and "ratio" in out


def test_record_replaces_the_last_recorded_figures(tmp_path: Path, monkeypatch) -> None:
    """`--record` keeps one current table: the figures between the marks of docs/BENCHMARKS.md's SQL section
    are replaced, the prose around them stays."""
    spec = importlib.util.spec_from_file_location("bench_sql", BENCH)
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_sql", bench)
    spec.loader.exec_module(bench)
    real = (Path(__file__).resolve().parents[2] / "docs" / "BENCHMARKS.md").read_text("utf-8")
    assert real.count(bench.START_MARK) == 1 and real.count(bench.END_MARK) == 1
    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text(f"# b\n\nbefore\n{bench.START_MARK}\nold table\n{bench.END_MARK}\nafter\n", "utf-8")
    bench.record("| new | table |", "bench_sql.py --record", doc)
    bench.record("| newer | table |", "bench_sql.py --record", doc)
    text = doc.read_text("utf-8")
    assert "old table" not in text and "| new |" not in text and "| newer | table |" in text
    assert text.startswith("# b\n\nbefore\n") and text.endswith(f"{bench.END_MARK}\nafter\n")
