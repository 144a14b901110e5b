"""Digest commands: `journal add|list`, `digest`, and `review list|show|accept|reject|undo|confirm|lift|…`."""

from __future__ import annotations

import os
import sys

import click

from factledger.digest import (
    Detail,
    DigestConfig,
    Edit,
    accept_many,
    accept_one,
    detail,
    open_from_session,
    reject_many,
    Digester,
    Journal,
    prune_said_before,
    Turn,
    build_extractor,
    confirm,
    lift,
    list_confirmations,
    list_proposals,
    list_rejections,
    unconfirm,
    undo_decision,
)
from factledger.digest.review import STATUSES, require_operator
from factledger.ledger import LedgerError
from factledger.ledger.ops import decode_json_line
from factledger.ledger.times import display

from .app import ROW_ID, TIMES, AppContext, CliError, count, note_defined, note_unknown, emit_json, emit_table, interval, pass_app, read_input

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


# -- journal ------------------------------------------------------------------------------------


@click.group("journal")
def journal_group() -> None:
    """The journal of conversation turns waiting to be digested."""


@journal_group.command("add")
@click.argument("file")
@json_option
@pass_app
def journal_add_cmd(app: AppContext, file: str, as_json: bool) -> None:
    """Append conversation turns from FILE (or - for standard input), one JSON object per line.

    \b
    {"scope":"s","session":"x","role":"user","text":"I moved to Lisbon last month","said_at":"2026-03-14T10:00:00Z"}

    role is user or assistant (default user); session is optional; said_at defaults to now. Secrets are
    redacted or the turn refused; trivial turns are skipped. Every line is checked before any is stored.
    """
    turns: list[Turn] = []
    for number, line in enumerate(read_input(file), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            turns.append(Turn.from_dict(decode_json_line(stripped)))
        except LedgerError as exc:
            raise CliError(f"line {number}: {exc}") from None
    ledger = app.ledger(create=True)
    journal = Journal(ledger)
    with ledger.storage.atomic():
        outcomes = journal.append_many(turns)
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    if as_json:
        emit_json({"counts": counts, "turns": [o.to_dict() for o in outcomes]})
    else:
        click.echo(", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no turns")
        for number, outcome in enumerate(outcomes, start=1):
            if outcome.status in ("refused", "redacted"):
                click.echo(f"  turn {number}: {outcome.status}: {outcome.reason}")


@journal_group.command("list")
@click.option("--scope", default=None, help="Only this scope.")
@click.option("--limit", default=50, show_default=True, type=count(1), help="Show at most this many entries, newest first.")
@json_option
@pass_app
def journal_list_cmd(app: AppContext, scope: str | None, limit: int, as_json: bool) -> None:
    """The latest journal entries and whether they were digested."""
    entries = Journal(app.ledger()).entries(scope=scope, limit=limit)
    note_unknown(app, entries, scopes=[scope] if scope else None)
    if as_json:
        emit_json([e.to_dict() for e in entries])
        return
    emit_table(
        ["id", "scope", "role", "said at", "digested", "text"],
        [[e.id, e.scope, e.role, display(e.said_at), e.extractor or ("failed" if e.attempts else ""), _short(e.text)] for e in entries],
    )


@journal_group.command("prune")
@click.option("--said-before", "before", required=True, help=f"Remove digested turns said before this time: {TIMES}.")
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable). Default: every scope.")
@json_option
@pass_app
def journal_prune_cmd(app: AppContext, before: str, scopes: tuple[str, ...], as_json: bool) -> None:
    """Retention: remove old digested turns (and so their episodes); the facts they became stay."""
    removed = prune_said_before(app.ledger(), before, scopes=list(scopes) or None)
    if as_json:
        emit_json({"removed": removed})
    else:
        click.echo(f"removed {removed} journal turn(s) said before {before}")


# -- digest -------------------------------------------------------------------------------------


