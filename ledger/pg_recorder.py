"""The ledger recorder on PostgreSQL (ledger/recorder.py's interface): every ledger and chain statement
in PostgreSQL's dialect, `%s` and `%(name)s` placeholders, scopes as a text[] parameter.

Writers are serialised by the one `ledger_head` row: `begin_write` locks it FOR UPDATE before the
transaction reads anything it will decide on, so a second writer waits there (up to the lock timeout,
then BusyError) and, under READ COMMITTED, reads the slots only after the first one committed. Two
conflicting operations on one slot are therefore applied one after the other (the second seeing the
first) or refused, never both applied blind; the schema's EXCLUDE constraints refuse an overlap from
any other client.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from factledger.schema import visibility_predicate

from .model import ClaimVersion, HistoryEntry, Predicate, Transaction
from .pg_storage import PostgresStorage
from .portion import Span
from .recorder import (
    ChainKeying,
    ChainLink,
    SPAN_COLUMNS,
    SPAN_COLUMNS_OF_C,
    NewVersion,
    SlotQuery,
    ChainText,
    VersionHash,
    WriteTurn,
    encode_sources,
    history_entry_from_row,
    joined_version_hash,
    opened_version,
    predicate_from_row,
    span_from_row,
    version_hash_from_row,
)


# The chain's head and its keying row in one read (the keying by a LATERAL subquery: the same row, NULLs
# without one, as `LEFT JOIN chain_keying k ON k.id = 1`, ~55 µs a round trip against ~117 for that join).
_CHAIN_STATE_COLUMNS = (
    "(SELECT chain_hash FROM tx_chain ORDER BY tx_id DESC LIMIT 1), k.ledger_id, k.keyed_from, k.key_id, k.secret_mac"
    " FROM (SELECT 1) o LEFT JOIN LATERAL (SELECT * FROM chain_keying WHERE id = 1) k ON true"
)


def _chain_state(row: Sequence) -> tuple[str | None, ChainKeying | None]:
    return row[0], None if row[1] is None else ChainKeying(row[1], row[2], row[3], row[4])


class PostgresLedgerRecorder:
    engine = "postgres"

    def __init__(self, storage: PostgresStorage):
        self.storage = storage
        self._visible = visibility_predicate("postgres")
        self._keying_table: bool | None = None

    # -- the visibility predicate -----------------------------------------------------------------

    def visible_sql(self) -> str:
        return self._visible

    def scope_param(self, scopes: Sequence[str]) -> list[str]:
        return list(scopes)

    # -- predicates -------------------------------------------------------------------------------

    def load_predicates(self) -> dict[str, Predicate]:
        rows = self.storage.query("SELECT name, display, cardinality, description, template FROM predicates")
        return {r["name"]: predicate_from_row(r) for r in rows}

    def define_predicate(self, predicate: Predicate, defined_at: str) -> None:
        self.storage.execute(
            "INSERT INTO predicates (name, display, cardinality, description, template, defined_at)"
            " VALUES (%s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (name) DO UPDATE SET description = EXCLUDED.description, template = EXCLUDED.template",
            (predicate.name, predicate.display, predicate.cardinality, predicate.description, predicate.template, defined_at),
        )

    def change_token(self) -> object:
        # factledger changes predicates only inside ledger transactions, and every one of them moves the
        # head: one primary-key read tells whether anything was committed since the registry was read.
        return self.storage.one("SELECT tx_id FROM ledger_head WHERE id = 1")[0]

    # -- transactions -----------------------------------------------------------------------------

    def begin_write(self) -> str | None:
        return self.storage.one("SELECT tx_time FROM ledger_head WHERE id = 1 FOR UPDATE")[0]

    def begin_write_turn(self) -> WriteTurn:
        # The head's lock, its time and id (the change token); then, in a statement of its own, whether any
        # tombstone exists. Not in the locking statement: one that waited for the lock reads the head row
        # as it is now but everything else as it was when it started, so an erase that committed the
        # first tombstone meanwhile would go unseen and its value could be written back.
        # The second statement also reads the chain's head and keying, which `chain.record` takes at the end
        # of the transaction (nothing before its chain row changes them: this transaction holds the turn).
        row = self.storage.one("SELECT tx_time, tx_id FROM ledger_head WHERE id = 1 FOR UPDATE")
        return WriteTurn(row[0], row[1], *self._read_after_the_lock())

    def begin_transaction(
        self, stamp: str, principal: str, reason: str, sources: Sequence[str]
    ) -> tuple[WriteTurn, int, str]:
        # The transaction row is the statement that takes the head's lock (FOR UPDATE in its SELECT: a
        # writer waits there, and after the wait reads the head as the last writer left it), its time
        # `stamp` or one microsecond after the head's, as `Ledger.transaction` would choose it. Then the
        # reads of the turn, in a statement of their own (begin_write_turn says why).
        row = self.storage.one(
            "INSERT INTO transactions (id, tx_time, principal, reason, sources)"
            " SELECT h.tx_id + 1, CASE WHEN h.tx_time IS NULL OR %s::timestamptz > h.tx_time THEN %s::timestamptz"
            " ELSE h.tx_time + interval '1 microsecond' END, %s, %s, %s"
            " FROM ledger_head h WHERE h.id = 1 FOR UPDATE RETURNING id, tx_time",
            (stamp, stamp, principal, reason, encode_sources(sources)),
        )
        tx_id, tx_time = row[0], row[1]
        before = tx_id - 1  # the head's transaction id before this one: the change token
        return WriteTurn(None, before, *self._read_after_the_lock()), tx_id, tx_time

    def _read_after_the_lock(self) -> tuple[bool, tuple[str | None, ChainKeying | None] | None]:
        """Whether tombstones exist, and the chain's head and keying (`chain_state`), in one statement of
        its own after the head's lock is held (`begin_write_turn` says why not in the locking one). A schema
        held back before chain_keying: the tombstones only (`chain.record` then asks `chain_state`)."""
        if not self._has_keying():
            return self.has_tombstones(), None
        row = self.storage.one("SELECT EXISTS (SELECT 1 FROM tombstones), " + _CHAIN_STATE_COLUMNS)
        return bool(row[0]), _chain_state(row[1:])

    def _has_keying(self) -> bool:
        # Every ledger opened for writing is migrated (0012 made chain_keying); a schema held back (a test
        # of an older writer) reads the chain's state through chain_state(), as before.
        if self._keying_table is None:
            self._keying_table = self.storage.one("SELECT to_regclass('chain_keying') IS NOT NULL")[0]
        return self._keying_table

    def token_after_commit(self, tx_id: int, token: object) -> object:
        # The token is the head's transaction id, and this commit moved the head to tx_id.
        return tx_id

    def last_tx_time(self) -> str | None:
        return self.storage.one("SELECT tx_time FROM ledger_head WHERE id = 1")[0]

    def insert_transaction(self, tx_time: str, principal: str, reason: str, sources: Sequence[str]) -> int:
        # The next id after the head's, not the identity's sequence: a sequence is not rolled back, so a
        # refused transaction would leave a gap that SQLite does not, and the chain hashes the ids.
        return self.storage.one(
            "INSERT INTO transactions (id, tx_time, principal, reason, sources)"
            " SELECT tx_id + 1, %s, %s, %s, %s FROM ledger_head WHERE id = 1 RETURNING id",
            (tx_time, principal, reason, encode_sources(sources)),
        )[0]

    def transaction(self, tx_id: int) -> Transaction | None:
        row = self.storage.one("SELECT * FROM transactions WHERE id = %s", (tx_id,))
        return Transaction.from_row(row) if row else None

    def has_tombstones(self) -> bool:
        return self.storage.one("SELECT 1 FROM tombstones LIMIT 1") is not None

    # -- slots and the flush ----------------------------------------------------------------------

    def open_spans(self, scope: str, subject_key: str, predicate: str) -> list[Span]:
        rows = self.storage.query(
            f"SELECT {SPAN_COLUMNS} FROM claims WHERE scope = %s AND subject_key = %s AND predicate = %s AND tx_to IS NULL",
            (scope, subject_key, predicate),
        )
        return [span_from_row(r) for r in rows]

    def open_spans_of(self, slots: Sequence[tuple[str, str, str]]) -> dict[tuple[str, str, str], list[Span]]:
        # One round trip for the batch instead of one per slot.
        found: dict[tuple[str, str, str], list[Span]] = {}
        if not slots:
            return found
        rows = self.storage.query(
            f"SELECT {SPAN_COLUMNS_OF_C}, c.scope, c.subject_key, c.predicate"
            " FROM unnest(%s::text[], %s::text[], %s::text[]) AS s(scope, subject_key, predicate)"
            " JOIN claims c ON c.scope = s.scope AND c.subject_key = s.subject_key AND c.predicate = s.predicate"
            " WHERE c.tx_to IS NULL",
            ([slot[0] for slot in slots], [slot[1] for slot in slots], [slot[2] for slot in slots]),
        )
        for r in rows:
            found.setdefault((r[7], r[8], r[9]), []).append(span_from_row(r))
        return found

    def held_slots(self, scope: str | None, subject_key: str | None, predicate: str | None) -> list[tuple[str, str, str]]:
        conditions, params = ["tx_to IS NULL"], []
        for column, wanted in (("scope", scope), ("subject_key", subject_key), ("predicate", predicate)):
            if wanted is not None:
                conditions.append(f"{column} = %s")
                params.append(wanted)
        rows = self.storage.query(
            "SELECT DISTINCT scope, subject_key, predicate FROM claims WHERE " + " AND ".join(conditions)
            + " ORDER BY scope, subject_key, predicate",
            tuple(params),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def close_versions(self, tx_id: int, tx_time: str, claim_ids: Sequence[int]) -> None:
        self.storage.execute(
            "UPDATE claims SET tx_to = %s, closed_by = %s WHERE id = ANY(%s)", (tx_time, tx_id, list(claim_ids))
        )

    def add_provenance(self, rows: Sequence[tuple[int, int, str]]) -> None:
        self.storage.executemany(
            "INSERT INTO claim_provenance (claim_id, tx_id, source) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING", rows
        )

    def insert_versions(
        self, tx_id: int, tx_time: str, versions: Sequence[NewVersion], closes: Sequence[int] = ()
    ) -> list[ClaimVersion]:
        # Ids as SQLite's AUTOINCREMENT hands them out: after the largest ever committed (an erased
        # version's hash row keeps its id), consecutively; the writer holds the head's lock, so no other
        # ledger writer takes ids meanwhile. Then one INSERT of every row, from arrays.
        # The largest id is read by the INSERT itself (its CTE sees the table as the statement began):
        # one round trip, not two.
        columns = list(
            zip(
                *[
                    (
                        v.scope, v.subject_key, v.subject, v.predicate, v.cardinality, v.value, v.value_key,
                        v.valid_from, v.valid_to, encode_sources(v.source),
                    )
                    for v in versions
                ]
            )
        )
        # With `closes`, the close is a CTE of the same statement, one round trip fewer: `base` counts
        # its rows, so it has run to its end (its row triggers included) before the INSERT takes its
        # first row from `base`; the exclusion constraints and unique indexes then see the closed
        # versions as closed, as they do across two statements. Its AFTER ROW triggers (the hash row's
        # mirror, the outbox's close rows) are queued before the INSERT's statement triggers, so the
        # outbox still queues a transaction's closes before its inserts.
        closing = (
            "closed AS (UPDATE claims SET tx_to = %s, closed_by = %s WHERE id = ANY(%s) RETURNING 1),"
            if closes else ""
        )
        counted = ", (SELECT COUNT(*) FROM closed) AS closed" if closes else ""
        row = self.storage.one(
            f"WITH {closing} base AS (SELECT GREATEST(COALESCE((SELECT MAX(claim_id) FROM version_hashes), 0),"
            f" COALESCE((SELECT MAX(id) FROM claims), 0)) AS id{counted}),"
            " written AS (INSERT INTO claims (id, scope, subject_key, subject, predicate, cardinality, value, value_key,"
            " valid_from, valid_to, source, tx_from, opened_by)"
            " SELECT base.id + u.n, u.scope, u.subject_key, u.subject, u.predicate, u.cardinality, u.value, u.value_key,"
            " u.valid_from, u.valid_to, u.source, %s::timestamptz, %s::bigint"
            " FROM base, unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[],"
            " %s::timestamptz[], %s::timestamptz[], %s::text[])"
            " WITH ORDINALITY AS u(scope, subject_key, subject, predicate, cardinality, value, value_key,"
            " valid_from, valid_to, source, n)"
            " ORDER BY u.n RETURNING 1)"
            " SELECT base.id, (SELECT COUNT(*) FROM written) FROM base",
            (*((tx_time, tx_id, list(closes)) if closes else ()), tx_time, tx_id, *[list(c) for c in columns]),
        )
        first_id = row[0] + 1
        if row[1] != len(versions):  # never: one row per element
            raise RuntimeError(f"inserted {row[1]} claim versions, expected {len(versions)}")
        ids = range(first_id, first_id + len(versions))
        return [opened_version(claim_id, tx_id, tx_time, v) for claim_id, v in zip(ids, versions)]

    # -- reads ------------------------------------------------------------------------------------

    def scopes(self) -> list[str]:
        # A skip-scan over the slot index (one seek per scope) instead of reading every row.
        rows = self.storage.query(
            "WITH RECURSIVE s(scope) AS ("
            " SELECT MIN(scope) FROM claims"
            " UNION ALL SELECT (SELECT MIN(scope) FROM claims WHERE scope > s.scope) FROM s WHERE s.scope IS NOT NULL)"
            " SELECT scope FROM s WHERE scope IS NOT NULL"
        )
        return [r[0] for r in rows]

    def as_of(self, query: SlotQuery) -> list[ClaimVersion]:
        params: dict[str, object] = {
            "scopes": self.scope_param(query.scopes),
            "valid_at": query.valid_at,
            "known_at": query.known_at,
        }
        sql = f"SELECT c.* FROM claims c WHERE {self._visible}"
        if query.latest:
            sql += " AND c.tx_to IS NULL"  # lets the planner use the partial index of open versions
        if query.subject_key is not None:
            sql += " AND c.subject_key = %(subject_key)s"
            params["subject_key"] = query.subject_key
        if query.predicate is not None:
            sql += " AND c.predicate = %(predicate)s"
            params["predicate"] = query.predicate
        sql += " ORDER BY c.scope, c.subject_key, c.predicate, c.valid_from, c.value_key"
        return [ClaimVersion.from_row(r) for r in self.storage.query(sql, params)]

    def history(self, scopes: Sequence[str], subject_key: str, predicate: str) -> list[HistoryEntry]:
        sql = (
            "SELECT c.*, o.tx_time AS o_time, o.principal AS o_principal, o.reason AS o_reason, o.sources AS o_sources,"
            " x.tx_time AS x_time, x.principal AS x_principal, x.reason AS x_reason, x.sources AS x_sources"
            " FROM claims c JOIN transactions o ON o.id = c.opened_by LEFT JOIN transactions x ON x.id = c.closed_by"
            " WHERE c.scope = ANY(%(scopes)s::text[])"
            " AND c.subject_key = %(subject_key)s AND c.predicate = %(predicate)s"
            " ORDER BY c.tx_from, c.valid_from, c.id"
        )
        rows = self.storage.query(
            sql, {"scopes": self.scope_param(scopes), "subject_key": subject_key, "predicate": predicate}
        )
        return [history_entry_from_row(r) for r in rows]

    def slots(
        self, scopes: Sequence[str], *, subject_key: str | None, like: str | None, limit: int
    ) -> list[dict[str, object]]:
        params: dict[str, object] = {"scopes": self.scope_param(scopes), "limit": int(limit)}
        sql = (
            "SELECT c.scope, c.subject_key, MAX(c.subject) AS subject, c.predicate, COUNT(*) AS versions,"
            " COUNT(*) FILTER (WHERE c.tx_to IS NULL) AS believed FROM claims c WHERE c.scope = ANY(%(scopes)s::text[])"
        )
        if subject_key is not None:
            sql += " AND c.subject_key = %(subject_key)s"
            params["subject_key"] = subject_key
        if like is not None:
            # ESCAPE '': a backslash in the search is a character, as in SQLite's LIKE.
            sql += (
                " AND (c.subject_key LIKE %(like)s ESCAPE '' OR c.predicate LIKE %(like)s ESCAPE ''"
                " OR (c.tx_to IS NULL AND c.value_key LIKE %(like)s ESCAPE ''))"
            )
            params["like"] = like
        sql += " GROUP BY c.scope, c.subject_key, c.predicate ORDER BY c.scope, c.subject_key, c.predicate LIMIT %(limit)s"
        return [dict(r) for r in self.storage.query(sql, params)]

    def transaction_versions(self, tx_id: int) -> tuple[list[ClaimVersion], list[ClaimVersion]]:
        opened = self.storage.query("SELECT * FROM claims WHERE opened_by = %s ORDER BY id", (tx_id,))
        closed = self.storage.query("SELECT * FROM claims WHERE closed_by = %s ORDER BY id", (tx_id,))
        return [ClaimVersion.from_row(r) for r in opened], [ClaimVersion.from_row(r) for r in closed]

    def claim(self, claim_id: int) -> ClaimVersion | None:
        row = self.storage.one("SELECT * FROM claims WHERE id = %s", (claim_id,))
        return ClaimVersion.from_row(row) if row else None

    def subject_exists(self, subject_key: str) -> bool:
        return self.storage.one("SELECT 1 FROM claims WHERE subject_key = %s LIMIT 1", (subject_key,)) is not None

    def version_count(self) -> int:
        return int(self.storage.one("SELECT COUNT(*) FROM claims")[0])

    # -- the hash chain ---------------------------------------------------------------------------

    def insert_version_hashes(self, rows: Sequence[VersionHash]) -> None:
        # One statement from arrays, as the versions themselves, not a statement per row (executemany):
        # ~5% of a batch's server time (docs/BENCHMARKS.md, "Ledger on PostgreSQL").
        self.storage.execute(
            "INSERT INTO version_hashes (claim_id, opened_by, closed_by, salt, content_hash)"
            " SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::text[], %s::text[])",
            (
                [r.claim_id for r in rows], [r.opened_by for r in rows], [r.closed_by for r in rows],
                [r.salt for r in rows], [r.content_hash for r in rows],
            ),
        )

    def mark_erased(self, tx_id: int, claim_ids: Sequence[int]) -> None:
        self.storage.execute(
            "UPDATE version_hashes SET erased_by = %s, salt = NULL WHERE claim_id = ANY(%s)", (tx_id, list(claim_ids))
        )

    # -- recall's claim lanes: written by a statement-level trigger in each transaction (0006), nothing deferred

    def lanes_tail(self) -> int:
        return 0

    def catch_up_lanes(self) -> int:
        return 0

    def lanes_after_write(self, tx_id: int, opened: int) -> None:
        return None

    def last_chain_hash(self) -> str | None:
        row = self.storage.one("SELECT chain_hash FROM tx_chain ORDER BY tx_id DESC LIMIT 1")
        return row[0] if row else None

    def append_chain(
        self, tx_id: int, chain_hash: str, text: ChainText | None = None, hashes: Sequence[VersionHash] = ()
    ) -> None:
        if not hashes:
            if text is None:
                self.storage.execute("INSERT INTO tx_chain (tx_id, chain_hash) VALUES (%s, %s)", (tx_id, chain_hash))
            else:
                self.storage.execute(
                    "INSERT INTO tx_chain (tx_id, chain_hash, text_salt, text_hash) VALUES (%s, %s, %s, %s)",
                    (tx_id, chain_hash, text.salt, text.text_hash),
                )
            return
        # The hash rows and the chain row in one statement (one round trip): the hash rows' statement
        # trigger (0014) runs at its end as it would at the end of their own INSERT, and nothing of the
        # chain row's triggers reads version_hashes.
        self.storage.execute(
            "WITH hashes AS (INSERT INTO version_hashes (claim_id, opened_by, closed_by, salt, content_hash)"
            " SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::text[], %s::text[]))"
            " INSERT INTO tx_chain (tx_id, chain_hash, text_salt, text_hash) VALUES (%s, %s, %s, %s)",
            (
                [r.claim_id for r in hashes], [r.opened_by for r in hashes], [r.closed_by for r in hashes],
                [r.salt for r in hashes], [r.content_hash for r in hashes],
                tx_id, chain_hash, None if text is None else text.salt, None if text is None else text.text_hash,
            ),
        )

    def chain_texts(self) -> dict[int, ChainText]:
        rows = self.storage.query("SELECT tx_id, text_salt, text_hash, redacted_by FROM tx_chain WHERE text_hash IS NOT NULL")
        return {r[0]: ChainText(r[1], r[2], r[3]) for r in rows}

    def redact_texts(self, tx_id: int, redacted: Sequence[int], texts: Sequence[Transaction]) -> None:
        self.storage.execute(
            "UPDATE tx_chain SET redacted_by = %s, text_salt = NULL WHERE tx_id = ANY(%s)", (tx_id, list(redacted))
        )
        self.storage.executemany(
            "UPDATE transactions SET reason = %s, sources = %s WHERE id = %s",
            [(t.reason, encode_sources(t.sources), t.id) for t in texts],
        )

    def transaction_scopes(self, tx_ids: Sequence[int]) -> dict[int, set[str]]:
        found: dict[int, set[str]] = {}
        rows = self.storage.query(
            "SELECT opened_by, closed_by, scope FROM claims WHERE opened_by = ANY(%s) OR closed_by = ANY(%s)",
            (list(tx_ids), list(tx_ids)),
        )
        wanted = set(tx_ids)
        for opened_by, closed_by, scope in rows:
            for tx in (opened_by, closed_by):
                if tx in wanted:
                    found.setdefault(tx, set()).add(scope)
        return found

    def chain_state(self) -> tuple[str | None, ChainKeying | None]:
        return _chain_state(self.storage.one("SELECT " + _CHAIN_STATE_COLUMNS))

    def chain_keying(self) -> ChainKeying | None:
        if self.storage.one("SELECT to_regclass('chain_keying')")[0] is None:
            return None
        row = self.storage.one("SELECT ledger_id, keyed_from, key_id, secret_mac FROM chain_keying WHERE id = 1")
        return None if row is None else ChainKeying(row[0], row[1], row[2], row[3])

    def key_chain(self, key_id: str, secret_mac: str) -> int:
        self.storage.execute(
            "UPDATE chain_keying SET keyed_from = (SELECT tx_id + 1 FROM ledger_head WHERE id = 1),"
            " key_id = %s, secret_mac = %s WHERE id = 1 AND keyed_from IS NULL",
            (key_id, secret_mac),
        )
        return int(self.storage.one("SELECT keyed_from FROM chain_keying WHERE id = 1")[0])

    def erase_marks(self, tx_id: int, tx_time: str) -> tuple[list[str], list[tuple[str, str, int, str]]]:
        tombstones = [r[0] for r in self.storage.query("SELECT content_hash FROM tombstones WHERE erased_at = %s", (tx_time,))]
        guards = [
            (r[0], r[1], int(r[2]), r[3])
            for r in self.storage.query("SELECT match, scope, words, text_hash FROM erased_texts WHERE erase_tx = %s", (tx_id,))
        ]
        return tombstones, guards

    def all_erase_marks(self) -> tuple[list[tuple[str, str]], list[tuple[str, str, int, str, int]]]:
        tombstones = [(r[0], r[1]) for r in self.storage.query("SELECT content_hash, erased_at FROM tombstones")]
        guards = [
            (r[0], r[1], int(r[2]), r[3], int(r[4]))
            for r in self.storage.query("SELECT match, scope, words, text_hash, erase_tx FROM erased_texts")
        ]
        return tombstones, guards

    def last_link(self) -> ChainLink | None:
        row = self.storage.one(
            "SELECT c.tx_id, c.chain_hash, t.tx_time FROM tx_chain c JOIN transactions t ON t.id = c.tx_id"
            " ORDER BY c.tx_id DESC LIMIT 1"
        )
        return None if row is None else ChainLink(row[0], row[1], row[2])

    def link_at(self, tx_id: int) -> ChainLink | None:
        row = self.storage.one(
            "SELECT c.tx_id, c.chain_hash, t.tx_time FROM tx_chain c JOIN transactions t ON t.id = c.tx_id"
            " WHERE c.tx_id = %s",
            (tx_id,),
        )
        return None if row is None else ChainLink(row[0], row[1], row[2])

    def legacy_through(self) -> int | None:
        row = self.storage.one(
            "SELECT legacy_through FROM chain_start WHERE legacy_through > COALESCE((SELECT MAX(tx_id) FROM tx_chain), 0)"
        )
        return None if row is None else row[0]

    def versions_opened_through(self, tx_id: int) -> Iterator[ClaimVersion]:
        for row in self.storage.iterate("SELECT * FROM claims WHERE opened_by <= %s ORDER BY id", (tx_id,)):
            yield ClaimVersion.from_row(row)

    def transactions_through(self, tx_id: int) -> list[Transaction]:
        rows = self.storage.query("SELECT * FROM transactions WHERE id <= %s ORDER BY id", (tx_id,))
        return [Transaction.from_row(r) for r in rows]

    def hashes_of_transaction(self, tx_id: int) -> tuple[list[tuple[int, str]], list[int]]:
        pairs = [
            (r[0], r[1])
            for r in self.storage.query("SELECT claim_id, content_hash FROM version_hashes WHERE opened_by = %s", (tx_id,))
        ]
        closed = [r[0] for r in self.storage.query("SELECT claim_id FROM version_hashes WHERE closed_by = %s", (tx_id,))]
        return pairs, closed

    def version_hashes(self) -> Iterator[VersionHash]:
        for row in self.storage.iterate(
            "SELECT claim_id, opened_by, closed_by, erased_by, salt, content_hash FROM version_hashes"
        ):
            yield version_hash_from_row(row)

    def versions_with_hashes(self) -> Iterator[tuple[ClaimVersion, VersionHash | None]]:
        for row in self.storage.iterate(
            "SELECT c.*, v.claim_id AS v_id, v.salt AS v_salt, v.content_hash AS v_hash, v.opened_by AS v_opened,"
            " v.closed_by AS v_closed, v.erased_by AS v_erased FROM claims c LEFT JOIN version_hashes v ON v.claim_id = c.id"
        ):
            yield joined_version_hash(row)

    def hashes_without_version(self) -> Iterator[int]:
        for row in self.storage.iterate(
            "SELECT v.claim_id FROM version_hashes v WHERE v.erased_by IS NULL"
            " AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.id = v.claim_id)"
        ):
            yield row[0]

    def chain_links(self) -> dict[int, str]:
        return {r[0]: r[1] for r in self.storage.query("SELECT tx_id, chain_hash FROM tx_chain")}

    def transactions(self) -> Iterator[Transaction]:
        for row in self.storage.iterate("SELECT * FROM transactions ORDER BY id"):
            yield Transaction.from_row(row)
