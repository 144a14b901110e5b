"""The one interface every extractor implements, and the factory that picks one from the config."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from factledger.ledger import ClaimVersion, LedgerError, Predicate

from .model import Draft, JournalEntry


@dataclass(frozen=True)
class ExtractionRequest:
    """What an extractor sees for one journal entry."""

    entry: JournalEntry  # the turn to digest
    recent: list[JournalEntry] = field(default_factory=list)  # earlier turns of the session, for context
    current: list[ClaimVersion] = field(default_factory=list)  # current claims of the entry's scope
    predicates: list[Predicate] = field(default_factory=list)  # the predicate registry
    # The held facts this turn talks about, most relevant first (digest/held.py), for an extractor that
    # asks for them (`held_limit`); None when not retrieved.
    held: list[ClaimVersion] | None = None
    # The assistant's answer to this turn, when the journal holds it: context only (the rules read which
    # words it writes as names: "moving to orlinby" answered by "… your new address in Orlinby").
    reply: JournalEntry | None = None


@dataclass(frozen=True)
class WindowRequest:
    """What a batched extractor sees for one window: consecutive undigested turns of one scope and
    session (every one of them to be digested), with earlier turns of the session as read-only context."""

    entries: list[JournalEntry]  # the turns to digest, oldest first
    recent: list[JournalEntry] = field(default_factory=list)  # earlier turns of the session, context only
    current: list[ClaimVersion] = field(default_factory=list)  # current claims of the scope, before the window
    predicates: list[Predicate] = field(default_factory=list)  # the predicate registry
    # The held facts the window talks about, most relevant first (digest/held.py), for an extractor that
    # asks for them (`held_limit`); None when not retrieved.
    held: list[ClaimVersion] | None = None


class ExtractorError(LedgerError):
    """The extractor could not produce proposals for an entry.

    kind: "unavailable" (timeouts, connection errors, 429/5xx after bounded retries), "refused" (the
    endpoint rejected the request: bad model name, key, 4xx) or "invalid_output" (the model's output
    stayed invalid after bounded re-asks). Only "invalid_output" is specific to the entry; the other two
    would fail every entry the same way, so a digest run stops at them.
    """

    def __init__(self, message: str, *, kind: str, attempts: int = 1):
        super().__init__(message, field="extractor")
        self.kind = kind
        self.attempts = attempts

    @property
    def transient(self) -> bool:
        return self.kind == "unavailable"

    @property
    def stops_run(self) -> bool:
        return self.kind != "invalid_output"


class Extractor(Protocol):
    """Turns one journal entry (with context) into draft proposals. Never writes."""

    name: str  # recorded on proposals and as the principal 'digest:<name>'
    # An extractor that shows a model the held facts sets `held_limit` (how many); the digester then
    # retrieves that many for each request (`held`). Without it, only `current` is given.

    def extract(self, request: ExtractionRequest) -> list[Draft]: ...


class WindowExtractor(Extractor, Protocol):
    """An extractor that reads a window of turns in one pass (one model call), and returns each turn's
    drafts under its entry id. Every draft must stand on a quote of its own turn; the digester checks."""

    window_turns: int  # at most this many turns per window
    window_chars: int  # and at most this many characters of their text

    def extract_window(self, request: WindowRequest) -> dict[int, list[Draft]]: ...
