"""The hash chain over transactions and the versions they opened, closed and erased (DESIGN §8).

Each transaction's chain row covers the previous row's hash, the transaction's own fields, the content
hashes of the versions it opened, and the ids it closed and erased. A version's content hash covers
every column a version never changes (a salt first), and is kept in `version_hashes` when an erase
removes the version, so the chain still verifies afterwards; erase drops the salt, so the kept hash
cannot confirm a guessed value.

Two row formats. A v1 row (written before migration 0021 SQLite / 0011 PostgreSQL) hashes the
transaction's reason and sources as written. A v2 row hashes a salted hash of them instead (kept in the
row, `text_hash`/`text_salt`), and the ids of the transactions whose texts it (an erase) redacted: an
erase may then rewrite a reason that names the value and drop its salt, and the chain still verifies.

Two kinds of link. Before the chain is keyed (every ledger before migration 0022 SQLite / 0012
PostgreSQL, and a PostgreSQL ledger no writer gave a key), a link is sha256 (`link_hash`): anyone may
recompute it, so it makes a change to the past evident only against an earlier copy of a chain hash.
From `chain_keying.keyed_from` on, a link is HMAC-SHA256 under the chain key (`keyed_link`,
ledger/chain_key.py), a secret kept outside the database, over the v2 row (the text's salted hash and
the redacted transactions), the ledger's id, and what an erase transaction left to keep its value out
(its tombstones and erased-text rules): without the key nobody can write a keyed link that verifies. The keyed part extends the unkeyed one (its first link chains from the last unkeyed link).
A writer of a keyed ledger must hold its key; without it the transaction is refused, never written
with a link that would fail `verify`.

The rows are written in the transaction's own database transaction (Ledger.transaction), through the
ledger recorder (ledger/recorder.py); the schema (schema/sqlite/0006_integrity.sql,
schema/postgres/0003_chain.sql) refuses edits and deletions of them. Every time is hashed in its
canonical text form, so the same history hashes the same on either engine.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .chain_key import ChainKey
from .errors import ValidationError
from .model import ClaimVersion, Transaction
from .engines import ledger_recorder
from .recorder import ChainKeying, ChainText, LedgerRecorder, VersionHash

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
# From migration 0022 (SQLite) / 0012 (PostgreSQL) and the keying point on, a link is an HMAC under the
# chain key over the v2 row (the text's salted hash, the transactions an erase redacted) and more.
_KEYED_TAG = "factledger-chain-keyed-v1"
_SECRET_TAG = "factledger-ledger-secret-v1"
_REDACTED_TAG = "factledger-redacted-text-v1"


# json.dumps with these options builds an encoder per call; one shared encoder writes the same text.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
# JSONEncoder.encode still builds the C encoder of those options on every call (2.6 of its 4.5 µs for a
# version's row); it is built once here, with the same options. The text is the same: the one option
# left out is the check for a list that contains itself, which a hashed payload (lists of texts,
# numbers and None built here) never is. Without the C encoder, the shared one.
_C_ENCODE = (
    None if json.encoder.c_make_encoder is None or json.encoder.c_encode_basestring is None
    else json.encoder.c_make_encoder(
        None, _ENCODER.default, json.encoder.c_encode_basestring, None, ":", ",", False, False, True
    )
)


def _encode(payload: list) -> str:
    return _ENCODER.encode(payload) if _C_ENCODE is None else "".join(_C_ENCODE(payload, 0))


def _sha256(payload: list) -> str:
    return hashlib.sha256(_encode(payload).encode("utf-8")).hexdigest()


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


def redacted_text_hash(reason: str, sources: Iterable[str]) -> str:
    """The hash of a reason and sources as an erase left them (redacted: the value is no longer in them),
    which that erase's keyed link covers, so the redacted text cannot be rewritten afterwards."""
    return _sha256([_REDACTED_TAG, reason, list(sources)])


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


