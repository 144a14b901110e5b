"""The ledger's storage interface: every statement the store (ledger/store.py) and the hash chain
(ledger/chain.py) issue, as typed methods over the project's own records.

One implementation per engine: ledger/sqlite_recorder.py and ledger/pg_recorder.py, chosen by
`engines.ledger_recorder(storage)` from an explicit mapping on `storage.engine`. The SQL and its dialect live
in those two modules (and in schema/); callers never see a driver's row or error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .model import ClaimVersion, HistoryEntry, Predicate, Transaction
from .portion import Span
from .frozen import quick_init


@quick_init
@dataclass(frozen=True)
class NewVersion:
    """A claim version to insert, opened by the running transaction (ids are assigned on insert)."""

    scope: str
    subject_key: str
    subject: str
    predicate: str
    cardinality: str
    value: str
    value_key: str
    valid_from: str
    valid_to: str | None
    source: tuple[str, ...] = ()


@quick_init
@dataclass(frozen=True)
class ChainText:
    """A chain row's hash of its transaction's reason and sources (chain.py text_hash), with its salt,
    which an erase that redacted the text dropped (`redacted_by`)."""

    salt: str | None
    text_hash: str
    redacted_by: int | None = None


@quick_init
@dataclass(frozen=True)
class VersionHash:
    """A version's row in the hash chain (version_hashes): kept when an erase removes the version."""

    claim_id: int
    opened_by: int
    closed_by: int | None
    erased_by: int | None
    salt: str | None
    content_hash: str


@quick_init
@dataclass(frozen=True)
class ChainKeying:
    """The chain's keying row (migration 0021): the ledger's public id, and from which transaction the
    links are keyed, with which key (its fingerprint), and the HMAC of the ledger secret under it."""

    ledger_id: str
    keyed_from: int | None = None
    key_id: str | None = None
    secret_mac: str | None = None

    @property
    def keyed(self) -> bool:
        return self.keyed_from is not None


@quick_init
@dataclass(frozen=True)
class WriteTurn:
    """What a write transaction reads once it holds the write turn (`begin_write_turn`)."""

    last_tx_time: str | None  # the latest transaction's time (None before the first)
    change_token: object  # as `change_token()` would return it now
    has_tombstones: bool  # as `has_tombstones()` would
    # The chain's head and keying as `chain_state()` would return them now, when the engine read them with
    # the turn (SQLite); None: `chain.record` asks `chain_state()`. Only this transaction writes until its
    # chain row, and none of its statements before that row changes the head or the keying.
    chain: tuple[str | None, ChainKeying | None] | None = None


@dataclass(frozen=True)
class ChainLink:
    """A transaction's stored chain row, with its time (what a head names)."""

    tx_id: int
    chain_hash: str
    tx_time: str


@dataclass(frozen=True)
class SlotQuery:
    """Which versions a read wants: the visibility predicate's parameters and optional narrowing."""

    scopes: Sequence[str]
    valid_at: str
    known_at: str
    subject_key: str | None = None
    predicate: str | None = None
    latest: bool = False  # known_at is the end of time: only open versions can be visible


