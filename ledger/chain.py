"""The hash chain over transactions and the versions they opened, closed and erased (DESIGN §8).

Each transaction's chain row is sha256 over the previous row's hash, the transaction's own fields, the
content hashes of the versions it opened, and the ids it closed and erased. A version's content hash
covers every column a version never changes (a salt first), and is kept in `version_hashes` when an
erase removes the version, so the chain still verifies afterwards; erase drops the salt, so the kept hash
cannot confirm a guessed value. Anyone may recompute the chain: it makes a change to the past evident
against any earlier copy of a chain hash (a backup, a printed `verify`), not impossible.

The rows are written in the transaction's own database transaction (Ledger.transaction), through the
ledger recorder (ledger/recorder.py); the schema (schema/sqlite/0006_integrity.sql,
schema/postgres/0003_chain.sql) refuses edits and deletions of them. Every time is hashed in its
canonical text form, so the same history hashes the same on either engine.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .model import ClaimVersion, Transaction
from .recorder import ChainText, LedgerRecorder, VersionHash, ledger_recorder

if TYPE_CHECKING:
    from .engines import AnyStorage

GENESIS = "0" * 64
_VERSION_TAG = "factledger-version-v1"
_CHAIN_TAG = "factledger-chain-v1"
# From migration 0021 (SQLite) / 0011 (PostgreSQL) a chain row hashes a salted hash of its transaction's
# reason and sources, kept in the row, instead of the text: an erase can then redact a reason that names
# the value (dropping the salt, as for a version's content) and the chain still verifies. Rows written
# before hash the text itself (v1), and their text stays.
_CHAIN_TAG_V2 = "factledger-chain-v2"
_TEXT_TAG = "factledger-text-v1"


# json.dumps with these options builds an encoder per call; one shared encoder writes the same text.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _sha256(payload: list) -> str:
    return hashlib.sha256(_ENCODER.encode(payload).encode("utf-8")).hexdigest()


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


def text_hash(salt: str, reason: str, sources: Iterable[str]) -> str:
    """The salted hash of a transaction's reason and sources, which its (v2) chain row hashes."""
    return _sha256([_TEXT_TAG, salt, reason, list(sources)])


def link_hash(
    previous: str,
    tx: Transaction,
    opened: Iterable[tuple[int, str]],
    closed: Iterable[int],
    erased: Iterable[int],
    *,
    text: str | None = None,
    redacted: Iterable[int] = (),
) -> str:
    """One chain row's hash. opened: (claim id, content hash) pairs; order does not matter. With `text`
    (the transaction's text_hash) the row is v2: it hashes that instead of the reason and sources, and
    the ids of the transactions whose texts this one redacted."""
    if text is not None:
        return _sha256(
            [
                _CHAIN_TAG_V2,
                previous,
                tx.id,
                tx.tx_time,
                tx.principal,
                text,
                sorted([int(i), h] for i, h in opened),
                sorted(int(i) for i in closed),
                sorted(int(i) for i in erased),
                sorted(int(i) for i in redacted),
            ]
        )
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


def last_link(recorder: LedgerRecorder) -> str:
    return recorder.last_chain_hash() or GENESIS


def record(
    recorder: LedgerRecorder,
    tx: Transaction,
    opened: Sequence[ClaimVersion],
    closed: Sequence[int],
    erased: Sequence[int] = (),
    redacted: Sequence[int] = (),
) -> str:
    """Write the hash rows of the versions `tx` opened, mark the ones it erases, and append its chain row
    (v2: over the salted hash of its reason and sources, and the transactions whose texts it redacts).
    Runs inside the transaction's own database transaction, after its versions were written."""
    rows = []
    for version in opened:
        salt = new_salt()
        rows.append(VersionHash(version.id, version.opened_by, None, None, salt, version_hash(version, salt)))
    if rows:
        recorder.insert_version_hashes(rows)
    if erased:
        recorder.mark_erased(tx.id, erased)
    salt = new_salt()
    text = ChainText(salt, text_hash(salt, tx.reason, tx.sources))
    link = link_hash(
        last_link(recorder), tx, [(r.claim_id, r.content_hash) for r in rows], closed, erased,
        text=text.text_hash, redacted=redacted,
    )
    recorder.append_chain(tx.id, link, text)
    return link


