"""The hash chain over transactions and the versions they opened, closed and erased (DESIGN §8).

Each transaction's chain row is sha256 over the previous row's hash, the transaction's own fields, the
content hashes of the versions it opened, and the ids it closed and erased. A version's content hash
covers every column a version never changes (a salt first), and is kept in `version_hashes` when an
erase removes the version, so the chain still verifies afterwards; erase drops the salt, so the kept hash
cannot confirm a guessed value. Anyone may recompute the chain: it makes a change to the past evident
against any earlier copy of a chain hash (a backup, a printed `verify`), not impossible.

The rows are written in the transaction's own SQLite transaction (Ledger.transaction); the schema
(0006_integrity.sql) refuses edits and deletions of them.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .model import ClaimVersion, Transaction
from .storage import Storage

GENESIS = "0" * 64
_VERSION_TAG = "factledger-version-v1"
_CHAIN_TAG = "factledger-chain-v1"


def _sha256(payload: list) -> str:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def new_salt() -> str:
    return os.urandom(16).hex()


def version_hash(version: ClaimVersion, salt: str) -> str:
    """The content hash of a version: every column fixed at its opening (tx_to/closed_by are the
    closing transaction's, and are chained there)."""
    return _sha256(
        [
            _VERSION_TAG,
            salt,
            version.id,
            version.scope,
            version.subject_key,
            version.subject,
            version.predicate,
            version.cardinality,
            version.value,
            version.value_key,
            version.valid_from,
            version.valid_to,
            version.tx_from,
            version.opened_by,
            list(version.source),
        ]
    )


def link_hash(
    previous: str,
    tx: Transaction,
    opened: Iterable[tuple[int, str]],
    closed: Iterable[int],
    erased: Iterable[int],
) -> str:
    """One chain row's hash. opened: (claim id, content hash) pairs; order does not matter."""
    return _sha256(
        [
            _CHAIN_TAG,
            previous,
            tx.id,
            tx.tx_time,
            tx.principal,
            tx.reason,
            list(tx.sources),
            sorted([int(i), h] for i, h in opened),
            sorted(int(i) for i in closed),
            sorted(int(i) for i in erased),
        ]
    )


def last_link(storage: Storage) -> str:
    row = storage.one("SELECT chain_hash FROM tx_chain ORDER BY tx_id DESC LIMIT 1")
    return row[0] if row else GENESIS


def record(
    storage: Storage,
    tx: Transaction,
    opened: Sequence[ClaimVersion],
    closed: Sequence[int],
    erased: Sequence[int] = (),
) -> str:
    """Write the hash rows of the versions `tx` opened, mark the ones it erases, and append its chain row.
    Runs inside the transaction's own SQLite transaction, after its versions were written."""
    hashes: list[tuple[int, str]] = []
    rows = []
    for version in opened:
        salt = new_salt()
        digest = version_hash(version, salt)
        hashes.append((version.id, digest))
        rows.append((version.id, version.opened_by, salt, digest))
    if rows:
        storage.executemany(
            "INSERT INTO version_hashes (claim_id, opened_by, salt, content_hash) VALUES (?, ?, ?, ?)", rows
        )
    if erased:
        storage.execute(
            "UPDATE version_hashes SET erased_by = ?, salt = NULL WHERE claim_id IN (SELECT value FROM json_each(?))",
            (tx.id, json.dumps(list(erased))),
        )
    link = link_hash(last_link(storage), tx, hashes, closed, erased)
    storage.execute("INSERT INTO tx_chain (tx_id, chain_hash) VALUES (?, ?)", (tx.id, link))
    return link


def backfill(storage: Storage) -> int:
    """Hash the transactions written before the chain existed (migration 0006), once, as they stand.
    Returns how many chain rows were written (0 when there is nothing left to do)."""
    probe = "SELECT legacy_through FROM chain_start WHERE legacy_through > COALESCE((SELECT MAX(tx_id) FROM tx_chain), 0)"
    if storage.read_only or storage.one(probe) is None:
        return 0
    written = 0
    with storage.atomic():
        row = storage.one(probe)  # again under the write lock: another process may have done it
        if row is None:
            return 0
        through = row[0]
        opened: dict[int, list[ClaimVersion]] = {}
        for claim in storage.iterate("SELECT * FROM claims WHERE opened_by <= ? ORDER BY id", (through,)):
            version = ClaimVersion.from_row(claim)
            opened.setdefault(version.opened_by, []).append(version)
        for version in (v for group in opened.values() for v in group):
            salt = new_salt()
            storage.execute(
                "INSERT INTO version_hashes (claim_id, opened_by, closed_by, salt, content_hash) VALUES (?, ?, ?, ?, ?)",
                (version.id, version.opened_by, version.closed_by, salt, version_hash(version, salt)),
            )
        previous = GENESIS
        for tx_row in storage.query("SELECT * FROM transactions WHERE id <= ? ORDER BY id", (through,)):
            tx = Transaction.from_row(tx_row)
            pairs = [
                (r[0], r[1])
                for r in storage.query("SELECT claim_id, content_hash FROM version_hashes WHERE opened_by = ?", (tx.id,))
            ]
            closed = [r[0] for r in storage.query("SELECT claim_id FROM version_hashes WHERE closed_by = ?", (tx.id,))]
            previous = link_hash(previous, tx, pairs, closed, ())
            storage.execute("INSERT INTO tx_chain (tx_id, chain_hash) VALUES (?, ?)", (tx.id, previous))
            written += 1
    return written


@dataclass(frozen=True)
class ChainProblem:
    table: str
    row_id: int
    problem: str


def check(storage: Storage) -> tuple[list[ChainProblem], int, str]:
    """Recompute the chain from the transactions and version hashes, and every surviving version's content
    hash from its row. Returns (problems, transactions checked, the chain head: the last hash)."""
    problems: list[ChainProblem] = []
    opened: dict[int, list[tuple[int, str]]] = {}
    closed: dict[int, list[int]] = {}
    erased: dict[int, list[int]] = {}
    for r in storage.iterate("SELECT claim_id, opened_by, closed_by, erased_by, content_hash FROM version_hashes"):
        opened.setdefault(r["opened_by"], []).append((r["claim_id"], r["content_hash"]))
        if r["closed_by"] is not None:
            closed.setdefault(r["closed_by"], []).append(r["claim_id"])
        if r["erased_by"] is not None:
            erased.setdefault(r["erased_by"], []).append(r["claim_id"])
    # Every version row against its recorded hash.
    for claim in storage.iterate(
        "SELECT c.*, v.claim_id AS v_id, v.salt AS v_salt, v.content_hash AS v_hash, v.opened_by AS v_opened,"
        " v.closed_by AS v_closed, v.erased_by AS v_erased FROM claims c LEFT JOIN version_hashes v ON v.claim_id = c.id"
    ):
        version = ClaimVersion.from_row(claim)
        if claim["v_id"] is None:
            problems.append(ChainProblem("claims", version.id, "no recorded content hash: written outside factledger"))
        elif claim["v_erased"] is not None:
            problems.append(ChainProblem("claims", version.id, f"recorded as erased by transaction {claim['v_erased']} but still present"))
        elif version_hash(version, claim["v_salt"]) != claim["v_hash"]:
            problems.append(ChainProblem("claims", version.id, "content differs from its recorded hash: edited in place"))
        elif (claim["v_opened"], claim["v_closed"]) != (version.opened_by, version.closed_by):
            problems.append(ChainProblem("claims", version.id, "opening or closing transaction differs from its hash row"))
    for r in storage.iterate(
        "SELECT v.claim_id FROM version_hashes v WHERE v.erased_by IS NULL AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.id = v.claim_id)"
    ):
        problems.append(ChainProblem("claims", r[0], "missing, and no erase recorded: deleted outside factledger"))
    links = {r[0]: r[1] for r in storage.query("SELECT tx_id, chain_hash FROM tx_chain")}
    previous = GENESIS
    count = 0
    for tx_row in storage.iterate("SELECT * FROM transactions ORDER BY id"):
        tx = Transaction.from_row(tx_row)
        count += 1
        expected = link_hash(previous, tx, opened.get(tx.id, ()), closed.get(tx.id, ()), erased.get(tx.id, ()))
        stored = links.pop(tx.id, None)
        if stored is None:
            problems.append(ChainProblem("transactions", tx.id, "no chain row: written outside factledger"))
        elif stored != expected:
            problems.append(ChainProblem("tx_chain", tx.id, "chain hash does not match the transaction and its versions"))
        # Go on from the stored hash, so each tampered transaction is reported once, not every later one.
        previous = stored if stored is not None else expected
    for tx_id in sorted(links):
        problems.append(ChainProblem("tx_chain", tx_id, "chain row of no transaction"))
    return problems, count, previous
