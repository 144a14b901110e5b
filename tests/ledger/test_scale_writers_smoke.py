"""evals/scale_writers.py runs end to end at a toy size on SQLite (figures are not checked: not a timed test)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "evals" / "scale_writers.py"


def test_scale_writers_commits_every_transaction_at_toy_size():
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--users", "5", "--writers", "2", "--txs", "3", "--queries", "5"],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout
    report = json.loads(out)
    assert report["engine"] == "sqlite"
    assert report["one_writer"]["committed"] == 3 and report["many_writers"]["committed"] == 6
    assert report["many_writers_with_prefetch"]["committed"] == 6
    assert report["many_writers"]["refused"] == 0 and report["many_writers_with_prefetch"]["refused"] == 0
    assert report["many_writers_with_prefetch"]["prefetch_under_load"]["n"] >= 1
    assert report["prefetch_idle"]["n"] == 5
