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

from .text import STOP_WORDS, LexicalQuery, quote_term, stem, words


@dataclass(frozen=True)
class Visibility:
    """The bound parameters of the visibility predicate."""

    scopes: tuple[str, ...]
    valid_at: str
    known_at: str

    def params(self) -> dict[str, object]:
        return {"scopes": json.dumps(list(self.scopes), ensure_ascii=False), "valid_at": self.valid_at, "known_at": self.known_at}


@dataclass(frozen=True)
class FtsTables:
    """Where one kind of item is indexed: its FTS5 table, trigram twin, term counts, and the rows (a
    table or view with the ledger's time columns) the visibility predicate is applied to as alias c."""

    kind: str
    fts: str
    trigram: str
    terms: str
    rows: str


FACT_FTS = FtsTables("fact", "recall_fts", "recall_fts_trigram", "recall_fts_terms", "claims")
EPISODE_FTS = FtsTables("episode", "recall_episode_fts", "recall_episode_fts_trigram", "recall_episode_fts_terms", "episodes")


@dataclass(frozen=True)
class LaneHit:
    id: int
    score: float
    own: bool = True  # the claim's own sentence matched (not only its window neighbours' words)


class TermStats:
    """Document frequencies of query words in the lexical index, cached.

    FTS5 stems with porter; a porter stem is (nearly always) a prefix of the word, or the word with a
    final y turned to i, so the word's df is that of the longest such candidate the index holds. Counts
    are cached because fts5vocab reads a term's whole posting list to count it; a cached count is only
    a cost estimate, never a filter, so a slightly stale one changes speed, not results' visibility.
    """

    def __init__(self, ledger: Ledger, *, capacity: int = 20000, tables: "FtsTables | None" = None):
        self.ledger = ledger
        self.tables = tables or FACT_FTS
        self._cache: dict[str, int] = {}
        self._capacity = capacity
        self._lock = threading.Lock()
        self._counted_at = 0  # the highest claim id when the cached counts were taken

    @staticmethod
    def _candidates(word: str) -> list[str]:
        forms = [word[:n] for n in range(len(word), max(2, len(word) - 4), -1)]
        if word.endswith("y"):
            forms.insert(1, word[:-1] + "i")
        return forms

    def df(self, words: Sequence[str]) -> dict[str, int]:
        newest = self.ledger.storage.one(f"SELECT MAX(rowid) FROM {self.tables.fts}")[0] or 0
        with self._lock:
            if newest > self._counted_at * 1.25 + 100:  # the index grew by a quarter: counts are stale
                self._cache.clear()
                self._counted_at = newest
            missing = [w for w in words if w not in self._cache]
        if missing:
            forms = sorted({f for w in missing for f in self._candidates(w)})
            rows = self.ledger.storage.query(
                f"SELECT term, doc FROM {self.tables.terms} WHERE term IN (SELECT value FROM json_each(?))",
                (json.dumps(forms, ensure_ascii=False),),
            )
            counts = {r["term"]: int(r["doc"]) for r in rows}
            with self._lock:
                if len(self._cache) > self._capacity:
                    self._cache.clear()
                for w in missing:
                    self._cache[w] = next((counts[f] for f in self._candidates(w) if f in counts), 0)
        with self._lock:
            return {w: self._cache.get(w, 0) for w in words}


@dataclass(frozen=True)
class BudgetedMatch:
    """FTS5 expressions for one query under the posting budget.

    `ranked` is BM25-ranked (rarest terms first while their summed document frequency fits the budget);
    `flood` says even the rarest term is over budget, so `ranked` matches only the claims' own sentences
    and is read newest first; `rest` holds the terms left out, read newest first when `ranked` finds
    too little (a df estimate can be wrong: it guesses porter stems from prefixes).
    """

    ranked: str | None
    flood: bool
    rest: str | None


