"""The held facts a model is shown beside one window of turns: the ones the window talks about.

The LLM extractor decides add, supersede or retract by comparing what a turn says with what the ledger
holds, so it must see the held facts of the slots the turn touches. Showing the scope's first (or newest)
N facts works for a new user and fails at scale: with 10,000 facts the one a turn changes is rarely
among them. So the facts are retrieved for the window:

- the window's words (its turns first, user turns before assistant turns, then the earlier turns shown
  as context), as light stems ("lives", "lived", "living" -> "liv"; stop words dropped);
- a held version (open transaction time, any valid time) is a candidate when a word of its subject, its
  predicate or its value starts like one of them: `believed_matching` in the digest's recorder, one
  query per window, so the scope's facts are filtered in the database; it returns each word's newest
  PER_PATTERN matches (a rare word is never crowded out by a common one) and the versions matching
  most words;
- candidates are ranked here: subject words count most (a named person or thing), then value words,
  then predicate words; a version still valid now ranks before a past one; newest first on ties;
- other held facts of a person or thing the window names come next ("my sister" names Anja through
  (Anja, relation, sister), so Anja's lives_in is shown when the turn says "my sister moved");
- the user's own current `one` slots (where they live, work, their manager, ...) follow, up to
  CORE_LIMIT, because a turn changes them without naming them ("New chapter: I joined Brightline");
- at most `limit` (HELD_LIMIT) in all, most relevant first.

`terms`, `relevance` and `rank` are pure; `held_for_window` reads the ledger.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from factledger.ledger import ClaimVersion, Ledger
from factledger.ledger.keys import normalise

from .model import JournalEntry
from .recorder import recorder_for

HELD_LIMIT = 40  # held facts shown to the model per window
CORE_LIMIT = 12  # of which at most this many are the user's own current `one` slots that no word named
TERM_LIMIT = 48  # words of the window looked up (each costs one LIKE per candidate row)
CANDIDATE_FACTOR = 4  # versions matching most words fetched per fact shown, ranked here
PER_PATTERN = 16  # and each word's newest matches, so a rare word is never crowded out by common ones
USER = "user"

# Words that name nothing: function words, pronouns, auxiliaries and chat filler. Other two-letter
# words are dropped too unless they are units (_UNITS: "kg", "km", "mg", ...); numbers stay.
STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because been before being
    below between both but by can can't could couldn't did didn't do does doesn't doing don't down during
    each few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's
    hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's
    me more most mustn't my myself no nor not of off on once only or other ought our ours ourselves out
    over own same shan't she she'd she'll she's should shouldn't so some such than that that's the their
    theirs them themselves then there there's these they they'd they'll they're they've this those through
    to too under until up very was wasn't we we'd we'll we're we've were weren't what what's when when's
    where where's which while who who's whom why why's will with won't would wouldn't you you'd you'll
    you're you've your yours yourself yourselves
    ok okay oh hi hey hello yes yeah yep no nope please thanks thank sure got just really now still
    new one two get gets getting go going gone went say said tell told know think like want need
    let make made take took well good great nice much many lot lots thing things something anything
    today tomorrow yesterday week weeks month months year years day days last next ago since
    s t d ll re ve m
    """.split()
)

_WORD = re.compile(r"[^\W_]+")


