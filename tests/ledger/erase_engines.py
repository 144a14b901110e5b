"""A fresh ledger on each engine, for the erase behaviour tests (the postgres param skips without a
server, and fails under CI=true, through the `postgres_url` fixture)."""

from __future__ import annotations

import pytest

from factledger.ledger import Ledger


@pytest.fixture(params=["sqlite", "postgres"])
def engine_ledger(request, ledger_path):
    location = ledger_path if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    ledger = Ledger.open(location)
    yield ledger
    ledger.close()
