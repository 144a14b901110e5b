"""Recall's storage on PostgreSQL (schema/postgres/0006_recall.sql): tsvector/GIN lexical rows ranked by
BM25 as FTS5 computes it, a substring-and-trigram lane for CJK, the outboxes and the index state.

Every visibility-deciding read splices the ledger's predicate (schema/postgres/visible.sql: alias c,
%(scopes)s as a text[], %(valid_at)s and %(known_at)s as canonical time text).

BM25 (k1 1.2, b 0.75, FTS5's IDF ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6): a term's frequency is
body_weight x its count in the sentence + context_weight x its count in the neighbours' words; the
document length is the row's token count over both columns; N and the average length are over every
row of the kind's index (all scopes, all versions), as FTS5's totals are.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from factledger.ledger import ClaimVersion
from factledger.ledger.pg_storage import local_data_path

from .model import (
    EPISODE, FACT, Episode, EpisodeRecord, FactRecord, IndexState, LaneHit, LexicalFault, OutboxEntry, SinceProbe,
    Terms, VectorSource, Visibility,
)

# Per kind: the lexical table, its CJK twin, the rows with the ledger's time columns (alias c), their
# sentence view, the vector outbox and its id column.
_TABLES = {
    FACT: ("recall_fts", "recall_fts_trigram", "claims", "recall_claim_text", "recall_outbox", "claim_id"),
    EPISODE: ("recall_episode_fts", "recall_episode_fts_trigram", "episodes", "recall_episode_text",
              "recall_episode_outbox", "journal_id"),
}
_BM25 = "{idf} * ({f} * 2.2) / ({f} + 1.2 * (0.25 + 0.75 * {length} / t.avgdl))"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# The predicate's pieces a vector filter cannot hold as written: the text[] scope parameter, the time
# parameters with their casts, and the alias.
_PREFILTER_PARTS = re.compile(
    r"=\s*ANY\(%\(scopes\)s(?:::text\[\])?\)|%\((valid_at|known_at)\)s(?:::timestamptz)?|\bc\."
)


def render_prefilter(visible: str, seen: Visibility) -> str:
    """The PostgreSQL predicate with `seen` bound as literals, over unaliased columns (LanceDB's filter;
    the vector rows hold the canonical text form, whose order is time order)."""
    parts = [m.group(1) or m.group(0)[:1] for m in _PREFILTER_PARTS.finditer(visible)]
    if "=" not in parts or not {"valid_at", "known_at"} <= set(parts):
        raise RuntimeError(f"the visibility predicate has a shape the vector filter cannot bind: {visible}")

    def bind(match: re.Match) -> str:
        text = match.group(0)
        if text == "c.":
            return ""
        if text.startswith("="):
            return "IN (" + ", ".join(_literal(s) for s in seen.scopes) + ")"
        return _literal(seen.valid_at if match.group(1) == "valid_at" else seen.known_at)

    return _PREFILTER_PARTS.sub(bind, visible)


class PostgresRecallRecorder:
    def __init__(self, storage, visible: str):
        self.storage = storage
        self.visible = visible

    @staticmethod
    def _params(seen: Visibility) -> dict[str, object]:
        return {"scopes": list(seen.scopes), "valid_at": seen.valid_at, "known_at": seen.known_at}

    # -- the lexical index ------------------------------------------------------------------------

    def indexed_max_id(self, kind: str) -> int:
        return self.storage.one(f"SELECT MAX(id) FROM {_TABLES[kind][0]}")[0] or 0

    def document_frequencies(self, kind: str, words: Sequence[str]) -> dict[str, int]:
        fts = _TABLES[kind][0]
        rows = self.storage.query(
            "SELECT w.word, COALESCE((SELECT max(n.docs) FROM unnest(factledger_lexemes(ARRAY[w.word])) AS l(lexeme),"
            f" LATERAL (SELECT count(*) AS docs FROM {fts} f WHERE f.terms @@ factledger_any(ARRAY[l.lexeme])) n), 0)"
            " AS docs FROM unnest(%(words)s::text[]) AS w(word)",
            {"words": list(words)},
        )
        return {r["word"]: int(r["docs"]) for r in rows}

    def ranked_hits(
        self, kind: str, terms: Terms, seen: Visibility, *, depth: int, body_weight: float, context_weight: float,
        newest: bool, among: Sequence[int] | None = None,
    ) -> list[LaneHit]:
        fts, _, rows_table = _TABLES[kind][:3]
        # A body-only match (FTS5's {body} column filter) counts the term's rows and instances in the
        # sentence alone.
        column = "body_terms" if terms.body_only else "terms"
        frequency = "%(wb)s * factledger_tf(f.body_terms, i.lexeme)"
        if not terms.body_only:
            frequency += " + %(wc)s * factledger_tf(f.context_terms, i.lexeme)"
        score = _BM25.format(idf="i.idf", f="w.f", length="f.length")
        order = "f.id DESC" if newest else "score DESC, f.id"
        # A small visible set: start from its ids (the primary key) rather than the terms' postings.
        restrict = " AND f.id = ANY(%(among)s::bigint[])" if among is not None else ""
        rows = self.storage.query(
            "WITH q AS MATERIALIZED (SELECT factledger_lexemes(%(words)s::text[]) AS lexemes),"
            f" t AS MATERIALIZED (SELECT count(*) AS n, COALESCE(avg(length), 1)::float8 AS avgdl FROM {fts}),"
            " idf AS MATERIALIZED (SELECT l.lexeme, factledger_idf(t.n, (SELECT count(*) FROM"
            f" {fts} h WHERE h.{column} @@ factledger_any(ARRAY[l.lexeme]))) AS idf FROM q, t, unnest(q.lexemes) AS l(lexeme))"
            f" SELECT f.id, (SELECT COALESCE(sum({score}), 0) FROM idf i CROSS JOIN LATERAL (SELECT {frequency} AS f) w)"
            " AS score, f.body_terms @@ factledger_any(q.lexemes) AS own"
            f" FROM q, t, {fts} f JOIN {rows_table} c ON c.id = f.id"
            f" WHERE f.{column} @@ factledger_any(q.lexemes) AND {self.visible}{restrict}"
            f" ORDER BY {order} LIMIT %(depth)s",
            {**self._params(seen), "words": list(terms.words), "wb": float(body_weight), "wc": float(context_weight),
             "depth": depth, **({"among": list(among)} if among is not None else {})},
        )
        return [LaneHit(r["id"], float(r["score"]), own=bool(r["own"])) for r in rows]

    def about_topic(self, kind: str, ids: Sequence[int], words: Sequence[str]) -> tuple[set[int], set[int]]:
        rows = self.storage.query(
            f"SELECT f.id, f.body_terms @@ q.query AS own FROM {_TABLES[kind][0]} f,"
            " (SELECT factledger_any(factledger_lexemes(%(words)s::text[])) AS query) q"
            " WHERE f.id = ANY(%(ids)s::bigint[]) AND f.terms @@ q.query",
            {"words": list(words), "ids": list(ids)},
        )
        return {r["id"] for r in rows}, {r["id"] for r in rows if r["own"]}

    def trigram_hits(self, kind: str, grams: Sequence[str], seen: Visibility, depth: int) -> list[LaneHit]:
        # FTS5's trigram tokenizer: every three characters of the case-folded text are a token.
        _, trigram, rows_table = _TABLES[kind][:3]
        count = "((char_length(f.body) - char_length(replace(lower(f.body), i.gram, ''))) / char_length(i.gram))::float8"
        score = _BM25.format(idf="i.idf", f=count, length="greatest(char_length(f.body) - 2, 0)")
        rows = self.storage.query(
            "WITH g AS MATERIALIZED (SELECT DISTINCT unnest(%(grams)s::text[]) AS gram),"
            f" t AS MATERIALIZED (SELECT count(*) AS n, COALESCE(avg(greatest(char_length(body) - 2, 0)), 1)::float8 AS avgdl"
            f" FROM {trigram}),"
            " idf AS MATERIALIZED (SELECT g.gram, factledger_idf(t.n, (SELECT count(*) FROM"
            f" {trigram} h WHERE strpos(lower(h.body), g.gram) > 0)) AS idf FROM g, t)"
            f" SELECT f.id, (SELECT COALESCE(sum({score}), 0) FROM idf i) AS score"
            f" FROM t, {trigram} f JOIN {rows_table} c ON c.id = f.id"
            f" WHERE EXISTS (SELECT 1 FROM g WHERE strpos(lower(f.body), g.gram) > 0) AND {self.visible}"
            " ORDER BY score DESC, f.id LIMIT %(depth)s",
            {**self._params(seen), "grams": list(grams), "depth": depth},
        )
        return [LaneHit(r["id"], float(r["score"])) for r in rows]

    def substring_hits(self, kind: str, run: str, seen: Visibility, depth: int) -> list[int]:
        _, trigram, rows_table = _TABLES[kind][:3]
        rows = self.storage.query(
            f"SELECT f.id FROM {trigram} f JOIN {rows_table} c ON c.id = f.id"
            f" WHERE strpos(f.body, %(run)s) > 0 AND {self.visible} ORDER BY f.id LIMIT %(depth)s",
            {**self._params(seen), "run": run, "depth": depth},
        )
        return [r["id"] for r in rows]

    def lexical_row(self, kind: str, item: int) -> tuple[str, str] | None:
        row = self.storage.one(f"SELECT body, context FROM {_TABLES[kind][0]} WHERE id = %s", (item,))
        return None if row is None else (row["body"], row["context"])

    # -- the exact lane's vocabulary --------------------------------------------------------------

    def claim_slots_after(self, last_id: int) -> list[tuple[int, str, str, str]]:
        rows = self.storage.query(
            "SELECT id, scope, subject_key, predicate FROM claims WHERE id > %s ORDER BY id", (last_id,)
        )
        return [(r["id"], r["scope"], r["subject_key"], r["predicate"]) for r in rows]

    def episode_speakers_after(self, last_id: int) -> list[tuple[int, str, str]]:
        rows = self.storage.query("SELECT id, scope, speaker FROM episodes WHERE id > %s ORDER BY id", (last_id,))
        return [(r["id"], r["scope"], r["speaker"]) for r in rows]

    def predicates_stamp(self) -> tuple:
        return tuple(self.storage.one("SELECT COUNT(*), MAX(defined_at) FROM predicates"))

    def predicate_displays(self) -> list[tuple[str, str]]:
        return [(p["name"], p["display"]) for p in self.storage.query("SELECT name, display FROM predicates")]

    def slot_claims(self, subject_key: str, predicate: str, seen: Visibility, limit: int) -> list[int]:
        rows = self.storage.query(
            "SELECT c.id FROM claims c WHERE c.subject_key = %(subject)s AND c.predicate = %(predicate)s"
            f" AND {self.visible} ORDER BY c.id DESC LIMIT {int(limit)}",
            {**self._params(seen), "subject": subject_key, "predicate": predicate},
        )
        return [r["id"] for r in rows]

    def slots_claims(self, subject_keys: Sequence[str], predicate: str, seen: Visibility, limit: int) -> list[int]:
        if not subject_keys:
            return []
        rows = self.storage.query(
            "SELECT id FROM (SELECT c.id, c.subject_key, ROW_NUMBER() OVER (PARTITION BY c.subject_key ORDER BY c.id DESC) AS n"
            " FROM claims c WHERE c.subject_key = ANY(%(subjects)s::text[]) AND c.predicate = %(predicate)s"
            f" AND {self.visible}) ranked WHERE n <= {int(limit)} ORDER BY subject_key, id DESC",
            {**self._params(seen), "subjects": list(subject_keys), "predicate": predicate},
        )
        return [r["id"] for r in rows]

    # -- reads of items ---------------------------------------------------------------------------

    def read_facts(self, ids: Sequence[int], seen: Visibility) -> list[FactRecord]:
        rows = self.storage.query(
            "SELECT c.*, t.text AS text FROM claims c JOIN recall_claim_text t ON t.id = c.id"
            f" WHERE c.id = ANY(%(ids)s::bigint[]) AND {self.visible}",
            {**self._params(seen), "ids": list(ids)},
        )
        return [FactRecord(ClaimVersion.from_row(r), r["text"]) for r in rows]

    def read_episodes(self, ids: Sequence[int], seen: Visibility) -> list[EpisodeRecord]:
        rows = self.storage.query(
            "SELECT c.*,"
            " (SELECT p.id FROM journal p WHERE p.scope = c.scope AND p.session IS NOT DISTINCT FROM c.session"
            "   AND p.id < c.id ORDER BY p.id DESC LIMIT 1) AS before,"
            " (SELECT n.id FROM journal n WHERE n.scope = c.scope AND n.session IS NOT DISTINCT FROM c.session"
            "   AND n.id > c.id ORDER BY n.id LIMIT 1) AS after"
            f" FROM episodes c WHERE c.id = ANY(%(ids)s::bigint[]) AND {self.visible}",
            {**self._params(seen), "ids": list(ids)},
        )
        return [EpisodeRecord(Episode.from_row(r), r["before"], r["after"]) for r in rows]

    def visible_texts(self, kind: str, seen: Visibility, limit: int) -> dict[int, str] | None:
        rows_table, text = _TABLES[kind][2], _TABLES[kind][3]
        rows = self.storage.query(
            f"SELECT c.id AS id, t.text AS text FROM {rows_table} c JOIN {text} t ON t.id = c.id"
            f" WHERE {self.visible} LIMIT %(limit)s",
            {**self._params(seen), "limit": int(limit) + 1},
        )
        return None if len(rows) > limit else {r["id"]: r["text"] for r in rows}

    def said_since(self, probes: Sequence[SinceProbe], seen: Visibility, per_probe: int) -> list[tuple[int, EpisodeRecord]]:
        probes = [p for p in probes if p.any_of]
        if not probes:
            return []
        params: dict[str, object] = {**self._params(seen), "per_probe": int(per_probe)}
        arms = []
        for n, probe in enumerate(probes):
            # A word with no lexeme gives a NULL tsquery: its group matches nothing, the others still do.
            groups = []
            for g, group in enumerate(probe.any_of):
                terms = []
                for w, word in enumerate(group):
                    params[f"w{n}_{g}_{w}"] = [word]
                    terms.append(f"f.body_terms @@ factledger_any(factledger_lexemes(%(w{n}_{g}_{w})s::text[]))")
                groups.append("(" + " AND ".join(terms) + ")")
            params.update({f"key{n}": probe.key, f"after{n}": probe.after, f"sources{n}": list(probe.sources)})
            arms.append(
                f"(SELECT %(key{n})s::bigint AS probe, c.*,"
                " (SELECT p.id FROM journal p WHERE p.scope = c.scope AND p.session IS NOT DISTINCT FROM c.session"
                "   AND p.id < c.id ORDER BY p.id DESC LIMIT 1) AS before"
                " FROM recall_episode_fts f JOIN episodes c ON c.id = f.id"
                f" WHERE ({' OR '.join(groups)}) AND {self.visible}"
                f" AND c.said_at > COALESCE((SELECT max(s.said_at) FROM journal s WHERE s.id = ANY(%(sources{n})s::bigint[])),"
                f" %(after{n})s::timestamptz)"
                f" AND NOT (c.id = ANY(%(sources{n})s::bigint[]))"
                " ORDER BY c.role = 'user' DESC, c.said_at DESC, c.id DESC LIMIT %(per_probe)s)"
            )
        rows = self.storage.query(" UNION ALL ".join(arms), params)
        return [(r["probe"], EpisodeRecord(Episode.from_row(r), r["before"], None)) for r in rows]

    def never_said(self, words: Sequence[str], seen: Visibility, *, users_only: bool = False) -> set[str]:
        if not words:
            return set()
        params: dict[str, object] = dict(self._params(seen))
        by_users = " AND c.role = 'user'" if users_only else ""
        # the row's own words: its context holds its neighbours' (the assistant's reply)
        terms = "body_terms" if users_only else "terms"
        arms = []
        for n, word in enumerate(words):
            params[f"w{n}"] = [word]
            query = f"factledger_any(factledger_lexemes(%(w{n})s::text[]))"
            if len(word) >= 7:  # or a word it is a form of that the stemmer keeps apart ("precaution")
                params[f"p{n}"] = word[:6]
                query = f"({query} || (SELECT to_tsquery('simple', quote_literal(lower(%(p{n})s)) || ':*')))"
            held = " OR ".join(
                f"EXISTS (SELECT 1 FROM {t[0]} f JOIN {t[2]} c ON c.id = f.id"
                f" WHERE f.{terms} @@ {query} AND {self.visible}{by_users if kind == EPISODE else ''})"
                for kind, t in _TABLES.items()
            )
            arms.append(f"SELECT {n} AS n, COALESCE(({held}), false) AS held")
        rows = self.storage.query(" UNION ALL ".join(arms), params)
        return {words[r["n"]] for r in rows if not r["held"]}

    def texts(self, kind: str, ids: Sequence[int]) -> dict[int, str]:
        rows = self.storage.query(f"SELECT id, text FROM {_TABLES[kind][3]} WHERE id = ANY(%s::bigint[])", (list(ids),))
        return {r["id"]: r["text"] for r in rows}

    def memories(self, seen: Visibility) -> list[tuple[ClaimVersion, str]]:
        rows = self.storage.query(
            "SELECT c.*, t.text AS text FROM claims c JOIN recall_claim_text t ON t.id = c.id"
            f" WHERE {self.visible} ORDER BY c.scope, c.subject_key, c.predicate, c.valid_from",
            self._params(seen),
        )
        return [(ClaimVersion.from_row(r), r["text"]) for r in rows]

    def episodes(self, seen: Visibility, *, session: str | None, limit: int | None) -> list[Episode]:
        sql = f"SELECT c.* FROM episodes c WHERE {self.visible}"
        params = self._params(seen)
        if session is not None:
            sql += " AND c.session = %(session)s"
            params["session"] = session
        if limit is not None:
            # The latest `limit` turns, shown oldest first.
            sql = f"SELECT * FROM ({sql} ORDER BY c.said_at DESC, c.id DESC LIMIT {int(limit)}) latest"
        return [Episode.from_row(r) for r in self.storage.query(sql + " ORDER BY said_at, id", params)]

    # -- the vector companion ---------------------------------------------------------------------

    @staticmethod
    def _vector_select(kind: str) -> str:
        rows, text = _TABLES[kind][2], _TABLES[kind][3]
        return (
            f"SELECT c.id, c.scope, c.valid_from, c.valid_to, c.tx_from, c.tx_to, t.text FROM {rows} c"
            f" JOIN {text} t ON t.id = c.id"
        )

    def vector_sources(self, kind: str, ids: Sequence[int]) -> list[VectorSource]:
        rows = self.storage.query(self._vector_select(kind) + " WHERE c.id = ANY(%s::bigint[])", (list(ids),))
        return [VectorSource.from_row(r) for r in rows]

    def all_vector_sources(self, kind: str, batch: int) -> Iterator[VectorSource]:
        for row in self.storage.iterate(self._vector_select(kind) + " ORDER BY c.id", batch=batch):
            yield VectorSource.from_row(row)

    def item_counts(self) -> dict[str, int]:
        return {kind: self.storage.one(f"SELECT COUNT(*) FROM {t[2]}")[0] for kind, t in _TABLES.items()}

    def items_tx_to(self, kind: str) -> dict[int, str | None]:
        return {r["id"]: r["tx_to"] for r in self.storage.query(f"SELECT id, tx_to FROM {_TABLES[kind][2]}")}

    def outbox_pending(self) -> bool:
        return any(self.storage.one(f"SELECT 1 FROM {t[4]} LIMIT 1") for t in _TABLES.values())

    def outbox_count(self) -> int:
        return sum(self.storage.one(f"SELECT COUNT(*) FROM {t[4]}")[0] for t in _TABLES.values())

    def outbox_batch(self, kind: str, limit: int) -> list[tuple[int, int]]:
        outbox, column = _TABLES[kind][4:]
        rows = self.storage.query(f"SELECT seq, {column} AS item FROM {outbox} ORDER BY seq LIMIT %s", (limit,))
        return [(r["seq"], r["item"]) for r in rows]

    def outbox_drop_through(self, kind: str, seq: int) -> None:
        self.storage.execute(f"DELETE FROM {_TABLES[kind][4]} WHERE seq <= %s", (seq,))

    def outbox_marks(self) -> dict[str, int]:
        return {kind: self.storage.one(f"SELECT COALESCE(MAX(seq), 0) FROM {t[4]}")[0] for kind, t in _TABLES.items()}

    def outbox_entries(self) -> list[OutboxEntry]:
        entries = []
        for kind, t in _TABLES.items():
            outbox, column = t[4:]
            rows = self.storage.query(f"SELECT seq, {column} AS item, change FROM {outbox} ORDER BY seq")
            entries += [OutboxEntry(kind, r["seq"], r["item"], r["change"]) for r in rows]
        return entries

    def outbox_waiting(self, kind: str, ids: Sequence[int]) -> set[int]:
        outbox, column = _TABLES[kind][4:]
        rows = self.storage.query(f"SELECT {column} FROM {outbox} WHERE {column} = ANY(%s::bigint[])", (list(ids),))
        return {r[0] for r in rows}

    def index_state(self) -> IndexState:
        row = self.storage.one("SELECT needs_repair, reason, folder FROM recall_index_state WHERE id = 1")
        return IndexState(bool(row["needs_repair"]), row["reason"], row["folder"])

    def set_repair(self, flag: bool, reason: str, flagged_at: str | None) -> None:
        self.storage.execute(
            "UPDATE recall_index_state SET needs_repair = %s, reason = %s, flagged_at = %s::timestamptz WHERE id = 1",
            (bool(flag), reason, flagged_at),
        )

    def record_folder(self, folder: str | None) -> None:
        self.storage.execute("UPDATE recall_index_state SET folder = %s WHERE id = 1", (folder,))

    def default_folder(self) -> Path:
        # Every process that should share it records it (recall_index_state.folder).
        return local_data_path(self.storage.url, "vectors", ".lance")

    def folder_base(self) -> Path | None:
        return None  # recorded folders are absolute

    def vector_prefilter(self, seen: Visibility) -> str:
        return render_prefilter(self.visible, seen)

    # -- verify -----------------------------------------------------------------------------------

    def lexical_faults(self) -> list[LexicalFault]:
        faults = []
        for kind, (fts, _, rows_table, text, _, _) in _TABLES.items():
            missing = self.storage.query(
                f"SELECT t.id, f.id IS NULL AS absent FROM {text} t LEFT JOIN {fts} f ON f.id = t.id"
                " WHERE f.id IS NULL OR f.body IS DISTINCT FROM t.text ORDER BY t.id"
            )
            extra = self.storage.query(
                f"SELECT f.id FROM {fts} f WHERE NOT EXISTS (SELECT 1 FROM {rows_table} c WHERE c.id = f.id) ORDER BY f.id"
            )
            faults += [LexicalFault(kind, fts, r["id"], "missing" if r["absent"] else "differs") for r in missing]
            faults += [LexicalFault(kind, fts, r[0], "extra") for r in extra]
        return faults
