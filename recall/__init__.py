"""factledger.recall: hybrid retrieval over the ledger's claims (facts) and journal turns (episodes).

Lanes: lexical (SQLite FTS5, BM25; trigram for CJK), exact (a named subject and predicate), vector
(a LanceDB companion fed through an outbox, rebuilt from the ledger at will). Fusion and gating follow
a named RecallConfig. Imports run one way: this package uses factledger.ledger and factledger.schema.
"""

from .config import PRESETS, RecallConfig
from .embedders import Embedder, EmbedderError, OpenAIEmbedder, SentenceTransformerEmbedder, StaticEmbedder, default_embedder
from .engine import (
    EPISODE, EPISODES_HEADING, FACT, FACTS_HEADING, KINDS, PROMPT_HEADING, Episode, Hit, IndexStatus, LaneScores, Memory,
    VECTORS_IF_READY, VECTORS_WAIT, PromptBlock, Recall, RepairReport,
)

__all__ = [
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
