"""The SQL lanes: lexical (FTS5 BM25, plus a trigram twin for CJK) and exact (named subject/predicate).

Every statement here embeds the ledger's one visibility predicate (`Ledger.visible_sql()`), so no lane
can see a row that current or as-of reads would not.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from factledger.ledger import Ledger
from factledger.ledger.keys import normalise as key_normalise

from .text import STOP_WORDS, LexicalQuery, stem, words


@dataclass(frozen=True)
class Visibility:
    """The bound parameters of the visibility predicate."""

    scopes: tuple[str, ...]
    valid_at: str
    known_at: str

    def params(self) -> dict[str, object]:
        return {"scopes": json.dumps(list(self.scopes), ensure_ascii=False), "valid_at": self.valid_at, "known_at": self.known_at}


@dataclass(frozen=True)
class LaneHit:
    id: int
    score: float
    own: bool = True  # the claim's own sentence matched (not only its window neighbours' words)


def lexical_lane(
    ledger: Ledger, query: LexicalQuery, seen: Visibility, *, depth: int, body_weight: float, context_weight: float
) -> list[LaneHit]:
    """BM25 over claim sentences (and their window context), best first; then trigram hits for CJK."""
    visible = ledger.visible_sql()
    hits: list[LaneHit] = []
    if query.match is not None:
        rows = ledger.storage.query(
            "SELECT f.rowid AS id, bm25(recall_fts, :wb, :wc) AS rank, bm25(recall_fts, 1.0, 0.0) AS own FROM recall_fts f"
            f" JOIN claims c ON c.id = f.rowid WHERE recall_fts MATCH :match AND {visible}"
            " ORDER BY rank LIMIT :depth",
            {**seen.params(), "match": query.match, "wb": body_weight, "wc": context_weight, "depth": depth},
        )
        hits.extend(LaneHit(r["id"], -float(r["rank"]), own=float(r["own"]) < 0) for r in rows)
    known = {h.id for h in hits}
    if query.trigram_match is not None:
        rows = ledger.storage.query(
            "SELECT f.rowid AS id, bm25(recall_fts_trigram) AS rank FROM recall_fts_trigram f"
            f" JOIN claims c ON c.id = f.rowid WHERE recall_fts_trigram MATCH :match AND {visible}"
            " ORDER BY rank LIMIT :depth",
            {**seen.params(), "match": query.trigram_match, "depth": depth},
        )
        hits.extend(LaneHit(r["id"], -float(r["rank"])) for r in rows if r["id"] not in known)
        known = {h.id for h in hits}
    short = list(query.short_cjk)
    if query.trigram_match is not None and not hits:
        short.extend(query.cjk_bigrams)  # no three characters in a row matched: try the two-character words
    for run in short:  # two-character words are below the trigram size: a LIKE scan of CJK rows
        rows = ledger.storage.query(
            "SELECT f.rowid AS id FROM recall_fts_trigram f JOIN claims c ON c.id = f.rowid"
            f" WHERE f.body LIKE :pattern AND {visible} LIMIT :depth",
            {**seen.params(), "pattern": f"%{run}%", "depth": depth},
        )
        hits.extend(LaneHit(r["id"], 0.0) for r in rows if r["id"] not in known)
        known = {h.id for h in hits}
    return hits


@dataclass
class _Vocabulary:
    stamp: tuple = ()
    subjects: dict[str, set[str]] = field(default_factory=dict)  # scope -> subject keys
    predicates: dict[str, tuple[str, ...]] = field(default_factory=dict)  # name -> content stems


@dataclass(frozen=True)
class NamedSlots:
    """What a query names: subject keys and predicate names known in the searched scopes."""

    subjects: frozenset[str]
    predicates: frozenset[str]


class ExactLane:
    """A query naming a known subject and predicate gets that slot's visible values directly.

    A slot with many values (a diary-like `many` predicate) is not an answer by itself; its subject
    still boosts fusion.
    """

    MAX_SLOT_VALUES = 10
    MAX_NGRAM = 4

    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self._vocab = _Vocabulary()
        self._lock = threading.Lock()

    def _vocabulary(self) -> _Vocabulary:
        stamp = tuple(self.ledger.storage.one("SELECT MAX(id), (SELECT MAX(rowid) FROM predicates) FROM transactions"))
        with self._lock:
            if stamp != self._vocab.stamp:
                subjects: dict[str, set[str]] = {}
                for r in self.ledger.storage.query("SELECT DISTINCT scope, subject_key FROM claims"):
                    subjects.setdefault(r["scope"], set()).add(r["subject_key"])
                predicates = {}
                for p in self.ledger.storage.query("SELECT name, display FROM predicates"):
                    stems = tuple(stem(w) for w in words(p["display"].replace("_", " ")) if w not in STOP_WORDS)
                    predicates[p["name"]] = stems
                self._vocab = _Vocabulary(stamp, subjects, predicates)
            return self._vocab

    def named(self, query: str, scopes: Sequence[str]) -> NamedSlots:
        vocab = self._vocabulary()
        tokens = words(query)
        known_subjects: set[str] = set()
        for scope in scopes:
            known_subjects |= vocab.subjects.get(scope, set())
        subjects = set()
        for n in range(1, self.MAX_NGRAM + 1):
            for i in range(len(tokens) - n + 1):
                gram = key_normalise(" ".join(tokens[i : i + n]))
                if gram in known_subjects and not (n == 1 and gram in STOP_WORDS):
                    subjects.add(gram)
        stems = {stem(t) for t in tokens}
        predicates = {name for name, need in vocab.predicates.items() if need and set(need) <= stems}
        return NamedSlots(frozenset(subjects), frozenset(predicates))

    def lane(self, named: NamedSlots, seen: Visibility) -> list[LaneHit]:
        if not named.predicates:
            return []
        params = {
            **seen.params(),
            "predicates": json.dumps(sorted(named.predicates)),
            "subjects": json.dumps(sorted(named.subjects)),
        }
        sql = (
            "SELECT c.id, c.subject_key, c.predicate FROM claims c"
            f" WHERE c.predicate IN (SELECT value FROM json_each(:predicates)) AND {self.ledger.visible_sql()}"
        )
        if named.subjects:
            sql += " AND c.subject_key IN (SELECT value FROM json_each(:subjects))"
        sql += f" ORDER BY c.id DESC LIMIT {self.MAX_SLOT_VALUES * 4 + 1}"
        rows = self.ledger.storage.query(sql, params)
        slots: dict[tuple[str, str], list[int]] = {}
        for r in rows:
            slots.setdefault((r["subject_key"], r["predicate"]), []).append(r["id"])
        if not named.subjects and len(slots) > 1:
            return []  # a predicate alone, held by several subjects: not a direct answer
        hits = []
        for ids in slots.values():
            if len(ids) <= self.MAX_SLOT_VALUES:
                hits.extend(LaneHit(i, 1.0) for i in ids)
        return hits
