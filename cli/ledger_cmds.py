"""Ledger commands: apply, current, as-of, history, predicates."""

from __future__ import annotations

import gc
import json
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import click

from factledger.ledger import BusyError, ClaimVersion, TxResult
from factledger.ledger.ops import Batch, LineError, apply_batch, group_transactions, read_operations, scan_history, stream_import

from .app import (
    TIMES, AppContext, CliError, note_unknown, warn_undeclared, emit_json, emit_table, interval, iter_input, pass_app, spool_stdin,
)

scope_option = click.option(
    "--scope", "scopes", multiple=True, help="Scope to read (repeatable). Default: every scope."
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


def _claims_table(versions: list[ClaimVersion], *, known: bool = False) -> None:
    headers = ["id", "scope", "subject", "predicate", "value", "valid"]
    if known:
        headers.append("known")
    rows = []
    for v in versions:
        row = [v.id, v.scope, v.subject, v.predicate, v.value, interval(v.valid_from, v.valid_to)]
        if known:
            row.append(interval(v.tx_from, v.tx_to))
        rows.append(row)
    emit_table(headers, rows)


class _Reporter:
    """What apply and import print: one JSON object per transaction, or (--summary) one line for the run;
    a warning on stderr for each predicate registered only because a line named it (the JSON says so too,
    in undeclared_predicates); a progress bar on stderr when it is a terminal."""

    def __init__(self, summary: bool, total: int, *, bar: bool | None = None):
        self.summary = summary
        self.counts = {"transactions": 0, "opened": 0, "closed": 0, "noops": 0}
        self.undeclared: list[str] = []
        self._bar = None
        self._kept: IO[str] | None = None  # results waiting for the commit (import), one JSON line each
        if total > 1 and (sys.stderr.isatty() if bar is None else bar):
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(TextColumn("transactions"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 console=Console(stderr=True), transient=True)
            self._task = self._bar.add_task("apply", total=total)
            self._bar.start()

    def step(self) -> None:
        """One transaction done (the bar only)."""
        if self._bar is not None:
            self._bar.advance(self._task)

    def _count(self, result: TxResult) -> None:
        self.counts["transactions"] += 1
        self.counts["opened"] += len(result.opened)
        self.counts["closed"] += len(result.closed)
        self.counts["noops"] += result.noops
        self.undeclared.extend(result.undeclared)

    def __call__(self, result: TxResult, *, stepped: bool = False) -> None:
        self._count(result)
        if not stepped:
            self.step()
        if not self.summary:  # the JSON of every opened version is built only when it is printed
            emit_json(result.to_dict())
        warn_undeclared(result.undeclared)

    def keep(self, result: TxResult) -> None:
        """One transaction applied but not committed: counted, and kept on disk (not in memory: a history
        may have millions) until `replay` prints it."""
        self._count(result)
        if self.summary and not result.undeclared:
            return
        if self._kept is None:
            self._kept = tempfile.TemporaryFile("w+", encoding="utf-8")
        data = None if self.summary else result.to_dict()
        self._kept.write(json.dumps([data, list(result.undeclared)], ensure_ascii=False) + "\n")

    def replay(self) -> None:
        """Print what `keep` kept, in order: everything committed."""
        if self._kept is None:
            return
        self._kept.seek(0)
        for line in self._kept:
            data, undeclared = json.loads(line)
            if data is not None:
                emit_json(data)
            warn_undeclared(undeclared)
        self._kept.close()
        self._kept = None

    def discard(self) -> None:
        """The run wrote nothing: the bar goes, and no summary is printed."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        if self._kept is not None:
            self._kept.close()
            self._kept = None
        self.summary = False

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
        if self.summary:
            emit_json({**self.counts, "undeclared_predicates": self.undeclared})


@contextmanager
def _rare_collections() -> Iterator[None]:
    """Python's cyclic garbage collector run less often for the block (a bulk command in a process of its
    own). An import allocates millions of short-lived objects that reference counting frees as it goes;
    with the default threshold (a collection every 700 allocations, a full one every 100 of those, each
    traversing everything the process holds) the collector took ~11% of an import's CPU and found next
    to nothing. Memory stays bounded: cyclic garbage, of which the write path makes almost none, waits
    for the next collection, one every 100,000 allocations."""
    previous = gc.get_threshold()
    gc.set_threshold(100_000, *previous[1:])
    try:
        yield
    finally:
        gc.set_threshold(*previous)


summary_option = click.option(
    "--summary", is_flag=True,
    help='Print one JSON line for the run ({"transactions","opened","closed","noops","undeclared_predicates"}) instead of one per transaction.',
)


@click.command("apply")
@click.argument("file")
@click.option("--all-or-nothing", is_flag=True, help="Make the whole file one transaction.")
@click.option("--reason", default="", help="Reason recorded on transactions whose lines give none.")
@summary_option
@click.option(
    "--from-line", type=click.IntRange(min=1), default=1, show_default=True,
    help="Start at this line of FILE (the first line of a transaction), as printed when a run gave up.",
)
@pass_app
def apply_cmd(app: AppContext, file: str, all_or_nothing: bool, reason: str, summary: bool, from_line: int) -> None:
    """Apply JSON Lines operations from FILE (or - for standard input).

    One JSON object per line: define, add, supersede or retract. Consecutive lines with the same "tx"
    label form one transaction; others are their own. Prints one JSON object per transaction. A
    malformed line is reported before anything is written; a line the ledger refuses stops the run
    with its line number (earlier transactions stay; its own writes nothing). If other writers keep
    the ledger busy past the wait's bound, the run stops saying which lines are applied and the
    --from-line that resumes it.
    """
    spooled = spool_stdin() if file == "-" else None
    path = file if spooled is None else str(spooled)

    def transactions():  # FILE read anew: the lines are never all held (but for --all-or-nothing)
        return (b for b in group_transactions(read_operations(iter_input(path))) if b.first.line >= from_line)

    try:
        # Every line is checked before anything is written (a lazy parse would apply some earlier
        # transactions and only then find a malformed line).
        try:
            total, every = _check_from_line(group_transactions(read_operations(iter_input(path))), from_line)
        except LineError as exc:
            raise CliError(str(exc)) from None
        if all_or_nothing and not every:
            raise CliError("line: no operations")
        ledger = app.ledger(create=True)
        batches = transactions()
        if all_or_nothing:
            batches, total = iter([Batch([op for b in batches for op in b.ops])] if total else []), min(total, 1)
        report = _Reporter(summary, total)
        applied_any = False
        try:
            with _rare_collections():  # a bulk command in a process of its own, as import
                for batch in batches:
                    try:
                        report(apply_batch(ledger, batch, principal=app.principal, reason=reason))
                    except LineError as exc:
                        if not isinstance(exc.error, BusyError):
                            raise
                        if all_or_nothing:
                            raise CliError(f"{exc.error}; nothing was applied: run the same command again") from None
                        raise CliError(_resume_hint(exc.error, file, batch.first.line, applied_any)) from None
                    applied_any = True
        except LineError as exc:
            raise CliError(str(exc)) from None
        finally:
            report.close()
    finally:
        if spooled is not None:
            spooled.unlink(missing_ok=True)


@click.command("import")
@click.argument("file")
@click.option("--source", default=None, help="Names the principal import:<source>. Default: the file's name (stdin: 'stdin'), or --principal when it is an import: principal.")
@click.option("--reason", default="", help="Reason recorded on transactions whose lines give none.")
@summary_option
@click.option("--progress/--no-progress", default=None, help="A progress bar on stderr. Default: when stderr is a terminal.")
@pass_app
def import_cmd(app: AppContext, file: str, source: str | None, reason: str, summary: bool, progress: bool | None) -> None:
    """Load a history from FILE (or -): `apply`'s JSON Lines, each transaction's first line with its tx_time.

    Transactions are applied in tx-time order whatever the order of the lines, all or nothing, as
    import:<source>; define-only transactions without a tx_time come first. Explicit tx times must be
    later than the ledger's last transaction, so import into a fresh ledger (this creates one) before
    anything is written "now". FILE is read twice, first to check every line, then to apply it: a
    history in tx-time order is never held in memory whatever its size (one out of order is sorted
    in memory; standard input is copied to a temporary file first).
    """
    if app.principal.startswith("import:") and source is None:
        principal = app.principal
    else:
        principal = f"import:{source or ('stdin' if file == '-' else Path(file).stem)}"
    spooled = spool_stdin() if file == "-" else None
    path = file if spooled is None else str(spooled)

    def read():
        return read_operations(iter_input(path))

    try:
        with _rare_collections():
            try:
                scan = scan_history(read())
            except LineError as exc:
                raise CliError(str(exc)) from None
            # The bar moves as each transaction is applied; what was applied is printed once all of it committed.
            report = _Reporter(summary, scan.transactions, bar=progress)
            try:
                stream_import(app.ledger(create=True), read, principal=principal, reason=reason, scan=scan,
                              progress=report.step, on_result=report.keep)
            except LineError as exc:
                report.discard()
                raise CliError(str(exc)) from None
            except BaseException:
                report.discard()
                raise
            report.replay()
            report.close()
    finally:
        if spooled is not None:
            spooled.unlink(missing_ok=True)


def _check_from_line(batches, from_line: int) -> tuple[int, int]:
    """How many transactions start at or after from_line, and how many there are; a line inside a
    transaction is refused (its transaction is applied whole or not at all, so resuming from its middle
    would split it)."""
    total = every = 0
    for batch in batches:
        every += 1
        if batch.first.line < from_line <= batch.ops[-1].line:
            raise CliError(
                f"--from-line: line {from_line} is inside transaction {batch.first.tx!r}, "
                f"which starts on line {batch.first.line}"
            )
        total += batch.first.line >= from_line
    return total, every


def _resume_hint(error: Exception, file: str, line: int, applied_any: bool) -> str:
    source = "FILE" if file == "-" else file
    done = f"every transaction before line {line} is applied (one JSON line printed for each)" if applied_any else "this run applied nothing"
    return f"{error}. So far {done}; line {line} onwards is not: resume with `factledger apply {source} --from-line {line}`"


@click.command("current")
@scope_option
@click.option("--subject", default=None, help="Only this subject.")
@click.option("--predicate", default=None, help="Only this predicate.")
@json_option
@pass_app
def current_cmd(app: AppContext, scopes: tuple[str, ...], subject: str | None, predicate: str | None, as_json: bool) -> None:
    """Current truth: what is valid now, as known now."""
    versions = app.database().current(list(scopes) or None, subject=subject, predicate=predicate)
    note_unknown(app, versions, scopes=list(scopes) or None, subject=subject, predicate=predicate)
    if as_json:
        emit_json([v.to_dict() for v in versions])
    else:
        _claims_table(versions)


@click.command("as-of")
@scope_option
@click.option("--valid-at", default=None, help=f"Valid-time instant: {TIMES}. Default: now.")
@click.option("--known-at", default=None, help=f"Transaction-time instant, what the ledger believed then: {TIMES}. Default: its latest knowledge.")
@click.option("--subject", default=None, help="Only this subject.")
@click.option("--predicate", default=None, help="Only this predicate.")
@json_option
@pass_app
def as_of_cmd(
    app: AppContext,
    scopes: tuple[str, ...],
    valid_at: str | None,
    known_at: str | None,
    subject: str | None,
    predicate: str | None,
    as_json: bool,
) -> None:
    """What was true at VALID-AT, as the ledger knew it at KNOWN-AT."""
    versions = app.database().as_of(
        list(scopes) or None, valid_at=valid_at, known_at=known_at, subject=subject, predicate=predicate
    )
    note_unknown(app, versions, scopes=list(scopes) or None, subject=subject, predicate=predicate)
    if as_json:
        emit_json([v.to_dict() for v in versions])
    else:
        _claims_table(versions, known=True)


@click.command("history")
@scope_option
@click.option("--subject", required=True, help="The slot's subject.")
@click.option("--predicate", required=True, help="The slot's predicate.")
@json_option
@pass_app
def history_cmd(app: AppContext, scopes: tuple[str, ...], subject: str, predicate: str, as_json: bool) -> None:
    """Every version of a slot, with who opened and closed it, when and why."""
    entries = app.database().history(subject, predicate, scopes=list(scopes) or None)
    note_unknown(app, entries, scopes=list(scopes) or None, subject=subject, predicate=predicate)
    if as_json:
        emit_json([e.to_dict() for e in entries])
        return
    rows = []
    for e in entries:
        v = e.version
        rows.append(
            [
                v.id,
                v.scope,
                v.value,
                interval(v.valid_from, v.valid_to),
                interval(v.tx_from, v.tx_to),
                e.opened.principal,
                e.opened.reason,
                e.closed.principal if e.closed else "",
                ", ".join(v.source),
            ]
        )
    emit_table(["id", "scope", "value", "valid", "known", "opened by", "why", "closed by", "source"], rows)


@click.command("predicates")
@json_option
@pass_app
def predicates_cmd(app: AppContext, as_json: bool) -> None:
    """The predicate registry: cardinality, template, description."""
    preds = app.database().predicates()
    if as_json:
        emit_json([p.to_dict() for p in preds])
    else:
        emit_table(["predicate", "cardinality", "template", "description"], [[p.name, p.cardinality, p.template, p.description] for p in preds])


COMMANDS = [apply_cmd, import_cmd, current_cmd, as_of_cmd, history_cmd, predicates_cmd]
