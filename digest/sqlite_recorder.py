"""The digest's recorder on SQLite (schema/sqlite/0002, 0005, 0009): `?` placeholders, JSON through
json_each, `IS` for NULL-safe equality."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from factledger.ledger import ClaimVersion, ScopeFamily

from .model import (
    Confirmation,
    JournalEntry,
    NewProposal,
    Proposal,
    QueueFilter,
    Rejection,
    StatusChange,
    TextRow,
    Turn,
    checked_columns,
    sources_json,
    text_row,
)


def _marks(values: Sequence[Any]) -> str:
    return ", ".join("?" for _ in values)


def _like(text: str) -> str:
    """A LIKE pattern matching `text` anywhere, its wildcards taken literally (ESCAPE '\\')."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"



# A version's words for `believed_matching`: subject (but "user"), predicate and value keys, each word
# after a space, so `LIKE '% pat%'` finds a word starting with pat.
_HELD_WORDS = (
    "' ' || replace(replace(replace(CASE WHEN c.subject_key = 'user' THEN '' ELSE c.subject_key END"
    " || ' ' || replace(c.predicate, '_', ' ') || ' ' || c.value_key, '-', ' '), '/', ' '), '(', ' ')"
)


class SqliteDigestRecorder:
    """DigestRecorder (digest/recorder.py) over ledger/storage.py's Storage."""

    def __init__(self, storage: Any):
        self.storage = storage

    # -- journal --------------------------------------------------------------------------------

    def append_turn(self, turn: Turn, *, hash: str, redactions: Sequence[str], appended_at: str) -> int | None:
        row = self.storage.one(
            "INSERT INTO journal (scope, session, role, text, said_at, hash, redactions, appended_at, speaker)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(hash) DO NOTHING RETURNING id",
            (turn.scope, turn.session, turn.role, turn.text, turn.said_at, hash, json.dumps(list(redactions)),
             appended_at, turn.speaker),
        )
        return None if row is None else row["id"]

    def append_turns(self, turns: Sequence[tuple[Turn, str, Sequence[str]]], *, appended_at: str) -> list[int | None]:
        if len(turns) < 2:  # one turn: the per-row trigger does the same work as the batch would
            return [self.append_turn(t, hash=h, redactions=r, appended_at=appended_at) for t, h, r in turns]
        with self.storage.atomic():
            # The episode batch (migration 0024): the per-row lane trigger stands aside while the batch row
            # exists, and deleting it writes the batch's lanes at once.
            self.storage.execute("INSERT INTO recall_episode_batch (id, first_id) SELECT 1, COALESCE(MAX(id), 0) + 1 FROM journal")
            ids = [self.append_turn(t, hash=h, redactions=r, appended_at=appended_at) for t, h, r in turns]
            self.storage.execute("DELETE FROM recall_episode_batch")
        return ids

    def entry_with_hash(self, hash: str) -> int | None:
        row = self.storage.one("SELECT id FROM journal WHERE hash = ?", (hash,))
        return None if row is None else row["id"]

    def entry(self, entry_id: int) -> JournalEntry | None:
        row = self.storage.one("SELECT * FROM journal WHERE id = ?", (entry_id,))
        return JournalEntry.from_row(row) if row else None

    def backlog(self, *, scopes: Sequence[str] | None, limit: int | None) -> list[JournalEntry]:
        sql = "SELECT * FROM journal WHERE digested_at IS NULL"
        params: list[object] = []
        if scopes:
            sql += f" AND scope IN ({_marks(scopes)})"
            params.extend(scopes)
        sql += " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        return [JournalEntry.from_row(r) for r in self.storage.query(sql, params)]

    def backlog_size(self, *, scopes: Sequence[str] | None) -> int:
        sql = "SELECT COUNT(*) FROM journal WHERE digested_at IS NULL"
        params: list[object] = []
        if scopes:
            sql += f" AND scope IN ({_marks(scopes)})"
            params.extend(scopes)
        row = self.storage.one(sql, params)
        return int(row[0]) if row else 0

    def recent(self, entry: JournalEntry, count: int) -> list[JournalEntry]:
        rows = self.storage.query(
            "SELECT * FROM journal WHERE scope = ? AND session IS ? AND id < ? ORDER BY id DESC LIMIT ?",
            (entry.scope, entry.session, entry.id, count),
        )
        return [JournalEntry.from_row(r) for r in reversed(rows)]

    def entries(self, *, scope: str | None, limit: int) -> list[JournalEntry]:
        sql = "SELECT * FROM journal"
        params: list[object] = []
        if scope is not None:
            sql += " WHERE scope = ?"
            params.append(scope)
        sql += " ORDER BY id DESC LIMIT ?"
        params.append(int(limit))
        return [JournalEntry.from_row(r) for r in self.storage.query(sql, params)]

    def undigested(self, entry_id: int) -> bool:
        row = self.storage.one("SELECT digested_at FROM journal WHERE id = ?", (entry_id,))
        return row is not None and row["digested_at"] is None

    def mark_digested(self, entry_id: int, *, at: str, extractor: str) -> None:
        self.storage.execute(
            "UPDATE journal SET digested_at = ?, extractor = ?, last_error = '' WHERE id = ?", (at, extractor, entry_id)
        )

    def record_failure(self, entry_id: int, message: str) -> None:
        self.storage.execute(
            "UPDATE journal SET attempts = attempts + 1, last_error = ? WHERE id = ? AND digested_at IS NULL",
            (message, entry_id),
        )

    def prune_digested(self, *, said_before: str, scopes: Sequence[str] | None) -> int:
        sql = "DELETE FROM journal WHERE said_at < ? AND digested_at IS NOT NULL"
        params: list[object] = [said_before]
        if scopes:
            sql += f" AND scope IN ({_marks(scopes)})"
            params.extend(scopes)
        return self.storage.execute(sql, params)

    def first_appended(self, entry_ids: Sequence[int]) -> str | None:
        row = self.storage.one(
            "SELECT MIN(appended_at) FROM journal WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(list(entry_ids)),)
        )
        return row[0] if row else None

    def delete_entry(self, entry_id: int) -> int:
        return self.storage.execute("DELETE FROM journal WHERE id = ?", (entry_id,))

    def delete_derived_proposals(self, entry_id: int) -> int:
        # json_each's value is the element's text (no quotes): compared with the ref itself.
        return self.storage.execute(
            "DELETE FROM proposals WHERE entry_id = ? OR EXISTS"
            " (SELECT 1 FROM json_each(proposals.sources) WHERE json_each.value = ?)",
            (entry_id, f"journal:{entry_id}"),
        )

    def replace_entry(self, entry_id: int, *, texts: Mapping[str, str], hash: str, redactions: Sequence[str]) -> None:
        checked_columns("journal", list(texts))
        row = self.storage.one("SELECT * FROM journal WHERE id = ?", (entry_id,))
        if row is None:
            return
        self.storage.execute("DELETE FROM journal WHERE id = ?", (entry_id,))
        record = {**{k: row[k] for k in row.keys()}, **texts, "hash": hash, "redactions": json.dumps(list(redactions))}
        columns = list(record)
        self.storage.execute(
            f"INSERT INTO journal ({', '.join(columns)}) VALUES ({_marks(columns)})"
            " ON CONFLICT(hash) DO NOTHING",  # an identical redacted turn already stands for it
            [record[c] for c in columns],
        )

    # -- leases ---------------------------------------------------------------------------------

    def lease(self, entry_ids: Sequence[int], *, holder: str, now: str, until: str) -> set[int]:
        ids = json.dumps(list(entry_ids))
        self.storage.execute("DELETE FROM digest_leases WHERE until <= ?", (now,))
        # Only entries still undigested: another run may have digested (and released) one since this
        # run read its backlog.
        self.storage.execute(
            "INSERT INTO digest_leases (entry_id, holder, until)"
            " SELECT j.value, ?, ? FROM json_each(?) j JOIN journal e ON e.id = j.value"
            " WHERE e.digested_at IS NULL ON CONFLICT(entry_id) DO NOTHING",
            (holder, until, ids),
        )
        rows = self.storage.query(
            "SELECT entry_id FROM digest_leases WHERE holder = ? AND entry_id IN (SELECT value FROM json_each(?))",
            (holder, ids),
        )
        return {r[0] for r in rows}

    def release(self, entry_ids: Sequence[int], *, holder: str) -> None:
        self.storage.execute(
            "DELETE FROM digest_leases WHERE holder = ? AND entry_id IN (SELECT value FROM json_each(?))",
            (holder, json.dumps(list(entry_ids))),
        )

    def lease_holders(self, entry_ids: Sequence[int]) -> set[str]:
        rows = self.storage.query(
            "SELECT DISTINCT holder FROM digest_leases WHERE entry_id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(entry_ids)),),
        )
        return {r[0] for r in rows}

    # -- proposals ------------------------------------------------------------------------------

    def insert_proposal(self, p: NewProposal) -> int:
        return self.storage.execute(
            "INSERT INTO proposals (scope, entry_id, ordinal, sources, extractor, op, subject, subject_key, predicate,"
            " cardinality, template, value, value_key, replaces, valid_from, valid_to, all_valid_time, time_phrase, quote,"
            " status, decision, policy, reason, rejection_id, created_at, decided_at, decided_by)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                p.scope, p.entry_id, p.ordinal, sources_json(p.sources), p.extractor, p.op, p.subject, p.subject_key,
                p.predicate, p.cardinality, p.template, p.value, p.value_key, p.replaces, p.valid_from, p.valid_to,
                int(p.all_valid_time), p.time_phrase, p.quote, p.status, p.decision, p.policy, p.reason, p.rejection_id,
                p.created_at, p.decided_at, p.decided_by,
            ),
        )

    def set_status(self, proposal_id: int, change: StatusChange) -> None:
        given = change.given()
        self.storage.execute(
            f"UPDATE proposals SET {', '.join(f'{c} = ?' for c in given)} WHERE id = ?", [*given.values(), proposal_id]
        )

    def proposal(self, proposal_id: int) -> Proposal | None:
        row = self.storage.one("SELECT * FROM proposals WHERE id = ?", (proposal_id,))
        return Proposal.from_row(row) if row else None

    def proposals(self, *, statuses: Sequence[str] | None, scope: str | None, limit: int) -> list[Proposal]:
        sql = "SELECT * FROM proposals WHERE 1 = 1"
        params: list[object] = []
        if statuses is not None:
            sql += f" AND status IN ({_marks(statuses)})"
            params.extend(statuses)
        if scope is not None:
            sql += " AND scope = ?"
            params.append(scope)
        sql += " ORDER BY id DESC LIMIT ?"
        params.append(int(limit))
        return [Proposal.from_row(r) for r in self.storage.query(sql, params)]

    def _queue_where(self, f: QueueFilter) -> tuple[str, list[object]]:
        where, params = ["1 = 1"], []
        if f.statuses is not None:
            where.append(f"status IN ({_marks(f.statuses)})" if f.statuses else "0 = 1")
            params.extend(f.statuses)
        for column, value in (("scope", f.scope), ("subject_key", f.subject_key), ("predicate", f.predicate),
                              ("extractor", f.extractor), ("policy", f.policy)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if f.session is not None:
            where.append("entry_id IN (SELECT id FROM journal WHERE session = ?)")
            params.append(f.session)
        if f.reason is not None:
            where.append("reason LIKE ? ESCAPE '\\'")
            params.append(_like(f.reason))
        if f.search is not None:
            columns = ("subject", "predicate", "coalesce(value, '')", "quote", "reason")
            where.append("(" + " OR ".join(f"{c} LIKE ? ESCAPE '\\'" for c in columns) + ")")
            params.extend([_like(f.search)] * 5)
        return " AND ".join(where), params

    def queue(self, f: QueueFilter, *, oldest_first: bool, limit: int, offset: int) -> list[Proposal]:
        where, params = self._queue_where(f)
        order = "ASC" if oldest_first else "DESC"
        rows = self.storage.query(
            f"SELECT * FROM proposals WHERE {where} ORDER BY id {order} LIMIT ? OFFSET ?", [*params, int(limit), int(offset)]
        )
        return [Proposal.from_row(r) for r in rows]

    def queue_counts(self, f: QueueFilter) -> dict[str, int]:
        where, params = self._queue_where(f)
        rows = self.storage.query(f"SELECT status, COUNT(*) FROM proposals WHERE {where} GROUP BY status", params)
        return {r[0]: int(r[1]) for r in rows}

    def proposal_scopes(self) -> list[str]:
        return [r[0] for r in self.storage.query("SELECT DISTINCT scope FROM proposals ORDER BY scope", ())]

    def proposals_of_transaction(self, tx_id: int) -> list[Proposal]:
        return [Proposal.from_row(r) for r in self.storage.query("SELECT * FROM proposals WHERE tx = ? ORDER BY id", (tx_id,))]

    def slot_proposals(self, *, scope: str, subject_key: str, predicate: str, statuses: Sequence[str], exclude: int,
                       limit: int | None = None) -> list[Proposal]:
        rows = self.storage.query(
            "SELECT * FROM proposals WHERE scope = ? AND subject_key = ? AND predicate = ? AND id != ?"
            f" AND status IN ({_marks(statuses)}) ORDER BY id LIMIT ?",
            (scope, subject_key, predicate, exclude, *statuses, -1 if limit is None else limit),
        )
        return [Proposal.from_row(r) for r in rows]

    def slot_proposal_count(self, *, scope: str, subject_key: str, predicate: str, statuses: Sequence[str], exclude: int) -> int:
        row = self.storage.one(
            "SELECT COUNT(*) FROM proposals WHERE scope = ? AND subject_key = ? AND predicate = ? AND id != ?"
            f" AND status IN ({_marks(statuses)})",
            (scope, subject_key, predicate, exclude, *statuses),
        )
        return int(row[0])

    def session_proposals(self, *, session: str, statuses: Sequence[str], scope: str | None) -> list[Proposal]:
        sql = (
            "SELECT p.* FROM proposals p JOIN journal j ON j.id = p.entry_id WHERE j.session = ?"
            f" AND p.status IN ({_marks(statuses)})"
        )
        params: list[object] = [session, *statuses]
        if scope is not None:
            sql += " AND p.scope = ?"
            params.append(scope)
        return [Proposal.from_row(r) for r in self.storage.query(sql + " ORDER BY p.id", params)]

    def rejected_again_by(self, rejection_id: int) -> list[Proposal]:
        rows = self.storage.query(
            "SELECT * FROM proposals WHERE rejection_id = ? AND status = 'rejected_again' ORDER BY id", (rejection_id,)
        )
        return [Proposal.from_row(r) for r in rows]

    # -- review memory --------------------------------------------------------------------------

    def active_rejection(self, content_hash: str) -> Rejection | None:
        row = self.storage.one("SELECT * FROM rejections WHERE content_hash = ? AND lifted_at IS NULL", (content_hash,))
        return Rejection.from_row(row) if row else None

    def rejection(self, rejection_id: int) -> Rejection | None:
        row = self.storage.one("SELECT * FROM rejections WHERE id = ?", (rejection_id,))
        return Rejection.from_row(row) if row else None

    def insert_rejection(
        self, *, content_hash: str, scope: str, subject_key: str, predicate: str, value_key: str, value: str,
        proposal_id: int | None, rejected_by: str, rejected_at: str, reason: str,
    ) -> Rejection:
        rejection_id = self.storage.execute(
            "INSERT INTO rejections (content_hash, scope, subject_key, predicate, value_key, value, proposal_id,"
            " rejected_by, rejected_at, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (content_hash, scope, subject_key, predicate, value_key, value, proposal_id, rejected_by, rejected_at, reason),
        )
        return self.rejection(rejection_id)  # type: ignore[return-value]

    def rejections(self, *, include_lifted: bool, scope: str | None) -> list[Rejection]:
        sql = "SELECT * FROM rejections WHERE 1 = 1"
        params: list[object] = []
        if not include_lifted:
            sql += " AND lifted_at IS NULL"
        if scope is not None:
            sql += " AND scope = ?"
            params.append(scope)
        return [Rejection.from_row(r) for r in self.storage.query(sql + " ORDER BY id DESC", params)]

    def active_confirmation(self, content_hash: str) -> Confirmation | None:
        row = self.storage.one("SELECT * FROM confirmations WHERE content_hash = ? AND lifted_at IS NULL", (content_hash,))
        return Confirmation.from_row(row) if row else None

    def confirmation(self, confirmation_id: int) -> Confirmation | None:
        row = self.storage.one("SELECT * FROM confirmations WHERE id = ?", (confirmation_id,))
        return Confirmation.from_row(row) if row else None

    def insert_confirmation(
        self, *, content_hash: str, scope: str, subject_key: str, predicate: str, value_key: str, value: str,
        claim_id: int | None, confirmed_by: str, confirmed_at: str, reason: str,
    ) -> Confirmation:
        confirmation_id = self.storage.execute(
            "INSERT INTO confirmations (content_hash, scope, subject_key, predicate, value_key, value, claim_id,"
            " confirmed_by, confirmed_at, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (content_hash, scope, subject_key, predicate, value_key, value, claim_id, confirmed_by, confirmed_at, reason),
        )
        return self.confirmation(confirmation_id)  # type: ignore[return-value]

    def slot_confirmations(self, *, scope: str, subject_key: str, predicate: str) -> list[Confirmation]:
        rows = self.storage.query(
            "SELECT * FROM confirmations WHERE scope = ? AND subject_key = ? AND predicate = ? AND lifted_at IS NULL",
            (scope, subject_key, predicate),
        )
        return [Confirmation.from_row(r) for r in rows]

    def confirmations(self, *, scope: str | None) -> list[Confirmation]:
        sql = "SELECT * FROM confirmations WHERE lifted_at IS NULL"
        params: list[object] = []
        if scope is not None:
            sql += " AND scope = ?"
            params.append(scope)
        return [Confirmation.from_row(r) for r in self.storage.query(sql + " ORDER BY id DESC", params)]

    def lift(self, table: str, row_id: int, *, at: str, by: str) -> None:
        if table not in ("rejections", "confirmations"):
            raise ValueError(f"only rejections and confirmations are lifted, not {table}")
        self.storage.execute(f"UPDATE {table} SET lifted_at = ?, lifted_by = ? WHERE id = ?", (at, by, row_id))

    # -- the ledger's believed versions ----------------------------------------------------------

    def believed_versions(self, *, scope: str, subject_key: str, predicate: str) -> list[ClaimVersion]:
        rows = self.storage.query(
            "SELECT * FROM claims WHERE scope = ? AND subject_key = ? AND predicate = ? AND tx_to IS NULL ORDER BY valid_from",
            (scope, subject_key, predicate),
        )
        return [ClaimVersion.from_row(r) for r in rows]

    def believed_claims(self, *, scope: str, limit: int) -> list[ClaimVersion]:
        rows = self.storage.query(
            "SELECT * FROM claims WHERE scope = ? AND tx_to IS NULL ORDER BY tx_from DESC, id DESC LIMIT ?", (scope, limit)
        )
        return [ClaimVersion.from_row(r) for r in rows]

    def believed_matching(self, *, scope: str, patterns: Sequence[str], per_pattern: int, limit: int) -> list[ClaimVersion]:
        if not patterns:
            return []
        # The words are built once per version (MATERIALIZED), then joined with the patterns: each
        # pattern's newest `per_pattern` matches, and the `limit` versions matching most patterns.
        values = ", ".join(["(CAST(? AS TEXT))"] * len(patterns))
        rows = self.storage.query(
            "WITH h AS MATERIALIZED (SELECT c.id, c.tx_from, " + _HELD_WORDS + " AS words FROM claims c"
            " WHERE c.scope = ? AND c.tx_to IS NULL),"
            " p(pat) AS (VALUES " + values + "),"
            " hit AS (SELECT h.id, ROW_NUMBER() OVER (PARTITION BY p.pat ORDER BY h.tx_from DESC, h.id DESC) AS n"
            " FROM h JOIN p ON h.words LIKE p.pat),"
            " per AS (SELECT id, COUNT(*) AS hits, MIN(n) AS first FROM hit GROUP BY id),"
            " chosen AS (SELECT id FROM per WHERE first <= ?"
            " UNION SELECT id FROM (SELECT id FROM per ORDER BY hits DESC, id DESC LIMIT ?) top)"
            " SELECT c.* FROM claims c JOIN chosen ON chosen.id = c.id ORDER BY c.id",
            [scope, *(f"% {p}%" for p in patterns), int(per_pattern), int(limit)],
        )
        return [ClaimVersion.from_row(r) for r in rows]

    def believed_of_subjects(self, *, scope: str, subject_keys: Sequence[str], limit: int) -> list[ClaimVersion]:
        if not subject_keys:
            return []
        marks = ", ".join(["?"] * len(subject_keys))
        rows = self.storage.query(
            "SELECT * FROM claims WHERE scope = ? AND subject_key IN (" + marks + ") AND tx_to IS NULL"
            " ORDER BY tx_from DESC, id DESC LIMIT ?",
            [scope, *subject_keys, int(limit)],
        )
        return [ClaimVersion.from_row(r) for r in rows]

    def believed_core(self, *, scope: str, subject_key: str, limit: int) -> list[ClaimVersion]:
        rows = self.storage.query(
            "SELECT * FROM claims WHERE scope = ? AND subject_key = ? AND cardinality = 'one' AND tx_to IS NULL"
            " AND valid_to IS NULL ORDER BY tx_from DESC, id DESC LIMIT ?",
            (scope, subject_key, int(limit)),
        )
        return [ClaimVersion.from_row(r) for r in rows]

    # -- erase ----------------------------------------------------------------------------------

    def text_rows(self, table: str, family: ScopeFamily) -> list[TextRow]:
        checked_columns(table, [])
        where, params = family.where("scope")
        rows = self.storage.query(f"SELECT * FROM {table} WHERE {where} ORDER BY id", params)
        return [text_row(table, r) for r in rows]

    def redact_row(self, table: str, row_id: int, texts: Mapping[str, str]) -> None:
        checked_columns(table, list(texts))
        sets = ", ".join(f"{column} = ?" for column in texts)
        self.storage.execute(f"UPDATE {table} SET {sets} WHERE id = ?", [*texts.values(), row_id])

    def delete_row(self, table: str, row_id: int) -> None:
        if table not in ("proposals", "confirmations"):
            raise ValueError(f"erase deletes proposals and confirmations, not {table}")
        self.storage.execute(f"DELETE FROM {table} WHERE id = ?", (row_id,))

    # -- undo (digest/undo.py) --------------------------------------------------------------------

    def session_entries(self, *, scope: str, session: str) -> list[JournalEntry]:
        rows = self.storage.query("SELECT * FROM journal WHERE scope = ? AND session = ? ORDER BY id", (scope, session))
        return [JournalEntry.from_row(r) for r in rows]

    def entry_proposals(self, entry_ids: Sequence[int]) -> list[Proposal]:
        if not entry_ids:
            return []
        rows = self.storage.query(
            f"SELECT * FROM proposals WHERE entry_id IN ({_marks(entry_ids)}) ORDER BY id", [int(i) for i in entry_ids]
        )
        return [Proposal.from_row(r) for r in rows]

    def slot_versions(self, *, scope: str, subject_key: str, predicate: str) -> list[ClaimVersion]:
        rows = self.storage.query(
            "SELECT * FROM claims WHERE scope = ? AND subject_key = ? AND predicate = ? ORDER BY id",
            (scope, subject_key, predicate),
        )
        return [ClaimVersion.from_row(r) for r in rows]

    def claim_evidence(self, claim_ids: Sequence[int]) -> dict[int, frozenset[str]]:
        if not claim_ids:
            return {}
        ids = [int(i) for i in claim_ids]
        rows = self.storage.query(
            f"SELECT c.id, j.value AS source FROM claims c, json_each(c.source) j WHERE c.id IN ({_marks(ids)})"
            f" UNION SELECT claim_id, source FROM claim_provenance WHERE claim_id IN ({_marks(ids)})",
            [*ids, *ids],
        )
        found: dict[int, set[str]] = {i: set() for i in ids}
        for row in rows:
            found[row[0]].add(row[1])
        return {i: frozenset(refs) for i, refs in found.items()}

    # -- session titles ---------------------------------------------------------------------------

    def set_session_title(self, *, scope: str, session: str, title: str, at: str) -> bool:
        return self.storage.execute(
            "INSERT INTO session_titles (scope, session, title, titled_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (scope, session) DO UPDATE SET title = excluded.title, titled_at = excluded.titled_at"
            " WHERE session_titles.title IS NOT excluded.title",
            (scope, session, title, at),
        ) > 0

    def session_titles(self, *, scope: str | None, sessions: Sequence[str]) -> dict[str, str]:
        if not sessions:
            return {}
        sql = f"SELECT session, title FROM session_titles WHERE session IN ({_marks(sessions)})"
        params: list[object] = list(sessions)
        if scope is not None:
            sql += " AND scope = ?"
            params.append(scope)
        return {row[0]: row[1] for row in self.storage.query(sql + " ORDER BY titled_at, id", params)}

    def recent_session_titles(self, limit: int) -> list[tuple[str, str]]:
        rows = self.storage.query("SELECT session, title FROM session_titles ORDER BY titled_at DESC, id DESC LIMIT ?", (int(limit),))
        return [(row[0], row[1]) for row in rows]
