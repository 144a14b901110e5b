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

import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

import click

from factledger.digest import MentionsErased, erase_mentions
from factledger.hermes_plugin.host_copies import delete_sessions, hermes_home_of, host_copies
from factledger.hermes_plugin.scope import describe_scope, scope_family, scope_for
from factledger.ledger import EraseResult, Ledger, ScrubReport
from factledger.ledger.exports import ExportRecord, exports_since
from factledger.recall import Recall

from .app import INDEX_DIR_HELP, AppContext, CliError, emit_json, pass_app
from .erase_copies import Remaining, manifest_copies

@dataclass(frozen=True)
class ScrubOutcome:
    vectors: dict[str, int]
    files: ScrubReport
    companion: Remaining | None = None  # the analytics companion, when a session held it (else removed)

    @property
    def complete(self) -> bool:
        # SQLite: the WAL truncated; PostgreSQL: every table rewritten, checkpointed; the companion removed
        return self.files.complete and self.companion is None

    def to_dict(self) -> dict:
        return {**self.vectors, **self.files.to_dict(), "companion_removed": self.companion is None,
                "complete": self.complete}


@dataclass(frozen=True)
class ErasedFrom:
    """What the operator asked to erase (for the commands that reach the copies left elsewhere)."""

    scope: str
    subject: str
    predicate: str
    value_given: bool


@dataclass(frozen=True)
class ErasureReport:
    ledger: EraseResult
    digest: MentionsErased
    scrub: ScrubOutcome
    exports: list[ExportRecord]
    remaining: list[Remaining] = field(default_factory=list)  # copies out of reach, each with its command
    hermes_sessions_deleted: list[str] = field(default_factory=list)  # `--hermes-sessions delete`

    @property
    def complete(self) -> bool:
        """No copy the erase knows of is left: the store scrubbed and nothing remaining elsewhere."""
        return self.scrub.complete and not self.remaining

    def to_dict(self) -> dict:
        data = self.ledger.to_dict()
        data["journal_entries"] = self.digest.source_turns_deleted
        data["digest"] = {k: v for k, v in self.digest.to_dict().items() if k != "first_seen"}
        data["vector_changes"] = self.scrub.vectors["vector_changes"]
        data["scrub"] = self.scrub.to_dict()
        data["exports_holding_value"] = [e.to_dict() for e in self.exports]
        data["remaining"] = [r.to_dict() for r in self.remaining]
        data["hermes_sessions_deleted"] = list(self.hermes_sessions_deleted)
        data["complete"] = self.complete
        return data


def _location(ledger: Ledger) -> str:
    storage = ledger.storage
    return str(storage.url if storage.engine == "postgres" else storage.path)  # type: ignore[union-attr]


def scrub_files(ledger: Ledger, index_dir: Path | None) -> ScrubOutcome:
    """Rewrite what still holds deleted bytes: the vector index (without its history), the FTS
    segments, the WAL; remove the analytics companion (derived: the next `sql` builds it again)."""
    recall = Recall(ledger, index_dir)
    try:
        vectors = recall.purge_erased()
    finally:
        recall.close()
    files = ledger.scrub()
    held = None
    location = _location(ledger)
    if location != ":memory:":
        from factledger.ledger.analytics.companion import default_path, discard  # duckdb: only here

        path = default_path(location, ledger.storage.engine)
        reason = discard(path)
        if reason is not None:
            held = Remaining(
                "companion", str(path), f"the analytics companion ({reason}); it is rebuilt at that session's next query",
                "factledger scrub  (once that session has ended)" if ledger.storage.engine == "sqlite"
                else "factledger --db URL scrub  (once that session has ended)",
            )
    return ScrubOutcome(vectors, files, held)


def copies_left(ledger: Ledger, result: EraseResult, exports: list[ExportRecord], asked: ErasedFrom) -> list[Remaining]:
    """The copies of the value this erase could not reach, each with its path and command."""
    where = dict(scope=asked.scope, subject=asked.subject, predicate=asked.predicate, value_given=asked.value_given)
    keying = ledger.recorder.chain_keying()
    keyed = keying is not None and keying.keyed and ledger.chain_key is not None
    # A backup is keyed with this ledger's key and has none beside it: its command names this one.
    found = manifest_copies(exports, **where, key_options=ledger.chain_key.command_options() if keyed else ())
    location = _location(ledger)
    for tx_id in result.reasons_kept:
        found.append(Remaining(
            "transaction", f"{location} (transaction {tx_id})",
            "a reason or source written before reasons were salted: its chain row hashes the text itself,"
            " so redacting it would break `verify`",
            f"none in place: the review page's /tx/{tx_id} (`factledger --db {shlex.quote(location)} ui`) shows it;"
            " it goes only with a ledger rebuilt without it (export, then import into a new ledger)",
        ))
    home = hermes_home_of(location) if ledger.storage.engine == "sqlite" else None
    if home is not None:
        for copy in host_copies(home, result.value_words):
            found.append(Remaining("hermes", str(copy.path), copy.what, copy.command))
    return found


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
    delete_hermes_sessions: bool = False,
) -> ErasureReport:
    """Erase in the ledger and the digest's tables as one transaction, then scrub the files (and, when
    asked, delete the Hermes sessions that mention the value through Hermes's own session store)."""
    with ledger.storage.atomic():
        result = ledger.erase(
            scope=scope, subject=subject, predicate=predicate, value=value, principal=principal, reason=reason,
            family=scope_family(scope),
        )
        digest = erase_mentions(ledger, result)
    exports = exports_since(ledger, digest.first_seen)
    scrubbed = scrub_files(ledger, index_dir)
    deleted: list[str] = []
    home = hermes_home_of(_location(ledger)) if ledger.storage.engine == "sqlite" else None
    if delete_hermes_sessions and home is not None:
        deleted = delete_sessions(home, result.value_words)
    asked = ErasedFrom(scope, subject, predicate, value is not None)
    left = ([scrubbed.companion] if scrubbed.companion else []) + copies_left(ledger, result, exports, asked)
    return ErasureReport(result, digest, scrubbed, exports, left, deleted)


