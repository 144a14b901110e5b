"""Storing proposals and applying them to the ledger (one ledger transaction per proposal)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from factledger.ledger import (
    ConflictError, ErasedError, Ledger, LedgerError, LedgerTx, NotFoundError, Predicate, TxResult, ValidationError,
)
from factledger.ledger.erasure import REDACTED, redact, value_words
from factledger.ledger.keys import key, predicate_key
from factledger.ledger.times import UNKNOWN_START, parse_optional
from factledger.ledger.values import check_value

from .model import Draft, NewProposal, Proposal, StatusChange
from .recorder import recorder_for


@dataclass(frozen=True)
class Planned:
    """A draft placed in a scope with its provenance and its valid time settled."""

    scope: str
    draft: Draft
    sources: tuple[str, ...]
    extractor: str
    entry_id: int | None = None
    ordinal: int = 0

    def describe(self) -> str:
        d = self.draft
        what = f"{d.subject} {d.predicate}" + (f" {d.value!r}" if d.value is not None else "")
        if d.replaces:
            what += f" replacing {d.replaces!r}"
        return f"{d.op} {what}"


def transaction_reason(action: str, proposal_id: int, *refs: str) -> str:
    """The ledger transaction's reason: what caused it, by id only (proposal #N, journal:<id>).

    Transactions are append-only and erase cannot rewrite them, so a reason must never carry a value or
    a quote: the value lives in the claim versions and the proposal row, which erase does reach.
    """
    return f"{action}: proposal #{int(proposal_id)}" + (f" from {', '.join(refs)}" if refs else "")


def check_draft(draft: Draft) -> None:
    """Field checks before a draft is stored; errors name the field."""
    if draft.op not in ("add", "supersede", "retract"):
        raise ValidationError(f"{draft.op!r} is not an operation", field="op")
    # The value policy (ledger/values.py): the ledger cleans the text again when the draft is applied.
    key(check_value(draft.subject, "subject"), "subject")
    predicate_key(check_value(draft.predicate, "predicate"))
    if draft.op != "retract" or draft.value is not None:
        key(check_value(draft.value, "value"), "value")
    if draft.replaces is not None:
        check_value(draft.replaces, "replaces")
    if draft.cardinality not in (None, "one", "many"):
        raise ValidationError(f"{draft.cardinality!r} is not a cardinality", field="cardinality")
    parse_optional(draft.valid_from, "valid_from")
    parse_optional(draft.valid_to, "valid_to")
    if draft.valid_from and draft.valid_to and not draft.valid_from < draft.valid_to:
        raise ValidationError("must be later than valid_from", field="valid_to")


def insert_proposal(
    ledger: Ledger,
    planned: Planned,
    *,
    status: str,
    decision: str,
    policy: str,
    reason: str,
    rejection_id: int | None = None,
    decided_by: str | None = None,
) -> int:
    d = planned.draft
    now = ledger.clock()
    value_key = None
    if d.value is not None:
        try:
            value_key = key(d.value, "value")
        except ValidationError:
            value_key = None
    if value_key is not None and d.op != "retract" and _erased(ledger, planned.scope, d):
        # Proposed again after an erase (an extractor may infer it): the row records that something was
        # dropped, never the value or the words quoting it (DESIGN §8).
        d = replace(d, value=REDACTED, replaces=None, quote=redact(d.quote or "", [value_words(value_key)])[0])
        value_key = None
    try:
        subject_key = key(d.subject, "subject")
    except ValidationError:
        subject_key = ""
    try:
        predicate = predicate_key(d.predicate)
    except ValidationError:
        predicate = str(d.predicate or "")
    return recorder_for(ledger.storage).insert_proposal(
        NewProposal(
            scope=planned.scope,
            entry_id=planned.entry_id,
            ordinal=planned.ordinal,
            sources=tuple(planned.sources),
            extractor=planned.extractor,
            op=d.op if d.op in ("add", "supersede", "retract") else "add",
            subject=str(d.subject or ""),
            subject_key=subject_key,
            predicate=predicate,
            cardinality=d.cardinality if d.cardinality in ("one", "many") else None,
            template=d.template,
            value=d.value if (d.value is not None or d.op == "retract") else "",
            value_key=value_key,
            replaces=d.replaces,
            valid_from=d.valid_from,
            valid_to=d.valid_to,
            all_valid_time=bool(d.all_valid_time),
            time_phrase=d.time_phrase,
            quote=d.quote or "",
            status=status,
            decision=decision,
            policy=policy,
            reason=reason,
            rejection_id=rejection_id,
            created_at=now,
            decided_at=None if status == "pending" else now,
            decided_by=decided_by,
        )
    )


def _erased(ledger: Ledger, scope: str, d: Draft) -> bool:
    try:
        return ledger.is_erased(scope, d.subject, d.predicate, d.value or "")
    except ValidationError:
        return False


def set_status(
    ledger: Ledger,
    proposal_id: int,
    *,
    status: str,
    reason: str | None = None,
    decision: str | None = None,
    tx: int | None = None,
    decided_by: str | None = None,
    review_reason: str | None = None,
    rejection_id: int | None = None,
) -> None:
    change = StatusChange(
        status=status, decided_at=None if status == "pending" else ledger.clock(), reason=reason, decision=decision,
        tx=tx, decided_by=decided_by, review_reason=review_reason, rejection_id=rejection_id,
    )
    recorder_for(ledger.storage).set_status(proposal_id, change)


def load_proposal(ledger: Ledger, proposal_id: int) -> Proposal | None:
    return recorder_for(ledger.storage).proposal(proposal_id)


def undeclared_predicate(ledger: Ledger | LedgerTx, draft: Draft) -> str | None:
    """The predicate's name when applying the draft would register it (nobody ever defined it), else None."""
    name = predicate_key(draft.predicate)
    return name if ledger.predicate(name) is None else None