def keyed_link(
    key: ChainKey,
    keying: ChainKeying,
    previous: str,
    tx: Transaction,
    opened: Iterable[tuple[int, str]],
    closed: Iterable[int],
    erased: Iterable[int],
    tombstones: Iterable[str] = (),
    guards: Iterable[Sequence] = (),
    *,
    text: str | None = None,
    redacted: Iterable[tuple[int, str]] = (),
) -> str:
    """One keyed chain row: HMAC-SHA256 under the chain key over what `link_hash` covers (for a v2 row,
    `text`: the salted hash of the reason and sources, so an erase may redact them; `redacted`: the
    transactions whose texts this one, an erase, redacted, each with `redacted_text_hash` of the text it
    left), the ledger's id and keying point, and (for an erase) its tombstones and erased-text rules. Every keyed row is v2 (keying comes after migration 0021 /
    0011); a row without `text` hashes the reason and sources as written (a JSON list, never a string,
    so the two forms cannot be taken for each other)."""
    payload = [
        _KEYED_TAG,
        keying.ledger_id,
        keying.keyed_from,
        previous,
        tx.id,
        tx.tx_time,
        tx.principal,
        text if text is not None else [tx.reason, list(tx.sources)],
        sorted([int(i), h] for i, h in opened),
        sorted(int(i) for i in closed),
        sorted(int(i) for i in erased),
        sorted([int(i), h] for i, h in redacted),
        sorted(tombstones),
        sorted([str(g[0]), str(g[1]), int(g[2]), str(g[3])] for g in guards),
    ]
    return key.mac(_encode(payload).encode("utf-8"))


def secret_mac(key: ChainKey, secret: str) -> str:
    """The ledger secret's HMAC under the chain key: kept in chain_keying, so a replaced secret is found."""
    return key.mac(_encode([_SECRET_TAG, secret]).encode("utf-8"))


def last_link(recorder: LedgerRecorder) -> str:
    return recorder.last_chain_hash() or GENESIS


def missing_key(keying: ChainKeying, key: ChainKey | None) -> str:
    """Why `key` cannot write or check this keyed chain ("" when it can)."""
    if key is None:
        return (
            f"this ledger's chain is keyed (key {keying.key_id}, from transaction {keying.keyed_from}) and no chain"
            " key was given: pass --chain-key FILE or --chain-key-env NAME (library: chain_key=ChainKey.from_file(...))"
        )
    if key.key_id != keying.key_id:
        return (
            f"this ledger's chain is keyed with key {keying.key_id} (from transaction {keying.keyed_from});"
            f" the key given ({key.source or 'explicit'}) is key {key.key_id}"
        )
    return ""


def record(
    recorder: LedgerRecorder,
    tx: Transaction,
    opened: Sequence[ClaimVersion],
    closed: Sequence[int],
    erased: Sequence[int] = (),
    redacted: Sequence[int] = (),
    key: ChainKey | None = None,
    *,
    key_note: str = "",
    state: tuple[str | None, ChainKeying | None] | None = None,
) -> str:
    """Write the hash rows of the versions `tx` opened, mark the ones it erases, and append its chain row
    (v2: over the salted hash of its reason and sources, and the transactions whose texts it redacts;
    keyed when the ledger's chain is). Runs inside the transaction's own database transaction, after its
    versions (and an erase's tombstones and guard rules) were written."""
    rows = []
    for version in opened:
        salt = new_salt()
        rows.append(VersionHash(version.id, version.opened_by, None, None, salt, version_hash(version, salt)))
    # The hash rows go in with the chain row (one statement on PostgreSQL), but before an erase's marks,
    # as they always did.
    if rows and erased:
        recorder.insert_version_hashes(rows)
    if erased:
        recorder.mark_erased(tx.id, erased)
    # `state`: the head and keying as the transaction's write turn read them (WriteTurn.chain), when it did.
    previous, keying = recorder.chain_state() if state is None else state
    pairs = [(r.claim_id, r.content_hash) for r in rows]
    salt = new_salt()
    text = ChainText(salt, text_hash(salt, tx.reason, tx.sources))
    if keying is not None and keying.keyed:
        refused = missing_key(keying, key)
        if refused:
            note = f" ({key_note})" if key_note else ""
            raise ValidationError(f"{refused}{note}; nothing was written", field="chain_key")
        tombstones, guards = recorder.erase_marks(tx.id, tx.tx_time) if erased else ([], [])
        left = [(i, _redacted_text_of(recorder.transaction(i))) for i in redacted]  # written before this row
        link = keyed_link(key, keying, previous or GENESIS, tx, pairs, closed, erased, tombstones, guards,  # type: ignore[arg-type]
                          text=text.text_hash, redacted=left)
    else:
        link = link_hash(previous or GENESIS, tx, pairs, closed, erased, text=text.text_hash, redacted=redacted)
    recorder.append_chain(tx.id, link, text, () if erased else rows)
    return link


