"""The lexical lane (BM25 over facts' and episodes' sentences, plus trigrams for CJK) and the exact lane
(a named subject and predicate), over recall's recorder (recorder.py): every read there embeds the
ledger's one visibility predicate, so no lane can see a row that current or as-of reads would not.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from factledger.ledger.keys import normalise as key_normalise

from .model import EPISODE, FACT, LaneHit, Terms, Visibility
from .recorder import RecallRecorder
from .text import STOP_WORDS, UNTOPICAL_WORDS, LexicalQuery, stem, words

__all__ = ["EPISODE", "FACT", "LaneHit", "Visibility", "ExactLane", "NamedSlots", "TermStats", "lexical_lane"]


class TermStats:
    """Document frequencies of query words in one kind's lexical index, cached.

    Counting reads a term's whole posting list, so counts are cached; a cached count is only a cost
    estimate, never a filter, so a slightly stale one changes speed, not results' visibility.
    """

    def __init__(self, recorder: RecallRecorder, kind: str = FACT, *, capacity: int = 20000):
        self.recorder = recorder
        self.kind = kind
        self._cache: dict[str, int] = {}
        self._capacity = capacity
        self._lock = threading.Lock()
        self._counted_at = 0  # the highest item id when the cached counts were taken

    def df(self, words: Sequence[str]) -> dict[str, int]:
        newest = self.recorder.indexed_max_id(self.kind)
        with self._lock:
            if newest > self._counted_at * 1.25 + 100:  # the index grew by a quarter: counts are stale
                self._cache.clear()
                self._counted_at = newest
            missing = [w for w in words if w not in self._cache]
        if missing:
            counts = self.recorder.document_frequencies(self.kind, missing)
            with self._lock:
                if len(self._cache) > self._capacity:
                    self._cache.clear()
                self._cache.update(counts)
        with self._lock:
            return {w: self._cache.get(w, 0) for w in words}


@dataclass(frozen=True)
class BudgetedMatch:
    """The lexical lookups of one query under the posting budget.

    `ranked` is BM25-ranked (rarest terms first while their summed document frequency fits the budget);
    `flood` says even the rarest term is over budget, so `ranked` matches only the items' own sentences
    and is read newest first; `rest` holds the terms left out, read newest first when `ranked` finds
    too little (a df estimate can be wrong: SQLite's guesses porter stems from prefixes).
    """

    ranked: Terms | None
    flood: bool
    rest: Terms | None


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
    rest = Terms(tuple(left_out), body_only=True) if left_out else None
    if total > budget:
        return BudgetedMatch(Terms(tuple(kept), body_only=True), True, rest)
    return BudgetedMatch(Terms(tuple(kept)), False, rest)


def _ranked(
    recorder: RecallRecorder, kind: str, terms: Terms, seen: Visibility, depth: int, body_weight: float,
    context_weight: float, *, newest: bool, among: Sequence[int] | None,
) -> list[LaneHit]:
    found = recorder.ranked_hits(
        kind, terms, seen, depth=depth, body_weight=body_weight, context_weight=context_weight, newest=newest,
        among=among,
    )
    if newest:
        found.sort(key=lambda h: -h.score)
    return found


def lexical_lane(
    recorder: RecallRecorder,
    query: LexicalQuery,
    seen: Visibility,
    *,
    depth: int,
    body_weight: float,
    context_weight: float,
    stats: TermStats | None = None,
    budget: int = 0,
    kind: str = FACT,
    subject_words: frozenset[str] = frozenset(),
    among: Sequence[int] | None = None,
) -> list[LaneHit]:
    """BM25 over sentences (and their window context), best first; then trigram hits for CJK.

    `subject_words` are query words that name a known subject (or speaker). When the query has other
    content words too, a row that matches only the subject's name is not about the query (every
    sentence of a one-user store starts with "user"), so it is dropped, and a row's own sentence counts
    as matched only through the other words.

    `among`: every visible item's id, when the searched scopes hold few (the lookups start from them).
    """
    if among is not None and not among:
        return []  # nothing is visible: nothing to match
    hits: list[LaneHit] = []
    plan = BudgetedMatch(Terms(query.words) if query.words else None, False, None)
    if stats is not None and budget > 0:
        plan = budgeted_match(query, stats, budget)
    if among is not None and stats is not None and query.words:
        counts = stats.df(query.words)  # cached: the budget just read them
        if len(among) >= sum(counts.values()):
            among = None  # the terms' postings are shorter than the id list: walk them instead
    if plan.ranked is not None:
        hits.extend(_ranked(recorder, kind, plan.ranked, seen, depth, body_weight, context_weight, newest=plan.flood,
                            among=among))
    if plan.rest is not None and len(hits) < depth:
        seen_ids = {h.id for h in hits}
        extra = _ranked(recorder, kind, plan.rest, seen, depth, body_weight, context_weight, newest=True, among=among)
        hits.extend(h for h in extra if h.id not in seen_ids)
        hits = hits[:depth]
    # (a word of when or a light verb is no topic: "who's Orlaith going out with these days?" is about Orlaith)
    topical = [w for w in query.words if w not in subject_words and w not in UNTOPICAL_WORDS]
    if hits and topical and any(w in subject_words for w in query.words):
        # The hits matching a topical (non-subject) word anywhere, each marked `own` when its own
        # sentence does: two id-restricted lookups, cheap next to the ranked one.
        anywhere, own = recorder.about_topic(kind, [h.id for h in hits], topical)
        hits = [LaneHit(h.id, h.score, own=h.id in own) for h in hits if h.id in anywhere]
    known = {h.id for h in hits}
    if query.grams:
        hits.extend(h for h in recorder.trigram_hits(kind, query.grams, seen, depth) if h.id not in known)
        known = {h.id for h in hits}
    short = list(query.short_cjk)
    if query.grams and not hits:
        short.extend(query.cjk_bigrams)  # no three characters in a row matched: try the two-character words
    for run in short:  # two-character words are below the trigram size: a scan of the (few) CJK rows
        hits.extend(LaneHit(i, 0.0) for i in recorder.substring_hits(kind, run, seen, depth) if i not in known)
        known = {h.id for h in hits}
    return hits


# Words a question uses for a well-known predicate besides the predicate's own name (the digest's rules
# extractor defines these): "where is she based" asks lives_in, "what pets" asks has. Data, so another
# deployment's predicates can gain theirs in one line.
PREDICATE_CUES: dict[str, tuple[str, ...]] = {
    "lives_in": ("live", "lives", "living", "based", "reside", "resides", "home", "city", "town", "house", "flat", "apartment"),
    "works_at": ("work", "works", "working", "job", "employer", "employed", "company"),
    "likes": ("like", "likes", "enjoy", "enjoys", "love", "loves", "favourite", "favorite", "fan", "hobby", "hobbies"),
    "has": ("own", "owns", "pet", "pets"),
    "name": ("name", "called"),
    "birthday": ("birthday", "born"),
    # the everyday-speech predicates (factledger.digest.everyday)
    "job_title": ("job", "role", "title", "profession", "occupation", "living"),
    "manager": ("manager", "boss", "report", "reports", "lead"),
    "team": ("team", "squad", "group"),
    "weight": ("weigh", "weight", "weighs"),
    "diet": ("diet", "eat", "vegetarian", "vegan"),
    "headcount": ("staff", "employees", "headcount", "people", "big"),
    "medication": ("medication", "meds", "dose", "taking", "prescription"),
    "is_in": ("staying", "stay"),
    # a traveller's and a fitness log's slots (digest.everyday, digest.trips): words that name the slot
    # itself, not broad ones ("home", "back", "going" ask of other things as often)
    "stays_at": ("hotel", "accommodation", "hostel", "guesthouse"),
    "gym": ("gym", "train", "training", "lift", "lifting", "workout"),
    "pool": ("swim", "swimming", "pool"),
    "climbing_gym": ("climb", "climbing", "boulder", "bouldering"),
    "flying_into": ("land", "landing", "arrive", "arriving"),
    "flight_out": ("land", "landing", "depart", "departing", "outbound"),
    "flight_home": ("return", "flight"),
    "trip_to": ("trip", "destination", "holiday"),
    "commute": ("commute", "commuting"),
    "runs_on": ("hosted", "host", "hosting", "running", "runs", "deployed"),
    "travelling_with": ("coming", "travelling", "traveling", "joining", "companion", "companions"),
    # what the user does besides their job (digest.pursuits)
    "coaches": ("coach", "coaching"),
    "volunteers_at": ("volunteer", "volunteering"),
    "serves_as": ("role", "position", "office"),
    "teaches": ("teach", "teaching", "class"),
    # someone else's partner (digest.couples): "who is Idony going out with?", "who's Anso married to?"
    "partner": ("partner", "boyfriend", "girlfriend", "bf", "gf", "dating", "seeing", "married", "marrying", "engaged", "husband",
                "wife", "fiance", "fiancee", "fiancé", "fiancée"),
}
# Questions that ask a predicate by their shape, with no word of it: "where was I on May 8?" asks where
# the user was (is_in), as "where am I now?" does; not "where was I working?" (a word of its own asks).
PREDICATE_PHRASES: dict[str, re.Pattern[str]] = {
    "is_in": re.compile(r"(?i)\bwhere\s+(?:am|was|were|are)\s+(?:i|we)\b(?!\s+(?:working|employed|born|going|moving|flying|travell?ing|heading))"
                        r"|\b(?:what|which)\s+(?:city|town|country|place)\s+(?:am|are|was|were)\s+(?:i|we)\s+(?:in|at)\b"),
    # "how do I get to work?", "how was I getting to work in May?" (digest.commute)
    "commute": re.compile(r"(?i)\bhow\s+(?:do|did|does|am|was|were|are|will)\s+(?:i|we)\s+(?:get|getting|go|going|travel(?:l?ing)?)\s+(?:to|in(?:to)?)\s+(?:work|the\s+office)\b"),
}


def asked_by_shape(query: str) -> bool:
    """Whether the question asks a predicate by its shape alone (`PREDICATE_PHRASES`)."""
    return any(phrase.search(query) for phrase in PREDICATE_PHRASES.values())


RELATION = "relation"  # (Fennor, relation, brother-in-law): the digest's word for how someone is related
_OWNERS = frozenset("my our".split())


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

    @property
    def subject_words(self) -> frozenset[str]:
        """The words of the subjects' names ("fennor", "user", "sister"): whom a query is about, not what."""
        return frozenset(w for subject in self.subjects for w in words(subject))


