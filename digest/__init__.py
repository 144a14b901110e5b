"""factledger.digest: journal -> proposals -> claims, with grounding, policy, review and rejection memory.

Imports run one way: this package uses factledger.ledger (and factledger.schema through it), nothing above.
Only `llm.py` imports instructor, and only when a model is configured.
"""

from .config import DigestConfig
from .digester import Digester
from .erasure import MentionsErased, erase_mentions
from .explicit import forget, remember, request_erase
from .extractor import ExtractionRequest, Extractor, ExtractorError, build_extractor
from .grounding import ground
from .journal import Journal, erase_journal, journal_ids, prune_said_before
from .model import (
    AppendOutcome,
    Confirmation,
    DigestReport,
    Draft,
    ExplicitWrite,
    JournalEntry,
    Proposal,
    Rejection,
    Turn,
)
from .review import (
    Accepted,
    Detail,
    Edit,
    Preview,
    accept,
    accept_many,
    accept_one,
    competing_proposals,
    confirm,
    detail,
    open_from_session,
    preview,
    proposals_of_transaction,
    reject_many,
    get_proposal,
    lift,
    list_confirmations,
    list_proposals,
    list_rejections,
    reject,
    unconfirm,
)
from .rules import RulesExtractor
from .sanitise import sanitise
from .undo import Kept, UndoResult, session_turns, undo_entries
from .when import ValidTime, resolve_time_phrase

from factledger.ledger import PermissionDenied  # re-exported: review functions raise it

__all__ = [
    "Accepted",
    "Detail",
    "Edit",
    "Preview",
    "accept_many",
    "accept_one",
    "competing_proposals",
    "detail",
    "open_from_session",
    "preview",
    "proposals_of_transaction",
    "reject_many",
    "AppendOutcome",
    "Confirmation",
    "DigestConfig",
    "DigestReport",
    "Digester",
    "Draft",
    "ExplicitWrite",
    "ExtractionRequest",
    "Extractor",
    "ExtractorError",
    "Journal",
    "MentionsErased",
    "JournalEntry",
    "PermissionDenied",
    "Proposal",
    "Rejection",
    "RulesExtractor",
    "Turn",
    "ValidTime",
    "accept",
    "erase_mentions",
    "build_extractor",
    "confirm",
    "erase_journal",
    "prune_said_before",
    "forget",
    "get_proposal",
    "ground",
    "journal_ids",
    "lift",
    "list_confirmations",
    "list_proposals",
    "list_rejections",
    "reject",
    "remember",
    "request_erase",
    "resolve_time_phrase",
    "sanitise",
    "unconfirm",
    "Kept",
    "UndoResult",
    "session_turns",
    "undo_entries",
]
