"""--db / FACTLEDGER_DB: a postgresql:// URL selects the PostgreSQL engine; any other URL is refused by
every command, with exit status 2, before anything is created (as a path it would become a SQLite file
under a folder named `mysql:`). A URL's password is never echoed."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from factledger.cli.app import FactledgerGroup
from factledger.cli.main import cli

# A server that cannot be reached (no socket there): the URL selects PostgreSQL, and opening fails.
UNREACHABLE = "postgresql://bob:hunter2@/ledger?host=/nonexistent-factledger-socket"


def _command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = []
    commands = group.every_command() if isinstance(group, FactledgerGroup) else group.commands
    for name, command in sorted(commands.items()):
        paths.append((*prefix, name))
        if isinstance(command, click.Group):
            paths += _command_paths(command, (*prefix, name))
    return paths


COMMANDS = _command_paths(cli)
# `demo` and `hermes demo` write their own folder (factledger-demo) whatever --db says.
OWN_FOLDER = {("demo",), ("hermes", "demo")}


def test_every_command_is_listed():
    assert len(COMMANDS) > 20 and ("apply",) in COMMANDS and ("sql",) in COMMANDS


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_an_unreachable_postgres_url_creates_nothing_and_hides_the_password(tmp_path, monkeypatch, path):
    runner = CliRunner()
    monkeypatch.chdir(tmp_path)
    for invocation in (dict(args=["--db", UNREACHABLE, *path]), dict(args=list(path), env={"FACTLEDGER_DB": UNREACHABLE})):
        result = runner.invoke(cli, input="", **invocation)
        assert "hunter2" not in result.output  # the URL's password is not echoed
        assert "Traceback" not in result.output
        if path not in OWN_FOLDER:
            assert list(tmp_path.iterdir()) == [], "a --db URL created a file"


@pytest.mark.parametrize("command", [["current"], ["sql", "SELECT 1"], ["apply", "-"], ["verify"]])
def test_an_unreachable_server_is_a_clear_error(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--db", UNREACHABLE, *command], input="")
    assert result.exit_code == 2, result.output
    assert "postgresql://bob:***@" in result.output and "hunter2" not in result.output


@pytest.mark.parametrize("url", ["mysql://h/db", "sqlite:///tmp/x.db", "http://bob:hunter2@h/db"])
def test_other_urls_refused(tmp_path, monkeypatch, url):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--db", url, "current"])
    assert result.exit_code == 2
    assert "is a URL factledger does not read" in result.output
    assert "hunter2" not in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_file_path_with_a_colon_is_still_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--db", "notes:2025.db", "current"])
    assert result.exit_code == 2 and "no ledger at notes:2025.db" in result.output
