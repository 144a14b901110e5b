"""Errors the ledger raises. Callers never see sqlite3 errors: storage translates them here."""

from __future__ import annotations


class LedgerError(Exception):
    """Base of every error factledger raises on purpose."""

    def __init__(self, message: str, *, field: str | None = None):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)


class ValidationError(LedgerError):
    """Input is malformed: a bad timestamp, an unknown op, a missing field."""


class ConflictError(LedgerError):
    """The operation contradicts the ledger (a different value in a `one` slot, say)."""


class NotFoundError(LedgerError):
    """The operation names something that is not there (a supersede or retract of nothing)."""


class PermissionDenied(LedgerError):
    """The principal may not do this (only an operator may erase, accept or reject)."""


class ErasedError(ConflictError):
    """The value was erased; a tombstone keeps it from being written again."""


class IntegrityError(LedgerError):
    """The database refused a write (a constraint or trigger); the message says which."""


class StorageError(LedgerError):
    """The database could not be opened or read."""


class BusyError(StorageError):
    """Other writers kept the ledger busy past the wait's bound; nothing of this write was written."""
