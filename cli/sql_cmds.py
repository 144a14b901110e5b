"""Analyst commands: `factledger sql` (as-of and audit SQL; temporal writes with --write) and `factledger export`."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import Any

import click

from factledger.ledger import LedgerError
from factledger.ledger.analytics import (
    DEFAULT_MAX_ROWS,
    DEFAULT_MEMORY_LIMIT,
    DEFAULT_TIMEOUT,
    Analytics,
    SqlError,
    execute_write,
    export_snapshot,
    plan_write,
)
from factledger.ledger.exports import SQL_OUTPUT_PREFIX, record_export
from factledger.ledger.analytics.bounded import run_bounded
from factledger.ledger.analytics.output import FORMATS, plain, render_text, write_parquet
from factledger.ledger.times import display

from .app import INDEX_DIR_HELP, SECONDS, AppContext, CliError, count, emit_json, emit_table, pass_app
from .own_files import checked_output, own_files


def _cell(value: Any) -> str:
    value = plain(value)
    if isinstance(value, str) and len(value) == 27 and value.endswith("Z") and value[10] == "T":
        return display(value)
    if isinstance(value, list):
        return ", ".join("" if v is None else str(v) for v in value)
    return "" if value is None else str(value)


def _pointed(exc: SqlError, query: str) -> CliError:
    """The error with the offending line of the query and a caret under the column."""
    lines = query.splitlines() or [""]
    text = lines[exc.line - 1] if 0 < exc.line <= len(lines) else ""
    return CliError(f"{exc}\n  {text}\n  {' ' * (exc.column - 1)}^")


@click.command("sql")
@click.argument("query", required=False)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Output format (default: from the --output file's extension .parquet/.csv/.json, else table).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write to FILE instead of standard output (required for parquet).")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("--show-sql", is_flag=True, help="Print the DuckDB SQL the query runs as (temporal clauses rewritten) and stop.")
@click.option("--views", "list_views", is_flag=True, help="List the views and audit helpers this ledger has, and stop.")
@click.option(
    "--snapshot",
    is_flag=True,
    help="Load a consistent in-memory copy first: seconds at a million versions, then aggregates run several"
    " times faster than over the attached file (see docs/BENCHMARKS.md).",
)
@click.option("--live", is_flag=True,
              help="Read the ledger itself at this query, bypassing the analytics companion (the default for small ledgers).")
@click.option("--companion", "use_companion", is_flag=True,
              help="Read through the analytics companion (a DuckDB file kept in step with the ledger; the default"
              " from 50,000 versions): built once, then only what changed is copied before each query.")
@click.option("--memory-limit", default=DEFAULT_MEMORY_LIMIT, show_default=True,
              help="DuckDB's working memory for the query, e.g. 512MB, 4GB.")
@click.option("--timeout", type=SECONDS, default=DEFAULT_TIMEOUT, show_default=True,
              help="Stop the query after this many seconds (0: no limit).")
@click.option("--max-rows", type=count(0), default=DEFAULT_MAX_ROWS, show_default=True,
              help="Print at most this many rows and say when more were cut (0: all; parquet files are never cut).")
@click.option("--param", "param_items", multiple=True, metavar="NAME=VALUE",
              help="Bind $NAME in the query to VALUE (text; repeat for more; NAME 1, 2, … binds $1, $2 and ? in order). Values are data, never SQL.")
@click.option("--write", "write", is_flag=True,
              help="Run one INSERT / UPDATE … FOR PORTION OF / DELETE / ERASE on claims as one ledger transaction (operator only).")
@click.option("--dry-run", is_flag=True, help="With --write: print the operations as `apply` JSON lines and write nothing.")
@click.option("--reason", default="", help="With --write: why (recorded on the transaction).")
@click.option("--period", default=None, metavar="NAME",
              help="With --write: another name your statements give the valid-time period (FOR PORTION OF NAME), e.g. valid_at.")
@click.option("--yes", is_flag=True, help="With --write and ERASE: do not ask for confirmation.")
@click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path), envvar="FACTLEDGER_INDEX_DIR", default=None,
              help="With --write and ERASE: " + INDEX_DIR_HELP)
@pass_app
def sql_cmd(
    app: AppContext,
    query: str | None,
    fmt: str | None,
    output: Path | None,
    as_json: bool,
    show_sql: bool,
    list_views: bool,
    snapshot: bool,
    live: bool,
    use_companion: bool,
    memory_limit: str,
    timeout: float,
    max_rows: int,
    param_items: tuple[str, ...],
    write: bool,
    dry_run: bool,
    reason: str,
    period: str | None,
    yes: bool,
    index_dir: Path | None,
) -> None:
    """Run one read-only query over the ledger in DuckDB (QUERY, or - for standard input).

    Views: claims (current truth unless a clause says otherwise), claim_versions, slots, transactions, corrections,
    predicates, and journal/proposals/rejections when present. After `claims` or `slots`, in either
    order: FOR VALID_TIME AS OF t | FROM t1 TO t2 | BETWEEN t1 AND t2 | ALL, and the same for
    SYSTEM_TIME. Audit helpers: slot_history(subject, predicate), changes_between(t1, t2),
    activity(t1, t2). Anything but a query is refused with its position (exit status 2).
    Each query runs under a memory limit and a timeout, and prints at most --max-rows rows.
    DESCRIBE, SUMMARIZE, EXPLAIN and SHOW TABLES are reads too.

    With --write (operator only), one statement becomes one ledger transaction (docs/SQL_WRITES.md):
    INSERT INTO claims (scope, subject, predicate, value, valid_from, valid_to) VALUES …;
    UPDATE claims [FOR PORTION OF VALID_TIME FROM a [TO b]] SET value = … WHERE scope = … AND subject = …
    AND predicate = … [AND value = replaced] (changes only what the portion holds); SUPERSEDE claims
    [FOR PORTION OF …] SET value = … WHERE … (the slot holds the value over the whole portion);
    DELETE FROM claims [FOR PORTION OF VALID_TIME FROM a [TO b] | FOR ALL VALID_TIME] WHERE …;
    ERASE FROM claims WHERE … (asks first, as `factledger erase`). A statement that matches nothing
    reports 0 rows and writes nothing.
    """
    limits = {"memory_limit": memory_limit, "timeout": timeout or None, "max_rows": max_rows or None}
    if snapshot + live + use_companion > 1:
        raise CliError("give one of --snapshot, --live and --companion")
    mode = "snapshot" if snapshot else "live" if live else "companion" if use_companion else None
    if list_views:
        with Analytics(app.db_path, **limits) as analytics:
            items = analytics.describe()
        if as_json:
            emit_json(items)
        else:
            emit_table(["name", "kind", "what it is"], [[i["name"], i["kind"], i["doc"]] for i in items])
        return
    if query is None:
        raise CliError("give a QUERY (or - to read it from standard input), or --views")
    if query == "-":
        query = sys.stdin.read()
    params = _params(param_items)
    if write:
        _write(app, query, params=params, dry_run=dry_run, reason=reason, yes=yes, index_dir=index_dir, as_json=as_json,
               period=period)
        return
    if dry_run or period is not None:
        raise CliError("--dry-run and --period go with --write")
    if as_json:
        fmt = "json"
    if fmt is None:
        fmt = _format_of(output)
    if fmt == "parquet" and output is None:
        raise CliError("--format parquet writes a file: add --output FILE")
    if output is not None:  # before the query runs: a refused path is left as it was
        if fmt == "table":
            raise CliError("--output needs --format csv, json or parquet")
        checked_output(app, output, field="output", what="output")
    try:
        if show_sql:
            with Analytics(app.db_path, mode=mode, first_query=query, **limits) as analytics:
                click.echo(analytics.translate(query, params))
            return
        # The query runs in a process of its own held to --memory-limit and --timeout (bounded.py).
        answer = run_bounded(app.db_path, query, params, mode=mode, arrow=fmt == "parquet", **limits)
    except SqlError as exc:
        raise _pointed(exc, query) from None
    if answer.note:
        click.echo(f"note: {answer.note}", err=True)
    if use_companion and answer.mode != "companion":
        click.echo(f"note: reading live: {answer.mode_note}", err=True)
    if fmt == "parquet":
        write_parquet(answer.table, output)  # type: ignore[arg-type]
        _record_output(app, output, fmt)  # type: ignore[arg-type]
        click.echo(f"wrote {output}", err=True)
        return
    result = answer.result
    assert result is not None
    columns, rows = result.columns, result.rows
    cut = f"; more rows were cut at --max-rows {max_rows}" if result.truncated else ""
    if fmt == "table":
        if output is not None:
            raise CliError("--output needs --format csv, json or parquet")
        if columns == ["explain_key", "explain_value"]:  # a plan reads as drawn, not as a table cell
            for _, plan in rows:
                click.echo(plan)
            return
        if rows:
            emit_table(columns, [[_cell(v) for v in row] for row in rows])
        else:  # the header still says what the columns are (LIMIT 0 asks for just that)
            click.echo("  ".join(columns))
            click.echo("  ".join("-" * len(c) for c in columns))
        # The count belongs to the table (psql's "(2 rows)"): on stdout, on its own line after the last row,
        # so a viewer that shows the two streams one after the other cannot run it into that row.
        click.echo(f"({len(rows)} row{'s' if len(rows) != 1 else ''}{cut})")
        return
    text = render_text(fmt, columns, rows)
    if output is None:
        click.echo(text, nl=False)
        if cut:
            click.echo(f"({len(rows)} rows{cut})", err=True)
    else:
        try:
            output.write_text(text, "utf-8")
        except OSError as exc:
            raise CliError(f"cannot write {output}: {exc.strerror}") from None
        _record_output(app, output, fmt)
        click.echo(f"wrote {len(rows)} row(s) to {output}{cut}", err=True)


def _record_output(app: AppContext, output: Path, fmt: str) -> None:
    """Add a written result to the manifest of known exports (format `sql:<fmt>`), so that a later erase
    names it: a file outside the ledger is beyond its reach."""
    try:
        record_export(app.ledger(), directory=output, fmt=f"{SQL_OUTPUT_PREFIX}{fmt}", snapshot_tx_time=None, tables=[])
    except LedgerError as exc:
        click.echo(f"warning: {output} is not in the ledger's manifest of exports ({exc}); an erase will not list it", err=True)


def _format_of(output: Path | None) -> str:
    """The format an output file's extension names (`-o result.parquet`), else the table."""
    suffix = output.suffix.lower().lstrip(".") if output is not None else ""
    if suffix in FORMATS and suffix != "table":
        return suffix
    if output is not None:
        raise CliError(f"--output {output.name}: give --format (csv, json or parquet), or name the file .csv, .json or .parquet")
    return "table"


