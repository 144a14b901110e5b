"""Review, operator only: list and show proposals, accept, reject, confirm values, lift rejections.

Every decision is recorded with the operator's name. Accepting applies the proposal as the operator
(a held conflict is applied as a supersede: the operator has the last word). Rejecting an add or
supersede stores its normalised (scope, subject, predicate, value) in rejection memory.
"""

from __future__ import annotations

from typing import Any

from factledger.ledger import ConflictError, Ledger, NotFoundError, PermissionDenied, ValidationError, check_principal

from .memory import record_confirmation, record_rejection
from .model import Confirmation, Draft, Proposal, Rejection
from .proposals import Planned, apply_in_tx, load_proposal, set_status

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
    sql = "SELECT * FROM proposals WHERE 1 = 1"
    params: list[object] = []
    if wanted is not None:
        sql += f" AND status IN ({', '.join('?' for _ in wanted)})"
        params.extend(wanted)
    if scope is not None:
        sql += " AND scope = ?"
        params.append(scope)
    sql += " ORDER BY id DESC LIMIT ?"
    params.append(int(limit))
    return [Proposal.from_row(r) for r in ledger.storage.query(sql, params)]


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
    )


def accept(ledger: Ledger, proposal_id: int, *, principal: str, reason: str = "") -> Proposal:
    """Apply a pending proposal as the operator."""
    require_operator(principal)
    with ledger.storage.atomic():
        p = get_proposal(ledger, proposal_id)
        if p.status == "rejected_again":
            raise ConflictError(
                f"proposal #{p.id} repeats a rejected value (rejection #{p.rejection_id}); lift the rejection first",
                field="proposal",
            )
        if p.status != "pending":
            raise ConflictError(f"proposal #{p.id} is {p.status}, not pending", field="proposal")
        planned = Planned(scope=p.scope, draft=_draft_of(p), sources=p.sources, extractor=p.extractor, entry_id=p.entry_id)
        # By id, never by value: the reason is append-only and erase cannot take a value out of it.
        why = f"review accept of proposal #{p.id}" + (f": {reason}" if reason else "")
        with ledger.transaction(principal=principal, reason=why, sources=p.sources) as tx:
            apply_in_tx(tx, p.scope, planned.draft, p.sources, force_supersede=True)
        set_status(ledger, p.id, status="applied", tx=tx.id, decided_by=principal, review_reason=reason or "accepted")
        return get_proposal(ledger, p.id)


def reject(ledger: Ledger, proposal_id: int, *, principal: str, reason: str = "") -> Proposal:
    """Reject a pending (or rejected-again) proposal; its value goes into rejection memory."""
    require_operator(principal)
    with ledger.storage.atomic():
        p = get_proposal(ledger, proposal_id)
        if p.status not in ("pending", "rejected_again"):
            raise ConflictError(f"proposal #{p.id} is {p.status}; only pending proposals can be rejected", field="proposal")
        rejection_id = None
        if p.op != "retract" and p.value is not None:
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


def confirm(ledger: Ledger, claim_id: int, *, principal: str, reason: str = "") -> Confirmation:
    """Mark a currently believed claim's value as operator-confirmed: the digest will not change it
    without review."""
    require_operator(principal)
    with ledger.storage.atomic():
        claim = ledger.claim(claim_id)
        if claim is None:
            raise NotFoundError(f"no claim #{claim_id}", field="claim")
        if claim.tx_to is not None:
            raise ConflictError(f"claim #{claim_id} is no longer believed (closed at {claim.tx_to})", field="claim")
        return record_confirmation(ledger, claim, principal=principal, reason=reason)


def _withdraw(ledger: Ledger, table: str, record: Any, row_id: int, *, principal: str, name: str, done: str) -> Any:
    """Mark one rejection or confirmation row lifted (once), as one transaction; returns it re-read."""
    require_operator(principal)
    with ledger.storage.atomic():
        row = ledger.storage.one(f"SELECT * FROM {table} WHERE id = ?", (row_id,))
        if row is None:
            raise NotFoundError(f"no {name} #{row_id}", field=name)
        if row["lifted_at"] is not None:
            raise ConflictError(f"{name} #{row_id} was already {done} by {row['lifted_by']}", field=name)
        ledger.storage.execute(
            f"UPDATE {table} SET lifted_at = ?, lifted_by = ? WHERE id = ?", (ledger.clock(), principal, row_id)
        )
        return record.from_row(ledger.storage.one(f"SELECT * FROM {table} WHERE id = ?", (row_id,)))


def lift(ledger: Ledger, rejection_id: int, *, principal: str) -> Rejection:
    """Remove a rejection: the value may be proposed and applied again."""
    return _withdraw(ledger, "rejections", Rejection, rejection_id, principal=principal, name="rejection", done="lifted")


def unconfirm(ledger: Ledger, confirmation_id: int, *, principal: str) -> Confirmation:
    """Withdraw a confirmation: the digest may change the value again under its policy."""
    return _withdraw(
        ledger, "confirmations", Confirmation, confirmation_id, principal=principal, name="confirmation", done="withdrawn"
    )


def list_rejections(ledger: Ledger, *, include_lifted: bool = False, scope: str | None = None) -> list[Rejection]:
    sql = "SELECT * FROM rejections WHERE 1 = 1"
    params: list[object] = []
    if not include_lifted:
        sql += " AND lifted_at IS NULL"
    if scope is not None:
        sql += " AND scope = ?"
        params.append(scope)
    return [Rejection.from_row(r) for r in ledger.storage.query(sql + " ORDER BY id DESC", params)]


def list_confirmations(ledger: Ledger, *, scope: str | None = None) -> list[Confirmation]:
    sql = "SELECT * FROM confirmations WHERE lifted_at IS NULL"
    params: list[object] = []
    if scope is not None:
        sql += " AND scope = ?"
        params.append(scope)
    return [Confirmation.from_row(r) for r in ledger.storage.query(sql + " ORDER BY id DESC", params)]