def backfill(recorder: LedgerRecorder) -> int:
    """Hash the transactions written before the chain existed (migration 0006), once, as they stand.
    Returns how many chain rows were written (0 when there is nothing left to do)."""
    storage = recorder.storage
    if storage.read_only or recorder.legacy_through() is None:
        return 0
    written = 0
    with storage.atomic():
        through = recorder.legacy_through()  # again under the write lock: another process may have done it
        if through is None:
            return 0
        rows = []
        for version in recorder.versions_opened_through(through):
            salt = new_salt()
            rows.append(VersionHash(version.id, version.opened_by, version.closed_by, None, salt, version_hash(version, salt)))
        if rows:
            recorder.insert_version_hashes(rows)
        previous = GENESIS
        for tx in recorder.transactions_through(through):
            pairs, closed = recorder.hashes_of_transaction(tx.id)
            previous = link_hash(previous, tx, pairs, closed, ())
            recorder.append_chain(tx.id, previous)
            written += 1
    return written


@dataclass(frozen=True)
class ChainProblem:
    table: str
    row_id: int
    problem: str


def check(storage: AnyStorage) -> tuple[list[ChainProblem], int, str]:
    """Recompute the chain from the transactions and version hashes, and every surviving version's content
    hash from its row. Returns (problems, transactions checked, the chain head: the last hash)."""
    recorder = ledger_recorder(storage)
    problems: list[ChainProblem] = []
    opened: dict[int, list[tuple[int, str]]] = {}
    closed: dict[int, list[int]] = {}
    erased: dict[int, list[int]] = {}
    for r in recorder.version_hashes():
        opened.setdefault(r.opened_by, []).append((r.claim_id, r.content_hash))
        if r.closed_by is not None:
            closed.setdefault(r.closed_by, []).append(r.claim_id)
        if r.erased_by is not None:
            erased.setdefault(r.erased_by, []).append(r.claim_id)
    # Every version row against its recorded hash.
    for version, hashed in recorder.versions_with_hashes():
        if hashed is None:
            problems.append(ChainProblem("claims", version.id, "no recorded content hash: written outside factledger"))
        elif hashed.erased_by is not None:
            problems.append(ChainProblem("claims", version.id, f"recorded as erased by transaction {hashed.erased_by} but still present"))
        elif version_hash(version, hashed.salt) != hashed.content_hash:
            problems.append(ChainProblem("claims", version.id, "content differs from its recorded hash: edited in place"))
        elif (hashed.opened_by, hashed.closed_by) != (version.opened_by, version.closed_by):
            problems.append(ChainProblem("claims", version.id, "opening or closing transaction differs from its hash row"))
    for claim_id in recorder.hashes_without_version():
        problems.append(ChainProblem("claims", claim_id, "missing, and no erase recorded: deleted outside factledger"))
    links = recorder.chain_links()
    texts = recorder.chain_texts()
    redacted: dict[int, list[int]] = {}
    for tx_id, t in texts.items():
        if t.redacted_by is not None:
            redacted.setdefault(t.redacted_by, []).append(tx_id)
    previous = GENESIS
    count = 0
    for tx in recorder.transactions():
        count += 1
        t = texts.get(tx.id)
        if t is not None and t.salt is not None and text_hash(t.salt, tx.reason, tx.sources) != t.text_hash:
            problems.append(ChainProblem("tx_chain", tx.id, "the transaction's reason or sources differ from the hash its chain row recorded: edited in place"))
        elif t is not None and t.salt is None and t.redacted_by is None:
            problems.append(ChainProblem("tx_chain", tx.id, "a reason's hash lost its salt with no erase recorded"))
        expected = link_hash(
            previous, tx, opened.get(tx.id, ()), closed.get(tx.id, ()), erased.get(tx.id, ()),
            text=None if t is None else t.text_hash, redacted=redacted.get(tx.id, ()),
        )
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