def _redacted_text_of(tx: Transaction | None) -> str:
    return "missing" if tx is None else redacted_text_hash(tx.reason, tx.sources)


def key_chain(recorder: LedgerRecorder, key: ChainKey, secret: Callable[[], str]) -> int | None:
    """Key the chain from the next transaction on (once per ledger; a no-op when it is keyed already, or
    when the schema has no keying row). Returns the first keyed transaction's id, or None."""
    storage = recorder.storage
    if storage.read_only:
        return None
    keying = recorder.chain_keying()
    if keying is None or keying.keyed:
        return None
    with storage.atomic():
        _, keying = recorder.chain_state()  # again under the write lock: another writer may have keyed it
        if keying is None or keying.keyed:
            return None
        return recorder.key_chain(key.key_id, secret_mac(key, secret()))


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
    row_id: object
    problem: str


@dataclass
class ChainCheck:
    """What `check` found: the problems, how many transactions it walked, the head (the last stored
    link), the keying row, and which part of the chain is keyed (for verify's output)."""

    problems: list[ChainProblem]
    count: int
    head: str
    keying: ChainKeying | None
    key_problem: str = ""  # why the keyed part could not be checked ("" when it was, or there is none)
    keyed_part: str = ""  # e.g. "transactions 1-41 unkeyed (sha256), 42-100 keyed (HMAC, key ab12...)"
    last_tx: int = 0

    def __iter__(self):
        """(problems, transactions checked, head), as `check` returned before the keyed chain."""
        return iter((self.problems, self.count, self.head))


def _describe_parts(keying: ChainKeying | None, last_tx: int) -> str:
    if last_tx == 0:
        return "no transactions yet" + ("; keyed from the first (key " + keying.key_id + ")" if keying and keying.keyed else "")  # type: ignore[operator]
    if keying is None or not keying.keyed:
        return f"not keyed: transactions 1-{last_tx} chained with unkeyed sha256 links (anyone can recompute them)"
    start = keying.keyed_from or 1
    if start > last_tx:
        return f"transactions 1-{last_tx} unkeyed (sha256, before the chain was keyed); keyed from transaction {start} on (key {keying.key_id})"
    unkeyed = f"transactions 1-{start - 1} unkeyed (sha256, before the chain was keyed), " if start > 1 else "transactions "
    return f"{unkeyed}{start}-{last_tx} keyed (HMAC-SHA256, key {keying.key_id})"