def _params(items: tuple[str, ...]) -> dict[str, str] | list[str] | None:
    """--param NAME=VALUE for $NAME; --param 1=VALUE, 2=… for positional $1 / ? (PostgreSQL's form)."""
    params: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip().lstrip("$")
        if not sep or not (name.isidentifier() or (name.isdigit() and int(name) > 0)):
            raise CliError(f"--param {item!r}: write NAME=VALUE (NAME as in $NAME in the query, or 1, 2, … for $1, $2 and ?)")
        if name in params:
            raise CliError(f"--param {name} given twice")
        params[name] = value
    numbered = sorted(int(n) for n in params if n.isdigit())
    if not numbered:
        return params or None
    if len(numbered) != len(params):
        raise CliError("--param: give named parameters ($name) or numbered ones ($1, ?), not both")
    if numbered != list(range(1, len(numbered) + 1)):
        missing = min(set(range(1, numbered[-1] + 1)) - set(numbered))
        raise CliError(f"--param {missing}=… is missing: numbered parameters run 1, 2, … without a gap")
    return [params[str(n)] for n in numbered]


def _write(
    app: AppContext, query: str, *, params: dict[str, str] | list[str] | None, dry_run: bool, reason: str, yes: bool,
    index_dir: Path | None, as_json: bool, period: str | None = None,
) -> None:
    """One SQL write as one ledger transaction; ERASE goes through the erase every part takes part in."""
    from .erase_cmds import confirm_erase, erase_everywhere, report_erasure  # recall and digest: writes only

    try:
        plan = plan_write(query, params, period=period)
    except SqlError as exc:
        raise _pointed(exc, query) from None
    if plan.erase is not None and not dry_run:
        confirm_erase(**plan.erase, yes=yes)
    try:  # what depends on the ledger's state (an INSERT's overlap, a bound relative to now) is refused here
        outcome = execute_write(
            app.ledger(), query, principal=app.principal, reason=reason, params=params, dry_run=dry_run,
            erase=partial(erase_everywhere, index_dir=index_dir), period=period,
        )
    except SqlError as exc:
        raise _pointed(exc, query) from None
    if dry_run:
        for line in outcome.lines():
            emit_json(line)
        click.echo(f"({plan.statement} {outcome.rows}: dry run, nothing written)", err=True)
        return
    if outcome.erased is not None:
        report_erasure(outcome.erased, as_json)
        return
    if as_json:
        emit_json(outcome.to_dict())
        return
    result = outcome.result
    if result is None:  # matched no row: a peer's `UPDATE 0`
        click.echo(f"{plan.statement} 0: no row matched; nothing written")
        return
    click.echo(
        f"{plan.statement} {outcome.rows}: transaction {result.id} at {display(result.tx_time)}:"
        f" {len(result.opened)} version(s) opened, {len(result.closed)} closed"
        + (f", {sum(1 for op in result.ops if op.noop)} operation(s) changed nothing" if any(op.noop for op in result.ops) else "")
    )


