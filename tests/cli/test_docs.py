"""Every command of the `factledger` CLI is documented: docs/cli.md, the CLI reference, is what
scripts/write_cli_reference.py writes from the click commands now, and has a section for each command.

The group is walked recursively, so commands and subcommands other parts add later are covered too.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import click
import pytest

from factledger.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "cli.md"


def writer():
    """scripts/write_cli_reference.py, loaded as a module (scripts/ is no package)."""
    spec = importlib.util.spec_from_file_location("write_cli_reference", ROOT / "scripts" / "write_cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def test_the_cli_reference_is_up_to_date():
    assert REFERENCE.read_text("utf-8") == writer().render(), (
        "docs/cli.md is out of date: run `python scripts/write_cli_reference.py` and commit docs/cli.md"
    )


@pytest.mark.parametrize("path", [" ".join(p) for p in command_paths(cli)])
def test_command_has_a_section_in_the_reference(path):
    assert f"\n## factledger {path}\n" in REFERENCE.read_text("utf-8"), f"docs/cli.md has no section for `factledger {path}`"


def test_the_reference_shows_an_options_help_and_default():
    text = writer().render()
    section = text.split("\n## factledger sql\n", 1)[1].split("\n## ", 1)[0]
    assert "`factledger sql [OPTIONS] [QUERY]`" in section
    assert "| `--memory-limit TEXT` | DuckDB's working memory for the query, e.g. 512MB, 4GB.  [default: 1GB] |" in section
