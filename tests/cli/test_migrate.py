"""`factledger migrate`: an exact copy into an empty ledger, proved by as-of answers and the chain head;
refusals (a non-empty target, tables the target engine lacks) write nothing."""

from __future__ import annotations

import json

from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.ledger import Ledger
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


def test_tables_postgres_lacks_are_listed_and_nothing_is_copied(tmp_path, postgres_url):
    source = tmp_path / "a.db"
    build_history(source)
    result = CliRunner().invoke(cli, ["migrate", "--from", str(source), "--to", postgres_url])
    assert result.exit_code == 2
    assert "has no table yet for" in result.output and "tx_chain" in result.output
    from factledger.ledger.pg_storage import PostgresStorage

    storage = PostgresStorage(postgres_url)
    try:
        assert storage.one("SELECT count(*) FROM transactions")[0] == 0
    finally:
        storage.close()


def test_the_same_ledger_is_refused(tmp_path):
    source = tmp_path / "a.db"
    build_history(source)
    result = CliRunner().invoke(cli, ["migrate", "--from", str(source), "--to", str(source)])
    assert result.exit_code == 2 and "same ledger" in result.output