def check(storage: AnyStorage, key: ChainKey | None = None, *, secret: str | None = None) -> ChainCheck:
    """Recompute the chain from the transactions and version hashes (keyed links with `key`), every
    surviving version's content hash from its row, and, in the keyed part, the tombstones and guard
    rules each erase left and the ledger secret (`secret`) the chain was keyed with."""
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

    keying = recorder.chain_keying()
    keyed_from = keying.keyed_from if keying is not None and keying.keyed else None
    key_problem = missing_key(keying, key) if keyed_from is not None else ""  # type: ignore[arg-type]
    can_check_keyed = keyed_from is not None and not key_problem
    if can_check_keyed and secret is not None and keying.secret_mac != secret_mac(key, secret):  # type: ignore[union-attr, arg-type]
        problems.append(ChainProblem(
            "ledger_secret", 1,
            "differs from the secret the chain was keyed with: replaced (its tombstones and rejections no longer"
            " match, so erased and rejected values could come back)",
        ))
    tombstones_at: dict[str, list[str]] = {}
    guards_of: dict[int, list[tuple[str, str, int, str]]] = {}
    if keyed_from is not None:
        stones, guard_rows = recorder.all_erase_marks()
        for content_hash, erased_at in stones:
            tombstones_at.setdefault(erased_at, []).append(content_hash)
        for match, scope, words, words_hash, erase_tx in guard_rows:
            guards_of.setdefault(erase_tx, []).append((match, scope, words, words_hash))

    links = recorder.chain_links()
    texts = recorder.chain_texts()
    redacted: dict[int, list[int]] = {}
    for tx_id, t in texts.items():
        if t.redacted_by is not None:
            redacted.setdefault(t.redacted_by, []).append(tx_id)
    redacted_ids = {i for ids in redacted.values() for i in ids}
    left_texts: dict[int, str] = {}  # a redacted transaction's text as its erase left it (the keyed part)
    previous = GENESIS
    count = 0
    last_tx = 0
    keyed_start_time: str | None = None
    for tx in recorder.transactions():
        count += 1
        last_tx = tx.id
        t = texts.get(tx.id)
        if t is not None and t.salt is not None and text_hash(t.salt, tx.reason, tx.sources) != t.text_hash:
            problems.append(ChainProblem("tx_chain", tx.id, "the transaction's reason or sources differ from the hash its chain row recorded: edited in place"))
        elif t is not None and t.salt is None and t.redacted_by is None:
            problems.append(ChainProblem("tx_chain", tx.id, "a reason's hash lost its salt with no erase recorded"))
        tx_text = None if t is None else t.text_hash
        tx_redacted = redacted.get(tx.id, ())
        if tx.id in redacted_ids:
            left_texts[tx.id] = _redacted_text_of(tx)
        stored = links.pop(tx.id, None)
        keyed = keyed_from is not None and tx.id >= keyed_from
        if keyed and keyed_start_time is None:
            keyed_start_time = tx.tx_time
        if keyed and not can_check_keyed:
            expected = None
        elif keyed:
            tx_erased = erased.get(tx.id, ())
            stones = tombstones_at.pop(tx.tx_time, []) if tx_erased else []
            guards = guards_of.pop(tx.id, []) if tx_erased else []
            expected = keyed_link(key, keying, previous, tx, opened.get(tx.id, ()), closed.get(tx.id, ()),  # type: ignore[arg-type]
                                  tx_erased, stones, guards, text=tx_text,
                                  redacted=[(i, left_texts.get(i, "missing")) for i in tx_redacted])
        else:
            expected = link_hash(previous, tx, opened.get(tx.id, ()), closed.get(tx.id, ()), erased.get(tx.id, ()),
                                 text=tx_text, redacted=tx_redacted)
        if stored is None:
            problems.append(ChainProblem("transactions", tx.id, "no chain row: written outside factledger"))
        elif expected is not None and stored != expected:
            what = ("its versions, and (for an erase) the reasons it redacted, its tombstones and guard rules" if keyed
                    else "its versions (and, for an erase, the reasons it redacted)")
            problems.append(ChainProblem("tx_chain", tx.id, f"chain hash does not match the transaction and {what}"))
        # Go on from the stored hash, so each tampered transaction is reported once, not every later one.
        previous = stored if stored is not None else (expected or previous)
    for tx_id in sorted(links):
        problems.append(ChainProblem("tx_chain", tx_id, "chain row of no transaction"))
    if can_check_keyed and keyed_start_time is not None:
        # In the keyed part every tombstone and guard rule belongs to the erase that wrote it.
        for erased_at, hashes in sorted(tombstones_at.items()):
            if erased_at >= keyed_start_time:
                for content_hash in sorted(hashes):
                    problems.append(ChainProblem("tombstones", content_hash, f"dated {erased_at}, written by no erase transaction"))
        for erase_tx, rows in sorted(guards_of.items()):
            if erase_tx >= keyed_from:  # type: ignore[operator]
                problems.append(ChainProblem("erased_texts", erase_tx, f"{len(rows)} guard rule(s) of transaction {erase_tx}, which erased nothing"))
    return ChainCheck(problems, count, previous, keying, key_problem, _describe_parts(keying, last_tx), last_tx)
