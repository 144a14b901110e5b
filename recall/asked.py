"""What a question asks for, read from its shape: the thing it names ("my javelin PB": the
head word "pb", qualified by "javelin") and the words around it ("at Quenby").

Recall uses it to tell a question about an unsaid part of a said thing from one the said turns answer:
"what's my flight number?" when only the flight was said is answered by nothing here, however well the
turn about the flight matches "flight". The shapes and word lists are data, each with its examples in
tests/recall/test_asked.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from factledger.recall.text import STOP_WORDS, names_relative, words

# The head of "who is my physio?", "what's my GP's name?", "what's my coach called?": a name, which a
# turn gives without the word ("my GP is Dr Zwanenburg").
NAME = "name"

_ROLE_ENDS = frozenset("names".split())
# "my last name", "my full name": the speaker's own name, not one of a role.
_OWN_NAMES = frozenset("first last full middle maiden nick user sur given family legal".split())
# Titles that name someone wherever they stand in a sentence.
_TITLES = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|Professor|Dame|Sir)\b\.?\s*[A-Z]")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_CAPITALISED = re.compile(r"(?<![\w'’])[A-Z][a-z][\w'’-]*")
# Capitalised words that name nobody.
_NOT_NAMES = frozenset(
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August "
    "September October November December Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec I I'm I've I'd I'll OK "
    "Ok".split()
)

# Who owns the thing a question names.
_OWNERS = frozenset("my our the his her their your".split())
_BE = frozenset("is are was were am".split())
_AUX = _BE | frozenset("do does did will can could should has have had".split())
_FRAMES = frozenset("what which who".split())
# Words that end the phrase naming the thing without being part of it.
_PHRASE_ENDS = frozenset("called named now currently right today these days again".split())

# Heads that ask for a kind of value, not a thing ("what size is my bike frame?": the thing is the
# frame): the phrase after the verb names what is asked about.
TYPE_HEADS = frozenset(
    "time date day days year month week size colour color type kind sort brand model make version length "
    "height width weight price cost amount".split()
)

# Heads that sum up what was said rather than name one thing of it ("my gym routine" is answered by
# "squats, then intervals on the rower" without the word): a turn need not say them, so their absence proves nothing.
SUMMARY_HEADS = frozenset(
    "routine routines schedule plan plans setup situation status goal goals progress budget commute stack "
    "diet habit habits hobby hobbies preference preferences favourite favourites favorite update updates news "
    "history background experience availability arrangement arrangements options choice choices".split()
)

# Heads answered by a value of a shape rather than by their own word: "my passport number" by
# "passport 503112984", "the interest rate" by "4.1%". (head words, the value's pattern)
VALUE_SHAPES: tuple[tuple[frozenset[str], re.Pattern[str]], ...] = (
    (
        frozenset("number no code id pin combination passcode password reference ref registration serial plate account iban".split()),
        # four digits or more (a year aside), or letters and digits in one token ("KL2207", "D-14")
        re.compile(r"\b(?!(?:19|20)\d\d\b)\d[\d \-]{2,}\d\b|\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z\d][\w-]{2,}\b"),
    ),
    (frozenset("pb record best time".split()), re.compile(r"\b\d{1,2}:\d\d\b|\b\d+(?:\.\d+)?\s*(?:min|mins|minutes|secs?|seconds|kg|km)\b")),
    (frozenset("rate percentage apr interest".split()), re.compile(r"\d\s*%|\bper\s*cent\b|\bpercent\b")),
    (
        frozenset("price cost fee fees charge charges rent salary pay wage payment payments bill premium deposit".split()),
        re.compile(r"[£$€¥]\s*\d|\b\d[\d,.]*\s*(?:k|euros?|dollars?|pounds?|quid|bucks|usd|eur|gbp|an hour|/h)\b", re.I),
    ),
)

# Words one head may be said as (a question says "boss" where the turn said "manager").
SAME_THING: tuple[frozenset[str], ...] = (
    frozenset("manager boss supervisor lead".split()),
    frozenset("coach trainer instructor".split()),
    frozenset("physio physiotherapist".split()),
    frozenset("doctor gp physician".split()),
    frozenset("pb record best".split()),
    frozenset("salary pay wage wages income earn earns".split()),
    frozenset("job role position work".split()),
    frozenset("allergy allergies allergic".split()),
    frozenset("airline carrier".split()),
    frozenset("flat apartment home house".split()),
    frozenset("car vehicle".split()),
    frozenset("partner wife husband girlfriend boyfriend spouse".split()),
)


@dataclass(frozen=True)
class AskedFor:
    """The thing a question names: `head` what is asked ("pb"), `qualifiers` the words before it in
    its phrase ("javelin"), `anchors` the question's other topical words ("quenby")."""

    head: str
    qualifiers: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()

    @property
    def others(self) -> tuple[str, ...]:
        return self.qualifiers + self.anchors

    def alternatives(self) -> frozenset[str]:
        """The head's words for the same thing, itself included."""
        return frozenset().union(*(group for group in SAME_THING if self.head in group), {self.head})

    def probes(self) -> frozenset[str]:
        """The words whose presence in the searched scopes the rule asks: the head's words, or for a
        name the role's."""
        if self.head == NAME:
            return AskedFor(self.qualifiers[-1]).alternatives() if self.qualifiers else frozenset()
        return self.alternatives()

    def shape(self) -> re.Pattern[str] | None:
        return next((pattern for heads, pattern in VALUE_SHAPES if self.head in heads), None)


