"""Shared fixtures: small, named for what they give."""

from __future__ import annotations

from pathlib import Path

import pytest

from factledger.ledger import Ledger


@pytest.fixture
def ledger_path(tmp_path: Path) -> Path:
    return tmp_path / "ledger.db"


@pytest.fixture
def fresh_ledger(ledger_path: Path):
    ledger = Ledger.open(ledger_path)
    yield ledger
    ledger.close()


class StepClock:
    """A controllable clock for tests: returns the set time; can step back to test monotonic tx time."""

    def __init__(self, start: str = "2025-01-01T00:00:00.000000Z"):
        self.now = start

    def __call__(self) -> str:
        return self.now


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def clocked_ledger(ledger_path: Path, clock: StepClock):
    ledger = Ledger.open(ledger_path, clock=clock)
    yield ledger
    ledger.close()
