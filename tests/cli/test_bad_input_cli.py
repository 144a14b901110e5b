"""Inputs a fuzzer found ending in a traceback on main (issue 21): each is now a clear error with exit
status 2 that names what was wrong, and changes no byte of the ledger. And two messages that said what
was not so: `verify`'s advice on the lexical index, and `migrate`'s "verify of the target: ok" while
`factledger verify` of the same target failed."""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli

from factledger.ledger import Ledger
from tests.fuzz_strategies import invoke_cli, ledger_bytes


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger, ledger.transaction(principal="operator:t") as tx:
        tx.add("s", "Ann", "likes", "jazz")
    return path


def run(args: list[str]):
    """`factledger ARGS` in process, any exit status (verify's 1 is an answer)."""
    result = CliRunner().invoke(cli, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def refused(args: list[str], db: Path, *words: str, unchanged: bool = True) -> str:
    # fails on a traceback, and (unchanged) on a changed byte of the ledger
    result = invoke_cli(["--db", str(db), *args], db=db if unchanged else None)
    assert result.exit_code == 2, result.output
    for word in words:
        assert word in result.output, (word, result.output)
    return result.output


@pytest.mark.parametrize("line", [rb'{"id": "\ud800", "query": "jazz", "scope": "s"}',
                                  rb'{"id": ["a\udc80"], "query": "jazz", "scope": "s"}'])
def test_search_batch_with_a_lone_surrogate_in_id(db, tmp_path, line) -> None:
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(line + b'\n{"id": 7, "query": "jazz", "scope": "s"}\n')
    # (a search drains the vector outbox: a write of the ledger, so its bytes are not compared)
    output = refused(["search", "--batch", str(batch)], db, "id: line 1", "lone surrogate", "1 batch line(s) failed",
                     unchanged=False)
    assert '"id": 7, "results"' in output  # the good line is still answered


@pytest.mark.parametrize("args", [["review", "accept", "99999999999999999999"], ["review", "reject", "99999999999999999999"],
                                  ["review", "show", "99999999999999999999"], ["review", "confirm", "99999999999999999999"], ["review", "lift", "99999999999999999999"],
                                  ["review", "list", "--limit", "99999999999999999999"]])
def test_ids_past_sqlite_s_integers(db, args) -> None:
    refused(args, db, "99999999999999999999", "range")


@pytest.mark.parametrize("value", ["NaN", "nan", "inf", "-inf", "-1", "soon"])
def test_busy_timeout_not_a_finite_number(db, value) -> None:
    refused(["--busy-timeout", value, "current"], db, "--busy-timeout")
    refused(["sql", "SELECT 1", "--timeout", value], db, "--timeout")


@pytest.mark.parametrize("name", ["x" * 300, os.fsdecode(b"\xff\xfe-export"), "d/" + "y" * 300])
def test_export_to_a_name_the_system_cannot_take(db, tmp_path, name) -> None:
    before = set(tmp_path.iterdir())
    refused(["export", str(tmp_path / name)], db, "directory")
    assert set(tmp_path.iterdir()) == before  # nothing made


def test_verify_on_a_damaged_file(tmp_path) -> None:
    path = tmp_path / "ledger.db"
    with Ledger.open(path) as ledger, ledger.transaction(principal="operator:t") as tx:
        for i in range(3000):
            tx.add("s", f"P{i}", "likes", f"value {i}")
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = path.stat().st_size
    chance = random.Random(1)
    with path.open("r+b") as stream:  # a few runs of garbage past the schema page: damage integrity_check trips on
        for _ in range(5):
            stream.seek(chance.randrange(4096, size - 200))
            stream.write(chance.randbytes(chance.randrange(1, 200)))
    refused(["verify"], path, "malformed")


def test_index_move_onto_a_file(db, tmp_path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    refused(["index", "move", str(a_file / "index")], db, "destination", "is a file")
    refused(["index", "move", str(tmp_path / ("z" * 300))], db, "destination", "too long")
    assert a_file.read_text() == "x"


def test_verify_does_not_promise_a_lexical_repair_that_rebuild_does_not_do(db) -> None:
    with sqlite3.connect(db) as raw:
        raw.execute("DELETE FROM recall_fts")
    first = run(["--db", str(db), "verify", "--json"])
    assert first.exit_code == 1 and "lexical_index" in first.output
    assert "index rebuild` rewrites" not in first.output and "no command rewrites the lexical index" in first.output, first.output
    assert invoke_cli(["--db", str(db), "index", "rebuild"]).exit_code == 0
    assert run(["--db", str(db), "verify"]).exit_code == 1  # what the message says: rebuild did not fix it


def test_migrate_runs_the_verify_that_verify_runs(db, tmp_path) -> None:
    target = tmp_path / "copy.db"
    moved = invoke_cli(["migrate", "--from", str(db), "--to", str(target)])
    assert moved.exit_code == 0 and "verify of the target: ok" in moved.output, moved.output
    after = run(["--db", str(target), "verify"])
    assert after.exit_code == 0, after.output  # main: FAILED (outbox_drained) after "verify of the target: ok"
    assert ledger_bytes(db)  # the source is still there
