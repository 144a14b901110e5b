"""What every command shares: the typed context (which ledger, which principal), error translation and
output helpers. Commands stay thin: open the store, call one library method, print the result."""

from __future__ import annotations

import getpass
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from factledger.ledger import BUSY_TIMEOUT, Ledger, LedgerError
from factledger.ledger.times import display

DEFAULT_DB = Path(".factledger") / "ledger.db"


@dataclass
class AppContext:
    """Settings resolved once per invocation (never at import time)."""

    db_path: Path
    principal: str
    busy_timeout: float = BUSY_TIMEOUT
    _ledger: Ledger | None = field(default=None, repr=False)

    def ledger(self) -> Ledger:
        if self._ledger is None:
            self._ledger = Ledger.open(self.db_path, timeout=self.busy_timeout)
        return self._ledger

    def close(self) -> None:
        if self._ledger is not None:
            self._ledger.close()
            self._ledger = None


def default_principal() -> str:
    try:
        name = getpass.getuser()
    except Exception:  # no login name in some containers
        name = "unknown"
    return f"operator:{name or 'unknown'}"


class CliError(click.ClickException):
    """A library error shown to the user: 'error: <field>: <message>', exit status 2."""

    exit_code = 2

    def format_message(self) -> str:
        return self.message

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


class FactledgerGroup(click.Group):
    """Turns library errors raised anywhere in a command into CLI errors with exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except LedgerError as exc:
            raise CliError(str(exc)) from None


def pass_app(func: Any) -> Any:
    return click.pass_obj(func)


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, sort_keys=False))


def emit_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, title: str | None = None) -> None:
    """A plain aligned table: readable in a terminal and stable in a pipe."""
    rows = [["" if c is None else str(c) for c in row] for row in rows]
    if title:
        click.echo(title)
    if not rows:
        click.echo("  (none)")
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()
    click.echo(line)
    click.echo("  ".join("-" * w for w in widths))
    for row in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


def interval(start: str | None, end: str | None) -> str:
    return f"[{display(start)}, {display(end)})"


def read_input(path: str) -> list[str]:
    """Lines of FILE, or of standard input for '-'."""
    if path == "-":
        return sys.stdin.read().splitlines()
    try:
        return Path(path).read_text("utf-8").splitlines()
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}") from None
