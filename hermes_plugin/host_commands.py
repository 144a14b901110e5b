"""The `hermes factledger …` parser, kept apart from factledger's CLI so that Hermes, which imports the
active memory provider's cli.py on every start to list its commands, imports only argparse for it; the
command itself (factledger.cli.hermes_host) is imported when one runs."""

from __future__ import annotations

import argparse
from collections.abc import Callable

# What an operator runs most against a Hermes user's memory; the rest stays `factledger --db …`.
COMMANDS = ("status", "review", "erase", "scrub", "history", "current", "as-of", "search", "recall", "episodes",
            "memories", "journal", "digest", "verify", "backup", "index", "sql", "export")


def add_arguments(subparser: argparse.ArgumentParser, handler: Callable[[argparse.Namespace], None]) -> None:
    """The `hermes factledger` parser: a command of COMMANDS and its own options, passed through."""
    subparser.add_argument("command", choices=COMMANDS, help="a factledger command (`status` is memory status)")
    subparser.add_argument("rest", nargs=argparse.REMAINDER,
                           help="its arguments and options, as `factledger COMMAND --help` lists them")
    subparser.set_defaults(func=handler)