class LedgerRecorder(Protocol):
    """What the ledger asks of its database. Every write method runs inside the caller's
    `storage.atomic()`; the engine's schema enforces the rules besides (DESIGN §3, §8)."""

    storage: Any
    engine: str

    # -- the visibility predicate -----------------------------------------------------------------

    def visible_sql(self) -> str:
        """The one visibility predicate over alias c, in this engine's placeholders for scopes,
        valid_at and known_at."""
        ...

    def scope_param(self, scopes: Sequence[str]) -> object:
        """The value the predicate's scopes parameter takes for these scopes."""
        ...

    # -- predicates -------------------------------------------------------------------------------

    def load_predicates(self) -> dict[str, Predicate]: ...

    def define_predicate(self, predicate: Predicate, defined_at: str) -> None:
        """Insert a predicate, or update its template and description."""
        ...

    def change_token(self) -> object:
        """A cheap value that differs after another connection committed a change a cached predicate
        registry may miss."""
        ...

    # -- transactions -----------------------------------------------------------------------------

    def begin_write(self) -> str | None:
        """Take the ledger's write turn inside the open atomic block (writers are serialised from here
        until commit) and return the latest transaction's time (None before the first)."""
        ...

    def begin_write_turn(self) -> WriteTurn:
        """`begin_write`, then `change_token` and `has_tombstones`, in as few round trips as the engine
        allows (a one-operation transaction pays each one)."""
        ...

    def begin_transaction(
        self, stamp: str, principal: str, reason: str, sources: Sequence[str]
    ) -> tuple[WriteTurn, int, str]:
        """`begin_write_turn`, then `insert_transaction` at `stamp`, or one microsecond after the latest
        transaction when `stamp` is not later (the clock stepped back or stood still), in as few round
        trips as the engine allows. Returns the turn (as read before this transaction), its id and time."""
        ...

    def token_after_commit(self, tx_id: int, token: object) -> object:
        """The change token after this connection committed transaction `tx_id` (which changed no
        predicate) over a registry it had read at `token`: its own commit must not look like another
        connection's change."""
        ...

    def last_tx_time(self) -> str | None: ...

    def insert_transaction(self, tx_time: str, principal: str, reason: str, sources: Sequence[str]) -> int: ...

    def transaction(self, tx_id: int) -> Transaction | None: ...

    def has_tombstones(self) -> bool: ...

    # -- slots and the flush ----------------------------------------------------------------------

    def open_spans(self, scope: str, subject_key: str, predicate: str) -> list[Span]:
        """The slot's versions not closed in transaction time (every valid interval), as the portion
        algebra takes them: only the columns it reads, no whole ClaimVersion per row."""
        ...

    def open_spans_of(self, slots: Sequence[tuple[str, str, str]]) -> dict[tuple[str, str, str], list[Span]]:
        """open_spans of many slots in one statement (a batch names its slots before it applies them):
        (scope, subject_key, predicate) -> its spans, for the slots that hold any."""
        ...

    def held_slots(self, scope: str | None, subject_key: str | None, predicate: str | None) -> list[tuple[str, str, str]]:
        """(scope, subject_key, predicate) of every slot holding a version not closed in transaction time,
        narrowed by the keys given (None: any), in key order (an SQL write's WHERE that names some keys)."""
        ...

    def close_versions(self, tx_id: int, tx_time: str, claim_ids: Sequence[int]) -> None: ...

    def add_provenance(self, rows: Sequence[tuple[int, int, str]]) -> None:
        """(claim id, tx id, source) rows for writes that repeated a value; repeats are ignored."""
        ...

    def insert_versions(
        self, tx_id: int, tx_time: str, versions: Sequence[NewVersion], closes: Sequence[int] = ()
    ) -> list[ClaimVersion]:
        """Insert open versions; returns them with their ids, in order. `closes`: versions to close first,
        as `close_versions` would (on PostgreSQL in the same statement, one round trip)."""
        ...

    # -- reads ------------------------------------------------------------------------------------

    def scopes(self) -> list[str]: ...

    def as_of(self, query: SlotQuery) -> list[ClaimVersion]:
        """Visible versions, ordered by scope, subject, predicate, valid_from, value."""
        ...

    def history(self, scopes: Sequence[str], subject_key: str, predicate: str) -> list[HistoryEntry]: ...

    def slots(
        self, scopes: Sequence[str], *, subject_key: str | None, like: str | None, limit: int
    ) -> list[dict[str, object]]: ...

    def transaction_versions(self, tx_id: int) -> tuple[list[ClaimVersion], list[ClaimVersion]]: ...

    def claim(self, claim_id: int) -> ClaimVersion | None: ...

    def subject_exists(self, subject_key: str) -> bool: ...

    def version_count(self) -> int:
        """Every claim version stored (current, closed and retracted; not erased ones)."""
        ...

    # -- the hash chain ---------------------------------------------------------------------------

    def insert_version_hashes(self, rows: Sequence[VersionHash]) -> None: ...

    def mark_erased(self, tx_id: int, claim_ids: Sequence[int]) -> None:
        """Record that `tx_id` erases these versions (their salts go)."""
        ...

    # -- recall's claim lanes, where an engine defers them (SQLite, migration 0027) ---------------------

    def lanes_tail(self) -> int:
        """How many transactions' lexical rows are not written yet (0 where nothing is deferred)."""
        ...

    def catch_up_lanes(self) -> int:
        """Inside the caller's atomic block: write the pending lexical rows, all of them."""
        ...

    def lanes_after_write(self, tx_id: int, opened: int) -> None:
        """At the end of transaction `tx_id`, which opened `opened` versions: catch up if the tail is
        past the engine's bound."""
        ...

    def last_chain_hash(self) -> str | None: ...

    def chain_state(self) -> tuple[str | None, ChainKeying | None]:
        """The last chain hash and the keying row, in one statement (the writer's per-transaction read)."""
        ...

    def chain_keying(self) -> ChainKeying | None:
        """The keying row (None before migration 0022 SQLite / 0012 PostgreSQL)."""
        ...

    def key_chain(self, key_id: str, secret_mac: str) -> int:
        """Key the chain from the next transaction on; returns that transaction's id. Inside atomic()."""
        ...

    def erase_marks(self, tx_id: int, tx_time: str) -> tuple[list[str], list[tuple[str, str, int, str]]]:
        """What erase transaction `tx_id` left to keep its value out: the tombstones dated at its time
        and its erased-text guard rules (match, scope, words, text_hash)."""
        ...

    def all_erase_marks(self) -> tuple[list[tuple[str, str]], list[tuple[str, str, int, str, int]]]:
        """Every tombstone (content_hash, erased_at) and guard rule (match, scope, words, text_hash, erase_tx)."""
        ...

    def last_link(self) -> ChainLink | None: ...

    def link_at(self, tx_id: int) -> ChainLink | None: ...

    def append_chain(
        self, tx_id: int, chain_hash: str, text: "ChainText | None" = None, hashes: Sequence[VersionHash] = ()
    ) -> None:
        """The chain row, after `hashes` (the hash rows of the versions the transaction opened, when they
        were not written before): on PostgreSQL one statement, one round trip."""
        ...

    def chain_texts(self) -> dict[int, "ChainText"]:
        """The salted hash of each transaction's reason and sources, by transaction (none before 0021)."""
        ...

    def redact_texts(self, tx_id: int, redacted: Sequence[int], texts: Sequence[Transaction]) -> None:
        """`tx_id` (an erase, the latest) redacts these transactions' reasons and sources: their salts
        go, then their texts are rewritten to `texts` (same ids)."""
        ...

    def transaction_scopes(self, tx_ids: Sequence[int]) -> dict[int, set[str]]:
        """The scopes of the versions each transaction opened or closed (still stored)."""
        ...

    def legacy_through(self) -> int | None:
        """The last transaction written before the chain, when some of them are not hashed yet."""
        ...

    def versions_opened_through(self, tx_id: int) -> Iterator[ClaimVersion]: ...

    def transactions_through(self, tx_id: int) -> list[Transaction]: ...

    def hashes_of_transaction(self, tx_id: int) -> tuple[list[tuple[int, str]], list[int]]:
        """(claim id, content hash) of the versions `tx_id` opened, and the ids it closed."""
        ...

    def version_hashes(self) -> Iterator[VersionHash]: ...

    def versions_with_hashes(self) -> Iterator[tuple[ClaimVersion, VersionHash | None]]: ...

    def hashes_without_version(self) -> Iterator[int]:
        """Claim ids with a hash row, not recorded as erased, whose version is gone."""
        ...

    def chain_links(self) -> dict[int, str]: ...

    def transactions(self) -> Iterator[Transaction]: ...


