"""`factledger migrate`: copy a ledger to the other engine (SQLite file ↔ PostgreSQL) and prove the copy
(ledger/migrate.py does both; this prints the report)."""

from __future__ import annotations

import click

from factledger.ledger.migrate import DEFAULT_PAIRS, migrate

from .app import LedgerLocation, emit_json, emit_table


@click.command("migrate")
@click.option("--from", "source", required=True, type=LedgerLocation(dir_okay=False),
              help="The ledger to copy: a SQLite file or a postgresql:// URL.")
@click.option("--to", "target", required=True, type=LedgerLocation(dir_okay=False),
              help="An empty ledger to copy into: a SQLite file (created) or a postgresql:// URL (the database must exist).")
@click.option("--pairs", type=click.IntRange(min=1), default=DEFAULT_PAIRS, show_default=True,
              help="Random (valid_at, known_at) pairs whose as-of answers must agree on both sides.")
@click.option("--seed", type=int, default=None, help="Seed for the random pairs (to repeat a check).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def migrate_cmd(source: str, target: str, pairs: int, seed: int | None, as_json: bool) -> None:
    """Copy every version, transaction, chain row, journal entry, proposal, rejection, confirmation,
    tombstone and provenance row exactly (ids, times, sources) into an empty ledger, in one transaction
    on the target; then compare as-of answers at random (valid_at, known_at) pairs and the chain heads.
    Exit status 1 if any answer or the chain head differs."""
    report = migrate(str(source), str(target), pairs=pairs, seed=seed)
    if as_json:
        emit_json(report.to_dict())
    else:
        emit_table(["table", "rows"], sorted(report.copied.items()), title=f"copied {report.source} -> {report.target}")
        if report.not_copied:
            click.echo(f"not copied (empty, or the target keeps its own): {', '.join(report.not_copied)}")
        click.echo(f"as-of answers: {report.agreed} of {report.pairs} random (valid_at, known_at) pairs agreed")
        click.echo(f"chain head: {report.source_chain_head or '(none)'} -> {report.target_chain_head or '(none)'}")
    if not report.ok:
        click.get_current_context().exit(1)


COMMANDS = [migrate_cmd]
