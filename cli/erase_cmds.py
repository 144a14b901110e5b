"""`factledger erase` and `factledger scrub`: hard removal for privacy, composed across the parts.

In one SQLite transaction the ledger deletes every version of the value in the person's scopes (the
scope family: for a Hermes scope, its durable scope and every scratch scope of the same user, from
hermes_plugin.scope) and leaves keyed tombstones and the erased-text guard; the digest deletes the turns
the versions cite and redacts every other turn, proposal, rejection and confirmation that mentions the
value. The recall schema's triggers drop the FTS rows and queue the vector deletions. After commit the
vector index is rewritten without history, the FTS segments are merged and the WAL is truncated, so no
file of the store holds the value. Exports already written are listed: they are the operator's to delete.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import click

from factledger.digest import MentionsErased, erase_mentions
from factledger.hermes_plugin.scope import scope_family
from factledger.ledger import EraseResult, Ledger, ScrubReport
from factledger.ledger.exports import ExportRecord, exports_since
from factledger.recall import Recall

from .app import INDEX_DIR_HELP, AppContext, CliError, emit_json, pass_app

@dataclass(frozen=True)
class ScrubOutcome:
    vectors: dict[str, int]
    files: ScrubReport

    @property
    def complete(self) -> bool:
        return self.files.complete  # SQLite: the WAL truncated; PostgreSQL: every table rewritten, checkpointed

    def to_dict(self) -> dict:
        return {**self.vectors, **self.files.to_dict(), "complete": self.complete}


@dataclass(frozen=True)
class ErasureReport:
    ledger: EraseResult
    digest: MentionsErased
    scrub: ScrubOutcome
    exports: list[ExportRecord]

    def to_dict(self) -> dict:
        data = self.ledger.to_dict()
        data["journal_entries"] = self.digest.source_turns_deleted
        data["digest"] = {k: v for k, v in self.digest.to_dict().items() if k != "first_seen"}
        data["vector_changes"] = self.scrub.vectors["vector_changes"]
        data["scrub"] = self.scrub.to_dict()
        data["exports_holding_value"] = [e.to_dict() for e in self.exports]
        return data


def scrub_files(ledger: Ledger, index_dir: Path | None) -> ScrubOutcome:
    """Rewrite what still holds deleted bytes: the vector index (without its history), the FTS
    segments, the WAL."""
    recall = Recall(ledger, index_dir)
    try:
        vectors = recall.purge_erased()
    finally:
        recall.close()
    return ScrubOutcome(vectors, ledger.scrub())


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
    """Erase in the ledger and the digest's tables as one transaction, then scrub the files."""
    with ledger.storage.atomic():
        result = ledger.erase(
            scope=scope, subject=subject, predicate=predicate, value=value, principal=principal, reason=reason,
            family=scope_family(scope),
        )
        digest = erase_mentions(ledger, result)
    exports = exports_since(ledger, digest.first_seen)
    return ErasureReport(result, digest, scrub_files(ledger, index_dir), exports)


def _say_scrub(outcome: ScrubOutcome) -> None:
    if outcome.complete:
        return
    if outcome.files.engine == "sqlite":
        click.echo(
            f"warning: {outcome.files.busy_reason}; copies may remain in the -wal file until it ends."
            " Run `factledger scrub` then.",
            err=True,
        )
    else:
        click.echo(f"warning: {outcome.files.busy_reason}; dead copies may remain in the database files.", err=True)


def confirm_erase(*, scope: str, subject: str, predicate: str, value: str | None, yes: bool) -> None:
    """Ask before erasing (every command that erases asks the same), unless --yes."""
    if not yes and not click.confirm(f"Erase {subject} {predicate} {value or '(every value)'} in {scope}?"):
        raise CliError("not erased")


def report_erasure(report: ErasureReport, as_json: bool) -> None:
    """Print what an erase did; exit status 1 when a file could not be scrubbed yet."""
    if as_json:
        emit_json(report.to_dict())
    else:
        d = report.digest
        click.echo(
            f"erased {len(report.ledger.erased)} version(s) in {len(report.ledger.scopes)} scope(s) and"
            f" {d.source_turns_deleted} source journal entr{'y' if d.source_turns_deleted == 1 else 'ies'};"
            f" {d.turns_redacted + d.turns_deleted} other turn(s) and"
            f" {d.proposals_deleted + d.proposals_redacted} proposal(s) that mentioned it cleaned;"
            f" {len(report.ledger.tombstones)} tombstone(s) written"
        )
        for export in report.exports:
            click.echo(f"  export {export.directory} ({export.format}, {export.exported_at})")
    if report.exports:
        click.echo(
            f"{len(report.exports)} export(s) made since the value was stored still hold it;"
            " they are yours to delete" + (" (listed in the JSON report)." if as_json else " (above)."),
            err=True,
        )
    _say_scrub(report.scrub)
    if not report.scrub.complete:
        sys.exit(1)


@click.command("erase")
@click.option("--scope", required=True, help="The scope the value is erased in.")
@click.option("--subject", required=True, help="The slot's subject.")
@click.option("--predicate", required=True, help="The slot's predicate.")
@click.option("--value", default=None, help="Only this value (default: every value of the slot).")
@click.option("--reason", default="", help="Why (recorded; must not contain the value).")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), envvar="FACTLEDGER_INDEX_DIR", default=None, help=INDEX_DIR_HELP)
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
    """Hard-remove a value for privacy (operator only): claims in every scope of the person, journal
    turns and proposals that mention it, FTS segments, vectors and their history, the WAL; leaves keyed
    tombstones so it cannot come back. Exit status 1 when a file could not be scrubbed yet."""
    confirm_erase(scope=scope, subject=subject, predicate=predicate, value=value, yes=yes)
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
    report_erasure(report, as_json)


@click.command("scrub")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), envvar="FACTLEDGER_INDEX_DIR", default=None, help=INDEX_DIR_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def scrub_cmd(app: AppContext, index_dir: Path | None, as_json: bool) -> None:
    """Finish what erase does after deleting: rewrite the vector index without history, merge the FTS
    segments, truncate the WAL. Run it when erase reported a reader holding the WAL. Exit status 1 while
    a reader still holds it."""
    outcome = scrub_files(app.ledger(), index_dir)
    if as_json:
        emit_json(outcome.to_dict())
    else:
        files = outcome.files
        if files.engine == "sqlite":
            rest = f"FTS merged: {', '.join(files.fts_tables) or 'none'}; WAL {'truncated' if outcome.complete else 'not truncated'}"
        else:
            rest = f"tables rewritten: {len(files.rewritten_tables)}; {'checkpointed' if files.checkpointed else 'not checkpointed'}"
        click.echo(
            f"vector index rewritten ({outcome.vectors['rows_rewritten']} rows, {outcome.vectors['versions_removed']}"
            f" old versions removed); {rest}"
        )
    _say_scrub(outcome)
    if not outcome.complete:
        sys.exit(1)


COMMANDS = [erase_cmd, scrub_cmd]
