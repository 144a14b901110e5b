"""Taking back conversation turns (a host's /undo): what the turns said leaves memory, whatever the digest
already made of it.

The provenance the digest records decides what goes. An undone turn's journal entry is deleted (so its
episode leaves recall); a proposal still pending from it alone is withdrawn; a version the digest applied
from it is retracted when every reference supporting it (its sources and the provenance of writes that
said it again) is an undone turn, and what that version displaced (the value the turn superseded or
retracted) is believed again. A version also supported by another turn, one a person accepted in
review, and a value a person confirmed stay, each with the reason in the result. One database
transaction: the retractions are one ledger transaction, and nothing changes unless everything does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from factledger.ledger import ClaimVersion, Ledger, ValidationError, check_principal

from .journal import journal_ids
from .model import JournalEntry, Proposal
from .proposals import set_status
from .recorder import recorder_for

Interval = tuple[str, "str | None"]  # [valid_from, valid_to), None: open-ended


@dataclass(frozen=True)
class Kept:
    """A version supported by an undone turn that stays, and why."""

    claim: ClaimVersion
    why: str

    def describe(self) -> str:
        c = self.claim
        return f"{c.subject} {c.predicate} {c.value} (claim {c.id}) stays: {self.why}"


@dataclass
class UndoResult:
    entries_removed: int = 0
    retracted: list[ClaimVersion] = field(default_factory=list)
    restored: list[ClaimVersion] = field(default_factory=list)  # versions believed again (as reopened)
    kept: list[Kept] = field(default_factory=list)
    withdrawn: list[int] = field(default_factory=list)  # proposal ids
    tx: int | None = None  # the ledger transaction of the retractions (None: no fact changed)

    def summary(self) -> str:
        parts = [f"{self.entries_removed} turn entries removed", f"{len(self.retracted)} facts retracted"]
        if self.restored:
            parts.append(f"{len(self.restored)} earlier values believed again")
        if self.withdrawn:
            parts.append(f"{len(self.withdrawn)} pending proposals withdrawn")
        if self.kept:
            parts.append("kept: " + "; ".join(k.describe() for k in self.kept))
        return ", ".join(parts)


def undo_entries(ledger: Ledger, refs: Iterable[str], *, principal: str, reason: str) -> UndoResult:
    """Take back the journal entries named by `journal:<id>` refs (see the module docstring). Entries
    already gone are skipped; `reason` names the undo on the ledger transaction and the withdrawals."""
    check_principal(principal)
    if not isinstance(reason, str) or not reason.strip():
        raise ValidationError("say why the turns are taken back", field="reason")
    ids = journal_ids(refs)
    result = UndoResult()
    if not ids:
        return result
    recorder = recorder_for(ledger.storage)
    with ledger.storage.atomic():
        # `undigested` holds each entry (PostgreSQL: FOR UPDATE), so a digest run committing one of them
        # finishes first and what it applied is taken back here too.
        for entry_id in ids:
            recorder.undigested(entry_id)
        entries = [e for e in (recorder.entry(i) for i in ids) if e is not None]
        undone = frozenset(e.ref for e in entries)
        proposals = recorder.entry_proposals([e.id for e in entries if e.digested_at is not None])
        for p in proposals:
            if p.status == "pending" and set(p.sources) <= undone:
                set_status(ledger, p.id, status="dropped", decision="drop", decided_by=principal,
                           reason=f"withdrawn: {reason}")
                result.withdrawn.append(p.id)
        _take_back_facts(ledger, proposals, undone, principal=principal, reason=reason, result=result)
        for entry in entries:
            if entry.digested_at is None:  # an undigested entry's proposals can only be leftovers
                recorder.delete_derived_proposals(entry.id)
            result.entries_removed += recorder.delete_entry(entry.id)
    return result


def _take_back_facts(ledger: Ledger, proposals: Sequence[Proposal], undone: frozenset[str], *, principal: str,
                     reason: str, result: UndoResult) -> None:
    recorder = recorder_for(ledger.storage)
    applied = [p for p in proposals if p.status == "applied" and p.tx is not None]
    for p in applied:
        if _by_person(p.decided_by):
            for claim in ledger.transaction_versions(p.tx)[0]:  # type: ignore[arg-type]
                if claim.tx_to is None:
                    result.kept.append(Kept(claim, f"accepted in review by {p.decided_by}"))
    undone_txs = {p.tx for p in applied if not _by_person(p.decided_by)}
    slots: dict[tuple[str, str, str], None] = {}
    for tx_id in sorted(undone_txs):  # type: ignore[type-var]
        opened, closed = ledger.transaction_versions(tx_id)  # type: ignore[arg-type]
        for v in [*opened, *closed]:
            slots.setdefault((v.scope, v.subject_key, v.predicate), None)
    retract: list[ClaimVersion] = []
    restore: list[tuple[ClaimVersion, Interval]] = []
    for scope, subject_key, predicate in slots:
        versions = recorder.slot_versions(scope=scope, subject_key=subject_key, predicate=predicate)
        evidence = recorder.claim_evidence([v.id for v in versions])
        confirmed = {c.value_key for c in recorder.slot_confirmations(scope=scope, subject_key=subject_key, predicate=predicate)}
        gone: list[ClaimVersion] = []
        for v in versions:
            if v.tx_to is not None or v.opened_by not in undone_txs or not evidence[v.id] & undone:
                continue
            if v.value_key in confirmed:
                result.kept.append(Kept(v, "a person confirmed this value"))
            elif evidence[v.id] <= undone:
                gone.append(v)
            else:
                others = ", ".join(sorted(evidence[v.id] - undone))
                result.kept.append(Kept(v, f"also supported by {others}"))
        retract.extend(gone)
        restore.extend(_displaced(versions, gone, evidence, undone, undone_txs))
    if not retract and not restore:
        return
    with ledger.transaction(principal=principal, reason=reason, sources=sorted(undone)) as tx:
        for v in retract:
            tx.retract(v.scope, v.subject, v.predicate, v.value, valid_from=v.valid_from, valid_to=v.valid_to)
        for v, (start, end) in restore:
            tx.add(v.scope, v.subject, v.predicate, v.value, valid_from=start, valid_to=end, source=list(v.source))
    assert tx.result is not None
    result.tx = tx.result.id
    result.retracted.extend(retract)
    opened = tx.result.opened
    result.restored.extend(o for o in opened if any(o.value_key == v.value_key for v, _ in restore))


def _displaced(versions: Sequence[ClaimVersion], gone: Sequence[ClaimVersion], evidence: dict[int, frozenset[str]],
               undone: frozenset[str], undone_txs: set[int | None]) -> list[tuple[ClaimVersion, Interval]]:
    """What the undone transactions took from the slot and should hold again: the parts of versions they
    closed that nothing believed covers once `gone` is retracted. Only when every transaction that
    touched the slot since the first undone one is undone itself: a later decision about the slot (a
    person's, or another turn's) stands, and only the retraction is made."""
    first = min(t for t in undone_txs if t is not None)
    later = {v.opened_by for v in versions if v.opened_by >= first} | {
        v.closed_by for v in versions if v.closed_by is not None and v.closed_by >= first}
    if not later <= undone_txs:
        return []
    gone_ids = {v.id for v in gone}
    staying = [v for v in versions if v.tx_to is None and v.id not in gone_ids]
    one = bool(versions) and versions[0].cardinality == "one"
    restore: list[tuple[ClaimVersion, Interval]] = []
    for v in versions:
        if v.closed_by not in undone_txs or evidence[v.id] <= undone:
            continue
        covering = [(s.valid_from, s.valid_to) for s in staying if one or s.value_key == v.value_key]
        covering += [span for r, span in restore if one or r.value_key == v.value_key]
        restore.extend((v, gap) for gap in _minus((v.valid_from, v.valid_to), covering))
    return restore


def _minus(interval: Interval, cuts: Sequence[Interval]) -> list[Interval]:
    """`interval` without the parts any of `cuts` cover (canonical times compare as text)."""
    pieces = [interval]
    for cut_start, cut_end in cuts:
        kept: list[Interval] = []
        for start, end in pieces:
            if (cut_end is not None and cut_end <= start) or (end is not None and end <= cut_start):
                kept.append((start, end))
                continue
            if start < cut_start:
                kept.append((start, cut_start))
            if cut_end is not None and (end is None or cut_end < end):
                kept.append((cut_end, end))
        pieces = kept
    return pieces


def _by_person(principal: str | None) -> bool:
    return bool(principal) and principal.startswith("operator:")  # type: ignore[union-attr]


def session_turns(ledger: Ledger, *, scope: str, session: str) -> list[JournalEntry]:
    """The journal entries of one session in one scope, oldest first (what an undo is matched against)."""
    return recorder_for(ledger.storage).session_entries(scope=scope, session=session)
