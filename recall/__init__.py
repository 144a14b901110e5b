"""factledger.recall: hybrid retrieval over the ledger's claims (facts) and journal turns (episodes).

Lanes: lexical (SQLite FTS5, BM25; trigram for CJK), exact (a named subject and predicate), vector
(a LanceDB companion fed through an outbox, rebuilt from the ledger at will). Fusion and gating follow
a named RecallConfig. Imports run one way: this package uses factledger.ledger and factledger.schema.

Names are imported on first use (PEP 562), so a reader of one light module (index_meta for status,
config for a setting's check, render) does not pay for numpy and the engine (~0.5 s).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_HOMES = {  # name -> the module that defines it
    **dict.fromkeys(("PRESETS", "RecallConfig"), ".config"),
    **dict.fromkeys(("Embedder", "EmbedderError", "OpenAIEmbedder", "SentenceTransformerEmbedder", "StaticEmbedder",
                     "default_embedder"), ".embedders"),
    **dict.fromkeys(("CHANGED_HEADING", "EPISODE", "EPISODES_HEADING", "FACT", "FACTS_HEADING", "KINDS", "PROMPT_HEADING", "Episode", "Hit",
                     "LaneScores", "Memory", "VECTORS_IF_READY", "VECTORS_WAIT", "PromptBlock", "Recall", "RepairReport"),
                    ".engine"),
    "IndexStatus": ".index_meta",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value  # once: later look-ups are plain module attributes
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


if TYPE_CHECKING:  # type checkers and editors see the names as before
    from .config import PRESETS, RecallConfig
    from .embedders import Embedder, EmbedderError, OpenAIEmbedder, SentenceTransformerEmbedder, StaticEmbedder, default_embedder
    from .engine import (
        CHANGED_HEADING, EPISODE, EPISODES_HEADING, FACT, FACTS_HEADING, KINDS, PROMPT_HEADING, Episode, Hit, LaneScores, Memory,
        VECTORS_IF_READY, VECTORS_WAIT, PromptBlock, Recall, RepairReport,
    )
    from .index_meta import IndexStatus

__all__ = [
    "CHANGED_HEADING",
    "EPISODE",
    "EPISODES_HEADING",
    "FACT",
    "FACTS_HEADING",
    "KINDS",
    "PRESETS",
    "PROMPT_HEADING",
    "Episode",
    "PromptBlock",
    "VECTORS_IF_READY",
    "VECTORS_WAIT",
    "Embedder",
    "EmbedderError",
    "Hit",
    "IndexStatus",
    "LaneScores",
    "Memory",
    "OpenAIEmbedder",
    "Recall",
    "RecallConfig",
    "RepairReport",
    "SentenceTransformerEmbedder",
    "StaticEmbedder",
    "default_embedder",
]
