"""Review, operator only: list and show proposals, accept, reject, confirm values, lift rejections.

Every decision is recorded with the operator's name. Accepting applies the proposal as the operator
(a held conflict is applied as a supersede: the operator has the last word). Rejecting an add or
supersede stores its normalised (scope, subject, predicate, value) in rejection memory.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from factledger.ledger import (
    BusyError,
    ClaimVersion,
    ConflictError,
    HistoryEntry,
    Ledger,
    LedgerError,
    NotFoundError,
    PermissionDenied,
    Predicate,
    TxResult,
    ValidationError,
    check_principal,
    parse_time,
)
from factledger.ledger.keys import key, predicate_key
from factledger.ledger.times import display

from .journal import Journal, journal_ids
from .memory import active_rejection, record_confirmation, record_rejection, slot_versions
from .model import Confirmation, Draft, JournalEntry, Proposal, Rejection
from .recorder import recorder_for
from .proposals import Planned, apply_in_tx, insert_proposal, load_proposal, registration_receipt, set_status, transaction_reason

STATUSES = ("pending", "applied", "rejected", "rejected_again", "dropped")


def require_operator(principal: str) -> str:
    check_principal(principal)
    if not principal.startswith("operator:"):
        raise PermissionDenied(f"only an operator may review; {principal!r} is not one", field="principal")
    return principal


OPEN = ("pending", "rejected_again")  # what a reviewer should look at: held, and came back after a rejection


def list_proposals(
    ledger: Ledger, *, status: str | tuple[str, ...] | None = "pending", scope: str | None = None, limit: int = 100
) -> list[Proposal]:
    """Proposals, newest first. `status` is one status, a tuple of them, "open" (pending and
    rejected_again), or None for every status."""
    if status == "open":
        status = OPEN
    wanted = (status,) if isinstance(status, str) else status
    if wanted is not None:
        for one in wanted:
            if one not in STATUSES:
                raise ValidationError(f"{one!r} is not a status; use one of {', '.join(STATUSES)}, or open", field="status")
    return recorder_for(ledger.storage).proposals(statuses=wanted, scope=scope, limit=int(limit))


def proposals_of_transaction(ledger: Ledger, tx_id: int) -> list[Proposal]:
    """The proposals a ledger transaction applied."""
    return recorder_for(ledger.storage).proposals_of_transaction(tx_id)


def get_proposal(ledger: Ledger, proposal_id: int) -> Proposal:
    proposal = load_proposal(ledger, proposal_id)
    if proposal is None:
        raise NotFoundError(f"no proposal #{proposal_id}", field="proposal")
    return proposal


def _draft_of(p: Proposal) -> Draft:
    return Draft(
        op=p.op, subject=p.subject, predicate=p.predicate, value=p.value, quote=p.quote,
        cardinality=p.cardinality, template=p.template, replaces=p.replaces,  # type: ignore[arg-type]
        valid_from=p.valid_from, valid_to=p.valid_to, all_valid_time=p.all_valid_time, time_phrase=p.time_phrase,
        news_at=p.created_at,
    )


@dataclass(frozen=True)
class Edit:
    """A reviewer's correction applied on accept: a different value and/or valid time. None keeps the
    proposal's own; `valid_to=""` opens the end."""

    value: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None

    @property
    def empty(self) -> bool:
        return self.value is None and self.valid_from is None and self.valid_to is None

    def applied_to(self, draft: Draft) -> Draft:
        """The draft with the edits, every field checked (errors name the field)."""
        value = draft.value
        if self.value is not None:
            if draft.op == "retract" and draft.value is None:
                raise ValidationError("a retract of the whole slot has no value to edit", field="value")
            key(self.value, "value")
            value = self.value.strip()
        valid_from = draft.valid_from if self.valid_from is None else parse_time(self.valid_from, "valid_from")
        if self.valid_to is None:
            valid_to = draft.valid_to
        else:
            valid_to = parse_time(self.valid_to, "valid_to") if self.valid_to.strip() else None
        if valid_from and valid_to and not valid_from < valid_to:
            raise ValidationError(f"must be later than valid_from ({display(valid_from)})", field="valid_to")
        edited = replace(draft, value=value, valid_from=valid_from, valid_to=valid_to)
        if self.valid_from is not None or self.valid_to is not None:
            edited = replace(edited, all_valid_time=False)
        return edited