def stem(word: str) -> str:
    """A light English stem, enough to match a turn's word with a key's word: plural, -ing, -ed and -er
    endings go, a final e goes, a doubled final consonant is halved, a final y is i. Stems only ever
    change a word's end, so a stem without its last letter is a prefix of every word that has it."""
    w = word
    for suffix in ("ing", "ed", "er"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            if len(w) >= 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
                w = w[:-1]
            break
    else:
        if w.endswith("ies") and len(w) > 4:
            w = w[:-3] + "i"
        elif w.endswith("es") and len(w) > 4 and w[-3] in "sxz":
            w = w[:-2]
        elif w.endswith("s") and not w.endswith("ss") and len(w) > 3:
            w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w.endswith("y"):
        w = w[:-1] + "i"
    return w


def words(text: str) -> list[str]:
    """The content words of a text, normalised (NFKC, casefold) and stemmed, in order, stop words out."""
    out: list[str] = []
    for raw in _WORD.findall(normalise(text.replace("'", " ").replace("\u2019", " "))):
        if raw in STOP_WORDS or (len(raw) < 2) or (len(raw) == 2 and raw.isalpha() and raw not in _UNITS):
            continue
        out.append(stem(raw))
    return out


_UNITS = frozenset({"kg", "km", "mg", "ml", "cm", "mm", "lb", "mi", "hr", "ui", "db", "os", "vp", "uk", "eu"})


def terms(texts: Iterable[str], limit: int = TERM_LIMIT) -> tuple[str, ...]:
    """The window's search terms: distinct stems, in the order of `texts` (pass the most telling first),
    names and numbers (capitalised or with a digit in the turn) before other words of the same text."""
    out: dict[str, None] = {}
    for text in texts:
        marked = [(not (raw[:1].isupper() or any(ch.isdigit() for ch in raw)), n, raw)
                  for n, raw in enumerate(_WORD.findall(text.replace("'", " ").replace("\u2019", " ")))]
        for _plain, _n, raw in sorted(marked):
            for w in words(raw):
                out.setdefault(w, None)
        if len(out) >= limit:
            break
    return tuple(out)[:limit]


def like_patterns(term: str) -> tuple[str, ...]:
    """The database's filters for a term: the start a word with that stem must have (the stem minus its
    last letter when the stem is 4 letters or more, so "citi" finds "city", "liv" finds "lives"); for a
    long stem also its first five letters, so a held word that begins the turn's word is found too
    ("yugabyte" held, "YugabyteDB" said)."""
    if len(term) < 4:
        return (term,)
    exact = term[:-1]
    return (exact, term[:5]) if len(exact) > 5 else (exact,)


def matches(a: str, b: str) -> bool:
    """Two stems name the same word: equal, or (4 letters and more, letters only) one begins the other
    ("postgr" / "postgresql", "weigh" / "weight"; never "gadget4" / "gadget42")."""
    if a == b:
        return True
    return min(len(a), len(b)) >= 4 and a.isalpha() and b.isalpha() and (a.startswith(b) or b.startswith(a))


SUBJECT_WEIGHT = 3.0
VALUE_WEIGHT = 2.0
PREDICATE_WEIGHT = 1.5
CURRENT_BONUS = 0.5  # still valid now (open valid time) ranks before a past version of equal match
RELATED_FACTOR = 0.5  # another fact of a subject the window names scores this share of the subject's match
SUBJECT_LIMIT = 4  # subjects whose other facts are fetched


@dataclass(frozen=True)
class Relevance:
    score: float
    subject: tuple[str, ...] = ()  # the window's terms each part matched
    predicate: tuple[str, ...] = ()
    value: tuple[str, ...] = ()

    @property
    def matched(self) -> bool:
        return bool(self.subject or self.predicate or self.value)


def _hits(part: Sequence[str], window: Sequence[str]) -> tuple[str, ...]:
    return tuple(t for t in window if any(matches(t, w) for w in part))


def relevance(version: ClaimVersion, window: Sequence[str]) -> Relevance:
    """How much of the window names this version: distinct terms matching its subject (never the
    speaker "user" itself), predicate and value words, weighted."""
    subject_words = [] if version.subject_key == USER else [w for w in words(version.subject_key) if w != USER]
    subject = _hits(subject_words, window)
    predicate = _hits(words(version.predicate.replace("_", " ")), window)
    value = _hits(words(version.value_key), window)
    score = SUBJECT_WEIGHT * len(subject) + PREDICATE_WEIGHT * len(predicate) + VALUE_WEIGHT * len(value)
    if score and version.valid_to is None:
        score += CURRENT_BONUS
    return Relevance(score, subject, predicate, value)


def rank(candidates: Iterable[ClaimVersion], window: Sequence[str], *, related: Iterable[ClaimVersion] = (),
         core: Iterable[ClaimVersion] = (), limit: int = HELD_LIMIT, core_limit: int = CORE_LIMIT) -> list[ClaimVersion]:
    """The versions to show, at most `limit`, each once: those the window names (`candidates`), best
    first, then newest; among them the `related` versions (other facts of a person or thing the window
    names: "my sister" names Anja through (Anja, relation, sister), so Anja's lives_in is shown)
    score RELATED_FACTOR of their subject's best match; then `core` versions (up to `core_limit`)."""
    pool = {v.id: v for v in candidates}
    by_subject: dict[str, float] = {}
    scores: dict[int, float] = {}
    for version in pool.values():
        score = relevance(version, window).score
        if score > 0:
            scores[version.id] = score
            if version.subject_key != USER:
                by_subject[version.subject_key] = max(score, by_subject.get(version.subject_key, 0.0))
    for version in related:
        best = by_subject.get(version.subject_key)
        if best is None:
            continue
        pool.setdefault(version.id, version)
        score = RELATED_FACTOR * best + (CURRENT_BONUS if version.valid_to is None else 0.0)
        scores[version.id] = max(scores.get(version.id, 0.0), score)
    ordered = sorted((pool[i] for i in scores), key=lambda v: (v.tx_from, v.id), reverse=True)
    ordered.sort(key=lambda v: scores[v.id], reverse=True)  # stable: newest first among equal scores
    shown = ordered[:limit]
    seen = {v.id for v in shown}
    extra = 0
    for version in core:
        if len(shown) >= limit or extra >= core_limit:
            break
        if version.id not in seen:
            shown.append(version)
            seen.add(version.id)
            extra += 1
    return shown


def named_subjects(candidates: Iterable[ClaimVersion], window: Sequence[str], limit: int = SUBJECT_LIMIT) -> list[str]:
    """The subjects (but the user) of the versions the window names, best match first."""
    best: dict[str, float] = {}
    for version in candidates:
        if version.subject_key == USER:
            continue
        score = relevance(version, window).score
        if score > 0:
            best[version.subject_key] = max(score, best.get(version.subject_key, 0.0))
    return sorted(best, key=lambda s: best[s], reverse=True)[:limit]


def window_texts(entries: Sequence[JournalEntry], recent: Sequence[JournalEntry] = ()) -> list[str]:
    """The texts whose words choose the held facts, most telling first: the window's user turns, its
    assistant turns, then the earlier turns shown as context (newest first)."""
    users = [e.text for e in entries if e.role == "user"]
    others = [e.text for e in entries if e.role != "user"]
    return users + others + [e.text for e in reversed(list(recent))]


def held_for_window(ledger: Ledger, scope: str, entries: Sequence[JournalEntry], recent: Sequence[JournalEntry] = (),
                    *, limit: int = HELD_LIMIT, core_limit: int = CORE_LIMIT) -> list[ClaimVersion]:
    """The held facts of `scope` to show a model digesting `entries` (with `recent` as context)."""
    if limit < 1:
        return []
    window = terms(window_texts(entries, recent))
    recorder = recorder_for(ledger.storage)
    patterns = list(dict.fromkeys(p for t in window for p in like_patterns(t)))
    candidates = recorder.believed_matching(
        scope=scope, patterns=[f"% {p}%" for p in patterns], per_pattern=PER_PATTERN, limit=limit * CANDIDATE_FACTOR,
    ) if patterns else []
    subjects = named_subjects(candidates, window)
    related = recorder.believed_of_subjects(scope=scope, subject_keys=subjects, limit=limit) if subjects else []
    core = recorder.believed_core(scope=scope, subject_key=USER, limit=core_limit) if core_limit > 0 else []
    return rank(candidates, window, related=related, core=core, limit=limit, core_limit=core_limit)
