"""`factledger migrate`: an exact copy into an empty ledger, proved by as-of answers and the chain head;
refusals (a non-empty target, tables the target engine lacks) write nothing; a proof that differs fails.
Between the engines and for erased ledgers: test_migrate_round_trip.py."""

from __future__ import annotations

import json
import sqlite3

from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.ledger import Ledger
from factledger.ledger.engines import open_storage
from factledger.ledger.migrate import TABLE_ACCESS, MigrationReport, migrate, prove_tables
from factledger.ledger.storage import Storage
from tests.ledger.sql_fixtures import build_history

TABLES = ("predicates", "transactions", "claims", "claim_provenance", "version_hashes", "tx_chain", "journal")


def _rows(path, table):
    storage = Storage(path, read_only=True)
    try:
        return sorted(tuple(r) for r in storage.query(f"SELECT * FROM {table}"))
    finally:
        storage.close()


def test_a_copy_is_exact_and_proved(tmp_path):
    source, target = tmp_path / "a.db", tmp_path / "b.db"
    build_history(source)
    result = CliRunner().invoke(cli, ["migrate", "--from", str(source), "--to", str(target), "--pairs", "300", "--seed", "7", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["ok"] and report["agreed"] == report["pairs"] == 300
    assert report["source_chain_head"] == report["target_chain_head"] is not None
    for table in TABLES:  # ids, times and sources byte for byte
        assert _rows(target, table) == _rows(source, table), table
    with Ledger.open(target) as ledger:  # the copy is a working ledger: the next write continues the chain
        with ledger.transaction(principal="operator:t") as tx:
            tx.add("home", "Ann", "likes", "tea")


def test_a_non_empty_target_is_refused_and_named(tmp_path):
    source, target = tmp_path / "a.db", tmp_path / "b.db"
    build_history(source)
    with Ledger.open(target) as ledger:
        with ledger.transaction(principal="operator:t") as tx:
            tx.add("x", "y", "likes", "z")
    before = _rows(target, "claims")
    result = CliRunner().invoke(cli, ["migrate", "--from", str(source), "--to", str(target)])
    assert result.exit_code == 2
    assert "is not empty" in result.output and "claims (1 rows)" in result.output
    assert _rows(target, "claims") == before


def test_a_table_the_target_lacks_is_listed_and_nothing_is_copied(tmp_path):
    source, target = tmp_path / "a.db", tmp_path / "b.db"
    build_history(source)
    raw = sqlite3.connect(source)
    raw.executescript("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('x');")
    raw.close()
    result = CliRunner().invoke(cli, ["migrate", "--from", str(source), "--to", str(target)])
    assert result.exit_code == 2
    assert "has no table yet for: notes (1 rows)" in result.output
    assert _rows(target, "transactions") == []


def test_a_proof_that_differs_fails(tmp_path):
    """The per-table digests see a row the copy does not have."""
    source, target = tmp_path / "a.db", tmp_path / "b.db"
    build_history(source)
    report = migrate(source, target, pairs=5, seed=1)
    assert report.ok
    with Ledger.open(target) as ledger:
        with ledger.transaction(principal="operator:t") as tx:
            tx.add("home", "Ann", "likes", "tea")
    storage_a, storage_b = open_storage(source, read_only=True), open_storage(target, read_only=True)
    try:
        again = MigrationReport("a", "b", copied=dict(report.copied))
        prove_tables(TABLE_ACCESS["sqlite"](storage_a), TABLE_ACCESS["sqlite"](storage_b), again)
    finally:
        storage_a.close()
        storage_b.close()
    assert not again.ok
    assert {t for t, proof in again.tables.items() if not proof.ok} == {"transactions", "claims", "version_hashes", "tx_chain"}


def test_the_same_ledger_is_refused(tmp_path):
    source = tmp_path / "a.db"
    build_history(source)
    result = CliRunner().invoke(cli, ["migrate", "--from", str(source), "--to", str(source)])
    assert result.exit_code == 2 and "same ledger" in result.output
