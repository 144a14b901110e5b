"""The `factledger` command: composes the parts. Each command module registers explicitly here."""

from __future__ import annotations

from pathlib import Path

import click

from factledger.ledger import BUSY_TIMEOUT

from . import demo, digest_cmds, erase_cmds, hermes_cmds, ledger_cmds, migrate_cmds, recall_cmds, sql_cmds, trust_cmds, ui_cmds
from .app import DEFAULT_DB, AppContext, FactledgerGroup, LedgerLocation, complete_short_help, default_principal


@click.group(cls=FactledgerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    "db_path",
    envvar="FACTLEDGER_DB",
    type=LedgerLocation(dir_okay=False, path_type=Path),
    default=DEFAULT_DB,
    show_default=True,
    help="The ledger: a SQLite file, or a postgresql://user:password@host/dbname URL (the PostgreSQL engine)."
    " Also FACTLEDGER_DB.",
)
@click.option(
    "--principal",
    envvar="FACTLEDGER_PRINCIPAL",
    default=None,
    help="Who is acting, e.g. operator:alice. Default: operator:<login name>.",
)
@click.option(
    "--strict-predicates/--no-strict-predicates",
    envvar="FACTLEDGER_STRICT_PREDICATES",
    default=False,
    help="Refuse writes that name a predicate never defined (default: register it as 'many' and warn)."
    " Also FACTLEDGER_STRICT_PREDICATES=1.",
)
@click.option(
    "--busy-timeout",
    envvar="FACTLEDGER_BUSY_TIMEOUT",
    type=click.FloatRange(min=0.0),
    default=BUSY_TIMEOUT,
    show_default=True,
    help="Seconds a write waits for other writers before giving up (it says so while it waits). Also FACTLEDGER_BUSY_TIMEOUT.",
)
@click.version_option(package_name="factledger")
@click.pass_context
def cli(ctx: click.Context, db_path: Path | str, principal: str | None, strict_predicates: bool, busy_timeout: float) -> None:
    """factledger: a bitemporal, ledger-first knowledge store (long-term memory for Hermes Agent)."""
    app = AppContext(db_path=db_path, principal=principal or default_principal(), strict_predicates=strict_predicates,
                     busy_timeout=busy_timeout)
    ctx.obj = app
    ctx.call_on_close(app.close)


for module in (ledger_cmds, erase_cmds, digest_cmds, recall_cmds, sql_cmds, migrate_cmds, hermes_cmds, trust_cmds, ui_cmds):
    for command in module.COMMANDS:
        cli.add_command(command)
cli.add_command(demo.demo_cmd)
complete_short_help(cli)


def main() -> None:
    cli(prog_name="factledger")
