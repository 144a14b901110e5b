"""Fuzzing search queries (FTS5 syntax, hostile text) through `factledger search` and Recall.search:
a result or a clear error, never a traceback, and the ledger unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given

from factledger.ledger import Ledger, LedgerError
from factledger.recall import Recall
from tests.fuzz_strategies import fuzz_settings, invoke_cli, search_queries


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("search") / "ledger.db"
    with Ledger.open(db) as ledger, ledger.transaction(principal="operator:t") as tx:
        tx.add("s", "Ann", "lives_in", "Paris", valid_from="2024-01-01")
        tx.add("s", "Ann", "likes", "jazz", valid_from="2024-01-01")
    invoke_cli(["--db", str(db), "search", "Paris", "--scope", "s", "--config", "lexical"])  # drain once
    return db


@fuzz_settings(40)
@given(query=search_queries())
def test_cli_search_never_ends_in_a_traceback(seeded: Path, query: str) -> None:
    result = invoke_cli(["--db", str(seeded), "search", query, "--scope", "s", "--config", "lexical", "--json"], db=seeded)
    if result.exit_code == 0:
        json.loads(result.output)


@pytest.fixture(scope="module")
def recall(seeded: Path):
    with Ledger.open(seeded) as ledger:
        engine = Recall(ledger, seeded.parent / "ledger.db.lance")
        yield engine
        engine.close()


@fuzz_settings(40)
@given(query=search_queries())
def test_library_search_with_the_vector_lane_never_ends_in_a_traceback(recall: Recall, query: str) -> None:
    try:
        recall.search(query, ["s"])
    except LedgerError:
        pass


@pytest.mark.parametrize("line", [b"[" * 5000 + b"]" * 5000, b'{"query": NaN, "scope": "s"}', b"\xff\xfe",
                                  b'{"query": "jazz", "scope": "s\\n"}'])
def test_batch_search_lines_fail_alone_with_their_error(seeded: Path, line: bytes) -> None:
    batch = seeded.parent / "batch.jsonl"
    batch.write_bytes(line + b'\n{"query": "jazz", "scope": "s"}\n')
    result = invoke_cli(["--db", str(seeded), "search", "--batch", str(batch), "--config", "lexical"], db=seeded)
    assert result.exit_code == 2
