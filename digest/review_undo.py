"""Undo a reviewer's decision, where the ledger allows it.

The ledger is append-only: an accept is undone by one more ledger transaction, the accept's exact
inverse (every version it opened is retracted, every version it closed is written again over its
interval, from its own sources). Both transactions stay in the ledger's history. This is allowed only while the slot is as the accept left it: no later
transaction opened or closed a version of the slot, and nobody confirmed a value it wrote. Otherwise a
later decision stands and the undo is refused with the reason (the reviewer can still supersede or
retract by hand).

A rejection is undone by lifting its rejection memory (proposals that came back while it stood return
to the queue too, as with `lift`).

A decided proposal keeps its decision (the review record is final: applied, rejected and dropped never
move back). What was proposed returns to the queue as a new pending proposal, a copy of it (same
operation, slot, value, valid time, quote and sources; policy "review", its reason naming the original
and the undo), and the original's review note says it was undone and by which proposal it reopens. An
accept with corrections (the reviewer's own proposal, see `accept_one`) is undone as a whole: the copy
is of the original, as the extractor proposed it.

One database transaction either way: nothing changes unless everything does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from factledger.ledger import ClaimVersion, ConflictError, Ledger

from .model import Proposal
from .proposals import Planned, insert_proposal, set_status, transaction_reason
from .recorder import recorder_for
from .review import _draft_of, _span, get_proposal, require_operator

_CORRECTION = re.compile(r"^reviewer's correction of proposal #(\d+)")
_CORRECTED = "corrected by the reviewer as proposal #"
_REOPENED = re.compile(r"reopened as proposal #(\d+)$")


def reopened_by(p: Proposal) -> int | None:
    """The proposal that reopens `p` when one of its decisions was undone (its review note says so)."""
    found = _REOPENED.search(p.review_reason or "")
    return int(found.group(1)) if found else None


@dataclass(frozen=True)
class Undone:
    """What an undo did: the decided proposal (its decision kept, its note saying it was undone), the
    pending copy that reopens it, the decision taken back, the ledger transaction of the inverse (an
    accept's; None for a rejection or an accept that changed no version), the versions that transaction
    closed and opened, and the rejection lifted."""

    proposal: Proposal
    reopened: Proposal
    decision: str  # "accept" or "reject"
    tx: int | None = None
    closed: tuple[ClaimVersion, ...] = ()
    opened: tuple[ClaimVersion, ...] = ()
    lifted: int | None = None

    def message(self) -> str:
        p = self.proposal
        if self.decision == "reject":
            memory = f"; rejection #{self.lifted} lifted" if self.lifted else ""
            return f"undid the rejection of proposal #{p.id}{memory}: {p.describe()} is pending again as proposal #{self.reopened.id}"
        closed = "; ".join(f"claim version #{v.id} {v.value!r} {_span(v)}" for v in self.closed) or "nothing"
        opened = "; ".join(f"claim version #{v.id} {v.value!r} {_span(v)}" for v in self.opened) or "nothing"
        head = f"undid the accept of proposal #{p.id}" + (f" in ledger transaction #{self.tx}" if self.tx else " (it had changed no version)")
        return f"{head}: closed {closed}; opened {opened}; {p.describe()} is pending again as proposal #{self.reopened.id}"

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.proposal.to_dict(), "undone": self.decision, "undo_tx": self.tx, "lifted": self.lifted,
            "reopened": self.reopened.to_dict(), "closed": [v.to_dict() for v in self.closed],
            "opened": [v.to_dict() for v in self.opened], "message": self.message(),
        }


def undo_decision(ledger: Ledger, proposal_id: int, *, principal: str, reason: str = "") -> Undone:
    """Take back a reviewer's accept or reject of `proposal_id` (see the module docstring); ConflictError
    names why when the ledger does not allow it."""
    require_operator(principal)
    with ledger.storage.atomic():
        p = get_proposal(ledger, proposal_id)
        copy = reopened_by(p)
        if copy is not None:
            raise ConflictError(f"the decision on proposal #{p.id} was already undone: proposal #{copy} reopens it", field="proposal")
        if p.status == "rejected" and p.decided_by and p.decided_by.startswith("operator:"):
            if p.review_reason and p.review_reason.startswith(_CORRECTED):
                correction = int(re.findall(r"\d+", p.review_reason[len(_CORRECTED):])[0])
                raise ConflictError(f"proposal #{p.id} was accepted with corrections as proposal #{correction}: "
                                    f"undo that accept (proposal #{correction})", field="proposal")
            return _undo_reject(ledger, p, principal=principal, reason=reason)
        if p.status == "applied" and p.tx is not None and p.decided_by and p.decided_by.startswith("operator:"):
            return _undo_accept(ledger, p, principal=principal, reason=reason)
        if p.status == "applied":
            raise ConflictError(f"proposal #{p.id} was applied by the digest's policy, not by a reviewer: retract "
                                "the value instead", field="proposal")
        raise ConflictError(f"proposal #{p.id} is {p.status.replace('_', ' ')}: no reviewer's decision to undo", field="proposal")


def _reopen(ledger: Ledger, decided: Proposal, original: Proposal, note: str) -> Proposal:
    """The pending copy of `original` (what the extractor proposed), and `decided`'s note saying so."""
    planned = Planned(scope=original.scope, draft=_draft_of(original), sources=original.sources, extractor=original.extractor)
    copy = insert_proposal(ledger, planned, status="pending", decision="hold", policy="review",
                           reason=f"reopened: {note} (proposal #{original.id})")
    set_status(ledger, decided.id, status=decided.status, review_reason=f"{decided.review_reason}; {note}: reopened as proposal #{copy}")
    return get_proposal(ledger, copy)


def _undo_reject(ledger: Ledger, p: Proposal, *, principal: str, reason: str) -> Undone:
    recorder = recorder_for(ledger.storage)
    lifted = None
    if p.rejection_id is not None:
        rejection = recorder.rejection(p.rejection_id)
        if rejection is not None and rejection.lifted_at is None:
            recorder.lift("rejections", rejection.id, at=ledger.clock(), by=principal)
            lifted = rejection.id
            for again in recorder.rejected_again_by(rejection.id):
                set_status(ledger, again.id, status="pending", decision="hold",
                           reason=f"{again.reason}; rejection #{rejection.id} lifted by {principal}: decide again")
    note = f"rejection undone by {principal}" + (f" ({reason})" if reason else "")
    copy = _reopen(ledger, p, p, note)
    return Undone(get_proposal(ledger, p.id), copy, "reject", lifted=lifted)


def _undo_accept(ledger: Ledger, p: Proposal, *, principal: str, reason: str) -> Undone:
    assert p.tx is not None
    recorder = recorder_for(ledger.storage)
    opened, closed = ledger.transaction_versions(p.tx)
    slots = {(v.scope, v.subject_key, v.predicate) for v in [*opened, *closed]}
    for scope, subject_key, predicate in sorted(slots):
        for v in recorder.slot_versions(scope=scope, subject_key=subject_key, predicate=predicate):
            later = [t for t in (v.opened_by, v.closed_by) if t is not None and t > p.tx]
            if later:
                raise ConflictError(f"cannot undo the accept of proposal #{p.id}: ledger transaction #{min(later)} changed "
                                    f"{v.subject} {v.predicate} after it; that later change stands", field="proposal")
        opened_ids = {v.id for v in opened}
        for c in recorder.slot_confirmations(scope=scope, subject_key=subject_key, predicate=predicate):
            if c.claim_id in opened_ids:
                raise ConflictError(f"cannot undo the accept of proposal #{p.id}: {c.confirmed_by} confirmed "
                                    f"{c.value!r} (confirmation #{c.id}); withdraw the confirmation first", field="proposal")
    original = p
    found = _CORRECTION.match(p.reason or "")
    if p.extractor == p.decided_by and p.policy == "review" and found:
        original = get_proposal(ledger, int(found.group(1)))
    undo_tx, undone_closed, restored = None, (), ()
    if opened or closed:  # an accept of what the slot already held changed no version: nothing to invert
        with ledger.transaction(principal=principal, reason=transaction_reason("review undo", original.id), sources=p.sources) as tx:
            for v in opened:
                tx.retract(v.scope, v.subject, v.predicate, v.value, valid_from=v.valid_from, valid_to=v.valid_to)
            for v in closed:
                tx.add(v.scope, v.subject, v.predicate, v.value, valid_from=v.valid_from, valid_to=v.valid_to,
                       source=list(v.source))
        assert tx.result is not None
        undo_tx = tx.result.id
        undone_closed = tuple(v for v in opened if v.id in set(tx.result.closed))
        restored = tuple(tx.result.opened)
    note = f"accept undone by {principal}" + (f" in ledger transaction #{undo_tx}" if undo_tx else "") + (f" ({reason})" if reason else "")
    copy = _reopen(ledger, p, original, note)
    return Undone(get_proposal(ledger, p.id), copy, "accept", undo_tx, undone_closed, restored)
