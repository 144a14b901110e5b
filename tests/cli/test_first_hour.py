"""A newcomer's first hour at the command line: nothing surprising happens to a mistyped ledger path."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli

READS = [
    ["review", "list"],
    ["current"],
    ["as-of", "--valid-at", "2024-01-01"],
    ["history", "--subject", "user", "--predicate", "lives_in"],
    ["predicates"],
    ["search", "Berlin", "--scope", "s"],
    ["recall", "Berlin", "--scope", "s"],
    ["memories", "--scope", "s"],
    ["journal", "list"],
    ["digest"],
]


@pytest.mark.parametrize("args", READS, ids=lambda a: " ".join(a[:2]))
def test_reads_and_reviews_refuse_a_missing_ledger_and_create_nothing(tmp_path, args):
    typo = tmp_path / "typo" / "ledger.db"
    for invocation in (dict(args=["--db", str(typo), *args]), dict(args=args, env={"FACTLEDGER_DB": str(typo)})):
        result = CliRunner().invoke(cli, **invocation)
        assert result.exit_code == 2, result.output
        assert f"error: no ledger at {typo}" in result.stderr
        assert not typo.parent.exists()


def test_commands_that_create_a_ledger_say_so_once(tmp_path):
    db = tmp_path / "new" / "ledger.db"
    line = '{"op":"add","scope":"s","subject":"user","predicate":"likes","value":"tea"}\n'
    first = CliRunner().invoke(cli, ["--db", str(db), "apply", "-"], input=line)
    assert first.exit_code == 0 and f"created a new ledger at {db}" in first.stderr
    assert json.loads(first.stdout)["opened"][0]["value"] == "tea"  # stdout stays clean JSON
    again = CliRunner().invoke(cli, ["--db", str(db), "apply", "-"], input=line)
    assert again.exit_code == 0 and "created" not in again.stderr
    turn = '{"scope":"s","text":"I moved to Lisbon last month"}\n'
    journal = CliRunner().invoke(cli, ["--db", str(tmp_path / "j.db"), "journal", "add", "-"], input=turn)
    assert journal.exit_code == 0 and "created a new ledger at" in journal.stderr
