"""factledger.recall: hybrid retrieval over the ledger's claims.

Lanes: lexical (SQLite FTS5, BM25; trigram for CJK), exact (a named subject and predicate), vector
(a LanceDB companion fed through an outbox, rebuilt from the ledger at will). Fusion and gating follow
a named RecallConfig. Imports run one way: this package uses factledger.ledger and factledger.schema.
"""

from .config import PRESETS, RecallConfig
from .embedders import Embedder, EmbedderError, OpenAIEmbedder, SentenceTransformerEmbedder, StaticEmbedder, default_embedder
from .engine import PROMPT_HEADING, Hit, IndexStatus, LaneScores, Memory, Recall, RepairReport

__all__ = [
    "PRESETS",
    "PROMPT_HEADING",
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
