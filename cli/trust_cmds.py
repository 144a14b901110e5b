"""`factledger verify`, `factledger head` and `factledger backup`: is the history what the ledger wrote,
where it stood, and a copy of it.

verify composes the ledger's checks (factledger.ledger.verify) and recall's (factledger.recall.verify)
over a read-only connection, so verifying never changes the file; with a head (`--against`, or the last
one recorded beside the ledger) it also proves the ledger extends it. Exit status: 0 clean, 1 when any
check fails, 2 for usage errors and bad input (as every command).
"""

from __future__ import annotations

from pathlib import Path

import click

from factledger.ledger import Ledger
from factledger.ledger.backup import backup
from factledger.ledger.head import last_recorded_head, read_head, record_head, take_head
from factledger.ledger.verify import Check, VerifyReport, verify_ledger
from factledger.recall import Recall
from factledger.recall.verify import verify_recall

from .app import AppContext, CliError, emit_json, emit_table, pass_app
from .own_files import own_files
from .recall_cmds import index_dir_option


def _print_checks(checks: list[Check]) -> None:
    emit_table(["check", "result", "details"], [(c.name, "ok" if c.ok else "FAIL", c.details) for c in checks])
    for check in checks:
        if check.rows:
            more = f" (first {len(check.rows)} of {check.count})" if check.count > len(check.rows) else ""
            emit_table(["table", "row", "problem"], [(f.table, f.row, f.problem) for f in check.rows], title=f"\n{check.name}{more}:")


def _require_file(app: AppContext) -> None:
    if not app.is_postgres and not Path(app.db_path).is_file():
        raise CliError(f"db: no ledger file at {app.db_path}")
    app.require_ledger()


heads_option = click.option(
    "--heads", "heads_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="The heads file (one JSON head a line). Default: <ledger>.heads beside a SQLite ledger.",
)


@click.command("verify")
@index_dir_option
@click.option("--against", "against", metavar="HEAD",
              help="A head (the line `factledger head` prints, or its JSON) or a file of heads (its last one):"
              " the ledger must extend it. Default: the last head recorded in the heads file, if any.")
@click.option("--no-recorded-head", is_flag=True, help="Do not check against the last recorded head.")
@heads_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def verify_cmd(app: AppContext, index_dir: Path | None, against: str | None, no_recorded_head: bool,
               heads_file: Path | None, as_json: bool) -> None:
    """Check every invariant of the ledger file: SQLite integrity and CHECK constraints, the schema against
    the migrations, intervals and timestamps on every row, the hash chain (keyed links with the chain key),
    tombstones and the ledger secret, that the ledger extends a kept head, and the lexical and vector
    indexes. Lists each row that breaks a rule. Exit status 1 if anything fails."""
    _require_file(app)
    key = app.chain_key()
    if against is not None:
        head, where = read_head(against)
    else:
        path = None if no_recorded_head else app.heads_path(heads_file)
        head = last_recorded_head(path) if path is not None else None
        where = f"the last head recorded in {path}" if head is not None else ""
    ledger = Ledger.open(app.db_path, read_only=True, chain_key=key)  # type: ignore[arg-type]
    try:
        report = verify_ledger(ledger, against=head, against_from=where)
        recall = Recall(ledger, index_dir)
        try:
            report.extend(verify_recall(recall))
        finally:
            recall.close()
    finally:
        ledger.close()
    _finish(report.to_dict(), report, as_json, f"{'ok' if report.ok else 'FAILED'}: {report.transactions} transactions")


def _finish(data: dict, report: VerifyReport, as_json: bool, summary: str) -> None:
    if as_json:
        emit_json(data)
    else:
        _print_checks(report.checks)
        click.echo(f"\n{summary}; chain head {report.chain_head or '(none)'}")
        if report.keyed_part:
            click.echo(f"chain: {report.keyed_part}")
        if report.against:
            click.echo(f"checked against {report.against}")
    if not report.ok:
        click.get_current_context().exit(1)


@click.command("head")
@click.option("--record", is_flag=True, help="Also append the head to the heads file (see --heads).")
@heads_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def head_cmd(app: AppContext, record: bool, heads_file: Path | None, as_json: bool) -> None:
    """Print the ledger's signed head: its id, latest transaction and time, that transaction's chain hash,
    when the head was taken, and an HMAC under the chain key. Keep it where the ledger's writers cannot
    reach it: `factledger verify --against HEAD` later proves the ledger still extends it (no truncation,
    rollback or swap)."""
    _require_file(app)
    key = app.chain_key()
    ledger = Ledger.open(app.db_path, read_only=True, chain_key=key)  # type: ignore[arg-type]
    try:
        keying = ledger.recorder.chain_keying()
        if keying is not None and keying.keyed and ledger.chain_key is None:
            raise CliError(f"chain_key: the chain is keyed (key {keying.key_id}); give its key with --chain-key FILE"
                           " or --chain-key-env NAME to sign the head" + (f" ({ledger.chain_key_problem})" if ledger.chain_key_problem else ""))
        if keying is not None and keying.keyed and ledger.chain_key is not None and ledger.chain_key.key_id != keying.key_id:
            raise CliError(f"chain_key: the chain is keyed with key {keying.key_id}, not with the key given ({ledger.chain_key.key_id})")
        head = take_head(ledger.storage, ledger.chain_key if keying is not None and keying.keyed else None)
    finally:
        ledger.close()
    recorded = None
    if record:
        path = app.heads_path(heads_file)
        if path is None:
            raise CliError(f"heads: {app.where} has no default heads file; name one with --heads FILE")
        recorded = str(record_head(path, head))
    if as_json:
        emit_json(head.to_dict() | {"text": head.to_text(), "recorded_in": recorded})
    else:
        click.echo(head.to_text())
        if recorded:
            click.echo(f"recorded in {recorded}", err=True)
        if not head.signed:
            click.echo("note: unsigned: this ledger's chain is not keyed (give --chain-key to key it on the next write)", err=True)


@click.command("backup")
@click.argument("dest", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace DEST if it exists.")
@heads_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def backup_cmd(app: AppContext, dest: Path, force: bool, heads_file: Path | None, as_json: bool) -> None:
    """Copy the ledger to DEST with SQLite's online backup (writers may keep writing), then verify the
    copy: integrity, schema, rows and the hash chain (with the ledger's chain key, which is not copied),
    and record the copy's signed head in the heads file. Exit status 1 if the copy fails verification."""
    _require_file(app)
    if app.is_postgres:
        raise CliError(
            f"db: backup copies a SQLite file; for {app.where} use pg_dump, or "
            "`factledger migrate --from URL --to FILE` for a SQLite copy"
        )
    try:
        report = backup(app.ledger(), dest, force=force, own=own_files(app), heads=app.heads_path(heads_file))
    except OSError as exc:  # a name past the file system's limit, a parent that is a file, no permission
        shown = str(dest) if len(str(dest)) <= 80 else str(dest)[:80] + "…"
        raise CliError(f"dest: cannot write {shown}: {exc.strerror or exc}") from None
    summary = f"{'backed up' if report.ok else 'backed up, but the copy FAILED verification'}: {report.path} ({report.bytes:,} bytes, {report.verification.transactions} transactions)"
    if report.head is not None and not as_json:
        summary += f"\nhead {report.head.to_text()}" + (f"\nrecorded in {report.heads_file}" if report.heads_file else "")
    _finish(report.to_dict(), report.verification, as_json, summary)


COMMANDS = [verify_cmd, head_cmd, backup_cmd]