def budgeted_match(query: LexicalQuery, stats: TermStats, budget: int) -> BudgetedMatch:
    if not query.words:
        return BudgetedMatch(None, False, None)
    counts = stats.df(query.words)
    # A word whose stem is not among the prefixes tried counts 0: kept, never dropped unseen.
    kept, left_out, total, anchored = [], [], 0, False
    for word in sorted(query.words, key=lambda w: counts[w]):
        if anchored and total + counts[word] > budget:
            left_out.append(word)
            continue
        kept.append(word)
        total += counts[word]
        anchored = anchored or counts[word] > 0
    expression = " OR ".join(quote_term(w) for w in kept)
    rest = "{body} : (" + " OR ".join(quote_term(w) for w in left_out) + ")" if left_out else None
    if total > budget:
        return BudgetedMatch("{body} : (" + expression + ")", True, rest)
    return BudgetedMatch(expression, False, rest)


def _fts_hits(
    ledger: Ledger, tables: FtsTables, match: str, seen: Visibility, visible: str, depth: int, body_weight: float,
    context_weight: float, *, newest: bool,
) -> list[LaneHit]:
    """One FTS5 query under the visibility predicate: BM25 order, or newest first (cheap: FTS5 walks
    rowids in order and stops at the limit) for terms too common to rank."""
    order = "f.rowid DESC" if newest else "rank"
    fts = tables.fts
    rows = ledger.storage.query(
        f"SELECT f.rowid AS id, bm25({fts}, :wb, :wc) AS rank, bm25({fts}, 1.0, 0.0) AS own FROM {fts} f"
        f" CROSS JOIN {tables.rows} c ON c.id = f.rowid WHERE {fts} MATCH :match AND {visible}"
        f" ORDER BY {order} LIMIT :depth",
        {**seen.params(), "match": match, "wb": body_weight, "wc": context_weight, "depth": depth},
    )
    found = [LaneHit(r["id"], -float(r["rank"]), own=float(r["own"]) < 0) for r in rows]
    if newest:
        found.sort(key=lambda h: -h.score)
    return found


def lexical_lane(
    ledger: Ledger,
    query: LexicalQuery,
    seen: Visibility,
    *,
    depth: int,
    body_weight: float,
    context_weight: float,
    stats: TermStats | None = None,
    budget: int = 0,
    tables: FtsTables = FACT_FTS,
    subject_words: frozenset[str] = frozenset(),
) -> list[LaneHit]:
    """BM25 over sentences (and their window context), best first; then trigram hits for CJK.

    `subject_words` are query words that name a known subject (or speaker). When the query has other
    content words too, a row that matches only the subject's name is not about the query (every
    sentence of a one-user store starts with "user"), so it is dropped, and a row's own sentence counts
    as matched only through the other words.
    """
    visible = ledger.visible_sql()
    hits: list[LaneHit] = []
    plan = BudgetedMatch(query.match, False, None)
    if stats is not None and budget > 0:
        plan = budgeted_match(query, stats, budget)
    if plan.ranked is not None:
        hits.extend(_fts_hits(ledger, tables, plan.ranked, seen, visible, depth, body_weight, context_weight, newest=plan.flood))
    if plan.rest is not None and len(hits) < depth:
        seen_ids = {h.id for h in hits}
        extra = _fts_hits(ledger, tables, plan.rest, seen, visible, depth, body_weight, context_weight, newest=True)
        hits.extend(h for h in extra if h.id not in seen_ids)
        hits = hits[:depth]
    topical = [w for w in query.words if w not in subject_words]
    if hits and topical and len(topical) < len(query.words):
        hits = _about_topic(ledger, tables, hits, topical)
    known = {h.id for h in hits}
    if query.trigram_match is not None:
        rows = ledger.storage.query(
            f"SELECT f.rowid AS id, bm25({tables.trigram}) AS rank FROM {tables.trigram} f"
            f" CROSS JOIN {tables.rows} c ON c.id = f.rowid WHERE {tables.trigram} MATCH :match AND {visible}"
            " ORDER BY rank LIMIT :depth",
            {**seen.params(), "match": query.trigram_match, "depth": depth},
        )
        hits.extend(LaneHit(r["id"], -float(r["rank"])) for r in rows if r["id"] not in known)
        known = {h.id for h in hits}
    short = list(query.short_cjk)
    if query.trigram_match is not None and not hits:
        short.extend(query.cjk_bigrams)  # no three characters in a row matched: try the two-character words
    for run in short:  # two-character words are below the trigram size: a scan of the (few) CJK rows
        rows = ledger.storage.query(
            f"SELECT f.rowid AS id FROM {tables.trigram} f CROSS JOIN {tables.rows} c ON c.id = f.rowid"
            f" WHERE instr(f.body, :run) > 0 AND {visible} LIMIT :depth",
            {**seen.params(), "run": run, "depth": depth},
        )
        hits.extend(LaneHit(r["id"], 0.0) for r in rows if r["id"] not in known)
        known = {h.id for h in hits}
    return hits