@dataclass(frozen=True)
class Preview:
    """Exactly what accepting a proposal would do, found by running the accept and rolling it back."""

    proposal: Proposal
    op: str  # the operation that would run (a held add that clashes runs as a supersede)
    closes: tuple[ClaimVersion, ...]  # believed versions the accept would close (cut or end)
    opens: tuple[ClaimVersion, ...]  # versions it would write (the new value and any remainders)
    current: tuple[ClaimVersion, ...]  # the slot as believed now, every valid time
    competing: tuple[Proposal, ...]  # other open proposals for the same slot (the oldest COMPETING_SHOWN)
    blocked: str = ""  # why accepting would fail now ("" when it can be accepted)
    edit: Edit | None = None
    busy: str = ""  # a preview that would not wait: another writer held the ledger, so none was run
    competing_total: int = 0  # how many compete in all (a backlog may hold thousands for one slot)

    def lines(self) -> list[str]:
        """The preview in words, one line each (shown by `review show` and the page)."""
        if self.busy:
            return [f"preview not shown: {self.busy}; reload to see what accepting would do"]
        return self._lines()

    def _lines(self) -> list[str]:
        if self.blocked:
            return [f"cannot accept: {self.blocked}"]
        out = [f"accepting runs {self.op}"]
        for v in self.closes:
            kept = [o for o in self.opens if o.value_key == v.value_key]
            what = "cut" if kept else "close"
            out.append(f"would {what} claim version #{v.id}: {v.value!r} {_span(v)}")
        for v in self.opens:
            out.append(f"would write {v.value!r} {_span(v)}")
        if not self.closes and not self.opens:
            out.append("changes no version (the value already holds there)")
        for c in self.competing:
            out.append(f"competes with proposal #{c.id} ({c.status}): {c.describe()} {_span_of(c.valid_from, c.valid_to)}")
        if self.competing_total > len(self.competing):
            out.append(f"and {self.competing_total - len(self.competing)} more proposals for this slot")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "proposal": self.proposal.id,
            "op": self.op,
            "closes": [v.to_dict() for v in self.closes],
            "opens": [{k: v for k, v in o.to_dict().items() if k not in ("id", "opened_by")} for o in self.opens],
            "current": [v.to_dict() for v in self.current],
            "competing": [c.to_dict() for c in self.competing],
            "competing_total": self.competing_total,
            "blocked": self.blocked,
            "busy": self.busy,
            "lines": self.lines(),
        }


@dataclass(frozen=True)
class Accepted:
    """What an accept did: the applied proposal (the reviewer's correction when edited), the original
    it corrected, and the versions the ledger transaction closed and opened."""

    proposal: Proposal
    closed: tuple[ClaimVersion, ...]
    opened: tuple[ClaimVersion, ...]
    corrected: Proposal | None = None
    undeclared: tuple[str, ...] = ()  # a predicate nobody had defined, registered by this accept

    def message(self) -> str:
        p = self.proposal
        head = f"accepted proposal #{p.id}: {p.describe()} (ledger transaction #{p.tx})"
        if self.corrected is not None:
            head = f"accepted proposal #{self.corrected.id} with corrections as proposal #{p.id}: {p.describe()} (ledger transaction #{p.tx})"
        closed = "; ".join(f"claim version #{v.id} {v.value!r} {_span(v)}" for v in self.closed)
        return head + (f"; closed {closed}" if closed else "; closed nothing")

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.proposal.to_dict(),
            "corrected": self.corrected.id if self.corrected else None,
            "closed": [v.to_dict() for v in self.closed],
            "opened": [v.to_dict() for v in self.opened],
            "undeclared_predicates": list(self.undeclared),
        }


def _span_of(start: str | None, end: str | None) -> str:
    return f"[{display(start)}, {display(end)})"


def _span(v: ClaimVersion) -> str:
    return _span_of(v.valid_from, v.valid_to)


def _subject_key(p: Proposal) -> str:
    try:
        return key(p.subject, "subject")
    except ValidationError:
        return ""


class _RollBack(Exception):
    """Raised inside a dry run to undo it."""


def _blocker(ledger: Ledger, p: Proposal, draft: Draft) -> str:
    """Why this proposal cannot be accepted as it stands ("" when it can)."""
    if p.status not in OPEN:
        return f"proposal #{p.id} is {p.status}, not pending"
    if draft.op != "retract" and draft.value is not None:
        rejection = active_rejection(ledger, p.scope, draft.subject, draft.predicate, draft.value)
        if rejection is not None:
            return f"proposal #{p.id} repeats a rejected value (rejection #{rejection.id}); lift rejection #{rejection.id} first"
    return ""


