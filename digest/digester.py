"""The digest: journal entries -> extractor -> grounding -> rejection memory -> policy -> ledger.

Resumable and idempotent per journal entry: the extractor is called outside any write transaction (a
batched extractor once per window of consecutive turns of one scope and session), then each entry's
proposals, the ledger transactions they cause and the entry's "digested" mark are written in ONE SQLite
transaction per entry. A crash leaves the entries not yet committed undigested with nothing of them
written; a rerun digests only what is left. A broken model never loses the journal: its entries stay in
the backlog with the error.
"""

from __future__ import annotations


from collections.abc import Callable, Sequence

from factledger.ledger import Ledger, LedgerError, ValidationError
from factledger.ledger.keys import normalise
from factledger.ledger.portion import Span, undated_start
from factledger.ledger.times import UNKNOWN_START

from .config import check_policy
from .extractor import ExtractionRequest, Extractor, ExtractorError, WindowExtractor, WindowRequest
from .grounding import ground
from .held import held_for_window
from .journal import Journal, lease, new_holder, release
from .memory import active_rejection, believed_claims, confirmed_values_touched, slot_versions
from .model import DigestReport, Draft, JournalEntry
from .policy import decide
from .proposals import Planned, check_draft, insert_proposal, registration_receipt, set_status, transaction_reason, try_apply

Progress = Callable[[int, int], None]  # (entries done, entries in this run)


def plan_windows(entries: Sequence[JournalEntry], *, max_turns: int, max_chars: int) -> list[list[JournalEntry]]:
    """Cut a backlog (oldest first) into windows: runs of consecutive entries of one scope and session,
    each at most `max_turns` entries and `max_chars` characters of text (a longer single turn is a window
    of its own). Within a scope the order of entries is kept, so digesting window after window reads
    every scope's turns in the order they were journaled; scopes never share a window.
    """
    if max_turns < 1:
        raise ValidationError("must be at least 1", field="window_turns")
    windows: list[list[JournalEntry]] = []
    open_by_scope: dict[str, list[JournalEntry]] = {}
    for entry in entries:
        window = open_by_scope.get(entry.scope)
        if window is not None and (
            window[-1].session != entry.session
            or len(window) >= max_turns
            or sum(len(e.text) for e in window) + len(entry.text) > max_chars
        ):
            window = None
        if window is None:
            window = []
            windows.append(window)
            open_by_scope[entry.scope] = window
        window.append(entry)
    return windows


# How long a run may hold a window's entries before another run may take them (a crashed run's lease
# ends by itself): longer than a model call with its retries.
LEASE_SECONDS = 600.0


class _StopRun(Exception):
    """The extractor's endpoint is down or refuses us: every later window would fail the same way."""


