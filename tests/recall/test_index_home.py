"""One vector folder per ledger, recorded in the ledger: every process that opens the file uses it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.ledger import Ledger, ValidationError
from factledger.recall import Recall


def _ledger_with_a_fact(path):
    ledger = Ledger.open(path)
    with ledger.transaction(principal="operator:test") as tx:
        tx.add("s", "user", "lives_in", "Lisbon", valid_from="2024-01-01")
    return ledger


def test_the_first_index_is_recorded_and_every_later_opener_uses_it(tmp_path, embedder):
    ledger = _ledger_with_a_fact(tmp_path / "ledger.db")
    chosen = tmp_path / "elsewhere" / "vectors"
    first = Recall(ledger, chosen, embedder=embedder)
    first.sync()
    assert ledger.storage.one("SELECT folder FROM recall_index_state")[0] == "elsewhere/vectors"
    second = Recall(ledger, embedder=embedder)  # no folder named: the recorded one, not <ledger>.lance
    assert second.index_dir.resolve() == chosen.resolve()
    assert not (tmp_path / "ledger.db.lance").exists()
    with pytest.raises(ValidationError) as caught:
        Recall(ledger, tmp_path / "another", embedder=embedder)
    assert caught.value.field == "index_dir" and "index move" in str(caught.value)
    ledger.close()


def test_the_default_folder_is_not_recorded_so_a_copy_has_its_own(tmp_path, embedder):
    ledger = _ledger_with_a_fact(tmp_path / "ledger.db")
    Recall(ledger, embedder=embedder).sync()
    assert ledger.storage.one("SELECT folder FROM recall_index_state")[0] is None
    with pytest.raises(ValidationError):  # the default folder exists: another would be a second index
        Recall(ledger, tmp_path / "second", embedder=embedder)
    ledger.storage.backup(tmp_path / "copy.db")
    ledger.close()
    with Ledger.open(tmp_path / "copy.db") as copy:
        assert Recall(copy, embedder=embedder).index_dir == tmp_path / "copy.db.lance"


def test_a_relative_record_follows_the_ledger_when_its_folder_moves(tmp_path, embedder):
    ledger = _ledger_with_a_fact(tmp_path / "a" / "ledger.db")
    Recall(ledger, embedder=embedder).sync()
    ledger.close()
    (tmp_path / "a").rename(tmp_path / "b")
    moved = Ledger.open(tmp_path / "b" / "ledger.db")
    recall = Recall(moved, embedder=embedder)
    assert recall.index_dir.resolve() == (tmp_path / "b" / "ledger.db.lance").resolve()
    assert recall.status().state == "ok"
    moved.close()


def test_move_rebuilds_records_and_removes_the_old_folder(tmp_path):
    db = tmp_path / "ledger.db"
    _ledger_with_a_fact(db).close()
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", str(db), "index", "rebuild", "--json"]).exit_code == 0
    assert (tmp_path / "ledger.db.lance").is_dir()
    result = runner.invoke(cli, ["--db", str(db), "index", "move", str(tmp_path / "vec"), "--json"])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "ledger.db.lance").exists()
    status = runner.invoke(cli, ["--db", str(db), "index", "status", "--json"])
    assert '"folder": "' + str((tmp_path / "vec").resolve()) in status.output or str(tmp_path / "vec") in status.output
    refused = runner.invoke(cli, ["--db", str(db), "index", "status", "--index-dir", str(tmp_path / "other")])
    assert refused.exit_code == 2 and "index_dir" in refused.output
