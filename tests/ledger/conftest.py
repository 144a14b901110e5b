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


@pytest.fixture(scope="module", params=["live", "snapshot"])
def analytics(request: pytest.FixtureRequest, history_path: Path):
    """The history through DuckDB, both over the attached file and over an in-memory snapshot."""
    with Analytics(history_path, snapshot=request.param == "snapshot", clock=lambda: NOW) as instance:
        yield instance
