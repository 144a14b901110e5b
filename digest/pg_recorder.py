"""The digest's recorder on PostgreSQL (schema/postgres/0002, 0005): `%s` placeholders, lists passed as
arrays (`= ANY(%s::text[])`), sources matched as jsonb, `IS NOT DISTINCT FROM` for NULL-safe equality, and
RETURNING for generated ids (PostgresStorage.execute returns the row count)."""

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


def _family(family: ScopeFamily) -> tuple[str, list[object]]:
    """The family's scopes as a condition on `scope`: exact ones, and those under each prefix."""
    parts = ["scope = ANY(%s::text[])"]
    params: list[object] = [list(family.exact)]
    for prefix in family.prefixes:
        parts.append("starts_with(scope, %s)")
        params.append(prefix)
    return "(" + " OR ".join(parts) + ")", params


def _like(text: str) -> str:
    """An ILIKE pattern matching `text` anywhere, its wildcards taken literally (ESCAPE '\\')."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


# A version's words for `believed_matching`: subject (but "user"), predicate and value keys, each word
# after a space, so `LIKE '% pat%'` finds a word starting with pat.
_HELD_WORDS = (
    "' ' || replace(replace(replace(CASE WHEN c.subject_key = 'user' THEN '' ELSE c.subject_key END"
    " || ' ' || replace(c.predicate, '_', ' ') || ' ' || c.value_key, '-', ' '), '/', ' '), '(', ' ')"
)


class PostgresDigestRecorder:
    """DigestRecorder (digest/recorder.py) over ledger/pg_storage.py's PostgresStorage."""

    def __init__(self, storage: Any):
        self.storage = storage

    def _proposals(self, sql: str, params: Sequence[object] | Mapping[str, object]) -> list[Proposal]:
        return [Proposal.from_row(r) for r in self.storage.query(sql, params)]

    def _entries(self, sql: str, params: Sequence[object]) -> list[JournalEntry]:
        return [JournalEntry.from_row(r) for r in self.storage.query(sql, params)]

    # -- journal --------------------------------------------------------------------------------

    def append_turn(self, turn: Turn, *, hash: str, redactions: Sequence[str], appended_at: str) -> int | None:
        row = self.storage.one(
            "INSERT INTO journal (scope, session, role, text, said_at, hash, redactions, appended_at, speaker)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (hash) DO NOTHING RETURNING id",
            (turn.scope, turn.session, turn.role, turn.text, turn.said_at, hash, json.dumps(list(redactions)),
             appended_at, turn.speaker),
        )
        return None if row is None else row["id"]

    def append_turns(self, turns: Sequence[tuple[Turn, str, Sequence[str]]], *, appended_at: str) -> list[int | None]:
        # The episode lanes stay a trigger per journal row here (schema/postgres/0006_recall.sql).
        with self.storage.atomic():
            return [self.append_turn(t, hash=h, redactions=r, appended_at=appended_at) for t, h, r in turns]

    def entry_with_hash(self, hash: str) -> int | None:
        row = self.storage.one("SELECT id FROM journal WHERE hash = %s", (hash,))
        return None if row is None else row["id"]

    def entry(self, entry_id: int) -> JournalEntry | None:
        row = self.storage.one("SELECT * FROM journal WHERE id = %s", (entry_id,))
        return JournalEntry.from_row(row) if row else None

    def backlog(self, *, scopes: Sequence[str] | None, limit: int | None) -> list[JournalEntry]:
        return self._entries(
            "SELECT * FROM journal WHERE digested_at IS NULL AND (%s::text[] IS NULL OR scope = ANY(%s::text[]))"
            " ORDER BY id LIMIT %s",
            (list(scopes) if scopes else None, list(scopes or ()), None if limit is None else int(limit)),
        )

    def backlog_size(self, *, scopes: Sequence[str] | None) -> int:
        row = self.storage.one(
            "SELECT COUNT(*) FROM journal WHERE digested_at IS NULL AND (%s::text[] IS NULL OR scope = ANY(%s::text[]))",
            (list(scopes) if scopes else None, list(scopes or ())),
        )
        return int(row[0]) if row else 0

    def recent(self, entry: JournalEntry, count: int) -> list[JournalEntry]:
        newest_first = self._entries(
            "SELECT * FROM journal WHERE scope = %s AND session IS NOT DISTINCT FROM %s::text AND id < %s"
            " ORDER BY id DESC LIMIT %s",
            (entry.scope, entry.session, entry.id, count),
        )
        return newest_first[::-1]

    def entries(self, *, scope: str | None, limit: int) -> list[JournalEntry]:
        return self._entries(
            "SELECT * FROM journal WHERE (%s::text IS NULL OR scope = %s) ORDER BY id DESC LIMIT %s",
            (scope, scope, int(limit)),
        )

    def undigested(self, entry_id: int) -> bool:
        # FOR UPDATE: a second run committing the same entry waits here for the first to commit, then
        # reads it digested (SQLite's writers already take turns for the whole transaction).
        row = self.storage.one("SELECT digested_at FROM journal WHERE id = %s FOR UPDATE", (entry_id,))
        return row is not None and row["digested_at"] is None

    def mark_digested(self, entry_id: int, *, at: str, extractor: str) -> None:
        self.storage.execute(
            "UPDATE journal SET digested_at = %s, extractor = %s, last_error = '' WHERE id = %s", (at, extractor, entry_id)
        )

    def record_failure(self, entry_id: int, message: str) -> None:
        self.storage.execute(
            "UPDATE journal SET attempts = attempts + 1, last_error = %s WHERE id = %s AND digested_at IS NULL",
            (message, entry_id),
        )

    def prune_digested(self, *, said_before: str, scopes: Sequence[str] | None) -> int:
        return self.storage.execute(
            "DELETE FROM journal WHERE said_at < %s AND digested_at IS NOT NULL"
            " AND (%s::text[] IS NULL OR scope = ANY(%s::text[]))",
            (said_before, list(scopes) if scopes else None, list(scopes or ())),
        )

    def first_appended(self, entry_ids: Sequence[int]) -> str | None:
        row = self.storage.one("SELECT MIN(appended_at) FROM journal WHERE id = ANY(%s::bigint[])", (list(entry_ids),))
        return row[0] if row else None

    def delete_entry(self, entry_id: int) -> int:
        return self.storage.execute("DELETE FROM journal WHERE id = %s", (entry_id,))

    def delete_derived_proposals(self, entry_id: int) -> int:
        return self.storage.execute(
            "DELETE FROM proposals WHERE entry_id = %s OR sources::jsonb @> jsonb_build_array(%s::text)",
            (entry_id, f"journal:{entry_id}"),
        )

    def replace_entry(self, entry_id: int, *, texts: Mapping[str, str], hash: str, redactions: Sequence[str]) -> None:
        checked_columns("journal", list(texts))
        row = self.storage.one("SELECT * FROM journal WHERE id = %s", (entry_id,))
        if row is None:
            return
        self.storage.execute("DELETE FROM journal WHERE id = %s", (entry_id,))
        record = {**{k: row[k] for k in row.keys()}, **texts, "hash": hash, "redactions": json.dumps(list(redactions))}
        self.storage.execute(
            f"INSERT INTO journal ({', '.join(record)}) VALUES ({', '.join(f'%({c})s' for c in record)})"
            " ON CONFLICT (hash) DO NOTHING",  # an identical redacted turn already stands for it
            record,
        )

    # -- leases ---------------------------------------------------------------------------------

    def lease(self, entry_ids: Sequence[int], *, holder: str, now: str, until: str) -> set[int]:
        ids = list(entry_ids)
        self.storage.execute("DELETE FROM digest_leases WHERE until <= %s", (now,))
        # Only entries still undigested: another run may have digested (and released) one since this
        # run read its backlog. A racing run's insert of the same entry waits for this one's commit,
        # then does nothing.
        self.storage.execute(
            "INSERT INTO digest_leases (entry_id, holder, until)"
            " SELECT e.id, %s, %s FROM journal e WHERE e.id = ANY(%s::bigint[]) AND e.digested_at IS NULL"
            " ON CONFLICT (entry_id) DO NOTHING",
            (holder, until, ids),
        )
        rows = self.storage.query(
            "SELECT entry_id FROM digest_leases WHERE holder = %s AND entry_id = ANY(%s::bigint[])", (holder, ids)
        )
        return {r[0] for r in rows}

    def release(self, entry_ids: Sequence[int], *, holder: str) -> None:
        self.storage.execute(
            "DELETE FROM digest_leases WHERE holder = %s AND entry_id = ANY(%s::bigint[])", (holder, list(entry_ids))
        )

    def lease_holders(self, entry_ids: Sequence[int]) -> set[str]:
        rows = self.storage.query(
            "SELECT DISTINCT holder FROM digest_leases WHERE entry_id = ANY(%s::bigint[])", (list(entry_ids),)
        )
        return {r[0] for r in rows}

    # -- proposals ------------------------------------------------------------------------------

    def insert_proposal(self, p: NewProposal) -> int:
        row = self.storage.one(
            "INSERT INTO proposals (scope, entry_id, ordinal, sources, extractor, op, subject, subject_key, predicate,"
            " cardinality, template, value, value_key, replaces, valid_from, valid_to, all_valid_time, time_phrase, quote,"
            " status, decision, policy, reason, rejection_id, created_at, decided_at, decided_by)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
            " %s, %s, %s) RETURNING id",
            (
                p.scope, p.entry_id, p.ordinal, sources_json(p.sources), p.extractor, p.op, p.subject, p.subject_key,
                p.predicate, p.cardinality, p.template, p.value, p.value_key, p.replaces, p.valid_from, p.valid_to,
                bool(p.all_valid_time), p.time_phrase, p.quote, p.status, p.decision, p.policy, p.reason, p.rejection_id,
                p.created_at, p.decided_at, p.decided_by,
            ),
        )
        return row["id"]

    def set_status(self, proposal_id: int, change: StatusChange) -> None:
        given = change.given()
        self.storage.execute(
            f"UPDATE proposals SET {', '.join(f'{c} = %({c})s' for c in given)} WHERE id = %(id)s",
            {**given, "id": proposal_id},
        )

    def proposal(self, proposal_id: int) -> Proposal | None:
        row = self.storage.one("SELECT * FROM proposals WHERE id = %s", (proposal_id,))
        return Proposal.from_row(row) if row else None

    def proposals(self, *, statuses: Sequence[str] | None, scope: str | None, limit: int) -> list[Proposal]:
        return self._proposals(
            "SELECT * FROM proposals WHERE (%(any)s OR status = ANY(%(statuses)s::text[]))"
            " AND (%(scope)s::text IS NULL OR scope = %(scope)s) ORDER BY id DESC LIMIT %(limit)s",
            {"any": statuses is None, "statuses": list(statuses or ()), "scope": scope, "limit": int(limit)},
        )

    def _queue_where(self, f: QueueFilter) -> tuple[str, list[object]]:
        where, params = ["TRUE"], []
        if f.statuses is not None:
            where.append("status = ANY(%s::text[])")
            params.append(list(f.statuses))
        for column, value in (("scope", f.scope), ("subject_key", f.subject_key), ("predicate", f.predicate),
                              ("extractor", f.extractor), ("policy", f.policy)):
            if value is not None:
                where.append(f"{column} = %s")
                params.append(value)
        if f.session is not None:
            where.append("entry_id IN (SELECT id FROM journal WHERE session = %s)")
            params.append(f.session)
        if f.reason is not None:
            where.append("reason ILIKE %s ESCAPE '\\'")
            params.append(_like(f.reason))
        if f.search is not None:
            columns = ("subject", "predicate", "coalesce(value, '')", "quote", "reason")
            where.append("(" + " OR ".join(f"{c} ILIKE %s ESCAPE '\\'" for c in columns) + ")")
            params.extend([_like(f.search)] * 5)
        return " AND ".join(where), params

    def queue(self, f: QueueFilter, *, oldest_first: bool, limit: int, offset: int) -> list[Proposal]:
        where, params = self._queue_where(f)
        order = "ASC" if oldest_first else "DESC"
        return self._proposals(
            f"SELECT * FROM proposals WHERE {where} ORDER BY id {order} LIMIT %s OFFSET %s", [*params, int(limit), int(offset)]
        )

    def queue_counts(self, f: QueueFilter) -> dict[str, int]:
        where, params = self._queue_where(f)
        rows = self.storage.query(f"SELECT status, COUNT(*) FROM proposals WHERE {where} GROUP BY status", params)
        return {r[0]: int(r[1]) for r in rows}

    def proposal_scopes(self) -> list[str]:
        return [r[0] for r in self.storage.query("SELECT DISTINCT scope FROM proposals ORDER BY scope", ())]

    def proposals_of_transaction(self, tx_id: int) -> list[Proposal]:
        return self._proposals("SELECT * FROM proposals WHERE tx = %s ORDER BY id", (tx_id,))

    def slot_proposals(self, *, scope: str, subject_key: str, predicate: str, statuses: Sequence[str], exclude: int,
                       limit: int | None = None) -> list[Proposal]:
        return self._proposals(
            "SELECT * FROM proposals WHERE scope = %s AND subject_key = %s AND predicate = %s AND id <> %s"
            " AND status = ANY(%s::text[]) ORDER BY id LIMIT %s",
            (scope, subject_key, predicate, exclude, list(statuses), limit),
        )

    def slot_proposal_count(self, *, scope: str, subject_key: str, predicate: str, statuses: Sequence[str], exclude: int) -> int:
        row = self.storage.one(
            "SELECT COUNT(*) FROM proposals WHERE scope = %s AND subject_key = %s AND predicate = %s AND id <> %s"
            " AND status = ANY(%s::text[])",
            (scope, subject_key, predicate, exclude, list(statuses)),
        )
        return int(row[0])

    def session_proposals(self, *, session: str, statuses: Sequence[str], scope: str | None) -> list[Proposal]:
        return self._proposals(
            "SELECT p.* FROM proposals p JOIN journal j ON j.id = p.entry_id WHERE j.session = %(session)s"
            " AND p.status = ANY(%(statuses)s::text[]) AND (%(scope)s::text IS NULL OR p.scope = %(scope)s) ORDER BY p.id",
            {"session": session, "statuses": list(statuses), "scope": scope},
        )

    def rejected_again_by(self, rejection_id: int) -> list[Proposal]:
        return self._proposals(
            "SELECT * FROM proposals WHERE rejection_id = %s AND status = 'rejected_again' ORDER BY id", (rejection_id,)
        )

    # -- review memory --------------------------------------------------------------------------

    def active_rejection(self, content_hash: str) -> Rejection | None:
        row = self.storage.one("SELECT * FROM rejections WHERE content_hash = %s AND lifted_at IS NULL", (content_hash,))
        return Rejection.from_row(row) if row else None

    def rejection(self, rejection_id: int) -> Rejection | None:
        row = self.storage.one("SELECT * FROM rejections WHERE id = %s", (rejection_id,))
        return Rejection.from_row(row) if row else None

    def insert_rejection(
        self, *, content_hash: str, scope: str, subject_key: str, predicate: str, value_key: str, value: str,
        proposal_id: int | None, rejected_by: str, rejected_at: str, reason: str,
    ) -> Rejection:
        row = self.storage.one(
            "INSERT INTO rejections (content_hash, scope, subject_key, predicate, value_key, value, proposal_id,"
            " rejected_by, rejected_at, reason) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING *",
            (content_hash, scope, subject_key, predicate, value_key, value, proposal_id, rejected_by, rejected_at, reason),
        )
        return Rejection.from_row(row)

    def rejections(self, *, include_lifted: bool, scope: str | None) -> list[Rejection]:
        rows = self.storage.query(
            "SELECT * FROM rejections WHERE (%(all)s OR lifted_at IS NULL)"
            " AND (%(scope)s::text IS NULL OR scope = %(scope)s) ORDER BY id DESC",
            {"all": include_lifted, "scope": scope},
        )
        return [Rejection.from_row(r) for r in rows]

    def active_confirmation(self, content_hash: str) -> Confirmation | None:
        row = self.storage.one("SELECT * FROM confirmations WHERE content_hash = %s AND lifted_at IS NULL", (content_hash,))
        return Confirmation.from_row(row) if row else None

    def confirmation(self, confirmation_id: int) -> Confirmation | None:
        row = self.storage.one("SELECT * FROM confirmations WHERE id = %s", (confirmation_id,))
        return Confirmation.from_row(row) if row else None

    def insert_confirmation(
        self, *, content_hash: str, scope: str, subject_key: str, predicate: str, value_key: str, value: str,
        claim_id: int | None, confirmed_by: str, confirmed_at: str, reason: str,
    ) -> Confirmation:
        row = self.storage.one(
            "INSERT INTO confirmations (content_hash, scope, subject_key, predicate, value_key, value, claim_id,"
            " confirmed_by, confirmed_at, reason) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING *",
            (content_hash, scope, subject_key, predicate, value_key, value, claim_id, confirmed_by, confirmed_at, reason),
        )
        return Confirmation.from_row(row)

    def slot_confirmations(self, *, scope: str, subject_key: str, predicate: str) -> list[Confirmation]:
        rows = self.storage.query(
            "SELECT * FROM confirmations WHERE scope = %s AND subject_key = %s AND predicate = %s AND lifted_at IS NULL",
            (scope, subject_key, predicate),
        )
        return [Confirmation.from_row(r) for r in rows]

    def confirmations(self, *, scope: str | None) -> list[Confirmation]:
        rows = self.storage.query(
            "SELECT * FROM confirmations WHERE lifted_at IS NULL AND (%(scope)s::text IS NULL OR scope = %(scope)s)"
            " ORDER BY id DESC",
            {"scope": scope},
        )
        return [Confirmation.from_row(r) for r in rows]

    def lift(self, table: str, row_id: int, *, at: str, by: str) -> None:
        if table not in ("rejections", "confirmations"):
            raise ValueError(f"only rejections and confirmations are lifted, not {table}")
        self.storage.execute(f"UPDATE {table} SET lifted_at = %s, lifted_by = %s WHERE id = %s", (at, by, row_id))

    # -- the ledger's believed versions ----------------------------------------------------------

    def believed_versions(self, *, scope: str, subject_key: str, predicate: str) -> list[ClaimVersion]:
        rows = self.storage.query(
            "SELECT * FROM claims WHERE scope = %s AND subject_key = %s AND predicate = %s AND tx_to IS NULL"
            " ORDER BY valid_from",
            (scope, subject_key, predicate),
        )
        return [ClaimVersion.from_row(r) for r in rows]

    def believed_claims(self, *, scope: str, limit: int) -> list[ClaimVersion]:
        rows = self.storage.query(
            "SELECT * FROM claims WHERE scope = %s AND tx_to IS NULL ORDER BY tx_from DESC, id DESC LIMIT %s", (scope, limit)
        )
        return [ClaimVersion.from_row(r) for r in rows]

    def believed_matching(self, *, scope: str, patterns: Sequence[str], per_pattern: int, limit: int) -> list[ClaimVersion]:
        if not patterns:
            return []
        # The words are built once per version (MATERIALIZED), then joined with the patterns: each
        # pattern's newest `per_pattern` matches, and the `limit` versions matching most patterns.
        values = ", ".join(["(CAST(%s AS TEXT))"] * len(patterns))
        rows = self.storage.query(
            "WITH h AS MATERIALIZED (SELECT c.id, c.tx_from, " + _HELD_WORDS + " AS words FROM claims c"
            " WHERE c.scope = %s AND c.tx_to IS NULL),"
            " p(pat) AS (VALUES " + values + "),"
            " hit AS (SELECT h.id, ROW_NUMBER() OVER (PARTITION BY p.pat ORDER BY h.tx_from DESC, h.id DESC) AS n"
            " FROM h JOIN p ON h.words LIKE p.pat),"
            " per AS (SELECT id, COUNT(*) AS hits, MIN(n) AS first FROM hit GROUP BY id),"
            " chosen AS (SELECT id FROM per WHERE first <= %s"
            " UNION SELECT id FROM (SELECT id FROM per ORDER BY hits DESC, id DESC LIMIT %s) top)"
            " SELECT c.* FROM claims c JOIN chosen ON chosen.id = c.id ORDER BY c.id",
            [scope, *(f"% {p}%" for p in patterns), int(per_pattern), int(limit)],
        )
        return [ClaimVersion.from_row(r) for r in rows]

    def believed_of_subjects(self, *, scope: str, subject_keys: Sequence[str], limit: int) -> list[ClaimVersion]:
        if not subject_keys:
            return []
        marks = ", ".join(["%s"] * len(subject_keys))
        rows = self.storage.query(
            "SELECT * FROM claims WHERE scope = %s AND subject_key IN (" + marks + ") AND tx_to IS NULL"
            " ORDER BY tx_from DESC, id DESC LIMIT %s",
            [scope, *subject_keys, int(limit)],
        )
        return [ClaimVersion.from_row(r) for r in rows]

    def believed_core(self, *, scope: str, subject_key: str, limit: int) -> list[ClaimVersion]:
        rows = self.storage.query(
            "SELECT * FROM claims WHERE scope = %s AND subject_key = %s AND cardinality = 'one' AND tx_to IS NULL"
            " AND valid_to IS NULL ORDER BY tx_from DESC, id DESC LIMIT %s",
            (scope, subject_key, int(limit)),
        )
        return [ClaimVersion.from_row(r) for r in rows]

    # -- erase ----------------------------------------------------------------------------------

    def text_rows(self, table: str, family: ScopeFamily) -> list[TextRow]:
        checked_columns(table, [])
        where, params = _family(family)
        rows = self.storage.query(f"SELECT * FROM {table} WHERE {where} ORDER BY id", params)
        return [text_row(table, r) for r in rows]

    def redact_row(self, table: str, row_id: int, texts: Mapping[str, str]) -> None:
        checked_columns(table, list(texts))
        sets = ", ".join(f"{column} = %s" for column in texts)
        self.storage.execute(f"UPDATE {table} SET {sets} WHERE id = %s", [*texts.values(), row_id])

    def delete_row(self, table: str, row_id: int) -> None:
        if table not in ("proposals", "confirmations"):
            raise ValueError(f"erase deletes proposals and confirmations, not {table}")
        self.storage.execute(f"DELETE FROM {table} WHERE id = %s", (row_id,))

    # -- undo (digest/undo.py) --------------------------------------------------------------------

    def session_entries(self, *, scope: str, session: str) -> list[JournalEntry]:
        return self._entries("SELECT * FROM journal WHERE scope = %s AND session = %s ORDER BY id", (scope, session))

    def entry_proposals(self, entry_ids: Sequence[int]) -> list[Proposal]:
        return self._proposals(
            "SELECT * FROM proposals WHERE entry_id = ANY(%s::bigint[]) ORDER BY id", ([int(i) for i in entry_ids],)
        )

    def slot_versions(self, *, scope: str, subject_key: str, predicate: str) -> list[ClaimVersion]:
        rows = self.storage.query(
            "SELECT * FROM claims WHERE scope = %s AND subject_key = %s AND predicate = %s ORDER BY id",
            (scope, subject_key, predicate),
        )
        return [ClaimVersion.from_row(r) for r in rows]

    def claim_evidence(self, claim_ids: Sequence[int]) -> dict[int, frozenset[str]]:
        ids = [int(i) for i in claim_ids]
        rows = self.storage.query(
            "SELECT c.id, s.ref FROM claims c, jsonb_array_elements_text(c.source::jsonb) AS s(ref)"
            " WHERE c.id = ANY(%(ids)s::bigint[])"
            " UNION SELECT claim_id, source FROM claim_provenance WHERE claim_id = ANY(%(ids)s::bigint[])",
            {"ids": ids},
        )
        found: dict[int, set[str]] = {i: set() for i in ids}
        for row in rows:
            found[row[0]].add(row[1])
        return {i: frozenset(refs) for i, refs in found.items()}

    # -- session titles ---------------------------------------------------------------------------

    def set_session_title(self, *, scope: str, session: str, title: str, at: str) -> bool:
        return self.storage.execute(
            "INSERT INTO session_titles (scope, session, title, titled_at) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (scope, session) DO UPDATE SET title = excluded.title, titled_at = excluded.titled_at"
            " WHERE session_titles.title IS DISTINCT FROM excluded.title",
            (scope, session, title, at),
        ) > 0

    def session_titles(self, *, scope: str | None, sessions: Sequence[str]) -> dict[str, str]:
        rows = self.storage.query(
            "SELECT session, title FROM session_titles WHERE session = ANY(%s::text[])"
            " AND (%s::text IS NULL OR scope = %s) ORDER BY titled_at, id",
            (list(sessions), scope, scope),
        )
        return {row[0]: row[1] for row in rows}

    def recent_session_titles(self, limit: int) -> list[tuple[str, str]]:
        rows = self.storage.query("SELECT session, title FROM session_titles ORDER BY titled_at DESC, id DESC LIMIT %s", (int(limit),))
        return [(row[0], row[1]) for row in rows]
