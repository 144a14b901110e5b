"""A fixed bitemporal history for the SQL tests, and a small reference for the temporal clauses.

The reference reads every version through the ledger's own storage and applies the clause semantics
written out independently of the rewriter (SQL:2011 / XTDB: FROM…TO closed-open, BETWEEN…AND closed,
a missing VALID_TIME clause = AS OF now, a missing SYSTEM_TIME clause = the latest knowledge)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from factledger.ledger import Ledger, parse_time

NOW = "2025-01-01T00:00:00.000000Z"


def build_history(path: Path) -> None:
    """Ann moves Paris → Rome, a correction puts Oslo inside; likes come and go; Bob in another scope.

    Only the import carries an explicit tx_time (DESIGN §8); the later writers are dated by a clock set
    to each moment, as if they happened then."""
    moment = ["2024-01-10T00:00:00.000000Z"]
    ledger = Ledger.open(path, clock=lambda: moment[0])

    def at(when: str) -> None:
        moment[0] = parse_time(when)

    try:
        with ledger.transaction(principal="import:crm", reason="first import", tx_time="2024-01-10") as tx:
            tx.define("lives_in", "one", template="{subject} lives in {value}")
            tx.define("likes", "many")
            tx.define("works_at", "one")
            tx.add("home", "Ann", "lives_in", "Paris", valid_from="2023-01-01", source="turn:1")
            tx.add("home", "Ann", "likes", "jazz", valid_from="2020-01-01")
            tx.add("work", "Bob", "works_at", "Acme", valid_from="2022-06-01")
        at("2024-03-01")
        with ledger.transaction(principal="digest:rules", reason="moved") as tx:
            tx.supersede("home", "Ann", "lives_in", "Rome", valid_from="2024-02-01", source="turn:7")
        at("2024-06-01T12:00:00+02:00")
        with ledger.transaction(principal="agent:hermes", reason="summer") as tx:
            tx.add("home", "Ann", "likes", "blues", valid_from="2024-05-01", valid_to="2024-08-01")
        at("2024-09-01")
        with ledger.transaction(principal="digest:rules", reason="stopped") as tx:
            tx.retract("home", "Ann", "likes", "jazz", valid_from="2024-07-01")
        at("2024-10-01")
        with ledger.transaction(principal="operator:alice", reason="correction") as tx:
            tx.supersede("home", "Ann", "lives_in", "Oslo", valid_from="2024-02-15", valid_to="2024-04-01")
        at("2024-11-15")
        with ledger.transaction(principal="digest:rules", reason="new job") as tx:
            tx.supersede("work", "Bob", "works_at", "Initech", valid_from="2024-11-01")
    finally:
        ledger.close()


@dataclass(frozen=True)
class Version:
    id: int
    valid_from: str
    valid_to: str | None
    tx_from: str
    tx_to: str | None


def all_versions(path: Path) -> list[Version]:
    ledger = Ledger.open(path, read_only=True)
    try:
        rows = ledger.storage.query("SELECT id, valid_from, valid_to, tx_from, tx_to FROM claims ORDER BY id")
        return [Version(r["id"], r["valid_from"], r["valid_to"], r["tx_from"], r["tx_to"]) for r in rows]
    finally:
        ledger.close()


@dataclass(frozen=True)
class Clause:
    """A clause as the reference understands it: kind AS OF / FROM / BETWEEN / ALL, canonical times."""

    kind: str
    times: tuple[str, ...] = ()


def holds(start: str, end: str | None, clause: Clause | None) -> bool:
    """Does the interval [start, end) satisfy the clause? (None = AS OF now.)"""
    clause = clause or Clause("AS OF", (NOW,))
    if clause.kind == "ALL":
        return True
    if clause.kind == "AS OF":
        (t,) = clause.times
        return start <= t and (end is None or end > t)
    low, high = clause.times
    if clause.kind == "FROM":  # [low, high) overlaps [start, end)
        return low < high and start < high and (end is None or end > low)
    return low <= high and start <= high and (end is None or end > low)  # [low, high] overlaps


def reference_ids(versions: list[Version], valid: Clause | None, system: Clause | None) -> list[int]:
    """Valid time defaults to AS OF now; system time to the latest knowledge (versions not closed)."""
    return sorted(
        v.id
        for v in versions
        if holds(v.valid_from, v.valid_to, valid) and (v.tx_to is None if system is None else holds(v.tx_from, v.tx_to, system))
    )


def file_digest(path: Path) -> str:
    """Hash of the ledger file and its WAL (if any): what a write would change."""
    digest = hashlib.sha256(path.read_bytes())
    wal = path.with_name(path.name + "-wal")
    if wal.exists():
        digest.update(wal.read_bytes())
    return digest.hexdigest()
