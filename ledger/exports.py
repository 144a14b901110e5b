"""The manifest of known exports (migration 0007): every `factledger export` of this ledger is recorded,
so an erase can say which exports were made while the value was held. Files outside the ledger are out
of its reach: they are the operator's to delete."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import ValidationError
from .store import Ledger


@dataclass(frozen=True)
class ExportRecord:
    id: int
    directory: str
    format: str
    snapshot_tx_time: str | None
    exported_at: str
    tables: tuple[str, ...]

    @classmethod
    def from_row(cls, row) -> "ExportRecord":
        return cls(row["id"], row["directory"], row["format"], row["snapshot_tx_time"], row["exported_at"], tuple(json.loads(row["tables"])))

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "directory": self.directory,
            "format": self.format,
            "snapshot_tx_time": self.snapshot_tx_time,
            "exported_at": self.exported_at,
            "tables": list(self.tables),
            "present": Path(self.directory).exists(),
        }


def record_export(
    ledger: Ledger, *, directory: str | Path, fmt: str, snapshot_tx_time: str | None, tables: Sequence[str]
) -> ExportRecord:
    """Add an export to the manifest (after its files are written)."""
    if not isinstance(fmt, str) or not fmt:
        raise ValidationError("must be a non-empty string", field="format")
    with ledger.storage.atomic():
        export_id = ledger.storage.execute(
            "INSERT INTO exports (directory, format, snapshot_tx_time, exported_at, tables) VALUES (?, ?, ?, ?, ?)",
            (str(Path(directory).resolve()), fmt, snapshot_tx_time, ledger.clock(), json.dumps(list(tables))),
        )
    return ExportRecord.from_row(ledger.storage.one("SELECT * FROM exports WHERE id = ?", (export_id,)))


def exports_since(ledger: Ledger, since: str | None) -> list[ExportRecord]:
    """Exports finished at or after `since` (when the earliest erased copy was written): those may hold it.
    An export that began before and finished after is counted too (the conservative side)."""
    if since is None:
        return []
    rows = ledger.storage.query("SELECT * FROM exports WHERE exported_at >= ? ORDER BY id", (since,))
    return [ExportRecord.from_row(r) for r in rows]
