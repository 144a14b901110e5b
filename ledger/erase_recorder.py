"""The erase part's storage interface: what erase, the erased-text guard, the manifest of exports and
`verify` need from the database, as typed methods (the eventsourcing library's recorders).

One implementation per engine — ledger/sqlite_erase_recorder.py and ledger/pg_erase_recorder.py — chosen
by `engines.erase_recorder(storage)` from an explicit mapping on `storage.engine`. Methods take and return the
project's own types (ClaimVersion, ExportRecord, Finding, ScrubReport), never driver rows; the SQL and
each engine's dialect live in those two modules and in schema/.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .model import ClaimVersion
from .storage import ScrubReport


@dataclass(frozen=True)
class ExportRecord:
    """One entry of the manifest of known exports."""

    id: int
    directory: str
    format: str
    snapshot_tx_time: str | None
    exported_at: str
    tables: tuple[str, ...]

    @classmethod
    def from_row(cls, row: Any) -> "ExportRecord":
        return cls(
            row["id"], row["directory"], row["format"], row["snapshot_tx_time"], row["exported_at"],
            tuple(json.loads(row["tables"])),
        )

    @property
    def kind(self) -> str:
        """What was written: `export` (a folder of files), `backup` (a ledger file) or `sql output` (a file)."""
        if self.format == "backup":
            return "backup"
        return "sql output" if self.format.startswith("sql:") else "export"

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind,
            "directory": self.directory,
            "format": self.format,
            "snapshot_tx_time": self.snapshot_tx_time,
            "exported_at": self.exported_at,
            "tables": list(self.tables),
            "present": Path(self.directory).exists(),
        }


@dataclass(frozen=True)
class Finding:
    """One row (or schema object) that breaks a rule, as `verify` reports it."""

    table: str
    row: Any  # the row's id (or name)
    problem: str

    def to_dict(self) -> dict[str, Any]:
        return {"table": self.table, "row": self.row, "problem": self.problem}


@dataclass(frozen=True)
class TombstoneRow:
    content_hash: str
    erased_at: str
    principal: str
    reason: str


@dataclass(frozen=True)
class GuardRow:
    """One rule of the erased-text guard: the keyed hash of an erased value's `words` normalised words."""

    match: str  # 'exact' or 'prefix'
    scope: str
    words: int
    text_hash: str
    erase_tx: int


class ErasureRecorder(Protocol):
    """Erase, tombstones, the erased-text guard, the secret and the export manifest."""

    def secret(self) -> str | None:
        """The per-ledger secret, or None when the schema has none yet."""

    def slot_versions(self, scope: str, subject_key: str, predicate: str, value_key: str | None) -> list[ClaimVersion]:
        """Every version (any transaction time) of the slot, or of one value in it."""

    def family_versions(
        self, scopes: Sequence[str], subject_key: str, predicate: str, value_keys: Sequence[str]
    ) -> list[ClaimVersion]:
        """Every version of these values in the slot, in the other scopes given, by id."""

    def delete_versions(self, tx_id: int, principal: str, claim_ids: Sequence[int]) -> list[str]:
        """Delete the versions (recorded as erased by transaction `tx_id`, the latest) and their
        provenance, through the erase gate, opened and closed here. Returns the distinct sources of the
        provenance rows removed (writes that repeated the value), sorted."""

    def add_tombstones(self, rows: Sequence[TombstoneRow]) -> None:
        """Insert tombstones; one already there stays as it is."""

    def add_guards(self, rows: Sequence[GuardRow]) -> None:
        """Insert erased-text guard rules; one already there stays as it is."""

    def prefix_scopes_covering(self, scope: str) -> list[str]:
        """The guard's prefix rules that `scope` begins with."""

    def any_tombstone(self, content_hashes: Sequence[str]) -> bool: ...

    def guards_for(self, scope: str) -> list[tuple[int, str]]:
        """(words, text_hash) of every guard rule covering `scope` (exact, or by prefix)."""

    def scrub(self, *, wait: float) -> ScrubReport:
        """Leave no stale copy of deleted rows in the store's files (after an erase)."""

    def add_export(
        self, *, directory: str, fmt: str, snapshot_tx_time: str | None, exported_at: str, tables: Sequence[str]
    ) -> ExportRecord: ...

    def exports_since(self, since: str) -> list[ExportRecord]: ...


class VerifyRecorder(Protocol):
    """The reads `verify` runs: each returns the offending rows as Findings ([] when the rule holds)."""

    def engine_integrity(self) -> list[tuple[str, list[Finding], str, str]]:
        """The engine's own checks, as (check name, findings, passed text, failed text)."""

    def expected_schema(self) -> dict[tuple[str, str], str | None]:
        """(kind, name) -> definition of every object the migrations create (built outside any
        transaction, before verify's snapshot)."""

    def schema_findings(self, expected: dict[tuple[str, str], str | None]) -> tuple[list[Finding], int]:
        """Objects that differ from `expected`, and how many objects were compared."""

    def has_chain(self) -> bool: ...

    def check_constraints(self) -> list[Finding]:
        """Rows that break a CHECK constraint the engine did not evaluate when they were written."""

    def bad_timestamps(self) -> list[Finding]: ...

    def bad_intervals(self) -> list[Finding]: ...

    def overlaps(self) -> list[Finding]: ...

    def bad_transactions(self) -> list[Finding]: ...

    def erase_problems(self) -> list[Finding]: ...


class Recorder(ErasureRecorder, VerifyRecorder, Protocol):
    """Both interfaces: each engine's module implements them on one class."""


