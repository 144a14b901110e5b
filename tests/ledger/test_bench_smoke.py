"""evals/bench_ledger.py runs end to end at a toy size on both engines (figures are not checked: this is
not a timed test)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "evals" / "bench_ledger.py"
TOY = ["--sizes", "330", "--batch", "50", "--one-op", "10", "--lookups", "20", "--json"]
FIGURES = ("batch_ops_per_s", "ratio_to_baseline", "schema_floor_ratio", "of_floor", "one_op_tx_per_s", "slot_as_of_p50_ms")


@pytest.fixture
def bench(monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_ledger", BENCH)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_ledger", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _one_row(capsys) -> dict:
    report = json.loads(capsys.readouterr().out)
    (row,) = report["rows"]
    assert row["versions"] == 330 and row["operations"] == 210
    for name in FIGURES:
        assert row[name] > 0, name
    return row


def test_bench_ledger_runs_at_toy_size(bench, tmp_path, capsys):
    assert bench.main([*TOY, "--workdir", str(tmp_path)]) == 0
    assert _one_row(capsys)["engine"] == "sqlite"
    assert list(tmp_path.iterdir()) == []  # the ledger files are removed


def test_bench_ledger_runs_on_postgres_at_toy_size(bench, postgres_cluster, capsys):
    import psycopg

    assert bench.main([*TOY, "--db", postgres_cluster.url()]) == 0
    assert _one_row(capsys)["engine"] == "postgres"
    with psycopg.connect(postgres_cluster.dsn()) as conn:  # its scratch databases are dropped
        left = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'factledger_bench_%'").fetchall()
    assert left == []


def test_bench_ledger_refuses_a_file_as_db(bench, capsys):
    with pytest.raises(SystemExit):
        bench.main([*TOY, "--db", "ledger.db"])
    assert "postgresql://" in capsys.readouterr().err


def test_bench_ledger_times_an_import_at_toy_size(bench, tmp_path, capsys):
    """--import-versions runs `factledger import` on the history it writes (the child must load every
    version, or the run fails) and the plain-INSERT baseline beside it; its files are removed."""
    assert bench.main(["--import-versions", "330", "--batch", "50", "--json", "--workdir", str(tmp_path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rows"] == []
    (row,) = report["imports"]
    assert (row["versions"], row["operations"], row["transactions"]) == (330, 210, 1 + 2 + 1 + 2 + 1)  # definitions, then rounds of 90, 30, 60, 30 operations
    for name in ("import_ops_per_s", "peak_rss_mb", "baseline_rows_per_s", "ratio_to_baseline"):
        assert row[name] > 0, name
    assert list(tmp_path.iterdir()) == []


def test_bench_ledger_imports_on_sqlite_only(bench, capsys):
    with pytest.raises(SystemExit):
        bench.main(["--import-versions", "330", "--db", "postgresql://nobody@/x"])
    assert "SQLite only" in capsys.readouterr().err


def test_bench_ledger_times_journal_turns_at_toy_size(bench, tmp_path, capsys):
    """--journal-turns appends the turns both ways (every turn stored and indexed, or the run fails)."""
    assert bench.main(["--journal-turns", "45", "--json", "--workdir", str(tmp_path)]) == 0
    journal = json.loads(capsys.readouterr().out)["journal"]
    assert journal["turns"] == 45
    for name in ("one_by_one_turns_per_s", "batch_turns_per_s", "speedup_cpu"):
        assert journal[name] > 0, name
    assert list(tmp_path.iterdir()) == []
