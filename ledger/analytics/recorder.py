"""What the analytics companion reads of the ledger itself, outside DuckDB: its head, through the
ledger's own connection layer (one persistent connection per companion session).

DuckDB's scanners open a new SQLite connection for each statement run outside a DuckDB transaction,
and parsing this schema costs about 1.5 ms each time; the head check runs before every query, so it
goes through a connection that stays open instead (a few microseconds on SQLite, one round trip on
PostgreSQL). The copies themselves still go through DuckDB's scanners.

One implementation per engine: sqlite_recorder.py and pg_recorder.py, chosen by `engines.head_recorder` (ledger/engines.py) from
an explicit mapping on `storage.engine`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class HeadMark:
    """The ledger's last transaction and its first one's time: read before every query. Every write
    factledger makes (versions, closes, predicate definitions, erases) is a new transaction, so an
    unchanged mark means nothing to copy; a smaller or different one, another or a restored ledger."""

    last_tx: int | None
    last_tx_time: str | None
    first_tx_time: str | None


class HeadRecorder(Protocol):
    tables: set[str]

    def mark(self) -> HeadMark: ...

    def table_names(self) -> list[str]:
        """Every table of the ledger (its own catalog: sqlite_master, or PostgreSQL's current schema)."""
        ...

    def schema(self) -> str:
        """The schema the ledger's tables are in ("main" on SQLite)."""
        ...

    def tx_time(self, tx_id: int) -> str | None:
        """The time of transaction `tx_id` (None when there is none)."""
        ...

    def erase_mark(self) -> str:
        """A text that changes with every erase: the last erasing transaction and the tombstone count."""
        ...

    def predicates_mark(self) -> str:
        """The predicate registry whole, as one text (a few rows): changes when any row changes."""
        ...

    def close(self) -> None: ...


class SharedHeadReads:
    """The reads whose SQL is the same on both engines (no placeholders, standard aggregates)."""

    def __init__(self, storage: Any, tables: Sequence[str] | None):
        self.storage = storage
        self.tables = set(self.table_names() if tables is None else tables)

    def table_names(self) -> list[str]:
        raise NotImplementedError  # each engine's recorder reads its own catalog

    def erase_mark(self) -> str:
        parts: list[object] = []
        if "version_hashes" in self.tables:
            parts.append(self.storage.one("SELECT max(erased_by) FROM version_hashes WHERE erased_by IS NOT NULL")[0])
        if "tombstones" in self.tables:
            parts.append(self.storage.one("SELECT count(*) FROM tombstones")[0])
        return "/".join("" if p is None else str(p) for p in parts)

    def predicates_mark(self) -> str:
        return repr([tuple(r) for r in self.storage.query("SELECT * FROM predicates ORDER BY name")])

    def close(self) -> None:
        self.storage.close()