def _run(
    ledger: Ledger, p: Proposal, draft: Draft, *, principal: str, reason: str
) -> tuple[str, TxResult, tuple[ClaimVersion, ...], Predicate | None]:
    """Apply `draft` as one ledger transaction; returns the op run, the result, the closed versions
    as they were believed just before, and the predicate it registered because nobody had defined it."""
    slot = slot_versions(ledger, p.scope, draft.subject, draft.predicate)
    with ledger.transaction(principal=principal, reason=reason, sources=p.sources) as tx:
        op, registered = apply_in_tx(tx, p.scope, draft, p.sources, force_supersede=True)
    assert tx.result is not None
    closed_ids = set(tx.result.closed)
    return op, tx.result, tuple(v for v in slot if v.id in closed_ids), registered


COMPETING_SHOWN = 10  # competing proposals a preview lists; the rest are counted


def competing_proposals(ledger: Ledger, p: Proposal, *, limit: int | None = None) -> list[Proposal]:
    """Other open proposals for the same slot (scope, subject, predicate), oldest first (the first `limit`)."""
    return recorder_for(ledger.storage).slot_proposals(
        scope=p.scope, subject_key=_subject_key(p), predicate=p.predicate, statuses=OPEN, exclude=p.id, limit=limit
    )


def slot_open_proposals(ledger: Ledger, scope: str, subject: str, predicate: str, *, limit: int = COMPETING_SHOWN) -> tuple[list[Proposal], int]:
    """The oldest `limit` open proposals for one slot, and how many there are: what a slot's page shows
    when the ledger holds no version of it yet."""
    try:
        subject_key, pred = key(subject, "subject"), predicate_key(predicate)
    except ValidationError:
        return [], 0
    rec = recorder_for(ledger.storage)
    where = dict(scope=scope, subject_key=subject_key, predicate=pred, statuses=OPEN, exclude=-1)
    return rec.slot_proposals(**where, limit=limit), rec.slot_proposal_count(**where)


def competing_count(ledger: Ledger, p: Proposal) -> int:
    return recorder_for(ledger.storage).slot_proposal_count(
        scope=p.scope, subject_key=_subject_key(p), predicate=p.predicate, statuses=OPEN, exclude=p.id
    )


def preview(ledger: Ledger, proposal_id: int, *, edit: Edit | None = None, wait: bool = True) -> Preview:
    """What `accept` would do to the ledger, without doing it: the same code runs in a savepoint that is
    rolled back, so the preview cannot drift from the accept. `wait=False` (a page a reader is waiting
    for) does not queue behind another writer: the preview then says it was not run (`busy`)."""
    p = get_proposal(ledger, proposal_id)
    draft = edit.applied_to(_draft_of(p)) if edit and not edit.empty else _draft_of(p)
    current = tuple(slot_versions(ledger, p.scope, p.subject, p.predicate))
    competing = tuple(competing_proposals(ledger, p, limit=COMPETING_SHOWN))
    total = len(competing) if len(competing) < COMPETING_SHOWN else competing_count(ledger, p)
    blocked = _blocker(ledger, p, draft)
    op, closes, opens, busy = "", (), (), ""
    if not blocked:
        outcome: list[Any] = []
        try:
            with ledger.storage.atomic(wait=wait):
                op, result, closes, _ = _run(ledger, p, draft, principal="operator:preview", reason="preview")
                outcome = [op, closes, tuple(result.opened)]
                raise _RollBack
        except _RollBack:
            op, closes, opens = outcome
        except BusyError as exc:
            if wait:
                raise
            busy = str(exc)
        except LedgerError as exc:
            blocked = str(exc)
    return Preview(p, op, closes, opens, current, competing, blocked, edit, busy, total)


def _insert_correction(ledger: Ledger, p: Proposal, draft: Draft, *, principal: str) -> int:
    """The reviewer's correction as a proposal of its own (the original stays as it was proposed)."""
    planned = Planned(scope=p.scope, draft=draft, sources=p.sources, extractor=principal, entry_id=None)
    return insert_proposal(
        ledger, planned, status="pending", decision="apply", policy="review",
        reason=f"reviewer's correction of proposal #{p.id}",
    )