@click.command("digest")
@click.option("--limit", default=None, type=count(0), help="Digest at most N entries.")
@click.option("--scope", "scopes", multiple=True, help="Only these scopes (repeatable).")
@click.option("--policy", type=click.Choice(["auto", "strict"]), default=None, help="Default: auto (or FACTLEDGER_DIGEST_POLICY).")
@click.option("--model", default=None, help="Chat model for the LLM extractor (or FACTLEDGER_DIGEST_MODEL). None: rules.")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint (or FACTLEDGER_DIGEST_BASE_URL).")
@click.option("--rules", "force_rules", is_flag=True, help="Use the offline rules extractor even if a model is configured.")
@json_option
@pass_app
def digest_cmd(
    app: AppContext,
    limit: int | None,
    scopes: tuple[str, ...],
    policy: str | None,
    model: str | None,
    base_url: str | None,
    force_rules: bool,
    as_json: bool,
) -> None:
    """Digest the journal backlog into proposals and claims. Resumable: run it again to continue.

    Exit status 1 when entries were left undigested because the extractor failed (they stay in the
    backlog; nothing is lost).
    """
    config = DigestConfig.from_env(os.environ, policy=policy, model=model, base_url=base_url)
    if force_rules:
        config = DigestConfig(policy=config.policy)
    ledger = app.ledger()
    digester = Digester(ledger, build_extractor(config), policy=config.policy, context_turns=config.context_turns)
    show_bar = not as_json and sys.stderr.isatty()
    if show_bar:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(
            TextColumn("digest"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=_stderr_console(), transient=True
        ) as bar:
            task = bar.add_task("digest", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            report = digester.run(limit=limit, scopes=list(scopes) or None, progress=progress)
    else:
        report = digester.run(limit=limit, scopes=list(scopes) or None)
    note_defined(app, report.undeclared, by="the digest")
    if as_json:
        emit_json(report.to_dict())
    else:
        p = report.to_dict()["proposals"]
        click.echo(
            f"digested {report.entries_digested} of {report.entries_seen} entries with {report.extractor} ({report.policy}): "
            f"{p['applied']} applied, {p['pending']} held for review, {p['rejected_again']} rejected again, "
            f"{p['dropped']} dropped; backlog {report.backlog}"
        )
        for error in report.errors:
            click.echo(f"  failed: {error}", err=True)
    if not report.complete:
        sys.exit(1)


def _stderr_console():  # rich is imported only when a bar is shown
    from rich.console import Console

    return Console(stderr=True)


# -- review -------------------------------------------------------------------------------------


@click.group("review")
@click.pass_obj
def review_group(app: AppContext) -> None:
    """Review what the digest proposed (operator only)."""
    require_operator(app.principal)


# Every value `review list --status` takes, explained in its help (a test checks it covers the statuses).
STATUS_HELP = {
    "open": "pending and rejected_again, what needs you",
    "pending": "held for review (strict policy, a conflict, or a change to a confirmed value)",
    "applied": "written to the ledger (by the digest, or accepted by a reviewer)",
    "rejected": "rejected by a reviewer (its value is remembered), or corrected by one (not remembered)",
    "rejected_again": "proposed again after its value was rejected, and not applied",
    "dropped": "not applied: no supporting quote, or not a valid write (the reason says which)",
    "all": "every status",
}


def _short(text: str | None, width: int = 60) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


@review_group.command("list")
@click.option(
    "--status",
    type=click.Choice(list(STATUS_HELP)),
    default="open",
    show_default=True,
    help="Which proposals: " + "; ".join(f"{name} = {meaning}" for name, meaning in STATUS_HELP.items()) + ".",
)
@click.option("--scope", default=None, help="Only proposals in this scope.")
@click.option("--limit", default=100, show_default=True, type=count(1), help="Show at most this many proposals.")
@json_option
@pass_app
def review_list_cmd(app: AppContext, status: str, scope: str | None, limit: int, as_json: bool) -> None:
    """Proposals, newest first (default: held ones and rejected values that came back)."""
    proposals = list_proposals(app.ledger(), status=None if status == "all" else status, scope=scope, limit=limit)
    note_unknown(app, proposals, scopes=[scope] if scope else None)
    if as_json:
        emit_json([p.to_dict() for p in proposals])
        return
    emit_table(
        ["id", "status", "scope", "proposal", "valid", "from", "reason"],
        [
            [p.id, p.status, p.scope, _short(p.describe(), 50), interval(p.valid_from, p.valid_to), ",".join(p.sources), _short(p.reason, 50)]
            for p in proposals
        ],
    )


@review_group.command("show")
@click.argument("proposal_id", type=ROW_ID)
@click.option("--context", "context_turns", default=None, type=count(0),
              help="Context turns to show (default: as many as the digest gives its extractor).")
@json_option
@pass_app
def review_show_cmd(app: AppContext, proposal_id: int, context_turns: int | None, as_json: bool) -> None:
    """One proposal in full: quote, source and context turns, the policy's reason, the slot's history and
    exactly what accepting it would do (versions it would close or cut, competing proposals)."""
    if context_turns is None:
        context_turns = DigestConfig.from_env(os.environ).context_turns
    d = detail(app.ledger(), proposal_id, context_turns=context_turns)
    if as_json:
        emit_json(d.to_dict())
        return
    _print_detail(d)


def _print_detail(d: Detail) -> None:
    p = d.proposal
    click.echo(f"proposal #{p.id}: {p.describe()}")
    for label, value in (
        ("status", p.status),
        ("scope", p.scope),
        ("valid", interval(p.valid_from, p.valid_to) + (" (all valid time)" if p.all_valid_time else "")),
        ("time words", p.time_phrase),
        ("quote", p.quote),
        ("extractor", p.extractor),
        ("policy", p.policy),
        ("reason", p.reason),
        ("decided by", p.decided_by or ""),
        ("review note", p.review_reason),
        ("rejection", f"rejection #{p.rejection_id}" if p.rejection_id else ""),
        ("ledger tx", f"ledger transaction #{p.tx}" if p.tx else ""),
    ):
        if value:
            click.echo(f"  {label:<11} {value}")
    if d.context:
        click.echo("context (the turns before, as the extractor saw them):")
        for t in d.context:
            click.echo(f"  {t.ref} [{t.speaker_label} {display(t.said_at)}]: {t.text}")
    click.echo("source:")
    for t in d.turns:
        click.echo(f"  {t.ref} [{t.speaker_label} {display(t.said_at)}]: {t.text}")
    click.echo("slot history (every version, in transaction order):")
    if not d.history:
        click.echo("  (none)")
    for h in d.history:
        v = h.version
        state = "believed" if v.tx_to is None else f"closed by ledger transaction #{v.closed_by}"
        click.echo(f"  claim version #{v.id} {v.value!r} valid {interval(v.valid_from, v.valid_to)}"
                   f" (ledger transaction #{v.opened_by}, {h.opened.principal}; {state})")
    click.echo("if accepted:")
    for line in d.preview.lines():
        click.echo(f"  {line}")


def _ids(proposal_ids: tuple[int, ...], session: str | None, scope: str | None, app: AppContext) -> list[int]:
    if session is not None:
        if proposal_ids:
            raise CliError("proposal: give proposal ids or --all-from-session, not both")
        found = [p.id for p in open_from_session(app.ledger(), session, scope=scope)]
        if not found:
            raise CliError(f"session: no open proposals from session {session!r}")
        return found
    if not proposal_ids:
        raise CliError("proposal: give one or more proposal ids, or --all-from-session SESSION")
    return list(proposal_ids)


session_option = click.option("--all-from-session", "session", default=None, metavar="SESSION",
                              help="Every open proposal whose source turn was said in SESSION.")
scope_option = click.option("--scope", default=None, help="With --all-from-session: only this scope.")


@review_group.command("accept")
@click.argument("proposal_ids", type=ROW_ID, nargs=-1)
@session_option
@scope_option
@click.option("--value", default=None, help="Accept with this value instead (recorded as your correction).")
@click.option("--valid-from", default=None, help=f"Accept with this valid-from instead (your correction): {TIMES}.")
@click.option("--valid-to", default=None, help=f"Accept with this valid-to instead (your correction): {TIMES}, or '' for open.")
@click.option("--reason", default="", help="Why (recorded).")
@json_option
@pass_app
def review_accept_cmd(
    app: AppContext, proposal_ids: tuple[int, ...], session: str | None, scope: str | None,
    value: str | None, valid_from: str | None, valid_to: str | None, reason: str, as_json: bool,
) -> None:
    """Apply open proposals as you, all or nothing (a held conflict is applied as a supersede). Says which
    versions each accept closed; `review show` previews it first.

    With --value/--valid-from/--valid-to (one proposal only) the edited proposal is stored as your
    correction and applied; the original is kept, marked corrected.
    """
    ids = _ids(proposal_ids, session, scope, app)
    edit = Edit(value=value, valid_from=valid_from, valid_to=valid_to)
    if not edit.empty:
        if len(ids) != 1:
            raise CliError("proposal: --value/--valid-from/--valid-to edit one proposal at a time")
        done = [accept_one(app.ledger(), ids[0], principal=app.principal, reason=reason, edit=edit)]
    else:
        done = accept_many(app.ledger(), ids, principal=app.principal, reason=reason)
    note_defined(app, [name for a in done for name in a.undeclared], by="this accept")
    if as_json:
        emit_json([a.to_dict() for a in done])
        return
    for a in done:
        click.echo(a.message())


@review_group.command("reject")
@click.argument("proposal_ids", type=ROW_ID, nargs=-1)
@session_option
@scope_option
@click.option("--reason", default="", help="Why (recorded).")
@json_option
@pass_app
def review_reject_cmd(app: AppContext, proposal_ids: tuple[int, ...], session: str | None, scope: str | None, reason: str, as_json: bool) -> None:
    """Reject proposals, all or nothing; their values are remembered and will not be applied when
    proposed again."""
    done = reject_many(app.ledger(), _ids(proposal_ids, session, scope, app), principal=app.principal, reason=reason)
    if as_json:
        emit_json([p.to_dict() for p in done])
        return
    for p in done:
        memo = f" (rejection #{p.rejection_id})" if p.rejection_id else ""
        click.echo(f"rejected proposal #{p.id}: {p.describe()}{memo}")


@review_group.command("undo")
@click.argument("proposal_id", type=ROW_ID)
@click.option("--reason", default="", help="Why (recorded).")
@json_option
@pass_app
def review_undo_cmd(app: AppContext, proposal_id: int, reason: str, as_json: bool) -> None:
    """Undo a reviewer's accept or reject where the ledger allows it: an accept by its inverse ledger
    transaction (refused once a later change touched the slot), a reject by lifting its memory. The
    decision stays on record; a pending copy of the proposal reopens it."""
    undone = undo_decision(app.ledger(), proposal_id, principal=app.principal, reason=reason)
    emit_json(undone.to_dict()) if as_json else click.echo(undone.message())


@review_group.command("confirm")
@click.argument("claim_id", type=ROW_ID)
@click.option("--reason", default="", help="Why (recorded).")
@json_option
@pass_app
def review_confirm_cmd(app: AppContext, claim_id: int, reason: str, as_json: bool) -> None:
    """Confirm a claim's value: the digest will hold, not apply, anything that would change it."""
    c = confirm(app.ledger(), claim_id, principal=app.principal, reason=reason)
    emit_json(c.to_dict()) if as_json else click.echo(f"confirmation #{c.id}: claim version #{c.claim_id} {c.subject_key} {c.predicate} {c.value!r} in {c.scope}")


@review_group.command("unconfirm")
@click.argument("confirmation_id", type=ROW_ID)
@json_option
@pass_app
def review_unconfirm_cmd(app: AppContext, confirmation_id: int, as_json: bool) -> None:
    """Withdraw a confirmation."""
    c = unconfirm(app.ledger(), confirmation_id, principal=app.principal)
    emit_json(c.to_dict()) if as_json else click.echo(f"withdrew confirmation #{c.id} of {c.value!r}")


@review_group.command("lift")
@click.argument("rejection_id", type=ROW_ID)
@json_option
@pass_app
def review_lift_cmd(app: AppContext, rejection_id: int, as_json: bool) -> None:
    """Lift a rejection: the value may come back."""
    r = lift(app.ledger(), rejection_id, principal=app.principal)
    emit_json(r.to_dict()) if as_json else click.echo(f"lifted rejection #{r.id} of {r.value!r}")


@review_group.command("rejections")
@click.option("--all", "include_lifted", is_flag=True, help="Include lifted rejections.")
@click.option("--scope", default=None, help="Only rejections in this scope.")
@json_option
@pass_app
def review_rejections_cmd(app: AppContext, include_lifted: bool, scope: str | None, as_json: bool) -> None:
    """Rejection memory."""
    rows = list_rejections(app.ledger(), include_lifted=include_lifted, scope=scope)
    note_unknown(app, rows, scopes=[scope] if scope else None)
    if as_json:
        emit_json([r.to_dict() for r in rows])
        return
    emit_table(
        ["id", "scope", "subject", "predicate", "value", "by", "at", "lifted"],
        [[r.id, r.scope, r.subject_key, r.predicate, r.value, r.rejected_by, display(r.rejected_at), r.lifted_by or ""] for r in rows],
    )


@review_group.command("confirmations")
@click.option("--scope", default=None, help="Only confirmations in this scope.")
@json_option
@pass_app
def review_confirmations_cmd(app: AppContext, scope: str | None, as_json: bool) -> None:
    """Operator-confirmed values in force."""
    rows = list_confirmations(app.ledger(), scope=scope)
    note_unknown(app, rows, scopes=[scope] if scope else None)
    if as_json:
        emit_json([c.to_dict() for c in rows])
        return
    emit_table(
        ["id", "scope", "subject", "predicate", "value", "by", "at"],
        [[c.id, c.scope, c.subject_key, c.predicate, c.value, c.confirmed_by, display(c.confirmed_at)] for c in rows],
    )


COMMANDS = [journal_group, digest_cmd, review_group]
