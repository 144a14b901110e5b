"""`hermes factledger …` runs factledger's own commands on the Hermes home's ledger, through Hermes's CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from factledger.cli.hermes_host import run
from factledger.cli.main import cli
from factledger.hermes_plugin.paths import HermesPaths
from factledger.ledger import Ledger

HERMES = Path(sys.executable).parent / "hermes"


def _home_with_a_pending_proposal(home: Path) -> HermesPaths:
    paths = HermesPaths(home)
    runner = CliRunner()
    assert runner.invoke(cli, ["hermes", "install", "--hermes-home", str(home), "--set-provider"]).exit_code == 0
    turn = {"scope": "s", "session": "x", "role": "user", "text": "I live in Lisbon", "said_at": "2026-03-14T10:00:00Z"}
    db = ["--db", str(paths.ledger_path)]
    assert runner.invoke(cli, [*db, "journal", "add", "-"], input=json.dumps(turn) + "\n").exit_code == 0
    assert runner.invoke(cli, [*db, "digest", "--policy", "strict", "--json"]).exit_code == 0
    return paths


def test_hermes_runs_factledger_commands_on_its_home(hermes_runtime, tmp_path):
    paths = _home_with_a_pending_proposal(tmp_path)
    assert paths.cli_shim.is_file()
    env = {**os.environ, "HERMES_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    listed = subprocess.run([str(HERMES), "factledger", "review", "list", "--json"], env=env, capture_output=True,
                            text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    (proposal,) = json.loads(listed.stdout)
    accepted = subprocess.run([str(HERMES), "factledger", "review", "accept", str(proposal["id"]), "--json"], env=env,
                              capture_output=True, text=True, timeout=120)
    assert accepted.returncode == 0, accepted.stderr
    # The proposal came with its definition: the operator is told what it means, not asked to define it.
    assert "note: 'lives_in' is new to this ledger; this accept defined it as the proposal gives it: one value at a time" in accepted.stderr
    assert "never defined" not in accepted.stderr and "warning" not in accepted.stderr
    with Ledger.open(paths.ledger_path) as ledger:
        assert [c.value for c in ledger.current(["s"])] == ["Lisbon"]


def test_status_and_errors_keep_their_exit_status(tmp_path, capsys):
    paths = _home_with_a_pending_proposal(tmp_path)
    assert run("status", ["--json"], paths=paths) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["pending_reviews"] == 1 and status["episodes"] == 1
    assert run("review", ["accept", "999"], paths=paths) == 2  # a clear error, not a traceback
    assert "proposal" in capsys.readouterr().err
    assert run("demo", [], paths=paths) == 2  # not an operator command of the host


def test_factledger_status_is_a_command_of_its_own(tmp_path):
    paths = _home_with_a_pending_proposal(tmp_path)
    result = CliRunner().invoke(cli, ["status", "--hermes-home", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    lines = json.loads(result.output)
    assert lines["pending_reviews"] == 1 and lines["ledger"] == str(paths.ledger_path)
    assert "rules extractor" in lines["digest_model"] and "the default" in lines["digest_model"]
    paths.settings_path.write_text("exclude:\n  platform: [discord]\n")
    result = CliRunner().invoke(cli, ["status", "--hermes-home", str(tmp_path)])
    assert result.exit_code == 1 and "settings_error: exclude.platform" in result.output


def test_erase_names_the_person_in_words_and_says_where_it_erased(tmp_path, capsys):
    from factledger.hermes_plugin.scope import HermesIdentity, derive_scopes

    paths = HermesPaths(tmp_path)
    assert CliRunner().invoke(cli, ["hermes", "install", "--hermes-home", str(tmp_path)]).exit_code == 0
    local = derive_scopes(HermesIdentity("s1", platform="cli", agent_identity="default", agent_workspace="hermes")).durable
    op = {"op": "add", "scope": local, "subject": "user", "predicate": "lives_in", "value": "Munich"}
    assert CliRunner().invoke(cli, ["--db", str(paths.ledger_path), "apply", "-"], input=json.dumps(op) + "\n").exit_code == 0

    assert run("erase", ["--user", "local", "--chat", "telegram:-1", "--subject", "user", "--predicate", "lives_in",
                         "--yes"], paths=paths) == 2
    assert "error: chat: give --user" in capsys.readouterr().err
    assert run("erase", ["--user", "local", "--profile", "default", "--subject", "user", "--predicate", "lives_in",
                         "--value", "Munich", "--yes"], paths=paths) in (0, 1)  # 1: a Hermes copy named as not reached
    out = capsys.readouterr().out
    assert "erased 1 version(s)" in out and "in long-term memory of the local user (profile default)" in out
    with Ledger.open(paths.ledger_path, read_only=True) as ledger:
        assert ledger.current([local]) == []