def version_hash_from_row(row: Any) -> VersionHash:
    return VersionHash(
        row["claim_id"], row["opened_by"], row["closed_by"], row["erased_by"], row["salt"], row["content_hash"]
    )


def history_entry_from_row(row: Any) -> HistoryEntry:
    """A history row: the version's columns, then o_* and x_* for its opening and closing transactions."""
    opened = Transaction(row["opened_by"], row["o_time"], row["o_principal"], row["o_reason"], _decode(row["o_sources"]))
    closed = None
    if row["closed_by"] is not None:
        closed = Transaction(row["closed_by"], row["x_time"], row["x_principal"], row["x_reason"], _decode(row["x_sources"]))
    return HistoryEntry(ClaimVersion.from_row(row), opened, closed)


def predicate_from_row(row: Any) -> Predicate:
    return Predicate(row["name"], row["display"], row["cardinality"], row["description"], row["template"])


# The columns of a claim `span_from_row` reads, in its order.
SPAN_COLUMNS = "value_key, value, valid_from, valid_to, source, id, subject"
# The same, of a claims row aliased `c` (beside another table with columns of these names).
SPAN_COLUMNS_OF_C = ", ".join(f"c.{name.strip()}" for name in SPAN_COLUMNS.split(","))


def span_from_row(row: Any) -> Span:
    """A claims row of SPAN_COLUMNS as the algebra's Span (most versions have no sources: no JSON then)."""
    source = row[4]
    return Span(row[0], row[1], row[2], row[3], () if source == "[]" else _decode(source), row[5], row[6])


def encode_sources(sources: Sequence[str]) -> str:
    """Sources as stored: a JSON array (the chain hashes them as parsed back)."""
    return json.dumps(list(sources), ensure_ascii=False) if sources else "[]"


def _decode(text: str) -> tuple[str, ...]:
    return tuple(json.loads(text))


def opened_version(claim_id: int, tx_id: int, tx_time: str, v: NewVersion) -> ClaimVersion:
    """The version as inserted: open, opened by `tx_id` at `tx_time`."""
    return ClaimVersion(
        id=claim_id,
        scope=v.scope,
        subject=v.subject,
        subject_key=v.subject_key,
        predicate=v.predicate,
        cardinality=v.cardinality,  # type: ignore[arg-type]
        value=v.value,
        value_key=v.value_key,
        valid_from=v.valid_from,
        valid_to=v.valid_to,
        tx_from=tx_time,
        tx_to=None,
        opened_by=tx_id,
        closed_by=None,
        source=v.source,
    )


def joined_version_hash(row: Any) -> tuple[ClaimVersion, VersionHash | None]:
    """A claims row LEFT JOINed to its hash row (columns v_id, v_salt, v_hash, v_opened, v_closed, v_erased)."""
    version = ClaimVersion.from_row(row)
    if row["v_id"] is None:
        return version, None
    return version, VersionHash(row["v_id"], row["v_opened"], row["v_closed"], row["v_erased"], row["v_salt"], row["v_hash"])
