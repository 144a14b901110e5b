"""The `factledger` command imports a command's module only when that command runs: the table in
cli/main.py names every command of every module, and a command does not pay for the others' imports."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from factledger.cli.main import COMMANDS, cli

MODULES = sorted({where.partition(":")[0] for where in COMMANDS.values()})


@pytest.mark.parametrize("module", [m for m in MODULES if m != "demo"])
def test_the_table_names_every_command_of_each_module(module):
    listed = {command.name for command in importlib.import_module(f"factledger.cli.{module}").COMMANDS}
    named = {name for name, where in COMMANDS.items() if where.startswith(f"{module}:")}
    assert listed == named


def test_every_command_loads_under_its_own_name():
    commands = cli.every_command()
    assert sorted(commands) == sorted(COMMANDS)
    assert all(command.name == name for name, command in commands.items())


def _modules_after(*args: str) -> set[str]:
    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from factledger.cli.main import cli\n"
        f"result = CliRunner().invoke(cli, {list(args)!r})\n"
        "assert result.exit_code == 0, result.output\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    return set(done.stdout.split())


def test_sql_does_not_import_recall_or_the_digest(tmp_path):
    db = tmp_path / "l.db"
    from factledger.ledger import Ledger

    Ledger.open(db).close()
    loaded = _modules_after("--db", str(db), "sql", "SELECT count(*) AS n FROM claims")
    assert "duckdb" in loaded
    assert not {"numpy", "factledger.recall", "factledger.digest", "factledger.database"} & loaded


def test_help_still_lists_every_command():
    from click.testing import CliRunner

    out = CliRunner().invoke(cli, ["--help"]).output
    for name in COMMANDS:
        assert f"\n  {name} " in out, name


def test_status_reads_a_ledger_without_numpy_lancedb_or_the_rules(tmp_path):
    # `factledger status` (what `hermes memory status` prints) on a home whose ledger holds a fact, a
    # turn and a proposal: the journal, the review queue and the index's record, nothing heavier.
    from factledger.digest import Digester, Journal, RulesExtractor, Turn
    from factledger.ledger import Ledger

    home = tmp_path / "home"
    with Ledger.open(home / "factledger" / "ledger.db") as ledger:
        Journal(ledger).append(Turn(scope="s", session="x", role="user", text="I live in Lisbon"))
        Digester(ledger, RulesExtractor(), policy="strict").run()
    loaded = _modules_after("status", "--hermes-home", str(home))
    assert "factledger.hermes_plugin.status" in loaded and "factledger.digest.journal" in loaded
    assert not {"numpy", "lancedb", "factledger.recall.engine", "factledger.digest.rules", "factledger.digest.digester"} & loaded
