"""`factledger erase`: hard removal for privacy, composed across the parts that hold copies.

The ledger deletes every version and leaves a tombstone; the digest follows the versions' provenance
into the journal (and the proposals quoting it) in the same SQLite transaction; the recall schema's
triggers drop the FTS rows and queue the vector deletions, which are drained before the command returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import click

from factledger.digest import erase_journal
from factledger.ledger import EraseResult, Ledger
from factledger.recall import Recall

from .app import AppContext, CliError, emit_json, pass_app


@dataclass(frozen=True)
class ErasureReport:
    ledger: EraseResult
    journal_entries: int
    vectors_synced: int

    def to_dict(self) -> dict:
        data = self.ledger.to_dict()
        data["journal_entries"] = self.journal_entries
        data["vector_changes"] = self.vectors_synced
        return data


def erase_everywhere(
    ledger: Ledger,
    *,
    scope: str,
    subject: str,
    predicate: str,
    value: str | None,
    principal: str,
    reason: str,
    index_dir: Path | None = None,
) -> ErasureReport:
    """Erase in the ledger and the journal as one transaction, then purge the vector companion."""
    with ledger.storage.atomic():
        result = ledger.erase(
            scope=scope, subject=subject, predicate=predicate, value=value, principal=principal, reason=reason
        )
        entries = erase_journal(ledger, result.sources)
    recall = Recall(ledger, index_dir)
    try:
        synced = recall.sync()
    finally:
        recall.close()
    return ErasureReport(result, entries, synced)


@click.command("erase")
@click.option("--scope", required=True)
@click.option("--subject", required=True)
@click.option("--predicate", required=True)
@click.option("--value", default=None, help="Only this value (default: every value of the slot).")
@click.option("--reason", default="", help="Why (recorded; keep personal data out of it).")
@click.option(
    "--index-dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="FACTLEDGER_INDEX_DIR",
    default=None,
    help="The vector index folder. Default: <ledger file>.lance beside the ledger.",
)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def erase_cmd(
    app: AppContext,
    scope: str,
    subject: str,
    predicate: str,
    value: str | None,
    reason: str,
    index_dir: Path | None,
    yes: bool,
    as_json: bool,
) -> None:
    """Hard-remove a value for privacy (operator only): claims, journal turns, FTS rows and vectors,
    leaving a tombstone so it cannot come back."""
    if not yes and not click.confirm(f"Erase {subject} {predicate} {value or '(every value)'} in {scope}?"):
        raise CliError("not erased")
    report = erase_everywhere(
        app.ledger(),
        scope=scope,
        subject=subject,
        predicate=predicate,
        value=value,
        principal=app.principal,
        reason=reason,
        index_dir=index_dir,
    )
    if as_json:
        emit_json(report.to_dict())
    else:
        click.echo(
            f"erased {len(report.ledger.erased)} version(s) and {report.journal_entries} journal entr"
            f"{'y' if report.journal_entries == 1 else 'ies'}; {len(report.ledger.tombstones)} tombstone(s) written"
        )


COMMANDS = [erase_cmd]