def _say_scrub(outcome: ScrubOutcome) -> None:
    if outcome.companion is not None:
        click.echo(f"warning: {outcome.companion.what}: {outcome.companion.path} may still hold the value."
                   f" Run `{outcome.companion.command}`.", err=True)
    if outcome.files.complete:
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
    if not yes and not click.confirm(f"Erase {subject} {predicate} {value or '(every value)'} in {describe_scope(scope)}"
                                     " (and every other scope of the same person)?"):
        raise CliError("not erased")


def report_erasure(report: ErasureReport, as_json: bool) -> None:
    """Print what an erase did; exit status 1 unless complete (a file not scrubbed yet, or a copy left
    out of its reach: each is named with its path and the command that reaches it)."""
    if as_json:
        emit_json(report.to_dict())
    else:
        d = report.digest
        click.echo(
            f"erased {len(report.ledger.erased)} version(s) in {len(report.ledger.scopes)} scope(s) and"
            f" {d.source_turns_deleted} source journal entr{'y' if d.source_turns_deleted == 1 else 'ies'};"
            f" {d.turns_redacted + d.turns_deleted} other turn(s) and"
            f" {d.proposals_deleted + d.proposals_redacted} proposal(s) that mentioned it cleaned;"
            f" {len(report.ledger.reasons_redacted)} transaction reason(s) redacted;"
            f" {len(report.ledger.tombstones)} tombstone(s) written"
        )
        for scope in report.ledger.scopes:
            click.echo(f"  in {describe_scope(scope)}")
        for session in report.hermes_sessions_deleted:
            click.echo(f"  deleted Hermes session {session} (it mentioned the value)")
        for export in report.exports:
            click.echo(f"  {export.kind} {export.directory} ({export.format}, {export.exported_at})")
        for copy in report.remaining:
            click.echo(f"  not reached: {copy.path}: {copy.what}\n    reach it with: {copy.command}")
    if report.exports:
        click.echo(
            f"{len(report.exports)} export(s), backup(s) or output file(s) made since the value was stored may hold it;"
            " they are yours to delete" + (" (listed in the JSON report)." if as_json else " (above)."),
            err=True,
        )
    if report.remaining:
        click.echo(
            f"complete: false: {len(report.remaining)} cop{'y' if len(report.remaining) == 1 else 'ies'} of the value"
            " remain out of this erase's reach" + (" (`remaining` in the JSON report, each with its command)."
                                                 if as_json else " (above, each with its command; $VALUE is the value)."),
            err=True,
        )
    _say_scrub(report.scrub)
    if not report.complete:
        sys.exit(1)


@click.command("erase")
@click.option("--scope", default=None, help="The scope the value is erased in (or name it with --user/--chat).")
@click.option("--user", "user", default="", help="A Hermes user, as 'platform:id' (e.g. telegram:12345) or 'local': "
              "their long-term memory and every chat of theirs.")
@click.option("--chat", "chat", default="", help="A Hermes chat with no user id, as 'platform:chat_id'.")
@click.option("--profile", default="default", show_default=True, help="The Hermes profile whose memory it is (with --user/--chat).")
@click.option("--subject", required=True, help="The slot's subject.")
@click.option("--predicate", required=True, help="The slot's predicate.")
@click.option("--value", default=None, help="Only this value (default: every value of the slot).")
@click.option("--reason", default="", help="Why (recorded; must not contain the value).")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), envvar="FACTLEDGER_INDEX_DIR", default=None, help=INDEX_DIR_HELP)
@click.option("--hermes-sessions", type=click.Choice(["name", "delete"]), default="name", show_default=True,
              help="For a Hermes home's ledger: name the Hermes sessions that mention the value (with the command "
                   "that deletes them), or delete them now through Hermes's own session store (whole sessions: "
                   "Hermes cannot redact one message).")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def erase_cmd(
    app: AppContext,
    scope: str | None,
    user: str,
    chat: str,
    profile: str,
    subject: str,
    predicate: str,
    value: str | None,
    reason: str,
    index_dir: Path | None,
    hermes_sessions: str,
    yes: bool,
    as_json: bool,
) -> None:
    """Hard-remove a value for privacy (operator only): claims in every scope of the person, journal
    turns and proposals that mention it, FTS segments, vectors and their history, the WAL; leaves keyed
    tombstones so it cannot come back. Exit status 1 when a file could not be scrubbed yet.

    For Hermes's memory, name the person in words instead of a scope: `--user telegram:12345` (or
    `--user local`, the person at the machine) and `--profile NAME` (default: default)."""
    if scope and (user or chat):
        raise click.UsageError("give --scope, or --user/--chat (with --profile), not both")
    if not scope:
        if not (user or chat):
            raise click.UsageError("name where to erase: --user platform:id (or local), --chat platform:chat_id, or --scope")
        scope = scope_for(profile=profile, user=user, chat=chat)
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
        delete_hermes_sessions=hermes_sessions == "delete",
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
