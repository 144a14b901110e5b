"""`factledger verify` and `factledger backup`: is the history what the ledger wrote, and a copy of it.

verify composes the ledger's checks (factledger.ledger.verify) and recall's (factledger.recall.verify)
over a read-only connection, so verifying never changes the file. Exit status: 0 clean, 1 when any
check fails, 2 for usage errors (as every command).
"""

from __future__ import annotations

from pathlib import Path

import click

from factledger.ledger import Ledger
from factledger.ledger.backup import backup
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


@click.command("verify")
@index_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def verify_cmd(app: AppContext, index_dir: Path | None, as_json: bool) -> None:
    """Check every invariant of the ledger file: SQLite integrity, the schema against the migrations,
    intervals and timestamps on every row, the hash chain, and the lexical and vector indexes. Lists each
    row that breaks a rule. Exit status 1 if anything fails."""
    _require_file(app)
    ledger = Ledger.open(app.db_path, read_only=True)
    try:
        report = verify_ledger(ledger)
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
    if not report.ok:
        click.get_current_context().exit(1)


@click.command("backup")
@click.argument("dest", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace DEST if it exists.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
@pass_app
def backup_cmd(app: AppContext, dest: Path, force: bool, as_json: bool) -> None:
    """Copy the ledger to DEST with SQLite's online backup (writers may keep writing), then verify the
    copy: integrity, schema, rows and the hash chain. Exit status 1 if the copy fails verification."""
    _require_file(app)
    if app.is_postgres:
        raise CliError(
            f"db: backup copies a SQLite file; for {app.where} use pg_dump, or "
            "`factledger migrate --from URL --to FILE` for a SQLite copy"
        )
    try:
        report = backup(app.ledger(), dest, force=force, own=own_files(app))
    except OSError as exc:  # a name past the file system's limit, a parent that is a file, no permission
        shown = str(dest) if len(str(dest)) <= 80 else str(dest)[:80] + "…"
        raise CliError(f"dest: cannot write {shown}: {exc.strerror or exc}") from None
    summary = f"{'backed up' if report.ok else 'backed up, but the copy FAILED verification'}: {report.path} ({report.bytes:,} bytes, {report.verification.transactions} transactions)"
    _finish(report.to_dict(), report.verification, as_json, summary)


COMMANDS = [verify_cmd, backup_cmd]
