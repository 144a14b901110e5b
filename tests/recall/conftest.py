"""Recall fixtures: one embedder per session (loading it is the slow part), a ledger and a Recall."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from factledger.ledger import Ledger
from factledger.recall import Recall, RecallConfig, StaticEmbedder

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def embedder() -> StaticEmbedder:
    return StaticEmbedder()


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    return tmp_path / "vectors.lance"


@pytest.fixture
def recall(clocked_ledger: Ledger, index_dir: Path, embedder: StaticEmbedder):
    engine = Recall(clocked_ledger, index_dir, config=RecallConfig(), embedder=embedder)
    yield engine
    engine.close()


def write(ledger: Ledger, clock, when: str, ops: list[tuple]) -> None:
    """Apply (op, scope, subject, predicate, value, kwargs) tuples in one transaction at clock time `when`."""
    clock.now = when
    with ledger.transaction(principal="operator:test") as tx:
        for op, scope, subject, predicate, value, kwargs in ops:
            getattr(tx, op)(scope, subject, predicate, value, **kwargs)


def define(ledger: Ledger, clock, predicate: str, cardinality: str, template: str) -> None:
    with ledger.transaction(principal="operator:test") as tx:
        tx.define(predicate, cardinality, template=template)


def values(hits) -> list[str]:
    return [h.claim.value for h in hits]
