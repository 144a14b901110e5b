"""The `factledger` command: composes the parts. Every command is named here, with where it lives; its
module is imported when the command runs (or when --help lists them all)."""

from __future__ import annotations

from pathlib import Path

import click

from factledger.ledger import BUSY_TIMEOUT

from .app import DEFAULT_DB, SECONDS, AppContext, FactledgerGroup, LedgerLocation, default_principal

COMMANDS = {  # name -> "module:attribute" under factledger.cli
    "apply": "ledger_cmds:apply_cmd",
    "import": "ledger_cmds:import_cmd",
    "current": "ledger_cmds:current_cmd",
    "as-of": "ledger_cmds:as_of_cmd",
    "history": "ledger_cmds:history_cmd",
    "predicates": "ledger_cmds:predicates_cmd",
    "erase": "erase_cmds:erase_cmd",
    "scrub": "erase_cmds:scrub_cmd",
    "journal": "digest_cmds:journal_group",
    "digest": "digest_cmds:digest_cmd",
    "review": "digest_cmds:review_group",
    "search": "recall_cmds:search_cmd",
    "recall": "recall_cmds:recall_cmd",
    "memories": "recall_cmds:memories_cmd",
    "episodes": "recall_cmds:episodes_cmd",
    "index": "recall_cmds:index_group",
    "sql": "sql_cmds:sql_cmd",
    "export": "sql_cmds:export_cmd",
    "migrate": "migrate_cmds:migrate_cmd",
    "hermes": "hermes_cmds:hermes_group",
    "status": "hermes_cmds:status_cmd",
    "verify": "trust_cmds:verify_cmd",
    "backup": "trust_cmds:backup_cmd",
    "head": "trust_cmds:head_cmd",
    "ui": "ui_cmds:ui_cmd",
    "mcp": "mcp_cmds:mcp_cmd",
    "demo": "demo:demo_cmd",
}


@click.group(cls=FactledgerGroup, lazy_commands=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
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
    type=SECONDS,
    default=BUSY_TIMEOUT,
    show_default=True,
    help="Seconds a write waits for other writers before giving up (it says so while it waits). Also FACTLEDGER_BUSY_TIMEOUT.",
)
@click.option(
    "--chain-key",
    "chain_key_file",
    envvar="FACTLEDGER_CHAIN_KEY_FILE",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The file holding the key of the ledger's hash chain (mode 0600). Default: <ledger>.chain-key beside a"
    " SQLite ledger, made on first write; none for a postgresql:// URL. Also FACTLEDGER_CHAIN_KEY_FILE.",
)
@click.option(
    "--chain-key-env",
    metavar="NAME",
    default=None,
    help="The NAME of an environment variable holding the chain key (64 hex digits), instead of a key file.",
)
@click.version_option(package_name="factledger")
@click.pass_context
def cli(ctx: click.Context, db_path: Path | str, principal: str | None, strict_predicates: bool, busy_timeout: float,
        chain_key_file: Path | None, chain_key_env: str | None) -> None:
    """factledger: a bitemporal, ledger-first knowledge store (long-term memory for Hermes Agent)."""
    app = AppContext(db_path=db_path, principal=principal or default_principal(), strict_predicates=strict_predicates,
                     busy_timeout=busy_timeout, chain_key_file=chain_key_file, chain_key_env=chain_key_env)
    ctx.obj = app
    ctx.call_on_close(app.close)



def main() -> None:
    cli(prog_name="factledger")
