"""The digest: journal entries -> extractor -> grounding -> rejection memory -> policy -> ledger.

Resumable and idempotent per journal entry: the model is called outside any write transaction, then an
entry's proposals, the ledger transactions they cause and the entry's "digested" mark are written in ONE
SQLite transaction. A crash leaves the entry undigested with nothing of it written; a rerun digests only
what is left. A broken model never loses the journal: its entries stay in the backlog with the error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from factledger.ledger import Ledger, LedgerError, ValidationError

from .config import check_policy
from .extractor import ExtractionRequest, Extractor, ExtractorError
from .grounding import ground
from .journal import Journal
from .memory import active_rejection, believed_claims, confirmed_values_touched
from .model import DigestReport, Draft, JournalEntry
from .policy import decide
from .proposals import Planned, check_draft, insert_proposal, set_status, try_apply

Progress = Callable[[int, int], None]  # (entries done, entries in this run)


class Digester:
    """Digest the journal backlog with one extractor under one policy."""

    def __init__(self, ledger: Ledger, extractor: Extractor, *, policy: str = "auto", context_turns: int = 6):
        self.ledger = ledger
        self.extractor = extractor
        self.policy = check_policy(policy)
        self.context_turns = context_turns
        self.journal = Journal(ledger)

    @property
    def principal(self) -> str:
        return f"digest:{self.extractor.name}"

    def run(self, *, limit: int | None = None, scopes: Sequence[str] | None = None, progress: Progress | None = None) -> DigestReport:
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise ValidationError("must be a non-negative whole number", field="limit")
        report = DigestReport(extractor=self.extractor.name, policy=self.policy)
        entries = self.journal.backlog(scopes=scopes, limit=limit)
        total = len(entries)
        if progress:
            progress(0, total)
        for done, entry in enumerate(entries, start=1):
            report.entries_seen += 1
            try:
                drafts = self.extractor.extract(self._request(entry))
            except ExtractorError as exc:
                self._record_failure(entry, exc)
                report.entries_failed += 1
                report.errors.append(f"journal:{entry.id}: {exc.message}")
                if exc.stops_run:  # the endpoint is down or refuses us: the rest would fail the same way
                    report.stopped_early = done < total
                    if progress:
                        progress(done, total)
                    break
            else:
                if self._commit(entry, drafts, report):
                    report.entries_digested += 1
            if progress:
                progress(done, total)
        report.backlog = self.journal.backlog_size(scopes=scopes)
        return report

    # -- one entry ------------------------------------------------------------------------------

    def _request(self, entry: JournalEntry) -> ExtractionRequest:
        return ExtractionRequest(
            entry=entry,
            recent=self.journal.recent(entry, self.context_turns),
            current=believed_claims(self.ledger, entry.scope),
            predicates=self.ledger.predicates(),
        )

    def _record_failure(self, entry: JournalEntry, exc: ExtractorError) -> None:
        with self.ledger.storage.atomic():
            self.ledger.storage.execute(
                "UPDATE journal SET attempts = attempts + 1, last_error = ? WHERE id = ? AND digested_at IS NULL",
                (exc.message[:1000], entry.id),
            )

    def _commit(self, entry: JournalEntry, drafts: list[Draft], report: DigestReport) -> bool:
        """Write the entry's proposals and their effects, and mark it digested: all or nothing."""
        storage = self.ledger.storage
        with storage.atomic():
            still = storage.one("SELECT digested_at FROM journal WHERE id = ?", (entry.id,))
            if still is None or still["digested_at"] is not None:
                return False  # erased, or digested meanwhile by another run
            statuses: list[str] = []
            txs: list[int] = []
            for ordinal, draft in enumerate(drafts):
                status, tx = self._one(entry, ordinal, draft)
                statuses.append(status)
                if tx is not None:
                    txs.append(tx)
            storage.execute(
                "UPDATE journal SET digested_at = ?, extractor = ?, last_error = '' WHERE id = ?",
                (self.ledger.clock(), self.extractor.name, entry.id),
            )
        for status in statuses:
            report.count(status)
        report.applied_txs.extend(txs)
        return True

    def _one(self, entry: JournalEntry, ordinal: int, draft: Draft) -> tuple[str, int | None]:
        ledger = self.ledger
        if draft.valid_from is None and not draft.all_valid_time:
            draft = Draft(**{**draft.__dict__, "valid_from": entry.said_at})  # DESIGN §2: when it was said
        planned = Planned(
            scope=entry.scope, draft=draft, sources=(entry.ref,), extractor=self.extractor.name, entry_id=entry.id, ordinal=ordinal
        )
        common = {"policy": self.policy}
        grounding = ground(draft.quote, [(entry.ref, entry.text)])
        if not grounding.grounded:
            insert_proposal(ledger, planned, status="dropped", decision="drop", reason=grounding.receipt, **common)
            return "dropped", None
        try:
            check_draft(draft)
        except LedgerError as exc:
            insert_proposal(ledger, planned, status="dropped", decision="drop", reason=f"dropped: invalid: {exc}", **common)
            return "dropped", None
        if draft.op != "retract":
            rejection = active_rejection(ledger, entry.scope, draft.subject, draft.predicate, draft.value)
            if rejection is not None:
                insert_proposal(
                    ledger,
                    planned,
                    status="rejected_again",
                    decision="reject",
                    reason=f"rejected again: {rejection.rejected_by} rejected this value (rejection #{rejection.id})",
                    rejection_id=rejection.id,
                    **common,
                )
                return "rejected_again", None
        touched = confirmed_values_touched(
            ledger,
            scope=entry.scope,
            subject=draft.subject,
            predicate=draft.predicate,
            op=draft.op,
            value=draft.value,
            replaces=draft.replaces,
            valid_from=draft.valid_from,
            valid_to=draft.valid_to,
            all_valid_time=draft.all_valid_time,
        )
        decision = decide(self.policy, touched=touched, extractor_hold=draft.note if draft.hold else "")
        if decision.action == "hold":
            insert_proposal(ledger, planned, status="pending", decision="hold", reason=decision.reason, **common)
            return "pending", None
        proposal_id = insert_proposal(ledger, planned, status="pending", decision="apply", reason=decision.reason, **common)
        reason = f"digest {self.policy}: proposal #{proposal_id} from {entry.ref}: {planned.describe()}"
        outcome = try_apply(ledger, planned, principal=self.principal, reason=reason)
        if outcome.status == "applied":
            assert outcome.result is not None
            set_status(ledger, proposal_id, status="applied", tx=outcome.result.id, decided_by=self.principal)
            return "applied", outcome.result.id
        set_status(
            ledger, proposal_id, status=outcome.status, reason=outcome.reason,
            decision="hold" if outcome.status == "pending" else "drop",
        )
        return outcome.status, None