def _accept_one(ledger: Ledger, proposal_id: int, *, principal: str, reason: str, edit: Edit | None) -> Accepted:
    p = get_proposal(ledger, proposal_id)
    draft = _draft_of(p)
    edited = edit is not None and not edit.empty
    if edited:
        assert edit is not None
        draft = edit.applied_to(draft)
    blocked = _blocker(ledger, p, draft)
    if blocked:
        raise ConflictError(blocked, field="proposal")
    target = p
    if edited:
        target = get_proposal(ledger, _insert_correction(ledger, p, draft, principal=principal))
    # The operator's own words stay on the proposal (review_reason), which erase reaches; the
    # append-only transaction names the proposal by id only.
    # (A correction's own proposal row names the original it corrects.)
    why = transaction_reason("review accept", target.id)
    _, result, closed, registered = _run(ledger, target, draft, principal=principal, reason=why)
    set_status(ledger, target.id, status="applied", tx=result.id, decided_by=principal, review_reason=reason or "accepted",
               reason=f"{target.reason}; {registration_receipt(registered)}" if registered else None)
    if edited:
        set_status(
            ledger, p.id, status="rejected", decided_by=principal,
            review_reason=f"corrected by the reviewer as proposal #{target.id}" + (f": {reason}" if reason else ""),
        )
    return Accepted(get_proposal(ledger, target.id), closed, tuple(result.opened), get_proposal(ledger, p.id) if edited else None,
                    (registered.name,) if registered else ())


def accept_one(ledger: Ledger, proposal_id: int, *, principal: str, reason: str = "", edit: Edit | None = None) -> Accepted:
    """Apply an open proposal as the operator (a held conflict is applied as a supersede: the operator
    has the last word), optionally with an edited value or valid time. With an edit the correction is
    stored as a new proposal that is applied, and the original is kept, marked corrected (rejected
    without rejection memory: its value is not barred). A rejected_again proposal is decidable once its
    rejection is lifted."""
    require_operator(principal)
    with ledger.storage.atomic():
        return _accept_one(ledger, proposal_id, principal=principal, reason=reason, edit=edit)


def accept(ledger: Ledger, proposal_id: int, *, principal: str, reason: str = "", edit: Edit | None = None) -> Proposal:
    """`accept_one`, returning the applied proposal."""
    return accept_one(ledger, proposal_id, principal=principal, reason=reason, edit=edit).proposal


def _check_batch(ledger: Ledger, ids: list[int]) -> list[Proposal]:
    if not ids:
        raise ValidationError("no proposals given", field="proposal")
    seen: dict[tuple[str, str, str], Proposal] = {}
    proposals = []
    for proposal_id in dict.fromkeys(ids):
        p = get_proposal(ledger, proposal_id)
        pred = ledger.predicate(p.predicate)
        one = (pred.cardinality if pred else p.cardinality) == "one"
        slot = (p.scope, _subject_key(p), p.predicate)
        if one and slot in seen:
            raise ConflictError(
                f"proposal #{seen[slot].id} and proposal #{p.id} compete for the same slot ({p.subject} {p.predicate});"
                " accepting both would let the later close the earlier: decide them one at a time",
                field="proposal",
            )
        seen[slot] = p
        proposals.append(p)
    return proposals


def accept_many(ledger: Ledger, ids: list[int], *, principal: str, reason: str = "") -> list[Accepted]:
    """Accept several proposals, each as its own ledger transaction, all or nothing. Two proposals for
    the same `one` slot are refused together (one would silently close the other)."""
    require_operator(principal)
    with ledger.storage.atomic():
        proposals = _check_batch(ledger, list(ids))
        return [_accept_one(ledger, p.id, principal=principal, reason=reason, edit=None) for p in proposals]


def _reject_one(ledger: Ledger, proposal_id: int, *, principal: str, reason: str, remember: bool = True) -> Proposal:
    p = get_proposal(ledger, proposal_id)
    if p.status not in OPEN:
        raise ConflictError(f"proposal #{p.id} is {p.status}; only pending proposals can be rejected", field="proposal")
    rejection_id = None
    if remember and p.op != "retract" and p.value is not None:
        rejection = record_rejection(
            ledger, scope=p.scope, subject=p.subject, predicate=p.predicate, value=p.value,
            principal=principal, reason=reason, proposal_id=p.id,
        )
        rejection_id = rejection.id
    set_status(
        ledger, p.id, status="rejected", decided_by=principal, review_reason=reason or "rejected",
        rejection_id=rejection_id,
    )
    return get_proposal(ledger, p.id)


def reject(ledger: Ledger, proposal_id: int, *, principal: str, reason: str = "") -> Proposal:
    """Reject a pending (or rejected-again) proposal; its value goes into rejection memory."""
    require_operator(principal)
    with ledger.storage.atomic():
        return _reject_one(ledger, proposal_id, principal=principal, reason=reason)


def reject_many(ledger: Ledger, ids: list[int], *, principal: str, reason: str = "", remember: bool = True) -> list[Proposal]:
    """Reject several proposals, all or nothing. `remember=False` (duplicates: the value is not wrong,
    only said again) keeps their values out of rejection memory, so the proposal they repeat can still
    be accepted."""
    require_operator(principal)
    if not ids:
        raise ValidationError("no proposals given", field="proposal")
    with ledger.storage.atomic():
        return [_reject_one(ledger, i, principal=principal, reason=reason, remember=remember) for i in dict.fromkeys(ids)]