class ExactLane:
    """A query naming a known subject and predicate gets that slot's visible values directly.

    A slot with many values (a diary-like `many` predicate) is not an answer by itself; its subject
    still boosts fusion.
    """

    MAX_SLOT_VALUES = 10
    MAX_NGRAM = 4

    def __init__(self, recorder: RecallRecorder):
        self.recorder = recorder
        self._vocab = _Vocabulary()
        self._lock = threading.Lock()

    def _vocabulary(self) -> _Vocabulary:
        recorder = self.recorder
        with self._lock:
            vocab = self._vocab
            # Erased claims may leave a name here; a lookup of it then finds nothing, which is harmless.
            for item, scope, subject_key, predicate in recorder.claim_slots_after(vocab.last_id):
                vocab.subjects.setdefault(scope, set()).add(subject_key)
                vocab.holders.setdefault((scope, predicate), set()).add(subject_key)
                vocab.last_id = item
            # Speakers of episodes name people too ("when did Ondrea ..."): they count as subjects.
            for item, scope, speaker in recorder.episode_speakers_after(vocab.last_episode_id):
                vocab.speakers.setdefault(scope, set()).add(key_normalise(speaker))
                vocab.last_episode_id = item
            stamp = recorder.predicates_stamp()
            if stamp != vocab.predicates_stamp:
                vocab.predicates = {
                    name: tuple(stem(w) for w in words(display.replace("_", " ")) if w not in STOP_WORDS)
                    for name, display in recorder.predicate_displays()
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
            or (name in PREDICATE_PHRASES and PREDICATE_PHRASES[name].search(query))
        }
        return NamedSlots(frozenset(subjects), frozenset(predicates), frozenset(facts))

    MAX_RELATIVES = 40  # relation holders read per query; a person's own scopes hold a handful

    def relatives(self, query: str, named: NamedSlots, seen: Visibility, now: Visibility | None) -> tuple[NamedSlots, tuple[str, ...]]:
        """`named` with the people the query names by their relation to the user, and the words to look
        up for them. "my brother-in-law" names Fennor when (Fennor, relation, brother-in-law) is
        visible, so Fennor's facts answer and the turns naming him ("Fennor's retraining as a
        welder") are looked up too; the relation is matched as the words after "my"/"our" ("my
        brother-in-law's job", "our cat"). And, for a question about the past (`now` given), "Fennor"
        names the user's brother-in-law as the ledger knows him `now` (who someone is does not change
        with the time asked about): what was said of "my brother-in-law" before his name was ("started
        as a welder") is his. A question about the present has the turns naming him for that."""
        vocab = self._vocabulary()
        holders = sorted({s for scope in seen.scopes for s in vocab.holders.get((scope, RELATION), ())})
        if not holders:
            return named, ()
        tokens = words(query)
        owned = [tokens[i + 1 :] for i, token in enumerate(tokens) if token in _OWNERS]
        asked = [s for s in holders if s in named.fact_subjects] if now is not None else []
        unasked = [s for s in holders if s not in named.subjects]
        facts = []
        for subjects, at in (((unasked if owned else []), seen), (asked, now)):
            if at is None or not subjects:
                continue
            # each read under the visibility its ids were found under
            ids = self.recorder.slots_claims(subjects[: self.MAX_RELATIVES], RELATION, at, 5)  # one statement
            facts += self.recorder.read_facts(ids, at) if ids else []
        found, terms = set(), []
        for fact in facts:
            claim, relation = fact.claim, words(fact.claim.value)
            if not relation:
                continue
            if claim.subject_key in named.fact_subjects:
                found.add(key_normalise(f"user's {claim.value}"))  # the unnamed relative's facts are theirs
                terms += [w for w in relation if w not in STOP_WORDS]
            elif any(after[: len(relation)] == relation for after in owned):
                found.add(claim.subject_key)  # its words are looked up as whose the turn is, not its topic
        if not found:
            return named, ()
        terms += [w for subject in sorted(found - named.subjects) if not subject.startswith("user's") for w in words(subject)]
        return (NamedSlots(named.subjects | found, named.predicates, named.fact_subjects | found),
                tuple(dict.fromkeys(terms)))

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
        hits = []
        for subject in sorted(subjects):
            for predicate in sorted(named.predicates):
                found = self.recorder.slot_claims(subject, predicate, seen, self.MAX_SLOT_VALUES + 1)
                if len(found) <= self.MAX_SLOT_VALUES:
                    hits.extend(LaneHit(i, 1.0) for i in found)
        return hits
