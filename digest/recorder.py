"""The digest's storage interface: every statement the digest runs on its tables, as typed methods.

Three small protocols — the journal (with leases), proposals, review memory — that one class per engine
implements (`sqlite_recorder.py`, `pg_recorder.py`); `recorder_for(storage)` picks it by
`storage.engine`. Methods take and return the digest's own records (digest/model.py) and the ledger's
`ClaimVersion`, never a driver's rows, and raise the ledger's errors. They write inside whatever
transaction the caller holds (`storage.atomic()`): transaction boundaries stay with the digest's logic.
Times in and out are the canonical text 'YYYY-MM-DDTHH:MM:SS.ffffffZ'.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, Protocol

from factledger.ledger import ClaimVersion, ScopeFamily, ValidationError

from .model import Confirmation, JournalEntry, NewProposal, Proposal, QueueFilter, Rejection, StatusChange, TextRow, Turn
from .pg_recorder import PostgresDigestRecorder
from .sqlite_recorder import SqliteDigestRecorder

ReviewTable = Literal["proposals", "rejections", "confirmations", "session_titles"]


class JournalRecorder(Protocol):
    """The journal's rows, the digest's marks on them, and the leases of digest runs."""

    def append_turn(self, turn: Turn, *, hash: str, redactions: Sequence[str], appended_at: str) -> int | None:
        """Insert a turn (already checked and sanitised); its id, or None when a turn with `hash` exists."""
        ...

    def append_turns(self, turns: Sequence[tuple[Turn, str, Sequence[str]]], *, appended_at: str) -> list[int | None]:
        """Insert (turn, hash, redactions) in order, in one transaction: each one's id, or None where a
        turn with its hash exists (an earlier one of the batch included). The recall lanes of the batch
        are written once for the batch where the engine can (SQLite: migration 0024)."""
        ...

    def entry_with_hash(self, hash: str) -> int | None: ...
    def entry(self, entry_id: int) -> JournalEntry | None: ...

    def backlog(self, *, scopes: Sequence[str] | None, limit: int | None) -> list[JournalEntry]:
        """Undigested entries, oldest first."""
        ...

    def backlog_size(self, *, scopes: Sequence[str] | None) -> int: ...

    def recent(self, entry: JournalEntry, count: int) -> list[JournalEntry]:
        """Up to `count` entries before `entry` in its scope and session, oldest first."""
        ...

    def entries(self, *, scope: str | None, limit: int) -> list[JournalEntry]:
        """Entries, newest first."""
        ...

    def undigested(self, entry_id: int) -> bool:
        """True while the entry exists and is not digested. Inside a write transaction it holds the entry:
        a concurrent transaction asking the same waits until this one ends, then sees what it wrote."""
        ...

    def mark_digested(self, entry_id: int, *, at: str, extractor: str) -> None: ...

    def record_failure(self, entry_id: int, message: str) -> None:
        """Count a failed attempt on an undigested entry, keeping the error."""
        ...

    def prune_digested(self, *, said_before: str, scopes: Sequence[str] | None) -> int:
        """Delete the digested entries said before a time; returns entries removed."""
        ...

    def first_appended(self, entry_ids: Sequence[int]) -> str | None:
        """The earliest appended_at among these entries (None when none exists)."""
        ...

    def delete_entry(self, entry_id: int) -> int:
        """Delete one entry; returns entries removed (0 or 1)."""
        ...

    def delete_derived_proposals(self, entry_id: int) -> int:
        """Delete the proposals derived from an entry (by entry_id, or citing 'journal:<id>' in their
        sources); returns proposals removed."""
        ...

    def replace_entry(self, entry_id: int, *, texts: Mapping[str, str], hash: str, redactions: Sequence[str]) -> None:
        """Delete the entry and insert it again under its id with new texts, hash and redactions (the
        journal's insert and delete triggers follow); nothing when an entry with `hash` already exists."""
        ...

    def lease(self, entry_ids: Sequence[int], *, holder: str, now: str, until: str) -> set[int]:
        """Expire leases ended by `now`, lease to `holder` until `until` the undigested entries among
        `entry_ids` that no one holds; returns the ids `holder` now holds among them."""
        ...

    def release(self, entry_ids: Sequence[int], *, holder: str) -> None: ...

    def lease_holders(self, entry_ids: Sequence[int]) -> set[str]:
        """Who holds a lease on any of these entries (ended or not)."""
        ...


class ProposalRecorder(Protocol):
    """Proposals: inserted once, then decided."""

    def insert_proposal(self, proposal: NewProposal) -> int: ...
    def set_status(self, proposal_id: int, change: StatusChange) -> None: ...
    def proposal(self, proposal_id: int) -> Proposal | None: ...

    def proposals(self, *, statuses: Sequence[str] | None, scope: str | None, limit: int) -> list[Proposal]:
        """Newest first; `statuses` None means every status."""
        ...

    def queue(self, f: QueueFilter, *, oldest_first: bool, limit: int, offset: int) -> list[Proposal]:
        """One page of the proposals `f` selects, by id (oldest or newest first)."""
        ...

    def queue_counts(self, f: QueueFilter) -> dict[str, int]:
        """How many proposals `f` selects, per status (statuses with none are absent)."""
        ...

    def proposal_scopes(self) -> list[str]:
        """Every scope that has proposals, sorted."""
        ...

    def proposals_of_transaction(self, tx_id: int) -> list[Proposal]: ...

    def slot_proposals(self, *, scope: str, subject_key: str, predicate: str, statuses: Sequence[str], exclude: int,
                       limit: int | None = None) -> list[Proposal]:
        """Proposals for one slot in these statuses, but `exclude`, oldest first (the first `limit`)."""
        ...

    def slot_proposal_count(self, *, scope: str, subject_key: str, predicate: str, statuses: Sequence[str], exclude: int) -> int:
        """How many proposals `slot_proposals` would list without a limit."""
        ...

    def session_proposals(self, *, session: str, statuses: Sequence[str], scope: str | None) -> list[Proposal]:
        """Proposals in these statuses whose source entry was said in `session`, oldest first."""
        ...

    def rejected_again_by(self, rejection_id: int) -> list[Proposal]:
        """The rejected_again proposals that matched this rejection."""
        ...


class ReviewMemoryRecorder(Protocol):
    """Rejections and confirmations, the believed versions the digest weighs, and erase's reach into
    the digest's tables."""

    def active_rejection(self, content_hash: str) -> Rejection | None: ...
    def rejection(self, rejection_id: int) -> Rejection | None: ...

    def insert_rejection(
        self, *, content_hash: str, scope: str, subject_key: str, predicate: str, value_key: str, value: str,
        proposal_id: int | None, rejected_by: str, rejected_at: str, reason: str,
    ) -> Rejection: ...

    def rejections(self, *, include_lifted: bool, scope: str | None) -> list[Rejection]:
        """Newest first."""
        ...

    def active_confirmation(self, content_hash: str) -> Confirmation | None: ...
    def confirmation(self, confirmation_id: int) -> Confirmation | None: ...

    def insert_confirmation(
        self, *, content_hash: str, scope: str, subject_key: str, predicate: str, value_key: str, value: str,
        claim_id: int | None, confirmed_by: str, confirmed_at: str, reason: str,
    ) -> Confirmation: ...

    def slot_confirmations(self, *, scope: str, subject_key: str, predicate: str) -> list[Confirmation]:
        """The slot's active confirmations."""
        ...

    def confirmations(self, *, scope: str | None) -> list[Confirmation]:
        """Active confirmations, newest first."""
        ...

    def lift(self, table: Literal["rejections", "confirmations"], row_id: int, *, at: str, by: str) -> None:
        """Mark a rejection or confirmation lifted."""
        ...

    def believed_versions(self, *, scope: str, subject_key: str, predicate: str) -> list[ClaimVersion]:
        """The slot's versions with open transaction time, by valid_from."""
        ...

    def believed_claims(self, *, scope: str, limit: int) -> list[ClaimVersion]:
        """The scope's versions with open transaction time, newest first."""
        ...

    def believed_matching(self, *, scope: str, patterns: Sequence[str], per_pattern: int, limit: int) -> list[ClaimVersion]:
        """The scope's versions with open transaction time that have a word (of the subject but "user",
        the predicate with underscores read as spaces, or the value keys) matching one of the LIKE
        `patterns` ('% word-start%'): for each pattern its newest `per_pattern` matches, and the `limit`
        versions matching most patterns. In no particular order (the caller ranks them)."""
        ...

    def believed_of_subjects(self, *, scope: str, subject_keys: Sequence[str], limit: int) -> list[ClaimVersion]:
        """The versions with open transaction time of these subjects, newest first."""
        ...

    def believed_core(self, *, scope: str, subject_key: str, limit: int) -> list[ClaimVersion]:
        """The subject's current versions (open transaction and valid time) of `one` predicates, newest first."""
        ...

    def text_rows(self, table: Literal["journal", "proposals", "rejections", "confirmations", "session_titles"],
                  family: ScopeFamily) -> list[TextRow]:
        """Every row of `table` in the family's scopes, by id, with its free-text columns."""
        ...

    def redact_row(self, table: ReviewTable, row_id: int, texts: Mapping[str, str]) -> None:
        """Set free-text columns (model.FREE_TEXT) of one row."""
        ...

    def delete_row(self, table: Literal["proposals", "confirmations"], row_id: int) -> None: ...


class UndoRecorder(Protocol):
    """What taking back a conversation's turns reads (digest/undo.py): a session's entries, the proposals
    of entries, a slot's versions and the evidence each version cites."""

    def session_entries(self, *, scope: str, session: str) -> list[JournalEntry]:
        """The entries of one session in one scope, oldest first."""
        ...

    def entry_proposals(self, entry_ids: Sequence[int]) -> list[Proposal]:
        """The proposals digested from these entries (by entry_id), oldest first."""
        ...

    def slot_versions(self, *, scope: str, subject_key: str, predicate: str) -> list[ClaimVersion]:
        """Every version of the slot, believed or not, by id."""
        ...

    def claim_evidence(self, claim_ids: Sequence[int]) -> dict[int, frozenset[str]]:
        """Per version, every reference that supports it: its own sources and the provenance of writes
        that said it again (claim_provenance)."""
        ...


class SessionTitleRecorder(Protocol):
    """The title a host gives a conversation (schema: session_titles), one row per scope and session."""

    def set_session_title(self, *, scope: str, session: str, title: str, at: str) -> bool:
        """Record (or replace) the session's title; False when it already had this title."""
        ...

    def session_titles(self, *, scope: str | None, sessions: Sequence[str]) -> dict[str, str]:
        """The titles of these sessions (in `scope`, or any scope: the most recent title), by session."""
        ...

    def recent_session_titles(self, limit: int) -> list[tuple[str, str]]:
        """(session, title) of the sessions titled most recently, newest first."""
        ...


class DigestRecorder(JournalRecorder, ProposalRecorder, ReviewMemoryRecorder, UndoRecorder, SessionTitleRecorder, Protocol):
    """Everything the digest stores."""


# The engines, by `storage.engine` (ledger/storage.py: "sqlite", ledger/pg_storage.py: "postgres").
RECORDERS: dict[str, type] = {
    "sqlite": SqliteDigestRecorder,
    "postgres": PostgresDigestRecorder,
}


def recorder_for(storage: object) -> DigestRecorder:
    """The digest recorder of this storage's engine."""
    engine = getattr(storage, "engine", None)
    try:
        recorder = RECORDERS[engine]  # type: ignore[index]
    except KeyError:
        raise ValidationError(f"the digest has no recorder for engine {engine!r}", field="engine") from None
    return recorder(storage)
