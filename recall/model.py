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
class VectorHit:
    """One vector lane neighbour: cosine similarity to the query (1 = same direction)."""

    kind: str
    id: int
    similarity: float


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

    @classmethod
    def from_row(cls, row: Any) -> "Episode":
        """From a row of the `episodes` view (either engine's rows read by column name)."""
        return cls(row["id"], row["scope"], row["session"], row["role"], row["speaker"], row["text"],
                   row["said_at"], row["tx_from"])

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class FactRecord:
    """A visible claim version and its sentence; its window is the transaction that wrote it."""

    claim: ClaimVersion
    text: str

    @property
    def window(self) -> int:
        return self.claim.opened_by


@dataclass(frozen=True)
class EpisodeRecord:
    """A visible episode and its session neighbours' ids (None at either end of the session)."""

    episode: Episode
    before: int | None
    after: int | None


@dataclass(frozen=True)
class SinceProbe:
    """One shown fact's lookup of what was said after it (the prompt block's "said since" lines).

    A turn matches when its own sentence (not its neighbours' words) holds every word of at least one
    group in `any_of` (each word as the lexical index stems it), it was said after the latest said-at
    of the fact's journal `sources` that still exist (else after `after`, the version's tx_from), and
    it is not one of those sources."""

    key: int
    any_of: tuple[tuple[str, ...], ...]
    after: str
    sources: tuple[int, ...] = ()


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

    @classmethod
    def from_row(cls, row: Any) -> "VectorSource":
        return cls(row["id"], row["scope"], row["valid_from"], row["valid_to"], row["tx_from"], row["tx_to"], row["text"])


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
