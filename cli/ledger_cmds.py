"""Ledger commands: apply, current, as-of, history, predicates."""

from __future__ import annotations

import click

from factledger.ledger import ClaimVersion, TxResult
from factledger.ledger.ops import LineError, apply_all, apply_batch, group_transactions, read_operations

from .app import AppContext, CliError, emit_json, emit_table, interval, pass_app, read_input

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


def _report(result: TxResult) -> None:
    """One JSON object per transaction on stdout; a warning on stderr for each predicate it registered only
    because a line named it (the JSON says so too, in undeclared_predicates)."""
    emit_json(result.to_dict())
    warn_undeclared(result.undeclared)


def warn_undeclared(names: list[str]) -> None:
    for name in names:
        click.echo(
            f"warning: predicate {name!r} was never defined: registered as 'many' with the default template"
            " (define it first, or pass --strict-predicates to refuse such lines)",
            err=True,
        )


def note_unknown(app: AppContext, found: list, *, subject: str | None = None, predicate: str | None = None) -> None:
    """An empty read that named a subject or predicate the ledger has never seen says so, on stderr."""
    if not found:
        for note in app.ledger().unknown_names(subject=subject, predicate=predicate):
            click.echo(note, err=True)


@click.command("apply")
@click.argument("file")
@click.option("--all-or-nothing", is_flag=True, help="Make the whole file one transaction.")
@click.option("--reason", default="", help="Reason recorded on transactions whose lines give none.")
@pass_app
def apply_cmd(app: AppContext, file: str, all_or_nothing: bool, reason: str) -> None:
    """Apply JSON Lines operations from FILE (or - for standard input).

    One JSON object per line: define, add, supersede or retract. Consecutive lines with the same "tx"
    label form one transaction; others are their own. Prints one JSON object per transaction. A
    malformed line is reported before anything is written; a line the ledger refuses stops the run
    with its line number (earlier transactions stay; its own writes nothing).
    """
    ledger = app.ledger(create=True)
    try:
        # Parse every line first: a malformed line is reported before anything is written (a lazy
        # parse would apply some earlier transactions and silently drop the one just before it).
        ops = list(read_operations(read_input(file)))
        if all_or_nothing:
            _report(apply_all(ledger, ops, principal=app.principal, reason=reason))
            return
        for batch in group_transactions(ops):
            _report(apply_batch(ledger, batch, principal=app.principal, reason=reason))
    except LineError as exc:
        raise CliError(str(exc)) from None


@click.command("current")
@scope_option
@click.option("--subject", default=None, help="Only this subject.")
@click.option("--predicate", default=None, help="Only this predicate.")
@json_option
@pass_app
def current_cmd(app: AppContext, scopes: tuple[str, ...], subject: str | None, predicate: str | None, as_json: bool) -> None:
    """Current truth: what is valid now, as known now."""
    versions = app.database().current(list(scopes) or None, subject=subject, predicate=predicate)
    note_unknown(app, versions, subject=subject, predicate=predicate)
    if as_json:
        emit_json([v.to_dict() for v in versions])
    else:
        _claims_table(versions)


@click.command("as-of")
@scope_option
@click.option("--valid-at", default=None, help="Valid-time instant (ISO date or datetime). Default: now.")
@click.option("--known-at", default=None, help="Transaction-time instant: what the ledger believed then. Default: its latest knowledge.")
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
    note_unknown(app, versions, subject=subject, predicate=predicate)
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
    note_unknown(app, entries, subject=subject, predicate=predicate)
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


COMMANDS = [apply_cmd, current_cmd, as_of_cmd, history_cmd, predicates_cmd]
