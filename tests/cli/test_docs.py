"""Every command of the `factledger` CLI is documented in README.md.

The group is walked recursively, so commands and subcommands other parts add later are covered too.
"""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from factledger.cli.main import cli

README = Path(__file__).resolve().parents[2] / "README.md"


def command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        paths.append(prefix + (name,))
        if isinstance(command, click.Group):
            paths.extend(command_paths(command, prefix + (name,)))
    return paths


def test_the_walk_finds_the_ledger_commands():
    found = {" ".join(p) for p in command_paths(cli)}
    assert {"apply", "current", "as-of", "history", "predicates", "erase", "demo"} <= found


@pytest.mark.parametrize("path", [" ".join(p) for p in command_paths(cli)])
def test_command_is_in_the_readme(path):
    assert f"factledger {path}" in README.read_text("utf-8"), f"README.md does not mention `factledger {path}`"