def registration_receipt(predicate: Predicate) -> str:
    """What a proposal's receipt says when applying it registered a predicate nobody had defined."""
    return (f"registered predicate {predicate.name!r}, which nobody had defined, as {predicate.cardinality!r} with "
            f"template {predicate.template!r}")


def _ensure_predicate(tx: LedgerTx, draft: Draft) -> Predicate | None:
    """Register a predicate the proposal introduces, with its cardinality and template; returns it when
    it did (the receipts and warnings name it). Strict predicates refuse it, as they refuse any write."""
    if undeclared_predicate(tx, draft) is None:
        return None
    if tx.strict_predicates:
        raise ValidationError(
            f"no predicate {predicate_key(draft.predicate)!r}{tx.ledger.suggest_predicate(draft.predicate)}; "
            "define it first (strict predicates refuse undeclared ones)",
            field="predicate",
        )
    return tx.define(draft.predicate, draft.cardinality or "many", template=draft.template or None)


def apply_in_tx(
    tx: LedgerTx, scope: str, draft: Draft, sources: tuple[str, ...], *, force_supersede: bool = False
) -> tuple[str, Predicate | None]:
    """Run the draft's operation in an open ledger transaction. Returns the op actually run, and the
    predicate it registered because nobody had defined it (None when it was defined).

    A supersede of nothing, or a `many` supersede that names no replaced value, becomes an add. With
    `force_supersede` (an operator accepting a held conflict) an add that clashes becomes a supersede.
    """
    registered = _ensure_predicate(tx, draft)
    return _run_op(tx, scope, draft, sources, force_supersede=force_supersede), registered


def _run_op(tx: LedgerTx, scope: str, draft: Draft, sources: tuple[str, ...], *, force_supersede: bool) -> str:
    source = list(sources)
    if draft.op == "retract":
        tx.retract(
            scope,
            draft.subject,
            draft.predicate,
            draft.value,
            valid_from=None if draft.all_valid_time else draft.valid_from,
            valid_to=None if draft.all_valid_time else draft.valid_to,
            all_valid_time=draft.all_valid_time,
            source=source,
        )
        return "retract"
    if draft.op == "supersede":
        try:
            tx.supersede(
                scope, draft.subject, draft.predicate, draft.value or "",
                valid_from=draft.valid_from, valid_to=draft.valid_to, replaces=draft.replaces, source=source,
            )
            return "supersede"
        except (NotFoundError, ValidationError) as exc:
            # Nothing to replace (or a `many` supersede naming no value): the new value simply holds.
            if isinstance(exc, ValidationError) and exc.field != "replaces":
                raise
            tx.add(scope, draft.subject, draft.predicate, draft.value or "", valid_from=draft.valid_from, valid_to=draft.valid_to, source=source)
            return "add"
    try:
        tx.add(scope, draft.subject, draft.predicate, draft.value or "", valid_from=draft.valid_from, valid_to=draft.valid_to, source=source)
        return "add"
    except ConflictError as exc:
        if not force_supersede or isinstance(exc, ErasedError):
            raise
        # An undated statement that clashes is a change, news when it was said: it must not cut away the
        # other value's past.
        start = draft.news_at if draft.valid_from == UNKNOWN_START and draft.news_at else draft.valid_from
        tx.supersede(scope, draft.subject, draft.predicate, draft.value or "", valid_from=start, valid_to=draft.valid_to, source=source)
        return "supersede"


@dataclass(frozen=True)
class ApplyOutcome:
    status: str  # "applied" | "pending" | "dropped"
    reason: str
    result: TxResult | None = None
    registered: Predicate | None = None  # a predicate nobody had defined, registered by this apply


def try_apply(
    ledger: Ledger, planned: Planned, *, principal: str, reason: str, force_supersede: bool = False
) -> ApplyOutcome:
    """Apply as one ledger transaction; a conflict holds it, an impossible operation drops it.

    The ledger transaction is a savepoint inside the caller's SQLite transaction, so a failure leaves
    nothing behind while the proposal row (written by the caller) survives with its receipt.
    """
    if ledger.strict_predicates and undeclared_predicate(ledger, planned.draft):
        # Held, not dropped: once an operator defines the predicate, accepting it applies it.
        name = predicate_key(planned.draft.predicate)
        return ApplyOutcome("pending", f"held: predicate {name!r} was never defined and this ledger refuses "
                                       f"undeclared predicates (strict){ledger.suggest_predicate(name)}; define it, then accept")
    try:
        with ledger.transaction(principal=principal, reason=reason, sources=planned.sources) as tx:
            _, registered = apply_in_tx(tx, planned.scope, planned.draft, planned.sources, force_supersede=force_supersede)
    except ErasedError as exc:
        return ApplyOutcome("dropped", f"dropped: {exc.message}")
    except ConflictError as exc:
        return ApplyOutcome("pending", f"held: conflicts with the ledger: {exc.message}")
    except NotFoundError as exc:
        return ApplyOutcome("dropped", f"dropped: {exc.message}")
    except ValidationError as exc:
        return ApplyOutcome("dropped", f"dropped: invalid: {exc}")
    except LedgerError as exc:  # a database refusal: keep it for a person to look at
        return ApplyOutcome("pending", f"held: the ledger refused it: {exc}")
    return ApplyOutcome("applied", reason, tx.result, registered)
