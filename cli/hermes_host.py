"""`hermes factledger …`: the operator's everyday commands from inside Hermes, with the same code as
`factledger`, on the ledger of the Hermes home (`$HERMES_HOME/factledger/ledger.db`).

Hermes finds a memory plugin's commands in `cli.py` beside its `__init__.py` (for the active provider
only): `register_cli(subparser)` builds the argparse subcommand and `factledger_command(args)` runs it.
`factledger hermes install` writes that `cli.py` as a two-line shim importing this module. The words
after `hermes factledger` are handed to factledger's own click command, so there is one implementation
of each command, and `--db` points at the home's ledger.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import click

from factledger.hermes_plugin.host_commands import COMMANDS, add_arguments
from factledger.hermes_plugin.paths import HermesPaths


def register_cli(subparser: argparse.ArgumentParser) -> None:
    """The `hermes factledger` parser (hermes_plugin/host_commands.py), run by this module's command."""
    add_arguments(subparser, factledger_command)


def factledger_command(args: argparse.Namespace) -> None:
    raise SystemExit(run(args.command, list(args.rest or ())))


def run(command: str, rest: Sequence[str], *, paths: HermesPaths | None = None) -> int:
    """Run one factledger command on the Hermes home's ledger; returns its exit status."""
    paths = paths or HermesPaths.resolve()
    if command not in COMMANDS:
        click.echo(f"error: command: {command!r} is not one of {', '.join(COMMANDS)}", err=True)
        return 2
    from .main import cli

    # `status` is factledger's own `status` command for this home (the same lines as `hermes memory status`).
    args = ["status", "--hermes-home", str(paths.home), *rest] if command == "status" else [
        "--db", str(paths.ledger_path), command, *rest]
    try:
        cli.main(args, prog_name="hermes factledger", standalone_mode=False)
    except click.exceptions.Exit as done:
        return int(done.exit_code or 0)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 1
    except SystemExit as done:  # a command that ends with a status of its own (verify exits 1 on a failure)
        return int(done.code or 0)
    return 0
