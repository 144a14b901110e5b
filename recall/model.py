"""Recall's own row types: what recall's storage (recorder.py) takes and returns, whatever the engine."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from factledger.ledger import ClaimVersion

FACT, EPISODE = "fact", "episode"
KINDS = (FACT, EPISODE)


@dataclass(frozen=True)
class Visibility:
    """The bound values of the visibility predicate: which scopes, valid when, as known when."""

    scopes: tuple[str, ...]
    valid_at: str
    known_at: str


@dataclass(frozen=True)
class Terms:
    """Query words for the lexical index (casefolded, no stop words), matched in the item's own
    sentence only (`body_only`) or in its sentence and its window neighbours' words."""

    words: tuple[str, ...]
    body_only: bool = False


@dataclass(frozen=True)
class LaneHit:
    id: int
    score: float
    own: bool = True  # the item's own sentence matched (not only its window neighbours' words)


@dataclass(frozen=True)
class Episode:
    """One journal turn as recall sees it: what was said, by whom, when, in which session.

    Evidence, never current truth: `said_at` is when it was said, `learned_at` when the ledger learned it
    (the episode's transaction time)."""

    id: int
    scope: str
    session: str | None
    role: str
    speaker: str
    text: str
    said_at: str
    learned_at: str

    @property
    def ref(self) -> str:
        return f"journal:{self.id}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class FactRecord:
    """A visible claim version, its sentence, and its window (the transaction that wrote it)."""

    claim: ClaimVersion
    text: str
    window: int


@dataclass(frozen=True)
class EpisodeRecord:
    """A visible episode and its session neighbours' ids (None at either end of the session)."""

    episode: Episode
    before: int | None
    after: int | None


@dataclass(frozen=True)
class VectorSource:
    """What the vector companion mirrors of one item: its scope, time columns and text to embed."""

    id: int
    scope: str
    valid_from: str
    valid_to: str | None
    tx_from: str
    tx_to: str | None
    text: str


@dataclass(frozen=True)
class OutboxEntry:
    kind: str
    seq: int
    item: int
    change: str


@dataclass(frozen=True)
class IndexState:
    """The vector companion's health and home, shared by every process on the ledger."""

    needs_repair: bool
    reason: str
    folder: str | None


@dataclass(frozen=True)
class LexicalFault:
    """A lexical row out of step with the ledger: `missing`, `differs` (its text), or `extra` (of no item)."""

    kind: str
    table: str
    id: int
    problem: str