def _about_topic(ledger: Ledger, tables: FtsTables, hits: list[LaneHit], topical: Sequence[str]) -> list[LaneHit]:
    """The hits that match a topical (non-subject) word anywhere, each marked `own` when its own sentence
    does: two rowid-restricted MATCHes, cheap next to the ranked query."""
    words = " OR ".join(quote_term(w) for w in topical)
    ids = json.dumps([h.id for h in hits])
    fts = tables.fts
    anywhere = {
        r[0] for r in ledger.storage.query(
            f"SELECT rowid FROM {fts} WHERE {fts} MATCH ? AND rowid IN (SELECT value FROM json_each(?))", (words, ids)
        )
    }
    own = {
        r[0] for r in ledger.storage.query(
            f"SELECT rowid FROM {fts} WHERE {fts} MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
            ("{body} : (" + words + ")", ids),
        )
    }
    return [LaneHit(h.id, h.score, own=h.id in own) for h in hits if h.id in anywhere]


# Words a question uses for a well-known predicate besides the predicate's own name (the digest's rules
# extractor defines these): "where is she based" asks lives_in, "what pets" asks has. Data, so another
# deployment's predicates can gain theirs in one line.
PREDICATE_CUES: dict[str, tuple[str, ...]] = {
    "lives_in": ("live", "lives", "living", "based", "reside", "resides", "home", "city", "town", "address"),
    "works_at": ("work", "works", "working", "job", "employer", "employed", "company"),
    "likes": ("like", "likes", "enjoy", "enjoys", "love", "loves", "favourite", "favorite", "fan", "hobby", "hobbies"),
    "has": ("own", "owns", "pet", "pets"),
    "name": ("name", "called"),
    "birthday": ("birthday", "born"),
}


@dataclass
class _Vocabulary:
    """Subjects and predicate holders per scope, read incrementally (claim ids only grow)."""

    last_id: int = 0
    last_episode_id: int = 0
    predicates_stamp: tuple = ()
    subjects: dict[str, set[str]] = field(default_factory=dict)  # scope -> subject keys
    speakers: dict[str, set[str]] = field(default_factory=dict)  # scope -> speaker keys of episodes
    holders: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (scope, predicate) -> subjects
    predicates: dict[str, tuple[str, ...]] = field(default_factory=dict)  # name -> content stems
    cues: dict[str, frozenset[str]] = field(default_factory=dict)  # name -> stems of words that ask for it


