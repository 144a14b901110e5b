"""Typed records the ledger reads and writes."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

from .frozen import quick_init

Cardinality = Literal["one", "many"]
PRINCIPAL_KINDS = ("operator", "agent", "digest", "import")


@dataclass(frozen=True)
class Predicate:
    name: str
    display: str
    cardinality: Cardinality
    description: str
    template: str

    def render(self, subject: str, value: str) -> str:
        try:
            return self.template.format(subject=subject, predicate=self.display.replace("_", " "), value=value)
        except (KeyError, IndexError, ValueError):
            return f"{subject} {self.display.replace('_', ' ')} {value}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@quick_init
@dataclass(frozen=True)
class ClaimVersion:
    id: int
    scope: str
    subject: str
    subject_key: str
    predicate: str
    cardinality: Cardinality
    value: str
    value_key: str
    valid_from: str
    valid_to: str | None
    tx_from: str
    tx_to: str | None
    opened_by: int
    closed_by: int | None
    source: tuple[str, ...] = ()

    @classmethod
    def from_row(cls, row: Any) -> "ClaimVersion":
        return cls(
            id=row["id"],
            scope=row["scope"],
            subject=row["subject"],
            subject_key=row["subject_key"],
            predicate=row["predicate"],
            cardinality=row["cardinality"],
            value=row["value"],
            value_key=row["value_key"],
            valid_from=row["valid_from"],
            valid_to=row["valid_to"],
            tx_from=row["tx_from"],
            tx_to=row["tx_to"],
            opened_by=row["opened_by"],
            closed_by=row["closed_by"],
            source=tuple(json.loads(row["source"])),
        )

    def to_dict(self) -> dict[str, Any]:
        # Every field is a str, an int, None or a tuple of str: a shallow copy is what asdict's deep one
        # gives, at a tenth of its cost (a transaction's result prints every version it opened).
        data = {name: getattr(self, name) for name in _CLAIM_FIELDS}
        data["source"] = list(self.source)
        return data


_CLAIM_FIELDS = tuple(f.name for f in fields(ClaimVersion))


@quick_init
@dataclass(frozen=True)
class Transaction:
    id: int
    tx_time: str
    principal: str
    reason: str
    sources: tuple[str, ...] = ()

    @classmethod
    def from_row(cls, row: Any) -> "Transaction":
        return cls(row["id"], row["tx_time"], row["principal"], row["reason"], tuple(json.loads(row["sources"])))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["sources"] = list(self.sources)
        return data


@dataclass(frozen=True)
class HistoryEntry:
    """A version of a slot with the transactions that opened and (maybe) closed it."""

    version: ClaimVersion
    opened: Transaction
    closed: Transaction | None

    def to_dict(self) -> dict[str, Any]:
        data = self.version.to_dict()
        data["opened"] = self.opened.to_dict()
        data["closed"] = self.closed.to_dict() if self.closed else None
        return data


@dataclass
class OpResult:
    """What one operation did inside its transaction."""

    op: str
    slot: tuple[str, str, str]
    noop: bool = False


@dataclass
class TxResult:
    """What one committed transaction did."""

    id: int
    tx_time: str
    principal: str
    reason: str
    opened: list[ClaimVersion] = field(default_factory=list)
    closed: list[int] = field(default_factory=list)
    defined: list[str] = field(default_factory=list)
    ops: list[OpResult] = field(default_factory=list)
    undeclared: list[str] = field(default_factory=list)  # predicates registered as `many` because a write named them

    @property
    def noops(self) -> int:
        """How many of its operations changed no version."""
        return sum(1 for op in self.ops if op.noop)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tx": self.id,
            "tx_time": self.tx_time,
            "principal": self.principal,
            "reason": self.reason,
            "opened": [v.to_dict() for v in self.opened],
            "closed": list(self.closed),
            "defined": list(self.defined),
            "noops": self.noops,
            "undeclared_predicates": list(self.undeclared),
        }
