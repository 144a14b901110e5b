"""The manifest of known exports (migration 0007): every copy of the ledger's contents that factledger
writes outside the ledger is recorded — `factledger export` (a folder), `factledger backup` (format
`backup`, a ledger file) and `sql -o` (format `sql:<csv|json|parquet>`, a file) — so an erase can say
which of them were made while the value was held. Files outside the ledger are out of its reach: they
are the operator's to delete (or, for a backup, to erase in too)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .engines import erase_recorder
from .erase_recorder import ExportRecord
from .errors import ValidationError

if TYPE_CHECKING:
    from .store import Ledger

__all__ = ["BACKUP_FORMAT", "SQL_OUTPUT_PREFIX", "ExportRecord", "exports_since", "record_export"]

BACKUP_FORMAT = "backup"
SQL_OUTPUT_PREFIX = "sql:"


def record_export(
    ledger: "Ledger", *, directory: str | Path, fmt: str, snapshot_tx_time: str | None, tables: Sequence[str]
) -> ExportRecord:
    """Add an export to the manifest (after its files are written)."""
    if not isinstance(fmt, str) or not fmt:
        raise ValidationError("must be a non-empty string", field="format")
    return erase_recorder(ledger.storage).add_export(
        directory=str(Path(directory).resolve()), fmt=fmt, snapshot_tx_time=snapshot_tx_time,
        exported_at=ledger.clock(), tables=list(tables),
    )


def exports_since(ledger: "Ledger", since: str | None) -> list[ExportRecord]:
    """Exports finished at or after `since` (when the earliest erased copy was written): those may hold it.
    An export that began before and finished after is counted too (the conservative side)."""
    if since is None:
        return []
    return erase_recorder(ledger.storage).exports_since(since)