# Words of a time phrase ("in February", "last October", "two weeks ago"): when, not what.
_TIME_WORDS = frozenset(
    "january february march april may june july august september october november december monday tuesday "
    "wednesday thursday friday saturday sunday week weeks month months year years ago yesterday tomorrow "
    "today tonight morning evening night weekend".split()
)


def _phrase(tokens: Sequence[str], start: int) -> list[str]:
    """The content words from `start` up to the first word that ends a noun phrase."""
    found = []
    for at in range(start, len(tokens)):
        word = tokens[at]
        if word in STOP_WORDS or word in _PHRASE_ENDS or word in _FRAMES or word in _TIME_WORDS or word.isdigit():
            break
        if word in ("last", "next", "this") and at + 1 < len(tokens) and tokens[at + 1] in _TIME_WORDS:
            break
        found.append(word)
    return found


def _anchors(tokens: Sequence[str], phrase: Iterable[str]) -> tuple[str, ...]:
    taken = set(phrase)
    return tuple(dict.fromkeys(w for w in tokens
        if w not in STOP_WORDS and w not in taken and w not in _PHRASE_ENDS and w not in _TIME_WORDS and not w.isdigit()))


def asked_for(query: str) -> AskedFor | None:
    """The thing `query` asks for, when its shape says: "what's my X", "who is our X", "what X is my Y",
    "which X do I …", "do I have any X", "how much does my X <verb>". None for other shapes."""
    tokens = words(query)
    if not tokens:
        return None
    for at, word in enumerate(tokens):
        rest = tokens[at + 1 :]
        if word in _FRAMES and rest:
            n = 0
            while n < len(rest) and rest[n] in _BE:
                n += 1
            if n < len(rest) and rest[n] in _OWNERS:
                thing = _phrase(rest, n + 1)
                if not thing:
                    return None
                after = rest[n + 1 + len(thing) :]
                if thing[-1] == NAME or (thing[-1] in _ROLE_ENDS and len(thing) >= 2):
                    if len(thing) < 2 or thing[-2] in _OWN_NAMES:
                        return None  # "my last name": the speaker's own, not a role's
                    return AskedFor(NAME, tuple(thing[:-1]), _anchors(rest, thing))
                if word == "who" or (after and after[0] in ("called", "named")):
                    if thing[-1].endswith(("ed", "ing")):
                        return None  # "who was my car insured with": a verb ends the phrase, not a role
                    # a person asked by their role: the role's name is what is asked
                    return AskedFor(NAME, tuple(thing), _anchors(rest, thing))
                return AskedFor(thing[-1], tuple(thing[:-1]), _anchors(rest, thing))
            if word in ("what", "which") and n == 0:
                # "which database is billing on?": the word names the kind of the answer ("RavenDB"),
                # which a turn rarely says; only "what size is my bike frame?" names a thing asked about
                thing = _phrase(rest, 0)
                if len(thing) != 1 or thing[0] not in TYPE_HEADS:
                    return None
                after = rest[1:]
                for k, token in enumerate(after):
                    if token in _OWNERS:
                        inner = _phrase(after, k + 1)
                        if inner:
                            return AskedFor(inner[-1], tuple(inner[:-1]), _anchors(after, inner))
                        return None
                return None
            return None
        if word in ("do", "does", "did") and len(rest) >= 3 and rest[1] == "have" and rest[2] in ("any", "a", "an"):
            thing = _phrase(rest, 3)
            if thing:
                return AskedFor(thing[-1], tuple(thing[:-1]), _anchors(rest, thing))
            return None
        if word == "how" and len(rest) >= 4 and rest[0] == "much" and rest[1] in ("does", "do", "did") and rest[2] in _OWNERS:
            thing = _phrase(rest, 3)
            if len(thing) >= 2:  # "how much does my tutor charge": what the tutor charges
                return AskedFor(thing[-1], tuple(thing[:-1]), _anchors(rest, thing))
            return None
        if word not in STOP_WORDS:
            return None  # a statement or another shape: the question's head is not read
    return None


