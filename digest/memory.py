"""Review memory: rejected values (kept out until lifted) and operator-confirmed values (not changed by
the digest without review). Both are keyed like ledger tombstones, on the keyed hash (HMAC with the
ledger's secret) of the normalised (scope, subject, predicate, value)."""

from __future__ import annotations

from factledger.ledger import ClaimVersion, Ledger
from factledger.ledger.keys import key, predicate_key

from .model import Confirmation, Rejection
from .recorder import recorder_for


def value_hash(ledger: Ledger, scope: str, subject: str, predicate: str, value: str) -> str:
    return ledger.content_key(scope, key(subject, "subject"), predicate_key(predicate), key(value, "value"))


def active_rejection(ledger: Ledger, scope: str, subject: str, predicate: str, value: str | None) -> Rejection | None:
    if value is None:
        return None
    return recorder_for(ledger.storage).active_rejection(value_hash(ledger, scope, subject, predicate, value))


def record_rejection(
    ledger: Ledger, *, scope: str, subject: str, predicate: str, value: str, principal: str, reason: str, proposal_id: int | None
) -> Rejection:
    """Remember a rejected value (or return the rejection already in force for it)."""
    existing = active_rejection(ledger, scope, subject, predicate, value)
    if existing is not None:
        return existing
    return recorder_for(ledger.storage).insert_rejection(
        content_hash=value_hash(ledger, scope, subject, predicate, value),
        scope=scope,
        subject_key=key(subject, "subject"),
        predicate=predicate_key(predicate),
        value_key=key(value, "value"),
        value=value.strip(),
        proposal_id=proposal_id,
        rejected_by=principal,
        rejected_at=ledger.clock(),
        reason=reason,
    )


def confirmed_values(ledger: Ledger, scope: str, subject: str, predicate: str) -> dict[str, Confirmation]:
    """Active confirmations of a slot, by value key."""
    confirmations = recorder_for(ledger.storage).slot_confirmations(
        scope=scope, subject_key=key(subject, "subject"), predicate=predicate_key(predicate)
    )
    return {c.value_key: c for c in confirmations}


def slot_versions(ledger: Ledger, scope: str, subject: str, predicate: str) -> list[ClaimVersion]:
    """The slot's versions as currently believed (open transaction time, any valid time)."""
    return recorder_for(ledger.storage).believed_versions(
        scope=scope, subject_key=key(subject, "subject"), predicate=predicate_key(predicate)
    )


def believed_claims(ledger: Ledger, scope: str, *, limit: int = 200) -> list[ClaimVersion]:
    """The scope's versions as currently believed, newest first (what an extractor sees as context)."""
    return recorder_for(ledger.storage).believed_claims(scope=scope, limit=limit)


def _overlaps(version: ClaimVersion, start: str | None, end: str | None) -> bool:
    return (start is None or version.valid_to is None or start < version.valid_to) and (
        end is None or version.valid_from < end
    )


def confirmed_values_touched(
    ledger: Ledger,
    *,
    scope: str,
    subject: str,
    predicate: str,
    op: str,
    value: str | None,
    replaces: str | None,
    valid_from: str | None,
    valid_to: str | None,
    all_valid_time: bool,
) -> list[Confirmation]:
    """Operator-confirmed values that a supersede or retract would cut (an add cuts nothing)."""
    if op == "add":
        return []
    confirmed = confirmed_values(ledger, scope, subject, predicate)
    if not confirmed:
        return []
    new_key = key(value, "value") if value is not None and op == "supersede" else None
    replaces_key = key(replaces, "replaces") if replaces else None
    target_key = key(value, "value") if value is not None and op == "retract" else None
    start, end = (None, None) if all_valid_time else (valid_from, valid_to)
    touched: list[Confirmation] = []
    pred = ledger.predicate(predicate)
    many = pred is not None and pred.cardinality == "many"
    for version in slot_versions(ledger, scope, subject, predicate):
        if version.value_key not in confirmed or not _overlaps(version, start, end):
            continue
        if op == "supersede":
            if version.value_key == new_key:
                continue
            if (many or replaces_key) and version.value_key != replaces_key:
                continue
        if op == "retract" and target_key is not None and version.value_key != target_key:
            continue
        confirmation = confirmed[version.value_key]
        if confirmation not in touched:
            touched.append(confirmation)
    return touched


def record_confirmation(ledger: Ledger, claim: ClaimVersion, *, principal: str, reason: str) -> Confirmation:
    digest = ledger.content_key(claim.scope, claim.subject_key, claim.predicate, claim.value_key)
    recorder = recorder_for(ledger.storage)
    existing = recorder.active_confirmation(digest)
    if existing is not None:
        return existing
    return recorder.insert_confirmation(
        content_hash=digest, scope=claim.scope, subject_key=claim.subject_key, predicate=claim.predicate,
        value_key=claim.value_key, value=claim.value, claim_id=claim.id, confirmed_by=principal,
        confirmed_at=ledger.clock(), reason=reason,
    )
