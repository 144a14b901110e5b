"""A few SIGKILLs of real `factledger` processes (evals/fault_kill.py at a toy size): after each one the
file passes integrity_check, `verify` fails at most the documented repairable checks and passes all of
them after `index repair`, every transaction the killed `apply` printed is there, none is half-applied or
there twice, and a killed run resumed with --from-line completes the file. The eval runs 200 kills."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

EVAL = Path(__file__).resolve().parents[2] / "evals" / "fault_kill.py"


def _fault_kill(monkeypatch):
    spec = importlib.util.spec_from_file_location("fault_kill", EVAL)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "fault_kill", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_killed_apply_runs_lose_nothing_and_resume(tmp_path: Path, monkeypatch) -> None:
    fk = _fault_kill(monkeypatch)
    tally = fk.Tally()
    # Seed 17 kills both runs early in their files (after 4 and 8 of 40 transactions): a kill near a file's
    # end can come after a fast writer has finished, and then there is nothing to resume.
    fk.apply_kills(tmp_path, 2, random.Random(17), tally, resume_every=1)
    assert tally.kills == 2 and tally.resumed >= 1
    assert tally.held, tally.to_dict()
    assert tally.mid_work >= 1  # a kill landed between two transactions of the file, not before or after
    assert tally.printed > 0
    assert set(tally.verify_findings) <= fk.REPAIRABLE


@pytest.mark.slow  # a LanceDB build, a measured run and a killed one: several seconds
def test_a_killed_index_rebuild_is_repaired(tmp_path: Path, monkeypatch) -> None:
    fk = _fault_kill(monkeypatch)
    tally = fk.Tally()
    fk.recall_kills(tmp_path, "rebuild", 1, random.Random(5), tally)
    assert tally.kills == 1
    assert tally.held, tally.to_dict()