def open_from_session(ledger: Ledger, session: str, *, scope: str | None = None) -> list[Proposal]:
    """The open proposals whose source turn was said in `session`, oldest first."""
    if not isinstance(session, str) or not session.strip():
        raise ValidationError("required", field="session")
    return recorder_for(ledger.storage).session_proposals(session=session, statuses=OPEN, scope=scope)


def confirm(ledger: Ledger, claim_id: int, *, principal: str, reason: str = "") -> Confirmation:
    """Mark a currently believed claim's value as operator-confirmed: the digest will not change it
    without review."""
    require_operator(principal)
    with ledger.storage.atomic():
        claim = ledger.claim(claim_id)
        if claim is None:
            raise NotFoundError(f"no claim version #{claim_id}", field="claim")
        if claim.tx_to is not None:
            raise ConflictError(f"claim version #{claim_id} is no longer believed (closed at {claim.tx_to})", field="claim")
        return record_confirmation(ledger, claim, principal=principal, reason=reason)


def _withdraw(ledger: Ledger, table: Literal["rejections", "confirmations"], row_id: int, *, principal: str, name: str, done: str) -> Any:
    """Mark one rejection or confirmation row lifted (once), as one transaction; returns it re-read."""
    require_operator(principal)
    recorder = recorder_for(ledger.storage)
    read = recorder.rejection if table == "rejections" else recorder.confirmation
    with ledger.storage.atomic():
        record = read(row_id)
        if record is None:
            raise NotFoundError(f"no {name} #{row_id}", field=name)
        if record.lifted_at is not None:
            raise ConflictError(f"{name} #{row_id} was already {done} by {record.lifted_by}", field=name)
        recorder.lift(table, row_id, at=ledger.clock(), by=principal)
        return read(row_id)


def lift(ledger: Ledger, rejection_id: int, *, principal: str) -> Rejection:
    """Remove a rejection: the value may be proposed and applied again, and the proposals that came
    back while it stood (rejected_again) return to the queue as pending, decidable again."""
    with ledger.storage.atomic():
        lifted = _withdraw(ledger, "rejections", rejection_id, principal=principal, name="rejection", done="lifted")
        for p in recorder_for(ledger.storage).rejected_again_by(rejection_id):
            set_status(
                ledger, p.id, status="pending", decision="hold",
                reason=f"{p.reason}; rejection #{rejection_id} lifted by {principal}: decide again",
            )
        return lifted


def unconfirm(ledger: Ledger, confirmation_id: int, *, principal: str) -> Confirmation:
    """Withdraw a confirmation: the digest may change the value again under its policy."""
    return _withdraw(ledger, "confirmations", confirmation_id, principal=principal, name="confirmation", done="withdrawn")


def list_rejections(ledger: Ledger, *, include_lifted: bool = False, scope: str | None = None) -> list[Rejection]:
    return recorder_for(ledger.storage).rejections(include_lifted=include_lifted, scope=scope)


def list_confirmations(ledger: Ledger, *, scope: str | None = None) -> list[Confirmation]:
    return recorder_for(ledger.storage).confirmations(scope=scope)



@dataclass(frozen=True)
class Detail:
    """Everything a reviewer needs to decide one proposal: its source turns, the context turns the
    extractor saw before them, the policy's reason (on the proposal), the slot's history and the
    accept preview."""

    proposal: Proposal
    turns: tuple[JournalEntry, ...]
    context: tuple[JournalEntry, ...]
    history: tuple[HistoryEntry, ...]
    preview: Preview

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.proposal.to_dict(),
            "turns": [t.to_dict() for t in self.turns],
            "context": [t.to_dict() for t in self.context],
            "history": [h.to_dict() for h in self.history],
            "preview": self.preview.to_dict(),
        }


def detail(ledger: Ledger, proposal_id: int, *, context_turns: int = 6, edit: Edit | None = None, wait: bool = True) -> Detail:
    p = get_proposal(ledger, proposal_id)
    journal = Journal(ledger)
    turns = tuple(t for t in (journal.entry(i) for i in journal_ids(p.sources)) if t is not None)
    context = tuple(journal.recent(turns[0], context_turns)) if turns else ()
    try:
        history = tuple(ledger.history([p.scope], subject=p.subject, predicate=p.predicate))
    except ValidationError:  # a dropped proposal may name no valid slot
        history = ()
    return Detail(p, turns, context, history, preview(ledger, proposal_id, edit=edit, wait=wait))
