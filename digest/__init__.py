"""factledger.digest: journal -> proposals -> claims, with grounding, policy, review and rejection memory.

Imports run one way: this package uses factledger.ledger (and factledger.schema through it), nothing above.
Only `llm.py` imports instructor, and only when a model is configured.

Names are imported on first use (PEP 562): `factledger status` and other readers that need the journal
or the review queue do not pay for the rules extractor's patterns (~0.5 s of regular expressions).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_HOMES = {  # name -> the module that defines it
    'DigestConfig': '.config',
    'Digester': '.digester',
    'MentionsErased': '.erasure',
    'erase_mentions': '.erasure',
    'forget': '.explicit',
    'remember': '.explicit',
    'request_erase': '.explicit',
    'ExtractionRequest': '.extractor',
    'Extractor': '.extractor',
    'ExtractorError': '.extractor',
    'build_extractor': '.build',
    'ground': '.grounding',
    'Journal': '.journal',
    'erase_journal': '.journal',
    'journal_ids': '.journal',
    'prune_said_before': '.journal',
    'AppendOutcome': '.model',
    'Confirmation': '.model',
    'DigestReport': '.model',
    'Draft': '.model',
    'ExplicitWrite': '.model',
    'JournalEntry': '.model',
    'Proposal': '.model',
    'Rejection': '.model',
    'Turn': '.model',
    'Accepted': '.review',
    'Detail': '.review',
    'Edit': '.review',
    'Preview': '.review',
    'accept': '.review',
    'accept_many': '.review',
    'accept_one': '.review',
    'competing_proposals': '.review',
    'confirm': '.review',
    'detail': '.review',
    'open_from_session': '.review',
    'preview': '.review',
    'proposals_of_transaction': '.review',
    'reject_many': '.review',
    'get_proposal': '.review',
    'lift': '.review',
    'list_confirmations': '.review',
    'list_proposals': '.review',
    'list_rejections': '.review',
    'reject': '.review',
    'unconfirm': '.review',
    'QueueFilter': '.model',
    'slot_open_proposals': '.review',
    'Undone': '.review_undo',
    'undo_decision': '.review_undo',
    'duplicate_ids': '.queue',
    'VIEWS': '.queue',
    'BulkPreview': '.queue',
    'QueuePage': '.queue',
    'bulk_preview': '.queue',
    'matching_ids': '.queue',
    'queue_filter': '.queue',
    'queue_page': '.queue',
    'RulesExtractor': '.rules',
    'Kept': '.undo',
    'UndoResult': '.undo',
    'session_turns': '.undo',
    'undo_entries': '.undo',
    'ValidTime': 'factledger.ledger.when',
    'resolve_time_phrase': 'factledger.ledger.when',
    'PermissionDenied': 'factledger.ledger',
}

# sanitise is the name of a function and of its module: imported at once, so importing the module
# (which sets the package attribute) never shadows the function.
from .sanitise import sanitise  # noqa: E402

__all__ = sorted({*_HOMES, "sanitise"})



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
    from .config import DigestConfig
    from .digester import Digester
    from .erasure import MentionsErased, erase_mentions
    from .explicit import forget, remember, request_erase
    from .build import build_extractor
    from .extractor import ExtractionRequest, Extractor, ExtractorError
    from .grounding import ground
    from .journal import Journal, erase_journal, journal_ids, prune_said_before
    from .model import AppendOutcome, Confirmation, DigestReport, Draft, ExplicitWrite, JournalEntry, Proposal, Rejection, Turn
    from .review import Accepted, Detail, Edit, Preview, accept, accept_many, accept_one, competing_proposals, confirm, detail, open_from_session, preview, proposals_of_transaction, reject_many, get_proposal, lift, list_confirmations, list_proposals, list_rejections, reject, unconfirm
    from .model import QueueFilter
    from .review import slot_open_proposals
    from .review_undo import Undone, undo_decision
    from .queue import duplicate_ids
    from .queue import VIEWS, BulkPreview, QueuePage, bulk_preview, matching_ids, queue_filter, queue_page
    from .rules import RulesExtractor
    from .sanitise import sanitise
    from .undo import Kept, UndoResult, session_turns, undo_entries
    from factledger.ledger.when import ValidTime, resolve_time_phrase
    from factledger.ledger import PermissionDenied