class Digester:
    """Digest the journal backlog with one extractor under one policy."""

    def __init__(self, ledger: Ledger, extractor: Extractor, *, policy: str = "auto", context_turns: int = 6):
        self.ledger = ledger
        self.extractor = extractor
        self.policy = check_policy(policy)
        self.context_turns = context_turns
        self.journal = Journal(ledger)
        self._holder = new_holder()

    @property
    def holder(self) -> str:
        """This run's name on its leases: the process and this Digester."""
        return self._holder

    @property
    def principal(self) -> str:
        return f"digest:{self.extractor.name}"

    @property
    def batched(self) -> bool:
        return callable(getattr(self.extractor, "extract_window", None))

    def run(self, *, limit: int | None = None, scopes: Sequence[str] | None = None, progress: Progress | None = None) -> DigestReport:
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise ValidationError("must be a non-negative whole number", field="limit")
        report = DigestReport(extractor=self.extractor.name, policy=self.policy)
        entries = self.journal.backlog(scopes=scopes, limit=limit)
        total = len(entries)
        done = 0
        if progress:
            progress(0, total)
        if self.batched:
            extractor: WindowExtractor = self.extractor  # type: ignore[assignment]
            windows = plan_windows(entries, max_turns=extractor.window_turns, max_chars=extractor.window_chars)
        else:  # a per-entry extractor reads the ledger as the previous entry left it
            windows = [[entry] for entry in entries]
        for planned in windows:
            window = lease(self.ledger, planned, self.holder, LEASE_SECONDS)
            if len(window) < len(planned):  # another run (process) is digesting those entries
                report.entries_leased_elsewhere += len(planned) - len(window)
                done += len(planned) - len(window)
            if not window:
                continue
            try:
                self._window(window, report)
            except _StopRun:
                report.stopped_early = done + len(window) < total
                break
            finally:
                release(self.ledger, window, self.holder)
                done += len(window)
                if progress:
                    progress(done, total)
        report.backlog = self.journal.backlog_size(scopes=scopes)
        return report

    def _window(self, window: list[JournalEntry], report: DigestReport) -> None:
        """Extract one leased window (one model call) and commit each entry on its own."""
        report.entries_seen += len(window)
        try:
            drafts = self._extract(window)
        except ExtractorError as exc:
            for entry in window:
                self._record_failure(entry, exc)
                report.entries_failed += 1
                report.errors.append(f"journal:{entry.id}: {exc.message}")
            if exc.stops_run:  # the endpoint is down or refuses us: the rest would fail the same way
                raise _StopRun from None
            return
        # One model call for the window; each entry still commits on its own (see _commit).
        for entry in window:
            if self._commit(entry, drafts.get(entry.id, []), report):
                report.entries_digested += 1

    # -- extraction -----------------------------------------------------------------------------

    def _extract(self, window: list[JournalEntry]) -> dict[int, list[Draft]]:
        first = window[0]
        current = believed_claims(self.ledger, first.scope)
        predicates = self.ledger.predicates()
        recent = self.journal.recent(first, self.context_turns)
        # What a model is shown of the ledger: the held facts this window talks about (digest/held.py),
        # not the scope's first N. Retrieved only for an extractor that asks (the rules read `current`).
        held_limit = getattr(self.extractor, "held_limit", 0)
        held = held_for_window(self.ledger, first.scope, window, recent, limit=held_limit) if held_limit else None
        if self.batched:
            request = WindowRequest(entries=list(window), recent=recent, current=current, predicates=predicates, held=held)
            return self.extractor.extract_window(request)  # type: ignore[attr-defined]
        (entry,) = window
        return {entry.id: self.extractor.extract(
            ExtractionRequest(entry=entry, recent=recent, current=current, predicates=predicates, held=held,
                              reply=self._reply_to(entry)))}

    def _reply_to(self, entry: JournalEntry) -> JournalEntry | None:
        """The assistant's turn right after a user's `entry` in its scope and session (the next entry of
        the journal), when there is one."""
        if entry.role != "user":
            return None
        following = self.journal.entry(entry.id + 1)
        if following is None or following.role != "assistant" or following.scope != entry.scope or following.session != entry.session:
            return None
        return following

    # -- one entry ------------------------------------------------------------------------------

    def _record_failure(self, entry: JournalEntry, exc: ExtractorError) -> None:
        with self.ledger.storage.atomic():
            self.journal.recorder.record_failure(entry.id, exc.message[:1000])

    def _commit(self, entry: JournalEntry, drafts: list[Draft], report: DigestReport) -> bool:
        """Write the entry's proposals and their effects, and mark it digested: all or nothing."""
        storage = self.ledger.storage
        with storage.atomic():
            if not self.journal.recorder.undigested(entry.id):
                return False  # erased, or digested meanwhile by another run
            statuses: list[str] = []
            txs: list[int] = []
            registered: list[str] = []  # predicates nobody had defined that this entry's proposals registered
            for ordinal, draft in enumerate(drafts):
                status, tx = self._one(entry, ordinal, draft, registered)
                statuses.append(status)
                if tx is not None:
                    txs.append(tx)
            self.journal.recorder.mark_digested(entry.id, at=self.ledger.clock(), extractor=self.extractor.name)
        for status in statuses:
            report.count(status)
        report.applied_txs.extend(txs)
        report.undeclared.extend(registered)
        return True

    def _undated_from(self, entry: JournalEntry, draft: Draft) -> str:
        """The valid_from of a draft its turn gives no time for (DESIGN §2). A change (supersede, retract)
        is news when it was said. An assertion held since some moment nobody said, up to then: it starts
        unknown, bounded by what the slot held before (ledger.portion.undated_start)."""
        if draft.op != "add":
            return entry.said_at
        versions = slot_versions(self.ledger, entry.scope, draft.subject, draft.predicate)
        cardinality = versions[0].cardinality if versions else (draft.cardinality or "many")
        spans = [Span(v.value_key, v.value, v.valid_from, v.valid_to) for v in versions]
        wanted = normalise(draft.value or "")
        return undated_start(spans, wanted, cardinality, entry.said_at, UNKNOWN_START)

    def _one(self, entry: JournalEntry, ordinal: int, draft: Draft, registered: list[str]) -> tuple[str, int | None]:
        ledger = self.ledger
        if draft.valid_from is None and not draft.all_valid_time:
            draft = Draft(**{**draft.__dict__, "valid_from": self._undated_from(entry, draft)})
        draft = Draft(**{**draft.__dict__, "news_at": entry.said_at})
        planned = Planned(
            scope=entry.scope, draft=draft, sources=(entry.ref,), extractor=self.extractor.name, entry_id=entry.id, ordinal=ordinal
        )
        common = {"policy": self.policy}
        if draft.drop_reason:  # the extractor itself knows why this cannot stand (a receipt, not a claim)
            insert_proposal(ledger, planned, status="dropped", decision="drop", reason=draft.drop_reason, **common)
            return "dropped", None
        # Grounded in its OWN turn only: in a window, a quote from a neighbouring turn does not count.
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
        reason = transaction_reason(f"digest {self.policy}", proposal_id, entry.ref)
        outcome = try_apply(ledger, planned, principal=self.principal, reason=reason)
        if outcome.status == "applied":
            assert outcome.result is not None
            receipt = None
            if outcome.registered is not None:  # the receipt names it; the run's report lists it
                receipt = f"{decision.reason}; {registration_receipt(outcome.registered)}"
                registered.append(outcome.registered.name)
            set_status(ledger, proposal_id, status="applied", tx=outcome.result.id, decided_by=self.principal, reason=receipt)
            return "applied", outcome.result.id
        set_status(
            ledger, proposal_id, status=outcome.status, reason=outcome.reason,
            decision="hold" if outcome.status == "pending" else "drop",
        )
        return outcome.status, None

