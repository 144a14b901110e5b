"""Fixtures for the SQL tests: the fixed history of sql_fixtures, built once per test module."""

from __future__ import annotations

from pathlib import Path

import pytest

from factledger.ledger.analytics import Analytics

from .sql_fixtures import NOW, build_history


@pytest.fixture(scope="module")
def history_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sql-history") / "ledger.db"
    build_history(path)
    return path


@pytest.fixture(scope="module", params=["live", "snapshot", "companion"])
def analytics(request: pytest.FixtureRequest, history_path: Path):
    """The history through DuckDB: over the attached file, over an in-memory snapshot, and through the
    analytics companion (a DuckDB file kept in step)."""
    with Analytics(history_path, mode=request.param, clock=lambda: NOW) as instance:
        assert instance.mode == request.param, instance.mode_note
        yield instance
