"""Explicit writes: a fact the agent (or an operator) states through a tool, not extracted from talk.

They go through the same gates as the digest: rejection memory (a rejected value is refused and the
attempt is recorded for the reviewer) and operator-confirmed values (a change to one is held for review
unless an operator makes it). Everything else is applied at once as the caller's principal.
"""

from __future__ import annotations

from factledger.ledger import Ledger, NotFoundError, ValidationError, check_principal, check_scope
from factledger.ledger.keys import key, predicate_key
from factledger.ledger.times import parse_optional
from factledger.ledger.values import check_value

from .memory import active_rejection, confirmed_values_touched, slot_versions
from .model import Draft, ExplicitWrite
from .proposals import Planned, check_draft, insert_proposal, registration_receipt, set_status, transaction_reason, try_apply


def _sources(source: str | list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    if source is None:
        return ()
    if isinstance(source, str):
        return (source,) if source else ()
    return tuple(s for s in source if s)


def _cardinality(ledger: Ledger, predicate: str, declared: str | None) -> str:
    existing = ledger.predicate(predicate_key(predicate))
    if existing is not None:
        return existing.cardinality
    return declared or "many"


def _gate(ledger: Ledger, planned: Planned, principal: str, reason: str) -> ExplicitWrite:
    """Rejection memory, then confirmations, then apply: inside the caller's SQLite transaction."""
    draft = planned.draft
    if draft.op != "retract":
        rejection = active_rejection(ledger, planned.scope, draft.subject, draft.predicate, draft.value)
        if rejection is not None:
            proposal_id = insert_proposal(
                ledger, planned, status="rejected_again", decision="reject", policy="explicit",
                reason=f"rejected again: {rejection.rejected_by} rejected this value (rejection #{rejection.id})",
                rejection_id=rejection.id, decided_by=principal,
            )
            return ExplicitWrite(
                "rejected",
                f"not saved: an operator rejected {draft.value!r} for {draft.subject} {draft.predicate} (rejection #{rejection.id})",
                proposal_id=proposal_id,
            )
        if ledger.is_erased(planned.scope, draft.subject, draft.predicate, draft.value or ""):
            return ExplicitWrite("rejected", "not saved: this value was erased by an operator")
    touched = confirmed_values_touched(
        ledger, scope=planned.scope, subject=draft.subject, predicate=draft.predicate, op=draft.op, value=draft.value,
        replaces=draft.replaces, valid_from=draft.valid_from, valid_to=draft.valid_to, all_valid_time=draft.all_valid_time,
    )
    if touched and not principal.startswith("operator:"):
        values = ", ".join(sorted({repr(c.value) for c in touched}))
        proposal_id = insert_proposal(
            ledger, planned, status="pending", decision="hold", policy="explicit",
            reason=f"held: would change an operator-confirmed value ({values}); an operator must accept it",
        )
        return ExplicitWrite("held", f"held for review: {values} was confirmed by an operator", proposal_id=proposal_id)
    proposal_id = insert_proposal(ledger, planned, status="pending", decision="apply", policy="explicit", reason=reason or "explicit write")
    # The caller's reason is kept on the proposal row; the transaction names the proposal by id only.
    outcome = try_apply(ledger, planned, principal=principal, reason=transaction_reason("explicit write", proposal_id))
    if outcome.status == "applied":
        assert outcome.result is not None
        receipt = registration_receipt(outcome.registered) if outcome.registered else None
        # The proposal keeps the caller's reason as given; the agent is told of the registration.
        set_status(ledger, proposal_id, status="applied", tx=outcome.result.id, decided_by=principal)
        saved = f"saved: {planned.describe()}" + (f" ({receipt})" if receipt else "")
        return ExplicitWrite("applied", saved, proposal_id=proposal_id, tx=outcome.result.id)
    set_status(ledger, proposal_id, status=outcome.status, reason=outcome.reason, decision="hold" if outcome.status == "pending" else "drop")
    status = "held" if outcome.status == "pending" else "rejected"
    return ExplicitWrite(status, outcome.reason, proposal_id=proposal_id)


def remember(
    ledger: Ledger,
    *,
    scope: str,
    subject: str,
    predicate: str,
    value: str,
    principal: str,
    valid_from: object = None,
    valid_to: object = None,
    cardinality: str | None = None,
    reason: str = "",
    source: str | list[str] | None = None,
) -> ExplicitWrite:
    """State a fact. In a `one` slot holding another value over the period, the new value supersedes it."""
    check_principal(principal)
    check_scope(scope)
    # The value policy before anything is stored (the proposal row too): the caller hears why.
    subject, predicate, value = (check_value(t, f) for t, f in ((subject, "subject"), (predicate, "predicate"), (value, "value")))
    reason = check_value(reason, "reason")
    key(subject, "subject")
    key(value, "value")
    pred = predicate_key(predicate)
    if cardinality not in (None, "one", "many"):
        raise ValidationError(f"{cardinality!r} is not a cardinality; use 'one' or 'many'", field="cardinality")
    start = parse_optional(valid_from, "valid_from") or ledger.clock()
    end = parse_optional(valid_to, "valid_to")
    card = _cardinality(ledger, pred, cardinality)
    op = "add"
    if card == "one":
        wanted = key(value, "value")
        for version in slot_versions(ledger, scope, subject, pred):
            overlaps = (version.valid_to is None or start < version.valid_to) and (end is None or version.valid_from < end)
            if overlaps and version.value_key != wanted:
                op = "supersede"
                break
    draft = Draft(
        op=op, subject=subject, predicate=predicate, value=value, quote="", cardinality=card,  # type: ignore[arg-type]
        valid_from=start, valid_to=end,
    )
    check_draft(draft)
    planned = Planned(scope=scope, draft=draft, sources=_sources(source), extractor=principal)
    with ledger.storage.atomic():
        return _gate(ledger, planned, principal, reason)


def forget(
    ledger: Ledger,
    *,
    scope: str,
    subject: str,
    predicate: str,
    value: str | None = None,
    principal: str,
    valid_from: object = None,
    all_valid_time: bool = False,
    reason: str = "",
) -> ExplicitWrite:
    """Retract (never erase): from `valid_from` (default now) the value is no longer held; with
    `all_valid_time`, it was never true. Raises NotFoundError when there is nothing to retract."""
    check_principal(principal)
    check_scope(scope)
    subject, predicate = check_value(subject, "subject"), check_value(predicate, "predicate")
    value = None if value is None else check_value(value, "value")
    reason = check_value(reason, "reason")
    key(subject, "subject")
    predicate_key(predicate)
    if value is not None:
        key(value, "value")
    start = None if all_valid_time else (parse_optional(valid_from, "valid_from") or ledger.clock())
    draft = Draft(op="retract", subject=subject, predicate=predicate, value=value, quote="", valid_from=start, all_valid_time=all_valid_time)
    planned = Planned(scope=scope, draft=draft, sources=(), extractor=principal)
    with ledger.storage.atomic():
        _require_held(ledger, scope, subject, predicate, value, start, what="forget")
        return _gate(ledger, planned, principal, reason)


def request_erase(
    ledger: Ledger,
    *,
    scope: str,
    subject: str,
    predicate: str,
    value: str | None = None,
    principal: str,
    reason: str = "",
) -> ExplicitWrite:
    """Ask for an erase (DESIGN §3: erase is an operator's act, never the model's): nothing changes in the
    slot; a held proposal to retract the value over all valid time is recorded for review, its reason
    saying an erase was asked for, so a person sees the request on the review page and `review list` and
    decides (`factledger erase` to remove it for good, accept to retract it, reject to keep it). Checked
    like `forget`: a slot that holds nothing is a NotFoundError."""
    check_principal(principal)
    check_scope(scope)
    subject, predicate = check_value(subject, "subject"), check_value(predicate, "predicate")
    value = None if value is None else check_value(value, "value")
    reason = check_value(reason, "reason")
    key(subject, "subject")
    predicate_key(predicate)
    if value is not None:
        key(value, "value")
    draft = Draft(op="retract", subject=subject, predicate=predicate, value=value, quote="", all_valid_time=True)
    planned = Planned(scope=scope, draft=draft, sources=(), extractor=principal)
    with ledger.storage.atomic():
        _require_held(ledger, scope, subject, predicate, value, None, what="erase")
        why = f"erase requested by {principal}" + (f": {reason}" if reason else "")
        proposal_id = insert_proposal(
            ledger, planned, status="pending", decision="hold", policy="explicit",
            reason=f"{why}; an operator decides (factledger erase removes it for good; accepting only retracts it)",
        )
    return ExplicitWrite(
        "held", f"erase requested: proposal #{proposal_id} waits for an operator; nothing was changed or erased",
        proposal_id=proposal_id,
    )


def _require_held(ledger: Ledger, scope: str, subject: str, predicate: str, value: str | None, start: str | None,
                  *, what: str) -> None:
    """NotFoundError unless the slot (or the value in it) holds something from `start` (None: ever)."""
    versions = [
        v for v in slot_versions(ledger, scope, subject, predicate)
        if (value is None or v.value_key == key(value, "value"))
        and (start is None or v.valid_to is None or start < v.valid_to)
    ]
    if not versions:
        raise NotFoundError(
            f"nothing to {what}: {subject} {predicate}" + (f" {value!r}" if value else "") + " holds no value then",
            field="value" if value else "predicate",
        )
