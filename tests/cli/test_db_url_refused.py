"""A database URL in --db or FACTLEDGER_DB is refused by every command, with exit status 2, before
anything is created: until the PostgreSQL engine exists, `postgresql://…` must not become a SQLite
file under a folder named `postgresql:`."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from factledger.cli.main import cli

URL = "postgresql://bob:hunter2@db.example/ledger"


def _command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = []
    for name, command in sorted(group.commands.items()):
        paths.append((*prefix, name))
        if isinstance(command, click.Group):
            paths += _command_paths(command, (*prefix, name))
    return paths


COMMANDS = _command_paths(cli)


def test_every_command_is_listed():
    assert len(COMMANDS) > 20 and ("apply",) in COMMANDS and ("sql",) in COMMANDS


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_postgres_url_refused_by_every_command(tmp_path, monkeypatch, path):
    runner = CliRunner()
    monkeypatch.chdir(tmp_path)
    for invocation in (dict(args=["--db", URL, *path]), dict(args=list(path), env={"FACTLEDGER_DB": URL})):
        result = runner.invoke(cli, input="", **invocation)
        assert result.exit_code == 2, (invocation, result.output)
        assert "selects the PostgreSQL engine, which is not available yet" in result.output
        assert "hunter2" not in result.output  # the URL's password is not echoed
        assert list(tmp_path.iterdir()) == [], "a refused --db created something"


@pytest.mark.parametrize("url", ["postgres://h/db", "POSTGRESQL://h/db", "mysql://h/db", "sqlite:///tmp/x.db"])
def test_other_urls_refused(tmp_path, monkeypatch, url):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--db", url, "current"])
    assert result.exit_code == 2
    assert "is a URL" in result.output or "PostgreSQL engine" in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_file_path_with_a_colon_is_still_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--db", "notes:2025.db", "current"])
    assert result.exit_code == 2 and "no ledger at notes:2025.db" in result.output