def names_beside(text: str, role: str) -> bool:
    """Whether a sentence of `text` holds the role word and a name: a title ("with Dr. Achterberg"), or a
    capitalised word that does not start the sentence and is no weekday, month or "I" ("I have two
    cats, Pepper and Tofu"). A looser test than `names_relative`, for the name asked of a role."""
    for part in _SENTENCE.split(text):
        if not any(w == role or (w.rstrip("s") == role.rstrip("s") and len(role) > 3) for w in words(part)):
            continue
        if _TITLES.search(part):
            return True
        part = part.lstrip("\"'“ ")
        for m in _CAPITALISED.finditer(part):
            if m.group(0).strip("'’") in _NOT_NAMES:
                continue
            # a sentence's first word is a name when it is what the sentence says something of
            # ("Teodor is your billing contact"), not when it only starts it ("Physio says …")
            if m.start() > 0 or re.match(r"\s+(?:is|was|will be|has been)\b", part[m.end() :]):
                return True
    return False


def asks_unsaid_part(asked: AskedFor, never_said: frozenset[str], texts: Iterable[str], held_words: Iterable[str] = ()) -> bool:
    """Whether what `asked` asks for was never said while something it is asked of was: the head and
    each of its other words never said in the searched scopes (`never_said`), one of the question's
    other words said, and (for a head answered by a value of some shape, "my flight number") no text
    that names a qualifier holding such a value. `held_words`: words a held fact's slot is asked by
    ("job" for works_at): a head among them is answered by that fact.

    A name (`NAME`) is asked of the role before it ("my GP"): never said when the role was, but no
    text names whoever holds it ("my GP is Dr Zwanenburg", "Ottilie, my physio")."""
    held = set(held_words)
    if asked.head == NAME:
        if not asked.qualifiers:
            return False
        role = asked.qualifiers[-1]
        if role in held:
            return False  # a held slot answers
        if AskedFor(role).alternatives() <= never_said:
            # "my swimming coach" when swimming was said, never a coach: nobody here is them (a role
            # asked alone, "my brother", has its own rule)
            if not any(word not in never_said for word in asked.qualifiers[:-1] + asked.anchors):
                return False
            # ... unless a turn names someone beside what was said (below)
        roles = {role, " ".join(asked.qualifiers)}  # "my best friend Ana" names the friend
        texts = list(texts)
        if any(names_relative(text, r) or names_beside(text, role) for text in texts for r in roles):
            return False
        # "piano lessons with Mrs. Halden" names the piano teacher without the word
        return not any(names_beside(text, word) for text in texts for word in asked.qualifiers[:-1])
    if asked.head in SUMMARY_HEADS or not asked.alternatives() <= never_said:
        return False
    if any(word in held for word in asked.alternatives()):
        return False
    if all(word in never_said for word in asked.others):
        return False  # nothing of it was said: a paraphrase may still answer (the vector lane decides)
    shape = asked.shape()
    if shape is not None:
        for text in texts:
            said = set(words(text))
            if (not asked.qualifiers or said & set(asked.qualifiers)) and shape.search(text):
                return False
    return True