@click.command("export")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["parquet", "csv"]), default="parquet", show_default=True,
              help="File format of every table's file: parquet (typed columns) or csv (text, a header row).")
@click.option("--json", "as_json", is_flag=True, help="Print the export report as JSON.")
@pass_app
def export_cmd(app: AppContext, directory: Path, fmt: str, as_json: bool) -> None:
    """Write a consistent snapshot of every ledger table to DIRECTORY, one file per table."""
    report = export_snapshot(
        app.db_path, directory, fmt=fmt, progress=None if as_json else lambda name: click.echo(f"  wrote {name}", err=True),
        own=own_files(app),
    )
    # The manifest of known exports, so that a later erase can name the exports that hold its value.
    try:
        record_export(
            app.ledger(), directory=directory, fmt=fmt, snapshot_tx_time=report.snapshot_tx_time,
            tables=[t.name for t in report.tables],
        )
    except LedgerError as exc:
        click.echo(f"warning: this export is not in the ledger's manifest of exports ({exc}); an erase will not list it", err=True)
    if as_json:
        emit_json(report.to_dict())
        return
    emit_table(
        ["table", "rows", "file"],
        [[t.name, t.rows, t.file] for t in report.tables],
        title=f"snapshot as of transaction time {report.snapshot_tx_time or '(empty ledger)'}",
    )


COMMANDS = [sql_cmd, export_cmd]
