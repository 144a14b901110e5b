"""Recall's storage interface: the lexical index (facts and episodes), the vector outboxes, the index
state, and the ledger reads recall makes, under the engine's one visibility predicate.

One implementation per engine (sqlite_recorder.py: FTS5; pg_recorder.py: tsvector/GIN), chosen by
`storage.engine` in `RECORDERS`. Every read that decides what a search may see splices the ledger's
visibility predicate (`Ledger.visible_sql()`) and binds the Visibility it is given; methods take and
return recall's own types (model.py), never driver rows. No SQL lives outside the two modules.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from factledger.ledger import ClaimVersion, StorageError

from .model import (
    EpisodeRecord, Episode, FactRecord, IndexState, LaneHit, LexicalFault, OutboxEntry, SinceProbe, Terms, VectorSource,
    Visibility,
)

if TYPE_CHECKING:
    from factledger.ledger import Ledger


class RecallRecorder(Protocol):
    """`kind` is "fact" (claim versions) or "episode" (journal turns) throughout."""

    # -- the lexical index ------------------------------------------------------------------------
    def indexed_max_id(self, kind: str) -> int:
        """The highest item id in the kind's lexical index (0 when empty): term counts go stale by it."""

    def document_frequencies(self, kind: str, words: Sequence[str]) -> dict[str, int]:
        """How many lexical rows hold each query word (as the index stems it); a cost estimate only."""

    def ranked_hits(
        self, kind: str, terms: Terms, seen: Visibility, *, depth: int, body_weight: float, context_weight: float,
        newest: bool, among: Sequence[int] | None = None,
    ) -> list[LaneHit]:
        """Rows matching any of the terms, visible under `seen`: BM25 order with the column weights
        (score = BM25, higher is better), or newest first (for terms too common to rank). `among`: the
        ids of every item visible under `seen` (a small set, from `visible_texts`), so the lookup starts
        from them instead of from the terms' postings; the scores are the same."""

    def about_topic(self, kind: str, ids: Sequence[int], words: Sequence[str]) -> tuple[set[int], set[int]]:
        """Of `ids`, those matching a word anywhere, and those matching one in their own sentence."""

    def trigram_hits(self, kind: str, grams: Sequence[str], seen: Visibility, depth: int) -> list[LaneHit]:
        """Rows with non-ASCII text holding any of the three-character grams, BM25 over trigrams."""

    def substring_hits(self, kind: str, run: str, seen: Visibility, depth: int) -> list[int]:
        """Rows with non-ASCII text containing `run` (a two-character CJK word)."""

    def lexical_row(self, kind: str, item: int) -> tuple[str, str] | None:
        """The indexed (body, context) of one item, or None."""

    def visible_texts(self, kind: str, seen: Visibility, limit: int) -> dict[int, str] | None:
        """Every item visible under `seen` with its indexed sentence (the text its vector embeds), or
        None when there are more than `limit` (then the lanes search the indexes instead)."""

    # -- what the exact lane and the vocabulary read ----------------------------------------------
    def claim_slots_after(self, last_id: int) -> list[tuple[int, str, str, str]]:
        """(id, scope, subject_key, predicate) of every claim version with a larger id, in id order."""

    def episode_speakers_after(self, last_id: int) -> list[tuple[int, str, str]]:
        """(id, scope, speaker) of every episode with a larger id, in id order."""

    def predicates_stamp(self) -> tuple:
        """Changes when a predicate is defined (cheap to read on every query)."""

    def predicate_displays(self) -> list[tuple[str, str]]:
        """(name, display) of every predicate."""

    def slot_claims(self, subject_key: str, predicate: str, seen: Visibility, limit: int) -> list[int]:
        """Ids of the slot's visible versions, newest first, at most `limit`."""

    def slots_claims(self, subject_keys: Sequence[str], predicate: str, seen: Visibility, limit: int) -> list[int]:
        """Ids of the visible versions of `predicate` for each of `subject_keys`, newest first within each
        subject, at most `limit` a subject: `slot_claims` for many subjects in one statement."""

    # -- reads of items ---------------------------------------------------------------------------
    def read_facts(self, ids: Sequence[int], seen: Visibility) -> list[FactRecord]:
        """The visible claim versions among `ids` (the ledger's re-read: it is the judge)."""

    def read_episodes(self, ids: Sequence[int], seen: Visibility) -> list[EpisodeRecord]:
        """The visible episodes among `ids`, with their session neighbours."""

    def said_since(self, probes: Sequence[SinceProbe], seen: Visibility, per_probe: int) -> list[tuple[int, EpisodeRecord]]:
        """(probe key, episode) for the turns visible under `seen` that each probe matches: at most
        `per_probe` per probe, the user's turns first, then newest first. One statement for all the
        probes (a block's facts), whatever their number."""

    def never_said(self, words: Sequence[str], seen: Visibility, *, users_only: bool = False) -> set[str]:
        """The words among `words` that no fact or episode visible under `seen` holds: as the lexical
        index stems them, nor (for a word of seven letters or more) as any word beginning with its first
        six ("precautionary" was said when "precaution" was: the stemmers keep those apart).
        `users_only`: an episode counts only when a user said it (the assistant asking "which hosts?"
        says no host of the user's)."""

    def texts(self, kind: str, ids: Sequence[int]) -> dict[int, str]:
        """The indexed sentence of each item among `ids` that exists."""

    def memories(self, seen: Visibility) -> list[tuple[ClaimVersion, str]]:
        """Every visible claim version with its sentence, by scope, subject, predicate, valid_from."""

    def episodes(self, seen: Visibility, *, session: str | None, limit: int | None) -> list[Episode]:
        """Visible episodes in said order (the latest `limit` when given), of one session or all."""

    # -- the vector companion's sources, outboxes and state ---------------------------------------
    def vector_sources(self, kind: str, ids: Sequence[int]) -> list[VectorSource]:
        """The items among `ids` that exist (visible or not: as-of search needs closed versions)."""

    def all_vector_sources(self, kind: str, batch: int) -> Iterator[VectorSource]:
        """Every item of the kind, in id order (a rebuild)."""

    def item_counts(self) -> dict[str, int]:
        """How many items of each kind the ledger holds."""

    def items_tx_to(self, kind: str) -> dict[int, str | None]:
        """Every item's id and tx_to (repair and verify compare the vector rows with it)."""

    def outbox_pending(self) -> bool:
        """Whether any outbox holds a change."""

    def outbox_count(self) -> int:
        """Changes waiting in both outboxes."""

    def outbox_batch(self, kind: str, limit: int) -> list[tuple[int, int]]:
        """The oldest (seq, item id) entries of the kind's outbox."""

    def outbox_drop_through(self, kind: str, seq: int) -> None:
        """Drained: remove the kind's entries up to `seq`."""

    def outbox_marks(self) -> dict[str, int]:
        """The latest seq of each kind's outbox (0 when empty)."""

    def outbox_entries(self) -> list[OutboxEntry]:
        """Every waiting change, facts then episodes, in seq order."""

    def outbox_waiting(self, kind: str, ids: Sequence[int]) -> set[int]:
        """The ids among `ids` with a change still queued."""

    def index_state(self) -> IndexState:
        ...

    def set_repair(self, flag: bool, reason: str, flagged_at: str | None) -> None:
        ...

    def record_folder(self, folder: str | None) -> None:
        """Record where the vector folder lives (None: the engine's default)."""

    def default_folder(self) -> Path:
        """The vector folder when the ledger records none."""

    def folder_base(self) -> Path | None:
        """What a relative recorded folder is relative to (the ledger file's folder), or None."""

    def vector_prefilter(self, seen: Visibility) -> str:
        """The visibility predicate with `seen` bound, as a filter over the vector rows' columns (which
        mirror the items' scope and time columns in the canonical text form)."""

    # -- verify -----------------------------------------------------------------------------------
    def lexical_faults(self) -> list[LexicalFault]:
        """Lexical rows missing, out of step with their item's text, or of no item."""


def _sqlite(storage, visible: str) -> RecallRecorder:
    from .sqlite_recorder import SqliteRecallRecorder

    return SqliteRecallRecorder(storage, visible)


def _postgres(storage, visible: str) -> RecallRecorder:
    from .pg_recorder import PostgresRecallRecorder

    return PostgresRecallRecorder(storage, visible)


# storage.engine -> the recorder for it: the explicit mapping (no handler found by naming convention).
RECORDERS = {"sqlite": _sqlite, "postgres": _postgres}


def recorder_for(ledger: "Ledger") -> RecallRecorder:
    """The recorder of the ledger's engine, over the ledger's visibility predicate."""
    engine = getattr(ledger.storage, "engine", None)
    make = RECORDERS.get(engine)
    if make is None:
        raise StorageError(f"recall has no recorder for the storage engine {engine!r}")
    return make(ledger.storage, ledger.visible_sql())
