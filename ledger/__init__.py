"""factledger.ledger: the bitemporal claim store.

Imports run one way: this package uses factledger.schema and nothing above it.
"""

from .erasure import REDACTED, ScopeFamily
from .errors import (
    BusyError,
    ConflictError,
    ErasedError,
    IntegrityError,
    LedgerError,
    NotFoundError,
    PermissionDenied,
    StorageError,
    ValidationError,
)
from .model import ClaimVersion, HistoryEntry, OpResult, Predicate, Transaction, TxResult
from .storage import BUSY_TIMEOUT, ScrubReport, Storage
from .store import EraseResult, Ledger, LedgerTx, check_principal, check_scope
from .times import parse_time, utc_now

__all__ = [
    "BUSY_TIMEOUT",
    "BusyError",
    "ClaimVersion",
    "ConflictError",
    "EraseResult",
    "ErasedError",
    "HistoryEntry",
    "IntegrityError",
    "Ledger",
    "LedgerError",
    "LedgerTx",
    "NotFoundError",
    "OpResult",
    "PermissionDenied",
    "REDACTED",
    "ScopeFamily",
    "Predicate",
    "ScrubReport",
    "Storage",
    "StorageError",
    "Transaction",
    "TxResult",
    "ValidationError",
    "check_principal",
    "check_scope",
    "parse_time",
    "utc_now",
]
