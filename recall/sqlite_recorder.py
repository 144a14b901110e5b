"""Recall's storage on SQLite: FTS5 (porter, unicode61) with BM25 and a trigram twin for CJK, fts5vocab
term counts, the outboxes and the index state of schema/sqlite/0003, 0005 and 0008.

Every visibility-deciding read splices the ledger's predicate (schema/sqlite/visible.sql: alias c,
:scopes as a JSON array, :valid_at, :known_at).
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from factledger.ledger import BusyError, ClaimVersion
from factledger.ledger.sqlite_recorder import SqliteLedgerRecorder

from .model import (
    EPISODE, FACT, Episode, EpisodeRecord, FactRecord, IndexState, LaneHit, LexicalFault, OutboxEntry, SinceProbe,
    Terms, VectorSource, Visibility,
)

# Per kind: the FTS5 table, its trigram twin and term counts, the rows with the ledger's time columns
# (the predicate's alias c), their sentence view, the vector outbox and its id column.
_TABLES = {
    FACT: ("recall_fts", "recall_fts_trigram", "recall_fts_terms", "claims", "recall_claim_text", "recall_outbox", "claim_id"),
    EPISODE: (
        "recall_episode_fts", "recall_episode_fts_trigram", "recall_episode_fts_terms", "episodes",
        "recall_episode_text", "recall_episode_outbox", "journal_id",
    ),
}


# The claims' pending tail (schema/sqlite/0027: lexical rows deferred behind a watermark), as a reader
# that does not write it sees it: TEMP tables of this connection, the same tokenizers as the index's,
# filled from `recall_claim_lanes_pending` and `recall_claim_trigram_pending` (the rows the catch-up
# will write) whenever the watermark or the chain moved. Unqualified names find them: SQLite looks in
# temp first.
_TAIL = ("recall_fts_tail", "recall_fts_tail_trigram", "recall_fts_tail_terms")
_TAIL_TABLES = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_fts_tail USING fts5("
    "body, context, tokenize = 'porter unicode61 remove_diacritics 2')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_fts_tail_trigram USING fts5(body, tokenize = 'trigram')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_fts_tail_terms USING fts5vocab(temp, recall_fts_tail, 'row')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_fts_tail_tokens USING fts5vocab(temp, recall_fts_tail, 'instance')",
    # one row per query word, to read its terms as the index's tokenizer makes them
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_fts_probe USING fts5("
    "body, tokenize = 'porter unicode61 remove_diacritics 2')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.recall_fts_probe_tokens USING fts5vocab(temp, recall_fts_probe, 'instance')",
)
# FTS5's bm25 constants (fts5_aux.c)
_K1, _B = 1.2, 0.75


def _varints(blob: bytes) -> list[int]:
    """SQLite's varints, as FTS5's averages record holds them (rows, then tokens per column)."""
    values, i = [], 0
    while i < len(blob):
        value = 0
        for n in range(9):
            byte = blob[i]
            i += 1
            if n == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        values.append(value)
    return values


def quote_term(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _match(terms: Terms) -> str:
    expression = " OR ".join(quote_term(w) for w in terms.words)
    return "{body} : (" + expression + ")" if terms.body_only else expression


def _ids(ids: Sequence[int]) -> str:
    return json.dumps(list(ids))


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# The predicate's pieces a vector filter cannot hold as written: the JSON scope list and the parameters.
_PREFILTER_PARTS = re.compile(r"\(SELECT value FROM json_each\(:scopes\)\)|:(valid_at|known_at)\b|\bc\.")


def render_prefilter(visible: str, seen: Visibility) -> str:
    """The SQLite predicate with `seen` bound as literals, over unaliased columns (LanceDB's filter)."""
    found = {m.group(0) for m in _PREFILTER_PARTS.finditer(visible)}
    if "(SELECT value FROM json_each(:scopes))" not in found or not {":valid_at", ":known_at"} <= found:
        raise RuntimeError(f"the visibility predicate has a shape the vector filter cannot bind: {visible}")

    def bind(match: re.Match) -> str:
        text = match.group(0)
        if text == "c.":
            return ""
        if text.startswith("(SELECT"):
            return "(" + ", ".join(_literal(s) for s in seen.scopes) + ")"
        return _literal(seen.valid_at if match.group(1) == "valid_at" else seen.known_at)

    rendered = _PREFILTER_PARTS.sub(bind, visible)
    return rendered


def _with_tail(found: list[list[LaneHit]], newest: bool, depth: int) -> list[LaneHit]:
    """The index's hits, and the pending tail's (the second list, when there is one), where the tail's
    cannot be scored as the index will score them (`_tail_bm25`: trigram hits, a query word of several
    tokens). Their BM25 is then over the tail's own few rows, not comparable with the index's, so they
    come first, in their own order (or all newest first, when the search reads newest first): they are
    the latest writes, few (the tail is bounded) and pending only until the next writer catches up."""
    if len(found) == 1:
        return found[0]
    main, tail = found
    pending = {h.id for h in tail}
    merged = tail + [h for h in main if h.id not in pending]
    if newest:
        merged.sort(key=lambda h: -h.id)
    return merged[:depth]


class SqliteRecallRecorder:
    def __init__(self, storage, visible: str):
        self.storage = storage
        self.visible = visible
        self._watermark: bool | None = None  # the schema defers the claim lanes (0027): read once
        self._tail_lock = threading.Lock()
        self._tail_key: tuple[int, int] | None = None  # (watermark, last chain row) the TEMP tail holds

    # -- the claims' pending tail (schema/sqlite/0027) ------------------------------------------------

    def _has_watermark(self) -> bool:
        if self._watermark is None:  # a read-only connection to a ledger from before 0027 has none
            self._watermark = self.storage.one(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'recall_lanes_through'"
            ) is not None
        return self._watermark

    def _pending(self) -> bool:
        row = self.storage.one(
            "SELECT tx_id < COALESCE((SELECT MAX(tx_id) FROM tx_chain), 0) FROM recall_lanes_through WHERE id = 1"
        )
        return bool(row and row[0])

    def catch_up(self) -> bool:
        """Write the claims' pending lexical rows, in a transaction of their own, when this connection
        may write, is not inside a transaction, and no other writer holds the file (a read is never
        made to queue behind a writer). False when rows are still pending."""
        if not self._has_watermark() or not self._pending():
            return True
        if self.storage.read_only or self.storage.in_transaction:
            return False
        try:
            with self.storage.atomic(wait=False):
                SqliteLedgerRecorder(self.storage).catch_up_lanes()  # the one statement; the schema writes the rows
        except BusyError:
            return False
        return True

    def _tail(self, kind: str) -> bool:
        """Whether claim versions wait past the lexical watermark after trying to write them; when they
        do, the TEMP tail tables hold their rows. So a read-only reader, or one inside an open
        transaction, finds what another process committed a moment ago without writing the index."""
        if kind != FACT or self.catch_up():
            return False
        with self.storage.snapshot():
            row = self.storage.one(
                "SELECT tx_id, COALESCE((SELECT MAX(tx_id) FROM tx_chain), 0) FROM recall_lanes_through WHERE id = 1"
            )
            if row is None or row[0] >= row[1]:
                return False
            key = (int(row[0]), int(row[1]))
            with self._tail_lock:
                if self._tail_key != key:
                    self._tail_key = None
                    for statement in _TAIL_TABLES:
                        self.storage.execute(statement)
                    self.storage.execute("DELETE FROM temp.recall_fts_tail")
                    self.storage.execute("DELETE FROM temp.recall_fts_tail_trigram")
                    self.storage.execute(
                        "INSERT INTO temp.recall_fts_tail (rowid, body, context)"
                        " SELECT id, text, context FROM recall_claim_lanes_pending"
                    )
                    self.storage.execute(
                        "INSERT INTO temp.recall_fts_tail_trigram (rowid, body)"
                        " SELECT id, text FROM recall_claim_trigram_pending"
                    )
                    self._tail_key = key
        return True

    def _indexes(self, kind: str) -> list[tuple[str, str, str]]:
        """(FTS5 table, trigram twin, term counts) to search for `kind`: the index, and the claims'
        pending tail when there is one."""
        main = _TABLES[kind][:3]
        return [main, _TAIL] if self._tail(kind) else [main]

    @staticmethod
    def _params(seen: Visibility) -> dict[str, object]:
        return {"scopes": json.dumps(list(seen.scopes), ensure_ascii=False), "valid_at": seen.valid_at, "known_at": seen.known_at}

    # -- the lexical index ------------------------------------------------------------------------

    def indexed_max_id(self, kind: str) -> int:
        return max(self.storage.one(f"SELECT MAX(rowid) FROM {fts}")[0] or 0 for fts, _, _ in self._indexes(kind))

    @staticmethod
    def _candidates(word: str) -> list[str]:
        # FTS5 stems with porter; a porter stem is (nearly always) a prefix of the word, or the word with
        # a final y turned to i, so the word's df is that of the longest such candidate the index holds.
        forms = [word[:n] for n in range(len(word), max(2, len(word) - 4), -1)]
        if word.endswith("y"):
            forms.insert(1, word[:-1] + "i")
        return forms

    def document_frequencies(self, kind: str, words: Sequence[str]) -> dict[str, int]:
        forms = sorted({f for w in words for f in self._candidates(w)})
        counts: dict[str, int] = {}
        for _, _, terms in self._indexes(kind):
            rows = self.storage.query(
                f"SELECT term, doc FROM {terms} WHERE term IN (SELECT value FROM json_each(?))",
                (json.dumps(forms, ensure_ascii=False),),
            )
            for r in rows:
                counts[r["term"]] = counts.get(r["term"], 0) + int(r["doc"])
        return {w: next((counts[f] for f in self._candidates(w) if f in counts), 0) for w in words}

    def ranked_hits(
        self, kind: str, terms: Terms, seen: Visibility, *, depth: int, body_weight: float, context_weight: float,
        newest: bool, among: Sequence[int] | None = None,
    ) -> list[LaneHit]:
        # FTS5 walks rowids in order and stops at the limit, so newest first is cheap for common terms.
        order = "f.rowid DESC" if newest else "rank"
        rows_table = _TABLES[kind][3]
        params = {"match": _match(terms), "wb": body_weight, "wc": context_weight, "depth": depth}
        found: list[list[LaneHit]] = []
        for fts, _, _ in self._indexes(kind):
            columns = f"f.rowid AS id, bm25({fts}, :wb, :wc) AS rank, bm25({fts}, 1.0, 0.0) AS own"
            if among is None:
                rows = self.storage.query(
                    f"SELECT {columns} FROM {fts} f CROSS JOIN {rows_table} c ON c.id = f.rowid"
                    f" WHERE {fts} MATCH :match AND {self.visible} ORDER BY {order} LIMIT :depth",
                    {**self._params(seen), **params},
                )
            else:
                rows = self._ranked_among(kind, fts, columns, order, params, among)
            found.append([LaneHit(r["id"], -float(r["rank"]), own=float(r["own"]) < 0) for r in rows])
        if len(found) == 2:
            scored = self._tail_bm25(terms, seen, body_weight, context_weight, among)
            if scored is not None:  # the tail's hits scored as they will be once written: one ranking
                index, tail = found
                pending = {h.id for h in scored}
                merged = scored + [h for h in index if h.id not in pending]
                merged.sort(key=lambda h: -h.id if newest else (-h.score, h.id))
                return merged[:depth]
        return _with_tail(found, newest, depth)

    def _tail_bm25(
        self, terms: Terms, seen: Visibility, body_weight: float, context_weight: float, among: Sequence[int] | None,
    ) -> list[LaneHit] | None:
        """The pending tail's matching claim versions, with the BM25 score FTS5 gives them once they are
        written into the index (fts5_aux.c's formula over the index's row and token counts plus the
        tail's): so a read-only reader ranks them among the index's hits as a writer would. None when a
        query word is not exactly one token (its phrase would need FTS5's phrase matching)."""
        rows_table = _TABLES[FACT][3]
        match = _match(terms)
        sql = (
            f"SELECT f.rowid AS id FROM recall_fts_tail f CROSS JOIN {rows_table} c ON c.id = f.rowid"
            f" WHERE recall_fts_tail MATCH :match AND {self.visible}"
        )
        params: dict[str, object] = {**self._params(seen), "match": match}
        if among is not None:
            sql += " AND f.rowid IN (SELECT value FROM json_each(:ids))"
            params["ids"] = _ids(among)
        ids = [r["id"] for r in self.storage.query(sql, params)]
        if not ids:
            return []
        # The connection's lock first, then the tail's (as `_tail` takes them): the other order deadlocks two
        # threads on one connection. Inside the snapshot a TEMP write takes no writer turn either.
        with self.storage.snapshot(), self._tail_lock:
            self.storage.execute("DELETE FROM temp.recall_fts_probe")
            self.storage.executemany(
                "INSERT INTO temp.recall_fts_probe (rowid, body) VALUES (?, ?)", list(enumerate(terms.words, start=1))
            )
            probed = self.storage.query("SELECT doc, term FROM temp.recall_fts_probe_tokens ORDER BY doc, offset")
        tokens: dict[int, list[str]] = {}
        for r in probed:
            tokens.setdefault(r["doc"], []).append(r["term"])
        if any(len(tokens.get(n, [])) != 1 for n in range(1, len(terms.words) + 1)):
            return None
        words = [(w, tokens[n][0]) for n, w in enumerate(terms.words, start=1)]
        # Rows and tokens (every column) of the index and of the tail: the statistics after the catch-up.
        rows, total = 0, 0
        for data in ("recall_fts_data", "temp.recall_fts_tail_data"):
            blob = self.storage.one(f"SELECT block FROM {data} WHERE id = 1")
            counts = _varints(bytes(blob[0])) if blob is not None and blob[0] is not None else []
            if counts:
                rows, total = rows + counts[0], total + sum(counts[1:])
        if rows == 0:
            return None
        average = total / rows
        columns = ("body",) if terms.body_only else ("body", "context")
        weights = {"body": body_weight, "context": context_weight}
        idf: list[tuple[str, float]] = []  # per phrase (two words may make one term: each is a phrase)
        for word, term in words:
            phrase = ("{body} : " if terms.body_only else "") + quote_term(word)
            hits = sum(
                self.storage.one(f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?", (phrase,))[0]
                for fts in ("recall_fts", "recall_fts_tail")
            )
            value = math.log((rows - hits + 0.5) / (hits + 0.5))
            idf.append((term, value if value > 0 else 1e-6))
        instances = self.storage.query(
            "SELECT doc, term, col, count(*) AS n FROM temp.recall_fts_tail_tokens"
            " WHERE doc IN (SELECT value FROM json_each(?)) GROUP BY doc, term, col", (_ids(ids),)
        )
        size: dict[int, int] = {}
        frequency: dict[tuple[int, str], float] = {}
        own: set[int] = set()
        asked = {term for term, _ in idf}
        for r in instances:
            size[r["doc"]] = size.get(r["doc"], 0) + r["n"]
            if r["term"] in asked and r["col"] in columns:
                key = (r["doc"], r["term"])
                frequency[key] = frequency.get(key, 0.0) + weights[r["col"]] * r["n"]
                if r["col"] == "body":
                    own.add(r["doc"])
        hits = []
        for item in ids:
            score = 0.0
            for term, value in idf:
                f = frequency.get((item, term), 0.0)
                score += value * (f * (_K1 + 1.0)) / (f + _K1 * (1 - _B + _B * size.get(item, 0) / average))
            hits.append(LaneHit(item, score, own=item in own))
        return hits

    def _ranked_among(self, kind: str, fts: str, columns: str, order: str, params: dict, among: Sequence[int]) -> list:
        """The rows among `among` matching the terms, ranked as the full search ranks them.

        Which of them match is found first, one rowid lookup each without ranking (cheap). bm25 then
        runs over those alone, in passes bounded by rowid: FTS5 counts each term's matching rows (its
        IDF) once per pass, and a pass also walks the postings between its bounds. So matches lying
        close together share a pass, and ones far apart (a user's facts learnt months apart) get one
        each, which costs an IDF count apiece instead of a walk over every other scope's rows between
        them. The scores are bm25's own either way."""
        matched = sorted(
            r[0] for r in self.storage.query(
                f"SELECT rowid FROM {fts} WHERE {fts} MATCH :match AND rowid IN (SELECT value FROM json_each(:ids))",
                {"match": params["match"], "ids": _ids(among)},
            )
        )
        if not matched:
            return []
        # A walk costs about twice a count per posting (the id filter runs on each): a gap wider than
        # half the index costs more to walk than another pass's count.
        gap = max(1, (self.storage.one(f"SELECT MAX(rowid) FROM {fts}")[0] or 0) // 2)
        passes: list[list[int]] = [[matched[0]]]
        for item in matched[1:]:
            if item - passes[-1][-1] > gap:
                passes.append([item])
            else:
                passes[-1].append(item)
        # `+f.rowid` keeps the id list a filter (not one lookup per id), and `rank + 0` keeps FTS5 from
        # ranking every row between the bounds before the filter.
        rows = []
        for ids in passes:
            rows += self.storage.query(
                f"SELECT {columns} FROM {fts} f WHERE {fts} MATCH :match AND f.rowid >= :low AND f.rowid <= :high"
                " AND +f.rowid IN (SELECT value FROM json_each(:ids))",
                {**params, "ids": _ids(ids), "low": ids[0], "high": ids[-1]},
            )
        if order == "rank":
            rows.sort(key=lambda r: (r["rank"], r["id"]))
        else:  # newest first
            rows.sort(key=lambda r: -r["id"])
        return rows[: params["depth"]]

    def about_topic(self, kind: str, ids: Sequence[int], words: Sequence[str]) -> tuple[set[int], set[int]]:
        anywhere: set[int] = set()
        own: set[int] = set()
        for fts, _, _ in self._indexes(kind):
            sql = f"SELECT rowid FROM {fts} WHERE {fts} MATCH ? AND rowid IN (SELECT value FROM json_each(?))"
            anywhere |= {r[0] for r in self.storage.query(sql, (_match(Terms(tuple(words))), _ids(ids)))}
            own |= {r[0] for r in self.storage.query(sql, (_match(Terms(tuple(words), body_only=True)), _ids(ids)))}
        return anywhere, own

    def trigram_hits(self, kind: str, grams: Sequence[str], seen: Visibility, depth: int) -> list[LaneHit]:
        rows_table = _TABLES[kind][3]
        found = []
        for _, trigram, _ in self._indexes(kind):
            rows = self.storage.query(
                f"SELECT f.rowid AS id, bm25({trigram}) AS rank FROM {trigram} f"
                f" CROSS JOIN {rows_table} c ON c.id = f.rowid WHERE {trigram} MATCH :match AND {self.visible}"
                " ORDER BY rank LIMIT :depth",
                {**self._params(seen), "match": " OR ".join(quote_term(g) for g in grams), "depth": depth},
            )
            found.append([LaneHit(r["id"], -float(r["rank"])) for r in rows])
        return _with_tail(found, False, depth)

    def substring_hits(self, kind: str, run: str, seen: Visibility, depth: int) -> list[int]:
        rows_table = _TABLES[kind][3]
        found: list[int] = []
        for _, trigram, _ in self._indexes(kind):
            rows = self.storage.query(
                f"SELECT f.rowid AS id FROM {trigram} f CROSS JOIN {rows_table} c ON c.id = f.rowid"
                f" WHERE instr(f.body, :run) > 0 AND {self.visible} LIMIT :depth",
                {**self._params(seen), "run": run, "depth": depth},
            )
            found += [r["id"] for r in rows if r["id"] not in found]
        return found[:depth]

    def lexical_row(self, kind: str, item: int) -> tuple[str, str] | None:
        for fts, _, _ in self._indexes(kind):
            row = self.storage.one(f"SELECT body, context FROM {fts} WHERE rowid = ?", (item,))
            if row is not None:
                return row["body"], row["context"]
        return None

    def visible_texts(self, kind: str, seen: Visibility, limit: int) -> dict[int, str] | None:
        rows_table, text = _TABLES[kind][3], _TABLES[kind][4]
        rows = self.storage.query(
            f"SELECT c.id AS id, t.text AS text FROM {rows_table} c JOIN {text} t ON t.id = c.id"
            f" WHERE {self.visible} LIMIT :limit",
            {**self._params(seen), "limit": int(limit) + 1},
        )
        return None if len(rows) > limit else {r["id"]: r["text"] for r in rows}

    # -- the exact lane's vocabulary --------------------------------------------------------------

    def claim_slots_after(self, last_id: int) -> list[tuple[int, str, str, str]]:
        rows = self.storage.query(
            "SELECT id, scope, subject_key, predicate FROM claims WHERE id > ? ORDER BY id", (last_id,)
        )
        return [(r["id"], r["scope"], r["subject_key"], r["predicate"]) for r in rows]

    def episode_speakers_after(self, last_id: int) -> list[tuple[int, str, str]]:
        rows = self.storage.query("SELECT id, scope, speaker FROM episodes WHERE id > ? ORDER BY id", (last_id,))
        return [(r["id"], r["scope"], r["speaker"]) for r in rows]

    def predicates_stamp(self) -> tuple:
        return tuple(self.storage.one("SELECT COUNT(*), MAX(defined_at) FROM predicates"))

    def predicate_displays(self) -> list[tuple[str, str]]:
        return [(p["name"], p["display"]) for p in self.storage.query("SELECT name, display FROM predicates")]

    def slot_claims(self, subject_key: str, predicate: str, seen: Visibility, limit: int) -> list[int]:
        # One indexed lookup per named slot (claims_slot covers scope, subject, predicate).
        rows = self.storage.query(
            "SELECT c.id FROM claims c WHERE c.subject_key = :subject AND c.predicate = :predicate"
            f" AND {self.visible} ORDER BY c.id DESC LIMIT {int(limit)}",
            {**self._params(seen), "subject": subject_key, "predicate": predicate},
        )
        return [r["id"] for r in rows]

    def slots_claims(self, subject_keys: Sequence[str], predicate: str, seen: Visibility, limit: int) -> list[int]:
        if not subject_keys:
            return []
        rows = self.storage.query(
            "SELECT id FROM (SELECT c.id, c.subject_key, ROW_NUMBER() OVER (PARTITION BY c.subject_key ORDER BY c.id DESC) AS n"
            " FROM claims c WHERE c.subject_key IN (SELECT value FROM json_each(:subjects)) AND c.predicate = :predicate"
            f" AND {self.visible}) WHERE n <= {int(limit)} ORDER BY subject_key, id DESC",
            {**self._params(seen), "subjects": json.dumps(list(subject_keys)), "predicate": predicate},
        )
        return [r["id"] for r in rows]

    # -- reads of items ---------------------------------------------------------------------------

    def read_facts(self, ids: Sequence[int], seen: Visibility) -> list[FactRecord]:
        rows = self.storage.query(
            # CROSS JOIN keeps the id list outermost: one primary-key lookup per candidate.
            "SELECT c.*, t.text AS text FROM json_each(:ids) j CROSS JOIN claims c"
            f" ON c.id = j.value JOIN recall_claim_text t ON t.id = c.id WHERE {self.visible}",
            {**self._params(seen), "ids": _ids(ids)},
        )
        return [FactRecord(ClaimVersion.from_row(r), r["text"]) for r in rows]

    def read_episodes(self, ids: Sequence[int], seen: Visibility) -> list[EpisodeRecord]:
        rows = self.storage.query(
            "SELECT c.*,"
            " (SELECT MAX(p.id) FROM journal p WHERE p.scope = c.scope AND p.session IS c.session AND p.id < c.id) AS before,"
            " (SELECT MIN(n.id) FROM journal n WHERE n.scope = c.scope AND n.session IS c.session AND n.id > c.id) AS after"
            f" FROM json_each(:ids) j CROSS JOIN episodes c ON c.id = j.value WHERE {self.visible}",
            {**self._params(seen), "ids": _ids(ids)},
        )
        return [EpisodeRecord(Episode.from_row(r), r["before"], r["after"]) for r in rows]

    def said_since(self, probes: Sequence[SinceProbe], seen: Visibility, per_probe: int) -> list[tuple[int, EpisodeRecord]]:
        probes = [p for p in probes if p.any_of]
        if not probes:
            return []
        params: dict[str, object] = {**self._params(seen), "per_probe": int(per_probe)}
        arms = []
        for n, probe in enumerate(probes):
            groups = " OR ".join("(" + " AND ".join(quote_term(w) for w in group) + ")" for group in probe.any_of)
            params.update({f"key{n}": probe.key, f"match{n}": "{body} : (" + groups + ")", f"after{n}": probe.after,
                           f"sources{n}": _ids(probe.sources)})
            # One FTS5 lookup per probe (the terms' postings), each row re-read under the predicate;
            # the arms are one statement.
            arms.append(
                f"SELECT * FROM (SELECT :key{n} AS probe, c.*,"
                " (SELECT MAX(p.id) FROM journal p WHERE p.scope = c.scope AND p.session IS c.session AND p.id < c.id) AS before"
                " FROM recall_episode_fts f CROSS JOIN episodes c ON c.id = f.rowid"
                f" WHERE recall_episode_fts MATCH :match{n} AND {self.visible}"
                f" AND c.said_at > COALESCE((SELECT MAX(s.said_at) FROM journal s WHERE s.id IN (SELECT value FROM json_each(:sources{n}))), :after{n})"
                f" AND c.id NOT IN (SELECT value FROM json_each(:sources{n}))"
                " ORDER BY c.role = 'user' DESC, c.said_at DESC, c.id DESC LIMIT :per_probe)"
            )
        rows = self.storage.query(" UNION ALL ".join(arms), params)
        return [(r["probe"], EpisodeRecord(Episode.from_row(r), r["before"], None)) for r in rows]

    def never_said(self, words: Sequence[str], seen: Visibility, *, users_only: bool = False) -> set[str]:
        if not words:
            return set()
        params: dict[str, object] = dict(self._params(seen))
        by_users = " AND c.role = 'user'" if users_only else ""
        indexes = {kind: self._indexes(kind) for kind in _TABLES}
        arms = []
        for n, word in enumerate(words):
            params[f"w{n}"] = quote_term(word) + (f" OR {quote_term(word[:6])}*" if len(word) >= 7 else "")
            if users_only:  # the row's own words: its context column holds its neighbours' (the assistant's reply)
                params[f"w{n}"] = f"body : ({params[f'w{n}']})"
            held = " OR ".join(
                f"EXISTS (SELECT 1 FROM {fts} f CROSS JOIN {t[3]} c ON c.id = f.rowid"
                f" WHERE {fts} MATCH :w{n} AND {self.visible}{by_users if kind == EPISODE else ''})"
                for kind, t in _TABLES.items() for fts, _, _ in indexes[kind]
            )
            arms.append(f"SELECT {n} AS n, ({held}) AS held")
        rows = self.storage.query(" UNION ALL ".join(arms), params)
        return {words[r["n"]] for r in rows if not r["held"]}

    def texts(self, kind: str, ids: Sequence[int]) -> dict[int, str]:
        view = _TABLES[kind][4]
        rows = self.storage.query(f"SELECT id, text FROM {view} WHERE id IN (SELECT value FROM json_each(?))", (_ids(ids),))
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
            sql += " AND c.session = :session"
            params["session"] = session
        if limit is not None:
            # The latest `limit` turns, shown oldest first.
            sql = f"SELECT * FROM ({sql} ORDER BY c.said_at DESC, c.id DESC LIMIT {int(limit)})"
        return [Episode.from_row(r) for r in self.storage.query(sql + " ORDER BY said_at, id", params)]

    # -- the vector companion ---------------------------------------------------------------------

    @staticmethod
    def _vector_select(kind: str) -> str:
        rows, text = _TABLES[kind][3], _TABLES[kind][4]
        return (
            f"SELECT c.id, c.scope, c.valid_from, c.valid_to, c.tx_from, c.tx_to, t.text FROM {rows} c"
            f" JOIN {text} t ON t.id = c.id"
        )

    def vector_sources(self, kind: str, ids: Sequence[int]) -> list[VectorSource]:
        rows = self.storage.query(self._vector_select(kind) + " WHERE c.id IN (SELECT value FROM json_each(?))", (_ids(ids),))
        return [VectorSource.from_row(r) for r in rows]

    def all_vector_sources(self, kind: str, batch: int) -> Iterator[VectorSource]:
        for row in self.storage.iterate(self._vector_select(kind) + " ORDER BY c.id", batch=batch):
            yield VectorSource.from_row(row)

    def item_counts(self) -> dict[str, int]:
        return {kind: self.storage.one(f"SELECT COUNT(*) FROM {t[3]}")[0] for kind, t in _TABLES.items()}

    def items_tx_to(self, kind: str) -> dict[int, str | None]:
        return {r["id"]: r["tx_to"] for r in self.storage.query(f"SELECT id, tx_to FROM {_TABLES[kind][3]}")}

    def outbox_pending(self) -> bool:
        return any(self.storage.one(f"SELECT 1 FROM {t[5]} LIMIT 1") for t in _TABLES.values())

    def outbox_count(self) -> int:
        return sum(self.storage.one(f"SELECT COUNT(*) FROM {t[5]}")[0] for t in _TABLES.values())

    def outbox_batch(self, kind: str, limit: int) -> list[tuple[int, int]]:
        outbox, column = _TABLES[kind][5:]
        rows = self.storage.query(f"SELECT seq, {column} AS item FROM {outbox} ORDER BY seq LIMIT ?", (limit,))
        return [(r["seq"], r["item"]) for r in rows]

    def outbox_drop_through(self, kind: str, seq: int) -> None:
        self.storage.execute(f"DELETE FROM {_TABLES[kind][5]} WHERE seq <= ?", (seq,))

    def outbox_marks(self) -> dict[str, int]:
        return {kind: self.storage.one(f"SELECT COALESCE(MAX(seq), 0) FROM {t[5]}")[0] for kind, t in _TABLES.items()}

    def outbox_entries(self) -> list[OutboxEntry]:
        entries = []
        for kind, t in _TABLES.items():
            outbox, column = t[5:]
            rows = self.storage.query(f"SELECT seq, {column} AS item, change FROM {outbox} ORDER BY seq")
            entries += [OutboxEntry(kind, r["seq"], r["item"], r["change"]) for r in rows]
        return entries

    def outbox_waiting(self, kind: str, ids: Sequence[int]) -> set[int]:
        outbox, column = _TABLES[kind][5:]
        rows = self.storage.query(f"SELECT {column} FROM {outbox} WHERE {column} IN (SELECT value FROM json_each(?))", (_ids(ids),))
        return {r[0] for r in rows}

    def index_state(self) -> IndexState:
        row = self.storage.one("SELECT needs_repair, reason, folder FROM recall_index_state WHERE id = 1")
        return IndexState(bool(row["needs_repair"]), row["reason"], row["folder"])

    def set_repair(self, flag: bool, reason: str, flagged_at: str | None) -> None:
        self.storage.execute(
            "UPDATE recall_index_state SET needs_repair = ?, reason = ?, flagged_at = ? WHERE id = 1",
            (int(flag), reason, flagged_at),
        )

    def record_folder(self, folder: str | None) -> None:
        self.storage.execute("UPDATE recall_index_state SET folder = ? WHERE id = 1", (folder,))

    def default_folder(self) -> Path:
        # Beside the file, whatever its name: a copy or a backup of the file gets its own.
        return Path(self.storage.path + ".lance")

    def folder_base(self) -> Path | None:
        return Path(self.storage.path).resolve().parent

    def vector_prefilter(self, seen: Visibility) -> str:
        return render_prefilter(self.visible, seen)

    # -- verify -----------------------------------------------------------------------------------

    def lexical_faults(self) -> list[LexicalFault]:
        self.catch_up()
        faults = []
        for kind, (fts, _, _, rows_table, text, _, _) in _TABLES.items():
            deferred = kind == FACT and self._has_watermark()
            # A claim version opened past the watermark (by a transaction with its chain row) is pending,
            # not missing: the next write, search or close writes its row. At or below it, it is missing.
            pending = (
                " AND NOT EXISTS (SELECT 1 FROM version_hashes v JOIN tx_chain ch ON ch.tx_id = v.opened_by"
                " WHERE v.claim_id = t.id AND v.opened_by > (SELECT tx_id FROM recall_lanes_through WHERE id = 1))"
                if deferred else ""
            )
            missing = self.storage.query(
                f"SELECT t.id, f.body IS NULL AS absent FROM {text} t LEFT JOIN {fts} f ON f.rowid = t.id"
                f" WHERE (f.rowid IS NULL{pending}) OR (f.rowid IS NOT NULL AND f.body IS NOT t.text)"
            )
            extra = self.storage.query(f"SELECT rowid FROM {fts} WHERE rowid NOT IN (SELECT id FROM {rows_table})")
            faults += [LexicalFault(kind, fts, r["id"], "missing" if r["absent"] else "differs") for r in missing]
            faults += [LexicalFault(kind, fts, r[0], "extra") for r in extra]
            if deferred:
                # Rows written past the watermark: it was moved back (the schema refuses that, so its
                # trigger was dropped); a legacy transaction's chain row (chain.backfill) is the exception,
                # its versions indexed long before the chain existed.
                ahead = self.storage.query(
                    "SELECT v.claim_id FROM version_hashes v JOIN tx_chain ch ON ch.tx_id = v.opened_by"
                    " WHERE v.opened_by > (SELECT tx_id FROM recall_lanes_through WHERE id = 1)"
                    " AND v.opened_by > (SELECT legacy_through FROM chain_start WHERE id = 1)"
                    f" AND EXISTS (SELECT 1 FROM {fts}_docsize d WHERE d.id = v.claim_id) ORDER BY v.claim_id"
                )
                faults += [LexicalFault(kind, fts, r[0], "ahead") for r in ahead]
        return faults