@dataclass(frozen=True)
class NamedSlots:
    """What a query names: subject keys and predicate names known in the searched scopes."""

    subjects: frozenset[str]
    predicates: frozenset[str]
    # The named subjects that facts are about (the others are only speakers of episodes).
    fact_subjects: frozenset[str] = frozenset()


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
        storage = self.ledger.storage
        with self._lock:
            vocab = self._vocab
            # Erased claims may leave a name here; a lookup of it then finds nothing, which is harmless.
            for r in storage.query(
                "SELECT id, scope, subject_key, predicate FROM claims WHERE id > ? ORDER BY id", (vocab.last_id,)
            ):
                vocab.subjects.setdefault(r["scope"], set()).add(r["subject_key"])
                vocab.holders.setdefault((r["scope"], r["predicate"]), set()).add(r["subject_key"])
                vocab.last_id = r["id"]
            # Speakers of episodes name people too ("when did Caroline ..."): they count as subjects.
            for r in storage.query(
                "SELECT id, scope, speaker FROM episodes WHERE id > ? ORDER BY id", (vocab.last_episode_id,)
            ):
                vocab.speakers.setdefault(r["scope"], set()).add(key_normalise(r["speaker"]))
                vocab.last_episode_id = r["id"]
            stamp = tuple(storage.one("SELECT COUNT(*), MAX(defined_at) FROM predicates"))
            if stamp != vocab.predicates_stamp:
                vocab.predicates = {
                    p["name"]: tuple(stem(w) for w in words(p["display"].replace("_", " ")) if w not in STOP_WORDS)
                    for p in storage.query("SELECT name, display FROM predicates")
                }
                vocab.cues = {
                    name: frozenset(stem(w) for w in PREDICATE_CUES.get(name, ())) for name in vocab.predicates
                }
                vocab.predicates_stamp = stamp
            return vocab

    def named(self, query: str, scopes: Sequence[str]) -> NamedSlots:
        vocab = self._vocabulary()
        tokens = words(query)
        # Membership per scope, never a union: a gateway scope set can hold tens of thousands of subjects.
        fact_sets = [vocab.subjects[scope] for scope in scopes if scope in vocab.subjects]
        speaker_sets = [vocab.speakers[scope] for scope in scopes if scope in vocab.speakers]
        subjects, facts = set(), set()
        for n in range(1, self.MAX_NGRAM + 1):
            for i in range(len(tokens) - n + 1):
                gram = key_normalise(" ".join(tokens[i : i + n]))
                if n == 1 and gram in STOP_WORDS:
                    continue
                if any(gram in known for known in fact_sets):
                    subjects.add(gram)
                    facts.add(gram)
                elif any(gram in known for known in speaker_sets):
                    subjects.add(gram)
        stems = {stem(t) for t in tokens}
        predicates = {
            name for name, need in vocab.predicates.items()
            if (need and set(need) <= stems) or vocab.cues.get(name, frozenset()) & stems
        }
        return NamedSlots(frozenset(subjects), frozenset(predicates), frozenset(facts))

    def lane(self, named: NamedSlots, seen: Visibility) -> list[LaneHit]:
        if not named.predicates:
            return []
        subjects = set(named.subjects)
        if not subjects:
            # A predicate alone answers only when one subject holds it in these scopes ("where do I live"
            # in a single-user scope); held by several, it is not a direct answer.
            vocab = self._vocabulary()
            for scope in seen.scopes:
                for predicate in named.predicates:
                    subjects |= vocab.holders.get((scope, predicate), set())
            if len(subjects) != 1:
                return []
        visible = self.ledger.visible_sql()
        hits = []
        # One indexed lookup per named slot (claims_slot covers scope, subject, predicate).
        for subject in sorted(subjects):
            for predicate in sorted(named.predicates):
                rows = self.ledger.storage.query(
                    "SELECT c.id FROM claims c WHERE c.subject_key = :subject AND c.predicate = :predicate"
                    f" AND {visible} ORDER BY c.id DESC LIMIT {self.MAX_SLOT_VALUES + 1}",
                    {**seen.params(), "subject": subject, "predicate": predicate},
                )
                if len(rows) <= self.MAX_SLOT_VALUES:
                    hits.extend(LaneHit(r["id"], 1.0) for r in rows)
        return hits
