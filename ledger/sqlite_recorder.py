"""The ledger recorder on SQLite (ledger/recorder.py's interface): every ledger and chain statement in
SQLite's dialect, `?` and `:name` placeholders, scopes as a JSON array read through json_each."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

from factledger.schema import visibility_predicate

from .errors import IntegrityError
from .model import ClaimVersion, HistoryEntry, Predicate, Transaction
from .portion import Span
from .recorder import (
    SPAN_COLUMNS,
    SPAN_COLUMNS_OF_C,
    ChainKeying,
    ChainLink,
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
from .storage import Storage
from .times import next_after


# Recall's claim lanes are written behind a watermark (schema/sqlite/0027_lanes_deferred.sql). A write
# catches them up in its own transaction when it opened LANES_AT_ONCE versions or more (a batch: its
# rows go into one FTS5 segment anyway, nothing is gained by waiting) or when LANES_TAIL transactions
# wait, so a ledger nobody searches keeps a short tail (fewer than LANES_TAIL x LANES_AT_ONCE
# versions), which a read-only reader scans directly. The bound's trade: docs/BENCHMARKS.md.
LANES_TAIL = 64
LANES_AT_ONCE = 64

_INSERT_CLAIM = (
    "INSERT INTO claims (scope, subject_key, subject, predicate, cardinality, value, value_key,"
    " valid_from, valid_to, tx_from, opened_by, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
# Up to this many versions are inserted by one multi-row INSERT ... RETURNING id (one statement text per
# count, each kept in the connection's statement cache); more go through one executemany.
RETURNING_AT_MOST = 8
_INSERT_RETURNING = {
    n: _INSERT_CLAIM + ", (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" * (n - 1) + " RETURNING id"
    for n in range(1, RETURNING_AT_MOST + 1)
}


# The chain's head and its keying row (NULLs without one) in one read: `chain_state`, and the write turn's.
_CHAIN_STATE_COLUMNS = (
    "(SELECT chain_hash FROM tx_chain ORDER BY tx_id DESC LIMIT 1), k.ledger_id, k.keyed_from, k.key_id, k.secret_mac"
    " FROM (SELECT 1) LEFT JOIN chain_keying k ON k.id = 1"
)


def _chain_state(row: Sequence) -> tuple[str | None, ChainKeying | None]:
    return row[0], None if row[1] is None else ChainKeying(row[1], row[2], row[3], row[4])


class SqliteLedgerRecorder:
    engine = "sqlite"

    def __init__(self, storage: Storage):
        self.storage = storage
        self._visible = visibility_predicate("sqlite")
        self._deferred_lanes: bool | None = None  # the schema has the watermark (0027): read once
        self._lanes_seen = 0  # the lexical watermark as this connection last read or moved it
        self._keying_table: bool | None = None  # the schema has chain_keying (0022): read once

    # -- the visibility predicate -----------------------------------------------------------------

    def visible_sql(self) -> str:
        return self._visible

    def scope_param(self, scopes: Sequence[str]) -> str:
        return json.dumps(list(scopes), ensure_ascii=False)

    # -- predicates -------------------------------------------------------------------------------

    def load_predicates(self) -> dict[str, Predicate]:
        rows = self.storage.query("SELECT name, display, cardinality, description, template FROM predicates")
        return {r["name"]: predicate_from_row(r) for r in rows}

    def define_predicate(self, predicate: Predicate, defined_at: str) -> None:
        # A new template rewrites the indexed sentences of the predicate's claims and not their
        # neighbours' contexts (recall_predicate_retext): recall's pending rows are written first, with
        # the template they were written under (migration 0027).
        if self.lanes_tail():
            self.catch_up_lanes()
        self.storage.execute(
            "INSERT INTO predicates (name, display, cardinality, description, template, defined_at)"
            " VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(name) DO UPDATE SET description = excluded.description, template = excluded.template",
            (predicate.name, predicate.display, predicate.cardinality, predicate.description, predicate.template, defined_at),
        )

    def change_token(self) -> object:
        # Changes whenever another connection commits to the file (not for this connection's own commits).
        return self.storage.one("PRAGMA data_version")[0]

    # -- transactions -----------------------------------------------------------------------------

    def begin_write(self) -> str | None:
        # atomic() began with BEGIN IMMEDIATE: this connection already holds the file's write lock.
        return self.last_tx_time()

    def begin_write_turn(self) -> WriteTurn:
        # atomic() began with BEGIN IMMEDIATE: this connection already holds the file's write lock. The
        # reads in one statement (pragma_data_version is PRAGMA data_version of this connection), with the
        # chain's head and keying that `chain.record` takes at the end of the transaction (nothing before
        # its chain row changes them: the transaction is the only writer until it commits).
        if self._has_keying():
            row = self.storage.one(
                "SELECT (SELECT MAX(tx_time) FROM transactions), (SELECT data_version FROM pragma_data_version),"
                " EXISTS (SELECT 1 FROM tombstones), " + _CHAIN_STATE_COLUMNS
            )
            return WriteTurn(row[0], row[1], bool(row[2]), _chain_state(row[3:]))
        row = self.storage.one(
            "SELECT (SELECT MAX(tx_time) FROM transactions), (SELECT data_version FROM pragma_data_version),"
            " EXISTS (SELECT 1 FROM tombstones)"
        )
        return WriteTurn(row[0], row[1], bool(row[2]))

    def begin_transaction(
        self, stamp: str, principal: str, reason: str, sources: Sequence[str]
    ) -> tuple[WriteTurn, int, str]:
        turn = self.begin_write_turn()
        if turn.last_tx_time is not None and stamp <= turn.last_tx_time:
            stamp = next_after(turn.last_tx_time)
        return turn, self.insert_transaction(stamp, principal, reason, sources), stamp

    def _has_keying(self) -> bool:
        # Every ledger opened for writing is migrated (0022 made chain_keying); a schema held back (a test
        # of an older writer) reads the chain's state through chain_state(), as before.
        if self._keying_table is None:
            self._keying_table = self.storage.one(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chain_keying'"
            ) is not None
        return self._keying_table

    def token_after_commit(self, tx_id: int, token: object) -> object:
        return token  # data_version does not change for this connection's own commits

    def last_tx_time(self) -> str | None:
        row = self.storage.one("SELECT MAX(tx_time) FROM transactions")
        return row[0] if row else None

    def insert_transaction(self, tx_time: str, principal: str, reason: str, sources: Sequence[str]) -> int:
        return self.storage.execute(
            "INSERT INTO transactions (tx_time, principal, reason, sources) VALUES (?, ?, ?, ?)",
            (tx_time, principal, reason, encode_sources(sources)),
        )

    def transaction(self, tx_id: int) -> Transaction | None:
        row = self.storage.one("SELECT * FROM transactions WHERE id = ?", (tx_id,))
        return Transaction.from_row(row) if row else None

    def has_tombstones(self) -> bool:
        return self.storage.one("SELECT 1 FROM tombstones LIMIT 1") is not None

    # -- slots and the flush ----------------------------------------------------------------------

    def open_spans(self, scope: str, subject_key: str, predicate: str) -> list[Span]:
        rows = self.storage.query(
            f"SELECT {SPAN_COLUMNS} FROM claims WHERE scope = ? AND subject_key = ? AND predicate = ? AND tx_to IS NULL",
            (scope, subject_key, predicate),
        )
        return [span_from_row(r) for r in rows]

    def open_spans_of(self, slots: Sequence[tuple[str, str, str]]) -> dict[tuple[str, str, str], list[Span]]:
        # One statement for the batch: json_each drives a seek into the slot index per slot.
        found: dict[tuple[str, str, str], list[Span]] = {}
        if not slots:
            return found
        rows = self.storage.query(
            f"SELECT {SPAN_COLUMNS_OF_C}, c.scope, c.subject_key, c.predicate FROM json_each(?) j"
            " JOIN claims c ON c.scope = json_extract(j.value, '$[0]') AND c.subject_key = json_extract(j.value, '$[1]')"
            " AND c.predicate = json_extract(j.value, '$[2]') WHERE c.tx_to IS NULL",
            (json.dumps([list(slot) for slot in slots], ensure_ascii=False),),
        )
        for r in rows:
            found.setdefault((r[7], r[8], r[9]), []).append(span_from_row(r))
        return found

    def held_slots(self, scope: str | None, subject_key: str | None, predicate: str | None) -> list[tuple[str, str, str]]:
        conditions, params = ["tx_to IS NULL"], []
        for column, wanted in (("scope", scope), ("subject_key", subject_key), ("predicate", predicate)):
            if wanted is not None:
                conditions.append(f"{column} = ?")
                params.append(wanted)
        rows = self.storage.query(
            "SELECT DISTINCT scope, subject_key, predicate FROM claims WHERE " + " AND ".join(conditions)
            + " ORDER BY scope, subject_key, predicate",
            tuple(params),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def close_versions(self, tx_id: int, tx_time: str, claim_ids: Sequence[int]) -> None:
        # In id order: the order the chain row's trigger queues their outbox rows in (migration 0026).
        self.storage.executemany(
            "UPDATE claims SET tx_to = ?, closed_by = ? WHERE id = ?", [(tx_time, tx_id, i) for i in sorted(claim_ids)]
        )

    def add_provenance(self, rows: Sequence[tuple[int, int, str]]) -> None:
        self.storage.executemany("INSERT OR IGNORE INTO claim_provenance (claim_id, tx_id, source) VALUES (?, ?, ?)", rows)

    def insert_versions(
        self, tx_id: int, tx_time: str, versions: Sequence[NewVersion], closes: Sequence[int] = ()
    ) -> list[ClaimVersion]:
        if closes:
            self.close_versions(tx_id, tx_time, closes)
        storage = self.storage
        rows = [
            (
                v.scope, v.subject_key, v.subject, v.predicate, v.cardinality, v.value, v.value_key,
                v.valid_from, v.valid_to, tx_time, tx_id, encode_sources(v.source),
            )
            for v in versions
        ]
        if len(rows) <= RETURNING_AT_MOST:
            # A few versions (a one-operation transaction opens one to three): one INSERT of them all whose
            # RETURNING gives their ids, instead of the two reads of the largest id around an executemany.
            # SQLite inserts a VALUES list in its order, AUTOINCREMENT handing out increasing ids; the
            # RETURNING rows may come in any order, so they are sorted, and must be consecutive (as below).
            ids = sorted(
                r[0] for r in storage.query(_INSERT_RETURNING[len(rows)], [value for row in rows for value in row])
            )
            first_id = ids[0]
            if ids[-1] != first_id + len(rows) - 1:
                raise IntegrityError(f"claim ids were not consecutive ({ids} for {len(rows)} rows)")
            return [opened_version(first_id + n, tx_id, tx_time, v) for n, v in enumerate(versions)]
        # One executemany instead of a statement per row. The ids are known without asking for each:
        # under the write lock, AUTOINCREMENT hands out max(largest id ever, largest id now) + 1, ...
        # consecutively; the check after the insert proves it.
        first_id = 1 + storage.one(
            "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'claims'), 0),"
            " COALESCE((SELECT MAX(id) FROM claims), 0))"
        )[0]
        storage.executemany(_INSERT_CLAIM, rows)
        last_id = storage.one("SELECT MAX(id) FROM claims")[0]
        if last_id != first_id + len(versions) - 1:
            raise IntegrityError(f"claim ids were not consecutive ({first_id}..{last_id} for {len(versions)} rows)")
        return [opened_version(first_id + n, tx_id, tx_time, v) for n, v in enumerate(versions)]

    # -- reads ------------------------------------------------------------------------------------

    def scopes(self) -> list[str]:
        # A skip-scan over the slot index (one seek per scope), because SELECT DISTINCT reads every row:
        # 45 ms at a million versions instead of microseconds.
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
            # Latest knowledge: implied by the predicate, but spelled out so SQLite can use the partial
            # index of open versions instead of reading every version of the scope.
            sql += " AND c.tx_to IS NULL"
        if query.subject_key is not None:
            sql += " AND c.subject_key = :subject_key"
            params["subject_key"] = query.subject_key
        if query.predicate is not None:
            sql += " AND c.predicate = :predicate"
            params["predicate"] = query.predicate
        sql += " ORDER BY c.scope, c.subject_key, c.predicate, c.valid_from, c.value_key"
        return [ClaimVersion.from_row(r) for r in self.storage.query(sql, params)]

    def history(self, scopes: Sequence[str], subject_key: str, predicate: str) -> list[HistoryEntry]:
        sql = (
            "SELECT c.*, o.tx_time AS o_time, o.principal AS o_principal, o.reason AS o_reason, o.sources AS o_sources,"
            " x.tx_time AS x_time, x.principal AS x_principal, x.reason AS x_reason, x.sources AS x_sources"
            " FROM claims c JOIN transactions o ON o.id = c.opened_by LEFT JOIN transactions x ON x.id = c.closed_by"
            " WHERE c.scope IN (SELECT value FROM json_each(:scopes))"
            " AND c.subject_key = :subject_key AND c.predicate = :predicate"
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
            " SUM(c.tx_to IS NULL) AS believed FROM claims c WHERE c.scope IN (SELECT value FROM json_each(:scopes))"
        )
        if subject_key is not None:
            sql += " AND c.subject_key = :subject_key"
            params["subject_key"] = subject_key
        if like is not None:
            sql += " AND (c.subject_key LIKE :like OR c.predicate LIKE :like OR (c.tx_to IS NULL AND c.value_key LIKE :like))"
            params["like"] = like
        sql += " GROUP BY c.scope, c.subject_key, c.predicate ORDER BY c.scope, c.subject_key, c.predicate LIMIT :limit"
        return [dict(r) for r in self.storage.query(sql, params)]

    def transaction_versions(self, tx_id: int) -> tuple[list[ClaimVersion], list[ClaimVersion]]:
        opened = self.storage.query("SELECT * FROM claims WHERE opened_by = ? ORDER BY id", (tx_id,))
        closed = self.storage.query("SELECT * FROM claims WHERE closed_by = ? ORDER BY id", (tx_id,))
        return [ClaimVersion.from_row(r) for r in opened], [ClaimVersion.from_row(r) for r in closed]

    def claim(self, claim_id: int) -> ClaimVersion | None:
        row = self.storage.one("SELECT * FROM claims WHERE id = ?", (claim_id,))
        return ClaimVersion.from_row(row) if row else None

    def subject_exists(self, subject_key: str) -> bool:
        return self.storage.one("SELECT 1 FROM claims WHERE subject_key = ? LIMIT 1", (subject_key,)) is not None

    def version_count(self) -> int:
        return int(self.storage.one("SELECT COUNT(*) FROM claims")[0])

    # -- the hash chain ---------------------------------------------------------------------------

    def insert_version_hashes(self, rows: Sequence[VersionHash]) -> None:
        self.storage.executemany(
            "INSERT INTO version_hashes (claim_id, opened_by, closed_by, salt, content_hash) VALUES (?, ?, ?, ?, ?)",
            [(r.claim_id, r.opened_by, r.closed_by, r.salt, r.content_hash) for r in rows],
        )

    def mark_erased(self, tx_id: int, claim_ids: Sequence[int]) -> None:
        self.storage.execute(
            "UPDATE version_hashes SET erased_by = ?, salt = NULL WHERE claim_id IN (SELECT value FROM json_each(?))",
            (tx_id, json.dumps(list(claim_ids))),
        )

    # -- recall's deferred claim lanes (migration 0027) ----------------------------------------------

    def _has_lanes_watermark(self) -> bool:
        # A read-only connection to a ledger from before 0027 (never migrated by it): lanes per transaction.
        if self._deferred_lanes is None:
            self._deferred_lanes = self.storage.one(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'recall_lanes_through'"
            ) is not None
        return self._deferred_lanes

    def lanes_tail(self) -> int:
        """How many chain rows lie past the lexical watermark (transactions whose lanes are pending)."""
        if not self._has_lanes_watermark():
            return 0
        row = self.storage.one(
            "SELECT COALESCE((SELECT MAX(tx_id) FROM tx_chain), 0) - tx_id FROM recall_lanes_through WHERE id = 1"
        )
        return 0 if row is None else max(int(row[0]), 0)

    def catch_up_lanes(self) -> int:
        """Inside the caller's atomic block: write every pending lexical row (the schema's trigger on the
        watermark writes them) and move the watermark to the last chain row. Returns 1 when it moved."""
        if not self._has_lanes_watermark():
            return 0
        return self.storage.execute(
            "UPDATE recall_lanes_through SET tx_id = (SELECT MAX(tx_id) FROM tx_chain)"
            " WHERE id = 1 AND tx_id < (SELECT MAX(tx_id) FROM tx_chain)"
        )

    def lanes_after_write(self, tx_id: int, opened: int) -> None:
        """At the end of transaction `tx_id` (its chain row written, so the chain's last): catch up when
        it opened many versions or the tail reached LANES_TAIL transactions. The watermark seen last is
        kept, so most commits read nothing (it only moves forward; another process moving it makes
        this read it sooner, never later)."""
        if opened < LANES_AT_ONCE and tx_id - self._lanes_seen < LANES_TAIL:
            return
        row = self.storage.one("SELECT tx_id FROM recall_lanes_through WHERE id = 1")
        self._lanes_seen = int(row[0]) if row else 0
        if opened >= LANES_AT_ONCE or tx_id - self._lanes_seen >= LANES_TAIL:
            self.catch_up_lanes()
            self._lanes_seen = tx_id

    def last_chain_hash(self) -> str | None:
        row = self.storage.one("SELECT chain_hash FROM tx_chain ORDER BY tx_id DESC LIMIT 1")
        return row[0] if row else None

    def append_chain(
        self, tx_id: int, chain_hash: str, text: ChainText | None = None, hashes: Sequence[VersionHash] = ()
    ) -> None:
        if hashes:
            self.insert_version_hashes(hashes)
        if text is None:
            self.storage.execute("INSERT INTO tx_chain (tx_id, chain_hash) VALUES (?, ?)", (tx_id, chain_hash))
        else:
            self.storage.execute(
                "INSERT INTO tx_chain (tx_id, chain_hash, text_salt, text_hash) VALUES (?, ?, ?, ?)",
                (tx_id, chain_hash, text.salt, text.text_hash),
            )

    def chain_texts(self) -> dict[int, ChainText]:
        rows = self.storage.query("SELECT tx_id, text_salt, text_hash, redacted_by FROM tx_chain WHERE text_hash IS NOT NULL")
        return {r[0]: ChainText(r[1], r[2], r[3]) for r in rows}

    def redact_texts(self, tx_id: int, redacted: Sequence[int], texts: Sequence[Transaction]) -> None:
        self.storage.execute(
            "UPDATE tx_chain SET redacted_by = ?, text_salt = NULL WHERE tx_id IN (SELECT value FROM json_each(?))", (tx_id, json.dumps(list(redacted)))
        )
        self.storage.executemany(
            "UPDATE transactions SET reason = ?, sources = ? WHERE id = ?",
            [(t.reason, json.dumps(list(t.sources), ensure_ascii=False), t.id) for t in texts],
        )

    def transaction_scopes(self, tx_ids: Sequence[int]) -> dict[int, set[str]]:
        found: dict[int, set[str]] = {}
        rows = self.storage.query(
            "SELECT opened_by, closed_by, scope FROM claims WHERE opened_by IN (SELECT value FROM json_each(?)) OR closed_by IN (SELECT value FROM json_each(?))",
            (json.dumps(list(tx_ids)), json.dumps(list(tx_ids))),
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
        if self.storage.one("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chain_keying'") is None:
            return None
        row = self.storage.one("SELECT ledger_id, keyed_from, key_id, secret_mac FROM chain_keying WHERE id = 1")
        return None if row is None else ChainKeying(row[0], row[1], row[2], row[3])

    def key_chain(self, key_id: str, secret_mac: str) -> int:
        self.storage.execute(
            "UPDATE chain_keying SET keyed_from = COALESCE((SELECT MAX(id) FROM transactions), 0) + 1,"
            " key_id = ?, secret_mac = ? WHERE id = 1 AND keyed_from IS NULL",
            (key_id, secret_mac),
        )
        return int(self.storage.one("SELECT keyed_from FROM chain_keying WHERE id = 1")[0])

    def erase_marks(self, tx_id: int, tx_time: str) -> tuple[list[str], list[tuple[str, str, int, str]]]:
        tombstones = [r[0] for r in self.storage.query("SELECT content_hash FROM tombstones WHERE erased_at = ?", (tx_time,))]
        guards = [
            (r[0], r[1], int(r[2]), r[3])
            for r in self.storage.query("SELECT match, scope, words, text_hash FROM erased_texts WHERE erase_tx = ?", (tx_id,))
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
            " WHERE c.tx_id = ?",
            (tx_id,),
        )
        return None if row is None else ChainLink(row[0], row[1], row[2])

    def legacy_through(self) -> int | None:
        row = self.storage.one(
            "SELECT legacy_through FROM chain_start WHERE legacy_through > COALESCE((SELECT MAX(tx_id) FROM tx_chain), 0)"
        )
        return None if row is None else row[0]

    def versions_opened_through(self, tx_id: int) -> Iterator[ClaimVersion]:
        for row in self.storage.iterate("SELECT * FROM claims WHERE opened_by <= ? ORDER BY id", (tx_id,)):
            yield ClaimVersion.from_row(row)

    def transactions_through(self, tx_id: int) -> list[Transaction]:
        return [Transaction.from_row(r) for r in self.storage.query("SELECT * FROM transactions WHERE id <= ? ORDER BY id", (tx_id,))]

    def hashes_of_transaction(self, tx_id: int) -> tuple[list[tuple[int, str]], list[int]]:
        pairs = [
            (r[0], r[1])
            for r in self.storage.query("SELECT claim_id, content_hash FROM version_hashes WHERE opened_by = ?", (tx_id,))
        ]
        closed = [r[0] for r in self.storage.query("SELECT claim_id FROM version_hashes WHERE closed_by = ?", (tx_id,))]
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

