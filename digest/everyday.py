"""Everyday speech for the offline rules extractor: patterns as data, each with examples and counter-examples.

The fixed-slot patterns of factledger.digest.rules know "I live in X" and "I work at Y". People say far
more, in far looser words: "our stack is Django on Postgres", "remember: my dentist is Dr. Lund", "Not at
Globex anymore, I'm with Initech now", "I don't have a dog anymore", "the dose went up to 20 mg". Each
`Pattern` below names one such shape, the function that turns a match into drafts, and the sentences it
must (examples) and must not (counter-examples) turn into facts; tests/digest/test_everyday.py runs every
pattern's table through the real digest. The first pattern whose regular expression matches a clause and
whose builder returns drafts (not None) decides the clause.

Time: a statement of how things are ("my dentist is Dr. Osei") is undated: the digest gives it an
unknown start (DESIGN §2). A statement of change ("my dentist is now Dr. Lund", "I'm with Initech now",
"I stopped taking X") is news when it was said, or at the time words it carries ("last week").
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise
from factledger.ledger.times import UNKNOWN_START, format_time, to_datetime

from .events import event_draft
from .model import Draft
from .passing import in_place_of_held
from factledger.ledger.when import MONTHS, WEEKDAYS, find_time_phrase, resolve_time_phrase

if TYPE_CHECKING:
    from .extractor import ExtractionRequest

# A proper name: capitalised words, with a few lower-case joiners between them ("Rio de Janeiro").
PROPER = (
    r"(?P<v>(?:Dr\.?\s+|Mr\.?\s+|Mrs\.?\s+|Ms\.?\s+)?[A-Z][\w'’&\-]*\.?(?:\s+(?:(?:de|da|do|del|di|la|le|von|van|of|and|&)\s+)?"
    r"(?:[A-Z][\w'’&\-]*\.?|\d+))*)"
)
_CHANGE = re.compile(r"(?i)\b(?:now|new|anymore|any more|these days|nowadays|switched|changed|moved|instead)\b")
_VALUE_TAIL = re.compile(
    r"(?i)(?:,|\s+)(?:now|from now on|going forward|these days|nowadays|anymore|any more|at the moment|currently|instead|too|as well|btw|though|lol|haha|finally|at last"
    r"|instead\s+of\s+\S+(?:\s+\S+){0,3})\s*$"  # "Dr. Ardent now instead of Dr. Mossway": what it replaced is no part of it
)
_BAD_VALUE = re.compile(
    r"(?i)^(?:so|really|very|pretty|too|kinda|kind of|a bit|quite|not|killing|driving|getting|being|going|broken|fine|ok|okay|"
    r"good|great|bad|awful|terrible|amazing|the best|the worst|busy|tired|sick|back|down|up|out|over|here|there|this|that|it|"
    r"what|how|why|who|where|when|done|gone|lost|full|empty|late|early|finished|like|just|also|still|always|never)\b"
)
# Nouns of things and family a person has (the fixed `has` slot of factledger.digest.rules).
POSSESSIONS = {
    "cat", "cats", "dog", "dogs", "puppy", "kitten", "parrot", "hamster", "rabbit", "horse", "fish", "goldfish",
    "turtle", "snake", "car", "cars", "bike", "bicycle", "motorbike", "motorcycle", "scooter", "boat", "van",
    "truck", "house", "flat", "apartment", "cottage", "garden", "piano", "guitar", "violin", "son", "sons",
    "daughter", "daughters", "kid", "kids", "child", "children", "baby", "brother", "brothers", "sister",
    "sisters", "husband", "wife", "partner", "boyfriend", "girlfriend", "twins", "grandchildren", "grandson",
    "granddaughter", "tesla", "laptop", "camera", "telescope", "drone",
}
_ARTICLES = re.compile(r"(?i)^(?:a|an|the|my|our|his|her|their)\s+")
_ATTR_STOP = {
    "name", "names", "favorite", "favourite", "way", "thing", "things", "problem", "point", "question", "plan", "idea",
    "guess", "bad", "fault", "turn", "pleasure", "day", "week", "life", "head", "back", "stomach", "mind", "mood", "phone",
    "goal", "hope", "job", "password", "passcode", "pin", "ssn", "token", "secret", "login", "passphrase",
}
RELATION_WORDS = {
    "sister", "brother", "mother", "mom", "mum", "father", "dad", "wife", "husband", "partner", "son", "daughter", "best_friend",
    "friend", "boyfriend", "girlfriend", "fiance", "fiancee", "boss", "cousin", "aunt", "uncle", "niece", "nephew", "roommate",
    "flatmate", "neighbour", "neighbor", "twin", "grandma", "grandpa", "grandmother", "grandfather", "gran", "nan", "grandad",
    "brother-in-law", "sister-in-law", "mother-in-law", "father-in-law", "son-in-law", "daughter-in-law", "coworker", "colleague",
}
# Short words for a relative, and whom they name ("my gf Isaura" is the girlfriend).
RELATION_SAID_AS = {"bro": "brother", "sis": "sister", "gf": "girlfriend", "bf": "boyfriend", "hubby": "husband"}
_ATTR_MODS = re.compile(r"(?i)^(?:(?:new|current|old|actual|real|main|usual|regular|primary|official)\s+)+")


@dataclass(frozen=True)
class Clause:
    """A clause the patterns read: its text (lead-in words cut), the lead-in, the whole turn."""

    text: str
    lead: str
    turn: str
    subject: str
    said_at: str
    request: "ExtractionRequest"

    def held(self, subject: str | None = None) -> list[ClaimVersion]:
        wanted = normalise(subject or self.subject)
        return [c for c in self.request.current if c.subject_key == wanted and c.tx_to is None]

    def open_held(self, predicate: str | None = None) -> list[ClaimVersion]:
        return [c for c in self.held() if c.valid_to is None and (predicate is None or c.predicate == predicate)]


Builder = Callable[[re.Match[str], Clause], "list[Draft] | None"]


@dataclass(frozen=True)
class Pattern:
    """One shape of everyday speech: a regular expression over a clause, what a match means, and the
    sentences that show it. `examples`: (turns said in order, facts held afterwards as (subject,
    predicate, value)); `counter`: sentences that must give no fact at all."""

    name: str
    regex: re.Pattern[str]
    build: Builder
    examples: tuple[tuple[tuple[str, ...], tuple[tuple[str, str, str], ...]], ...]
    counter: tuple[str, ...] = ()


# -- builders -------------------------------------------------------------------------------------


def draft(op: str, subject: str, predicate: str, value: str | None, quote: str, *, cardinality: str, template: str,
          valid_from: str | None = None, valid_to: str | None = None, replaces: str | None = None, phrase: str = "") -> Draft:
    return Draft(op=op, subject=subject, predicate=predicate, value=value, quote=quote.strip(), cardinality=cardinality,  # type: ignore[arg-type]
                 template=template, valid_from=valid_from, valid_to=valid_to, replaces=replaces, time_phrase=phrase)


def held_replaced(c: "Clause", held: ClaimVersion, value: str, quote: str, start: str | None, phrase: str) -> Draft:
    """A held value's slot now holds `value` (for a `many` slot, in place of that value), from `start`."""
    return draft("supersede", c.subject, held.predicate, value, quote, cardinality=held.cardinality,
                 template=f"{{subject}}'s {held.predicate.replace('_', ' ')} is {{value}}", valid_from=start,
                 replaces=held.value if held.cardinality == "many" else None, phrase=phrase)


_SUBORDINATE = re.compile(r"(?i)\s+(?:after|since|when|because|before|until|while|as soon as|ever since|now that|so that|if|unless|although|though|which|who"
                          r"|so(?=\s+(?:if|i|we|she|he|they|it|that|you)\b))\s+.*$")


_TRAILING_SYMBOLS = re.compile(r"[\s\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\u200d]+$")


def clean_value(text: str) -> str:
    value = _SUBORDINATE.sub("", _TRAILING_SYMBOLS.sub("", text).strip(" ,.;:!"))
    phrase = find_time_phrase(value)
    if phrase and value.find(phrase) > 0 and re.match(r"(?i)(?:since|from|until|till|on|in|last|this|next|yesterday|today|tomorrow)\b|.*\bago$", phrase):
        value = value[: value.find(phrase)].strip(" ,")
    for _ in range(3):
        value = _VALUE_TAIL.sub("", value).strip(" ,.;:!")
    return value


def change_time(c: Clause, text: str, value: str = "") -> tuple[str | None, str]:
    """(valid_from, phrase) of a change: the time words in `text` (not inside the value), or when it was said."""
    phrase = find_time_phrase(text)
    if phrase and value and phrase in value:
        phrase = None
    span = resolve_time_phrase(phrase, c.said_at) if phrase else None
    if span is not None and span.valid_from is not None and span.valid_from <= c.said_at:
        return span.valid_from, phrase or ""
    return c.said_at, ""


# Attribute words that name one slot ("my boss is …" is the manager held from "my manager is …").
_SAME_SLOT = {"bday": "birthday", "boss": "manager", "line_manager": "manager", "supervisor": "manager", "pay": "salary", "wage": "salary",
              "builds": "ci", "pipelines": "ci", "ci_pipeline": "ci", "ci_pipelines": "ci"}


def attribute_key(words: str) -> str:
    words = _ATTR_MODS.sub("", _ARTICLES.sub("", words.strip())).strip()
    key = re.sub(r"[\s\-]+", "_", words.casefold())
    return _SAME_SLOT.get(key, key)


def state(c: Clause, predicate: str, value: str, quote: str, *, template: str, changed: bool, cardinality: str = "one") -> Draft:
    """A `one` (or `many`) statement of how things are: superseding another held value, from when it was
    said (or its time words) when it is news of a change, else an undated add."""
    value = clean_value(value)
    fuller = [v for v in c.open_held(predicate) if re.fullmatch(r"[A-Z][\w'’\-]+", value) and v.value.startswith(value + " ")]
    if len(fuller) == 1:  # "so Tamsyn is my lead now" after "Tamsyn Greaves is covering as my lead": the same person
        value = fuller[0].value
    others = [v for v in c.open_held(predicate) if v.value_key != normalise(value)]
    timed = find_time_phrase(c.text)
    dated = bool(timed) and timed not in value  # time words of the statement, not inside its value
    start, phrase = change_time(c, c.text, value) if (changed or others or dated) else (None, "")
    if cardinality == "one" and others:
        start = start if phrase else None  # the digest dates an undated change when it was said
        return draft("supersede", c.subject, predicate, value, quote, cardinality=cardinality, template=template, valid_from=start, phrase=phrase)
    return draft("add", c.subject, predicate, value, quote, cardinality=cardinality, template=template, valid_from=start, phrase=phrase)


def corrected_state(c: Clause, predicate: str, value: str, quote: str, *, template: str) -> Draft:
    """'… is Y, not Z': a correction, not a change. Y replaces what the slot held over all the time it
    was held (it was never Z), so an as-of read of the past answers Y too; what the ledger believed then
    stays in transaction time."""
    value = clean_value(value)
    others = [v for v in c.open_held(predicate) if v.value_key != normalise(value)]
    against = _NOT_THAT.match(quote)
    if not others and not c.open_held(predicate) and against:
        # "the school is Quarlow, not Pellory" when the son's school is the one held naming it
        theirs = _someone_elses_slot(c, against["old"], predicate)
        if theirs is not None:
            c = dataclasses.replace(c, subject=theirs.subject)
            others = [theirs]
    if not others:
        return state(c, predicate, value, quote, template=template, changed=False)
    return draft("supersede", c.subject, predicate, value, quote, cardinality=others[0].cardinality, template=template,
                 valid_from=min(o.valid_from for o in others))


def _open_attribute(m: re.Match[str], c: Clause) -> list[Draft] | None:
    groups = m.groupdict()
    attr, value = m["attr"].strip(), groups.get("rev") or groups.get("v") or ""
    whose = re.fullmatch(r"(?i)(?P<rel>.+?)['’]s\s+(?:first\s+)?name", attr)
    if whose and attribute_key(whose["rel"]) in RELATION_WORDS:
        attr = whose["rel"]  # "my flatmate's name is Quenneth": Quenneth is the flatmate
    key = attribute_key(attr)
    value = clean_value(value)
    if key in RELATION_WORDS or (key in _PET_WORDS and re.match(r"(?:called|named)\s", value)):
        # ("my cat is called Pickle": Pickle is the user's cat, as a relative is)
        named = re.fullmatch(r"(?:called|named)?\s*([A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*)?)", value)
        if not named or c.subject != "user":
            return None
        return [draft("add", named[1], "relation", attr.strip().casefold(), m.group(0), cardinality="many",
                      template="{subject} is the user's {value}")]
    # "bin day", "rehearsal day": a day of something is a thing of the user's ("the day" alone is none)
    stopped = key.split("_")[-1] in _ATTR_STOP and not (key.endswith("_day") and key.count("_") == 1)
    if not key or not value or stopped or len(key.split("_")) > 6 or _BAD_VALUE.match(value):
        return None
    if len(value.split()) > 8 or value.endswith("?"):
        return None
    value, corrected = _as_said(value)
    # "the school is Quarlow Academy, not Pellory": the value said against the one it replaces
    corrected = corrected or bool(re.search(r",\s+not\s+(?:the\s+|a\s+|an\s+)?[\w'’.\-]+(?:\s+[\w'’.\-]+){0,3}[.!]?$", m.group(0)))
    value = re.sub(r"(?i)^(?:at|about|around|roughly)\s+(?=[£$€]?\d)", "", value)  # "the fund is at £4,000": £4,000
    value = re.sub(r"^(?:called|named)\s+(?=[A-Z0-9])", "", value)  # "my band is called The Quillets": The Quillets
    noun = " ".join(_ATTR_MODS.sub("", _ARTICLES.sub("", attr)).split())
    if corrected:
        return [corrected_state(c, key, value, m.group(0), template=f"{{subject}}'s {noun} is {{value}}")]
    changed = (bool(m.groupdict().get("mods") and re.search(r"(?i)new|interim|acting", m["mods"] or ""))
               or bool(m.groupdict().get("acting")) or bool(_CHANGE.search(m.group(0))) or "officially" in m.group(0))
    if changed and _held_key(c, key) != key:
        key = _held_key(c, key)  # "my teacher is now Mr. Pashek": the piano teacher held
        noun = key.replace("_", " ")
    return [state(c, key, value, m.group(0), template=f"{{subject}}'s {noun} is {{value}}", changed=changed)]


# What is said "is <Name>" of without being a thing of the user's: meals, days, plans of the moment.
_PASSING_THINGS = frozenset(
    "lunch dinner breakfast brunch tea supper today tonight tomorrow weekend plan idea winner game film movie match "
    "weather forecast sky view food show book song album party theme topic menu special score result".split()
)


def _thing_is_name(m: re.Match[str], c: Clause) -> list[Draft] | None:
    said = [w.casefold() for w in m["attr"].split() if w.casefold() not in ("the", "a", "an")]
    if not _plain_attribute(" ".join(said)) or {said[0], said[-1]} & _PASSING_THINGS or attribute_key(m["attr"]) in RELATION_WORDS:
        return None
    return _open_attribute(m, c)


_PET_WORDS = frozenset("cat dog puppy kitten rabbit hamster parrot horse pony tortoise snake budgie ferret guinea_pig goldfish".split())


# A request or a remark after the value: "July 9, can you help me think of gift ideas?"
_REQUEST_AFTER = re.compile(r",\s+(?:can|could|would|will|please|any|so|but|which|what|how|is|are|do|does)\b.*$", re.I)
# ("Pellory Hub, 140 a month": a figure after the name is said of it too)
_NAME_THEN_ASIDE = re.compile(r"^(?P<v>(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*){0,3}),\s+(?-i:[a-z]|[~£$€]?\d)")
# "Ondrea not Bo", "Tuesday, not Thursday": a value said against the one it replaces.
_NOT_THAT = re.compile(r"(?i)^(?P<v>.+?),?\s+(?:and\s+)?not\s+(?:the\s+|a\s+|an\s+)?(?P<old>[£$€]?[\w'’.:\-]+(?:,\d{3})*(?:\s+[\w'’.:\-]+){0,3})$")


def _someone_elses_slot(c: Clause, old: str, predicate: str | None = None) -> ClaimVersion | None:
    """The one open value held of someone else (in `predicate`, when given) that names `old`: a correction
    the user says without saying whose ("the school is Y, not Z" of the son's school)."""
    word = re.compile(rf"(?i)(?<!\w){re.escape(old.strip())}(?!\w)")
    held = [h for h in c.request.current if h.tx_to is None and h.valid_to is None
            and h.predicate not in ("note", "ended", "relation") and (predicate is None or h.predicate == predicate)
            and h.subject_key != normalise(c.subject) and word.search(h.value)]
    return held[0] if len(held) == 1 else None


def _as_said(value: str) -> tuple[str, bool]:
    """(the value, whether it was said against another): a name without the remark after it ("Brannagh
    Byrne, really nice"), a value without the one it replaces ("the night supervisor is Ondrea not Bo")."""
    named = _NAME_THEN_ASIDE.match(value)
    value = named["v"] if named else value
    corrected = _NOT_THAT.match(value)
    return (corrected["v"], True) if corrected else (value, False)


# Words that are no attribute of the speaker's when said as "<word> is <value>".
_NOT_PLAIN = frozenset(
    "it this that these those there here today tomorrow yesterday tonight everything everyone everybody nothing "
    "something someone somebody anything anyone which what who where when why how one he she they we you i "
    "weather life time answer problem question reason result point plan idea thing stuff".split()
)


def _their_attribute(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'Wenna's birthday is 4 November', 'my partner Wenna's birthday is …': an attribute of that
    person, as 'my X is Y' is of the user's; with the relation when the words name it."""
    if c.subject != "user":
        return None
    rel = (m["rel"] or m["unnamed"] or "").casefold()
    rel = RELATION_SAID_AS.get(rel, rel)
    if rel and rel.replace(" ", "_") not in RELATION_WORDS:
        return None
    value, corrected = _as_said(_REQUEST_AFTER.sub("", clean_value(m["v"])))
    key = attribute_key(m["attr"])
    value = re.sub(r"(?i)^on\s+(?=(?:the\s+)?\d)", "", value)  # "… bday is on the 21st"
    looks_like_value = re.match(r"(?:(?:Dr|Mr|Mrs|Ms)\.?\s+|the\s+(?=\d))?[A-Z0-9€$£]|\S*\d", value)
    if (not key or key.split("_")[-1] in _ATTR_STOP or not value or not looks_like_value or len(value.split()) > 6
            or _BAD_VALUE.match(value) or value.endswith("?")):
        return None
    # "my son's school is X": the one person held as the son, else the unnamed son ("user's son")
    who = m["who"] or held_relative(c.request.current, rel) or f"{c.subject}'s {rel}"
    noun = " ".join(m["attr"].split())
    theirs = dataclasses.replace(c, subject=who)
    template = f"{{subject}}'s {noun} is {{value}}"
    drafts = [corrected_state(theirs, key, value, m.group(0), template=template) if corrected
              else state(theirs, key, value, m.group(0), template=template, changed=bool(_CHANGE.search(m.group(0))))]
    if rel and m["who"]:
        drafts.insert(0, draft("add", who, "relation", rel, m.group(0), cardinality="many", template="{subject} is the user's {value}"))
    return drafts


def held_relative(current: Sequence[ClaimVersion], relation: str) -> str | None:
    """The one person held as the user's `relation` ("my son" is Tavish when Tavish is held as the son)."""
    named = {h.subject for h in current if h.predicate == "relation" and h.value_key == normalise(relation) and h.tx_to is None}
    return named.pop() if len(named) == 1 else None


def _plain_attribute(attr: str) -> bool:
    words = attr.casefold().split()
    return bool(words) and words[0] not in _NOT_PLAIN and words[-1] not in _NOT_PLAIN


def _thing_on(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'the billing service is on YugabyteDB now': where a thing of the user's runs (a `one` slot)."""
    thing = " ".join((m["thing"] or m["bare"]).split())
    if not _plain_attribute(thing):
        return None
    key = attribute_key(thing)
    if not key or key.split("_")[-1] in _ATTR_STOP:
        return None
    if find_time_phrase(f"{m['prep']} {m['v']}") == f"{m['prep']} {m['v']}".strip():
        return None  # "the meeting is in March": a time, not where a thing runs
    value = f"{m['prep']} {clean_value(m['v'])}"
    if key != re.sub(r"[\s\-]+", "_", thing.casefold()):
        thing = key.replace("_", " ")  # "builds run on X": the slot's own word ("ci") is what it is asked by
    drafts = [state(c, key, value, m.group(0), template=f"{{subject}}'s {thing} is {{value}}", changed=bool(_CHANGE.search(m.group(0))))]
    return drafts + replaced_mentions(c, clean_value(m["v"]), exclude=key)


def _deployed(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'it's Quorra 14, npm, deployed on Quayhost': where the user's thing is hosted (a `one` slot)."""
    dotted = _DOTTED_NAME.match(c.text, m.start("v"))  # "deployed to Brisling.io": the name with its dots
    value = clean_value(dotted.group(0) if dotted and len(dotted.group(0)) > len(m["v"]) else m["v"])
    if not value or find_time_phrase(value) == value:
        return None  # "deployed on Friday": when, not where
    return [state(c, "hosting", value, m.group(0), template="{subject}'s hosting is {value}", changed=bool(_CHANGE.search(m.group(0))))]


_DOTTED_NAME = re.compile(r"[A-Z][\w\-]*(?:\.[a-z]{2,}|\.\w+)+")

# What a stack list says goes somewhere, by the word it is asked by: "crashes go to quaylytics", "nightly
# backups to tarnvault B2", "CI on gantry": a tool typed small is still its name here (the thing is a
# function of a stack, so what follows names the tool doing it).
_STACK_THINGS = {"crashes": "crash_reporting", "crash reports": "crash_reporting", "errors": "error_tracking", "logs": "logging",
                 "backups": "backups", "alerts": "alerting", "metrics": "metrics", "traces": "tracing", "emails": "email",
                 "ci": "ci", "builds": "ci", "db": "database", "dns": "dns", "cdn": "cdn"}
_STACK_THING_WORDS = "|".join(w.replace(" ", r"\s+") for w in sorted(_STACK_THINGS, key=len, reverse=True))
_STACK_THING_SAID = {"crash_reporting": "crash reporting", "error_tracking": "error tracking", "ci": "CI", "database": "database"}


def _goes_to(m: re.Match[str], c: Clause) -> list[Draft] | None:
    thing = " ".join(m["thing"].casefold().split())
    key = _STACK_THINGS[thing]
    value = clean_value(m["v"])
    if not value or value.casefold() in _NOT_PLAIN or _BAD_VALUE.match(value) or find_time_phrase(value) == value:
        return None
    said = _STACK_THING_SAID.get(key, key.replace("_", " "))
    return [state(c, key, value, m.group(0), template=f"{{subject}}'s {said} is {{value}}", changed=bool(_CHANGE.search(m.group(0))))]


_FROM_OLD = re.compile(r"(?i)\b(?:cut\s*over|cutover|migrat(?:ion|ed|ing)|switch(?:ed)?|mov(?:e|ed)|port(?:ed)?)\s+(?:away\s+)?(?:from|off)\s+(?P<old>[A-Z][\w.\-]+)")


def replaced_mentions(c: Clause, new: str, *, exclude: str) -> list[Draft]:
    """'… on YugabyteDB now, we finished the cutover from Postgres': held values naming Postgres (or
    PostgreSQL 14) now name YugabyteDB, from the time words of the cutover."""
    m = _FROM_OLD.search(c.turn)
    if not m or len(m["old"]) < 3:
        return []
    old = m["old"]
    token = re.compile(rf"(?i)(?<!\w){re.escape(old)}[\w]*(?:\s+\d+(?:\.\d+)*)?")
    start, phrase = change_time(c, c.turn[m.start():])
    drafts = []
    for held in c.open_held():
        if held.predicate == exclude or not token.search(held.value):
            continue
        drafts.append(held_replaced(c, held, token.sub(new, held.value, count=1), m.group(0), start, phrase))
    return drafts


WORKS = ("one", "{subject} works at {value}")
ROLE = ("one", "{subject} works as {value}")


def _job(c: Clause, org: str, quote: str, *, role: str | None = None, changed: bool = True) -> list[Draft]:
    org = clean_value(org)
    if not org or _BAD_VALUE.match(org):
        return []
    drafts = [state(c, "works_at", org, quote, template=WORKS[1], changed=changed)]
    if role:
        drafts.append(state(c, "job_title", clean_value(role), quote, template=ROLE[1], changed=changed))
    return drafts


# "at a place called Grellow's", "for a small firm named Tessick": the kind of place goes before its name
_A_PLACE_CALLED = (r"(?:(?:a|an)\s+(?:[a-z]+\s+){0,2}?(?:place|company|firm|restaurant|cafe|café|shop|startup|agency|clinic|practice|"
                   r"bakery|hotel|pub|bar|bistro|studio|charity|nursery|school|garage|salon|gym|lab|store)\s+(?:called|named)\s+)")
_NOT_ROLES = {"regular", "fan", "member", "customer", "guest", "visitor", "patient", "volunteer", "student", "big", "huge", "client"}


def _role_at(m: re.Match[str], c: Clause) -> list[Draft] | None:
    if m["role"].split()[0].casefold() in _NOT_ROLES or m["role"].split()[-1].casefold() in _NOT_ROLES:
        return None
    return _job(c, m["v"], m.group(0), role=m["role"], changed=bool(_CHANGE.search(m.group(0)))) or None


# Work people name themselves by ("I'm a pharmacist"): a list, and the endings of trades (-ist, -eer, -ician, -ologist).
_JOBS = frozenset(
    "nurse dev developer programmer chef cook pilot consultant lawyer solicitor attorney doctor physician surgeon engineer "
    "teacher lecturer professor designer analyst scientist manager architect accountant barista electrician plumber welder "
    "carpenter firefighter paramedic midwife vet dentist pharmacist journalist editor writer translator librarian baker "
    "butcher mechanic nanny carer cleaner courier driver farmer gardener hairdresser accountant auditor banker broker "
    "recruiter researcher technician therapist tutor paralegal receptionist cashier waiter waitress bartender".split()
)
# Heads of a role said without an article ("I'm product marketing lead at X").
_JOBS_FOR_BARE = frozenset(
    "manager lead engineer developer designer director analyst head officer consultant architect editor chef cook nurse "
    "teacher supervisor coordinator producer planner technician specialist scientist researcher lecturer".split()
)
_NOT_JOBS = frozenset("perfectionist pacifist optimist pessimist minimalist realist idealist tourist cyclist finalist".split())


def _role(m: re.Match[str], c: Clause) -> list[Draft] | None:
    role = " ".join(m["role"].split())
    head = role.split()[-1].casefold()
    if head in _NOT_JOBS or not (head in _JOBS or re.search(r"(?:ist|eer|ician|ologist)$", head)):
        return None
    return [state(c, "job_title", role, m.group(0), template=ROLE[1], changed=bool(_CHANGE.search(m.group(0))))]


def _left_joined(m: re.Match[str], c: Clause) -> list[Draft] | None:
    return _job(c, m["v"], c.text, role=m.groupdict().get("role")) or None


# The last word of a firm's name ("Quistbury Consulting", "Pell Analytics"): joining it is a job.
_ORG_WORDS = re.compile(r"\s(?:Consulting|Consultants|Labs?|Inc|Ltd|LLC|GmbH|Bank|Health|Analytics|Systems|Studios?|Group|Partners|"
                        r"Technologies|Tech|Solutions|Media|Agency|Software|Capital|Ventures|Logistics|Industries|Corp|Company)\.?$")


def _joined(m: re.Match[str], c: Clause) -> list[Draft] | None:
    worky = (m.groupdict().get("role") or re.search(r"(?i)\b(?:job|work|team|company|engineer|role|position|hired)\b", c.turn)
             or _ORG_WORDS.search(m["v"]) or re.search(r"\b(?:left|quit)\s+(?-i:[A-Z])[^,.;!?]*\s+and\s+joined\b", c.turn))
    if not worky and not c.open_held("works_at"):
        return None
    return _job(c, m["v"], c.text, role=m.groupdict().get("role")) or None


def _with_now(m: re.Match[str], c: Clause) -> list[Draft] | None:
    worky = re.search(r"(?i)\b(?:job|work|working|employer|company|not at)\b", c.turn)
    if not worky and not c.open_held("works_at"):
        return None
    return _job(c, m["v"], m.group(0)) or None


# What one does at a place for fun, not for work ("I do yoga at Stillpoint", "I run the parkrun at …")
_PASTIMES = frozenset(
    "yoga pilates spin climbing bouldering swimming running parkrun classes class crossfit karate judo boxing dance "
    "salsa choir pottery volunteering volunteer shopping laundry".split()
)


def _work_verb_at(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I teach chemistry at Tollmere Academy', 'I do Android at Quarlow Mobile', 'I run the data team
    at Ashwendle Labs': the work is done at the place, so it is where the user works."""
    done = m.group(0)[: m.start("v")].casefold()
    if any(w in _PASTIMES for w in re.findall(r"[a-z]+", done)):
        return None
    if re.match(r"^i\s+(?:run|lead|manage|head|supervise|cover)\s", done) and not re.search(
        r"\b(?:team|squad|department|dept|shift|desk|unit|ward|office|branch|store|shop|site|kitchen|lab|studio|practice|project|programme|program)\b", done
    ):
        return None  # "I run at the park": running, not running something
    return _job(c, m["v"], m.group(0), changed=False) or None  # how things are: held since before it was said


# Animals kept as pets, by the words people use for them ("a corn snake called Nyx", "our new puppy, Bo").
_PET_KINDS = (
    r"cats?|kittens?|dogs?|pupp(?:y|ies)|pups?|rabbits?|bunn(?:y|ies)|hamsters?|guinea\s+pigs?|(?:corn\s+)?snakes?|lizards?|"
    r"geckos?|parrots?|budgies?|tortoises?|turtles?|horses?|ponies|pony|greyhounds?|lurchers?|spaniels?|terriers?|labradors?"
)
PETS_NAMED = re.compile(
    rf"(?i)(?:\b(?:a|an|one|two|three|four|[2-9])\s+|\b(?:my|our)\s+)(?:(?:new|second|third|rescue|little|old|baby|pet)\s+)*"
    rf"(?P<kind>{_PET_KINDS})(?:\s*,\s*|\s+(?:called|named)\s+|\s+(?=(?-i:[A-Z])))"
    rf"(?P<names>(?-i:[A-Z][a-z][\w'’\-]*)(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)(?-i:[A-Z][a-z][\w'’\-]*))*)"
)
_FIRST_PERSON_TURN = re.compile(r"(?i)\b(?:I|I've|I'm|we|we've|we're|my|our)\b")
_PET_TEMPLATE = "{subject} is the user's {value}"


def _pet_kind(kind: str) -> str:
    """'puppies' -> 'puppy', 'corn snakes' -> 'corn snake', 'ponies' -> 'pony'."""
    kind = " ".join(kind.casefold().split())
    for plural, one in (("puppies", "puppy"), ("bunnies", "bunny"), ("ponies", "pony")):
        if kind == plural:
            return one
    return kind[:-1] if kind.endswith("s") and not kind.endswith("ss") else kind


def _pets_named(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'we've got two cats, Sesame and Quince, plus a corn snake called Brisket', 'my dog Quiller is 11':
    each named animal is the user's pet of its kind ("Sesame is the user's cat"), and how many of a
    kind the user has, when said."""
    if c.subject != "user" or not _FIRST_PERSON_TURN.search(c.text):
        return None
    drafts: list[Draft] = []
    for found in PETS_NAMED.finditer(c.text):
        before = c.text[: found.start()]
        if _someone_elses(before) or re.search(r"\b[A-Z][a-z]+\s+(?:has|had|got)\b", before):
            continue  # "my sister has a dog called Pip": someone else's pet
        kind = _pet_kind(found["kind"])
        names = [n for n in re.split(r"\s*(?:,\s*(?:and\s+)?|\band\b|&)\s*", found["names"]) if n.strip()]
        names = [n.strip() for n in names if n.strip().casefold() not in _NOT_PET_NAMES]
        if not names:
            continue
        drafts += [draft("add", name, "relation", kind, found.group(0), cardinality="many", template=_PET_TEMPLATE) for name in names]
        count = re.match(r"(?i)(two|three|four|[2-9])\s", found.group(0))
        if count:
            drafts.append(draft("add", c.subject, "has", f"{count[1]} {found['kind'].casefold()}", found.group(0),
                                cardinality="many", template="{subject} has {value}"))
    return drafts or None


# A pet got, then its name in the next words: "we took in a kitten from the shelter, her name is Wrenlow",
# "got a puppy!! his name's Tollo". (Said of the user's own: the turn's first person gets it.)
_PET_THEN_NAME = re.compile(
    rf"(?i)\b(?:I|we)(?:['’]ve|\s+have)?\s+(?:just\s+|finally\s+)?(?:adopted|got|bought|rescued|brought\s+home|took\s+in)\s+(?:a|an|our|my)\s+"
    rf"(?:(?:new|rescue|little|baby|second|third)\s+)*(?P<kind>{_PET_KINDS})\b[^.!?]{{0,40}}?[.!?,;]*\s*(?:and\s+|so\s+)?"
    rf"(?:her|his|its|their)\s+name(?:['’]s|\s+is)\s+(?P<name>(?-i:[A-Z][a-z][\w'’\-]*))"
)


def pet_named_after(turn: str, drafts: Sequence[Draft]) -> list[Draft]:
    """'we took in a kitten from the shelter, her name is Wrenlow': the named animal is the user's pet of its
    kind, unless a draft of the turn already says so. (A turn may drop its "I": "adopted a dog!! her name is …".)"""
    lead = "" if re.match(r"(?i)\s*(?:I|we)\b", turn) else "I "
    said = lead + turn
    out = []
    for m in _PET_THEN_NAME.finditer(said):
        name, kind = m["name"], _pet_kind(m["kind"])
        if name.casefold() in _NOT_PET_NAMES or any(d.predicate == "relation" and d.subject == name for d in drafts):
            continue
        quote = turn[max(0, m.start() - len(lead)) : m.end() - len(lead)]  # the turn's own words
        out.append(draft("add", name, "relation", kind, quote, cardinality="many", template=_PET_TEMPLATE))
    return out


_OTHERS_OWN = frozenset("he she they his her their he's she's they're".split())


def _someone_elses(before: str) -> bool:
    """Whether words said before a thing make it another person's: a relative or "he"/"she" ("my sister
    has a dog called Pip", "my brother got a job at X")."""
    return any(w in RELATION_WORDS or w in _OTHERS_OWN for w in re.findall(r"[\w'’\-]+", before.casefold()))
_NOT_PET_NAMES = frozenset(
    "i monday tuesday wednesday thursday friday saturday sunday january february march april may june july august "
    "september october november december".split()
)
_PET_GONE = re.compile(
    r"(?i)^(?:.*?\b)?(?:(?P<who>[a-z][\w'’\-]*)\s+(?:has\s+|had\s+|just\s+)*(?:died|passed\s+away|passed|was\s+put\s+down|had\s+to\s+be\s+put\s+down|crossed\s+the\s+rainbow\s+bridge)"
    r"|(?:(?:we|I)\s+)?(?:have\s+|had\s+|just\s+|finally\s+)*(?:rehomed|re-homed|had\s+to\s+rehome|gave\s+away|lost)\s+(?P<whom>[a-z][\w'’\-]*)"
    r"|(?:he|she|they)\s+kept\s+(?P<kept>[a-z][\w'’\-]*)"
    r"|(?:put|had)\s+(?P<slept>[a-z][\w'’\-]*)\s+(?:put\s+)?(?:to\s+sleep|down))\b"
)
# (names as typed, "quince died": only a pet held under that name is ended)


def _pet_gone(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'Quince died on Sunday', 'we rehomed Brisket', 'he kept Sesame' (after a break-up): the named
    pet is no longer the user's (from the time words, or when said). Only a pet held as one."""
    name = m["who"] or m["whom"] or m["kept"] or m["slept"]
    held = [h for h in c.held(name) if h.valid_to is None and h.predicate == "relation"
            and re.fullmatch(rf"(?i){_PET_KINDS}", h.value)]
    if not held:
        return None
    start, phrase = change_time(c, c.text)
    gone = [draft("retract", h.subject, "relation", h.value, m.group(0), cardinality="many", template=_PET_TEMPLATE,
                  valid_from=max(start, h.valid_from) if start else None, phrase=phrase) for h in held]
    return gone + _one_fewer(c, held[0].value, m.group(0), start, phrase)


_HOW_MANY = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _one_fewer(c: Clause, kind: str, quote: str, start: str | None, phrase: str) -> list[Draft]:
    """'Quince died' with "two cats" held: the user has one cat now (the count said before, less the one gone)."""
    for h in c.open_held("has"):
        m = re.fullmatch(r"(?i)(?P<n>two|three|four|five|six|seven|eight|nine|[2-9])\s+(?P<kind>.+)", h.value)
        if m is None or _pet_kind(m["kind"]) != _pet_kind(kind):
            continue
        n = int(m["n"]) if m["n"].isdigit() else _HOW_MANY.index(m["n"].casefold()) + 1
        fewer = f"{_HOW_MANY[n - 2]} {_pet_kind(m['kind']) if n == 2 else m['kind']}"
        return [draft("supersede", c.subject, "has", fewer, quote, cardinality="many", template="{subject} has {value}",
                      valid_from=max(start, h.valid_from) if start else None, replaces=h.value, phrase=phrase)]
    return []


def _not_at(m: re.Match[str], c: Clause) -> list[Draft] | None:
    value = clean_value(m["v"])
    for held in c.open_held():
        if held.predicate in ("works_at", "lives_in") and held.value_key == normalise(value):
            start, phrase = change_time(c, c.text)
            return [draft("retract", c.subject, held.predicate, held.value, m.group(0), cardinality="one",
                          template=WORKS[1], valid_from=start, phrase=phrase)]
    return None


_CALENDAR_WORDS = frozenset(
    "january february march april may june july august september october november december monday tuesday wednesday "
    "thursday friday saturday sunday today tomorrow tonight".split()
)
_NOT_NAMES = {"done", "good", "fine", "back", "here", "sorry", "british", "american", "french", "german", "english", "ok", "okay", "new", "sure"}


def _name(m: re.Match[str], c: Clause) -> list[Draft] | None:
    if c.subject != "user" or m["v"].casefold() in _NOT_NAMES:
        return None
    greeting = (re.search(r"(?i)\b(?:hi|hello|hey|hiya|howdy)\b", c.lead) or m.group(0) == c.turn.strip(" .!").split(", ")[-1]
                or re.match(r"(?i)^\W*(?:hi|hello|hey|hiya|howdy|morning|good\s+(?:morning|afternoon|evening))\b", c.turn))
    called = m.groupdict().get("called")
    if called and called.casefold() == "it's" and (
        not greeting or normalise(m["v"]) in _CALENDAR_WORDS or not re.match(r"\s*(?:$|[,!]|\.(?:\s|$)|here\b)", c.text[m.end():])
    ):
        return None  # "correction: it's October 21", "hi! it's Astro 4" name nobody
    if not greeting and not called:
        return None
    return [state(c, "name", m["v"], m.group(0), template="{subject}'s name is {value}", changed=False)]


def _report_to(m: re.Match[str], c: Clause) -> list[Draft] | None:
    return [state(c, "manager", m["v"], m.group(0), template="{subject}'s manager is {value}", changed=True)]


def _job_role_at(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I'm two weeks into a platform lead role at X', 'got a new job at X': where the user works (and as
    what, when the role is named). Someone else's news is read by the third-person rules first."""
    if re.search(r"(?i)\b(?:is\s+there|any|looking\s+for|applied)\b", m.group(0)):
        return None
    if c.subject == "user" and _someone_elses(m.group(0)[: m.start("v")]):
        return None  # "my sister got a job at X": her news (read as hers by the third-person rules)
    said = (m["as_role"] or m["role"] or "").split()
    marks = [i for i, w in enumerate(said) if w.casefold() in _BEFORE_A_ROLE]
    role = " ".join(said[marks[-1] + 1 :] if marks else said)
    return _job(c, m["v"], m.group(0), role=role or None) or None


# Words after which a role's own words start ("two weeks into a *platform lead* role", "got a new job")
_BEFORE_A_ROLE = frozenset("a an the my new into got took accepted started starting landed".split())


def _the_office(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I'm in the Tollmere office', 'I've switched to the Carnbre office as of this month': which office
    the user works from (a change when they say they switched)."""
    changed = bool(re.search(r"(?i)\b(?:switched|moved|transferred)\b", m.group(0)))
    return [state(c, "office", m["v"], m.group(0), template="{subject} works from the {value} office", changed=changed)]


def _role_in_office(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'she's a staff architect in the Kellmoor office': a job (one `_role` reads) and its office."""
    role = _role(m, c)
    return role + _the_office(m, c) if role else None


TEAM = "{subject} is on the {value}"
# "moved from the intake team to …", "transferred me from support onto …": the team left, before the new one
_FROM_TEAM = r"(?:over\s+)?(?:from\s+(?:the\s+)?[\w\- ]+?\s+(?:team\s+)?)?"


def _team(m: re.Match[str], c: Clause) -> list[Draft] | None:
    value = clean_value(m["team"])
    changed = not re.match(r"(?i)^I(?:'m| am)\s+on\b", m.group(0))
    drafts = [state(c, "team", value, m.group(0), template=TEAM, changed=changed)]
    employer = m.groupdict().get("v")
    return drafts + (_job(c, employer, m.group(0), changed=changed) if employer else [])


_SWITCHED_TEAMS = re.compile(r"(?i)\b(?:switched|moved|changed|swapped)\s+teams\b")


def _team_switched(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'changed teams last week, I'm on the checkout squad now': the team said without its word."""
    if not _SWITCHED_TEAMS.search(c.turn):
        return None
    return [state(c, "team", clean_value(m["team"]), m.group(0), template=TEAM, changed=True)]


_TEAM_ASIDE = re.compile(r"(?i)\b(?:started|joined|working|hired)\b[^.!?]*?,\s+on\s+the\s+(?P<team>[\w\-]+(?:\s+[\w\-]+){0,2}\s+(?:team|squad))\b")


def team_said_aside(turn: str, subject: str, said_at: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> list[Draft]:
    """'joined Pell & Rowan in May as a tester, on the mobile team': the team as an aside about a
    job, which the job's pattern reads whole; in place of the team held, when no pattern drafted one."""
    m = _TEAM_ASIDE.search(turn)
    if m is None or any(d.predicate == "team" and normalise(d.subject) == normalise(subject) for d in drafts):
        return []
    draft = in_place_of_held(subject, "team", clean_value(m["team"]), m.group(0), TEAM, said_at, current)
    return [draft] if draft else []


def _weight(m: re.Match[str], c: Clause) -> list[Draft] | None:
    if m["bare"]:  # "weight 88.4": the unit of the weights already held, else none said
        held = c.open_held("weight")
        unit = held[0].value.split()[-1] if held and len(held[0].value.split()) == 2 else ""
        value = f"{m['bare']} {unit}".strip()
        return [state(c, "weight", value, m.group(0), template="{subject} weighs {value}", changed=True)]
    if m["alone"]:  # "86.9 kg this morning!" said alone, in a turn about the body
        if not (c.open_held("weight") or re.search(r"(?i)\b(?:weigh\w*|weight|log|scale|goal)\b", c.turn)):
            return None
        value = re.sub(r"(?i)(\d)\s*(kg|kgs|kilos|lbs)", r"\1 \2", m["alone"]).replace("kgs", "kg")
        return [state(c, "weight", value, m.group(0), template="{subject} weighs {value}", changed=bool(c.open_held("weight")))]
    value = re.sub(r"\s+", " ", m["v"]).replace("kgs", "kg")
    value = re.sub(r"(?i)(\d)\s*(kg|lbs?|pounds|kilos)", r"\1 \2", value)
    changed = not re.match(r"(?i)^(?:current\s+weight|my\s+weight|(?:body\s?)?weight)\b", m.group(0))
    return [state(c, "weight", value, m.group(0), template="{subject} weighs {value}", changed=changed)]


MEDICATION = ("many", "{subject} takes the medication {value}")
_DOSE = r"\d+(?:\.\d+)?\s*(?:mg|mcg|µg|g|ml|iu|units?)"
_DRUG_DOSE = re.compile(
    rf"(?i)(?:(?P<dose>{_DOSE})\s+(?:of\s+)?(?P<drug>[a-z][\w\-]+)|(?P<drug2>[a-z][\w\-]+)\s+(?:dose\s+)?(?:(?:up|down)\s+)?(?:to\s+)?(?P<dose2>{_DOSE}))"
)


def _medication(m: re.Match[str], c: Clause) -> list[Draft] | None:
    if not m["verb"] and not re.search(r"(?i)\b(?:meds|medications?|prescriptions?|pills|taking)\b", c.lead):
        return None  # "sertraline 50 mg" alone is a dose only after "meds:"
    found = _DRUG_DOSE.search(re.sub(r"(?i)^(?:me|him|her|them)\s+(?:(?:up|down|over)\s+)?(?:to\s+|on\s+(?:to\s+)?)?", "", m["rest"]))
    if not found:
        return None
    drug = found["drug"] or found["drug2"]
    dose = re.sub(r"\s+", " ", found["dose"] or found["dose2"])
    dose = re.sub(r"(?i)(\d)\s*([a-zµ]+)$", r"\1 \2", dose)
    if drug.casefold() in {"of", "a", "the", "my", "day", "daily", "week"}:
        return None
    value = f"{drug} {dose}"
    held = [v for v in c.open_held("medication") if v.value_key.split()[0] == drug.casefold()]
    changed = bool(held) or bool(re.search(r"(?i)\b(?:switched|went|now|started|up|down|changed|new)\b", m.group(0)))
    start, phrase = change_time(c, c.text) if changed else (None, "")
    if held and held[0].value_key != normalise(value):
        return [draft("supersede", c.subject, "medication", value, m.group(0), cardinality="many", template=MEDICATION[1],
                      valid_from=start, replaces=held[0].value, phrase=phrase)]
    ended = []
    if re.search(r"(?i)\b(?:switched|changed|moved)\s+me\b|\b(?:taken|took|take|taking)\s+me\s+off\b|\bcame\s+off\b", c.turn):
        # "taken me off the atenolol and switched me to bisoprolol": a held drug the turn names ends
        start, phrase = change_time(c, c.text)
        ended = [draft("retract", c.subject, "medication", h.value, m.group(0), cardinality="many", template=MEDICATION[1],
                       valid_from=start, phrase=phrase)
                 for h in c.open_held("medication")
                 if h.value_key.split()[0] != drug.casefold() and re.search(rf"(?i)\b{re.escape(h.value.split()[0])}\b", c.turn)]
    return ended + [draft("add", c.subject, "medication", value, m.group(0), cardinality="many", template=MEDICATION[1], valid_from=start, phrase=phrase)]


ENDED = ("many", "{subject} {value}")


def _mentioning(c: Clause, words: str) -> list[ClaimVersion]:
    """Held open facts of the subject whose value names `words` (their head word at least)."""
    target = _ARTICLES.sub("", words.strip()).strip()
    tokens = [t for t in re.findall(r"[\w'’\-]+", target.casefold()) if t not in {"a", "an", "the", "my", "our", "of"}]
    if not tokens:
        return []
    found = []
    for held in c.open_held():
        value = held.value.casefold()
        if all(re.search(rf"(?<!\w){re.escape(t)}s?(?!\w)", value) for t in tokens) or (
            len(tokens) > 1 and re.search(rf"(?<!\w){re.escape(tokens[-1])}s?(?!\w)", value)
        ):
            found.append(held)
    return found


_FOR_GOOD = re.compile(r"(?i)(?:\s+(?:completely|entirely|altogether|for\s+good|now|too))+$")


def _ended(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I stopped taking metformin', 'I quit caffeine', 'Sold the Astra', 'I don't have a dog anymore':
    every held fact that names it ends (from the time words, or when said); with none held, the ending
    itself is the fact."""
    what = _FOR_GOOD.sub("", clean_value(m["what"]))
    if not what or _BAD_VALUE.match(what) or len(what.split()) > 6 or re.match(r"(?i)^(?:it|that|this|them|him|her|you|to|on|about|with|for|trying)\b", what):
        return None
    start, phrase = change_time(c, c.text)
    habit = _HABIT_ENDED.get(what.casefold().split()[0].strip(",.;"))
    # its value ("the Astra"), or its slot ("metformin: 1000 mg"), or the habit it counts ("quit coffee": "4 espressos a day")
    held = _mentioning(c, what) or _naming(c, what) or (c.open_held(habit) if habit else [])
    if held:
        return [draft("retract", c.subject, h.predicate, h.value, m.group(0), cardinality=h.cardinality, template=ENDED[1],
                      valid_from=start, phrase=phrase) for h in held]
    words = _ARTICLES.sub("", what).casefold().split()
    if re.search(r"\b[A-Z]", what) or any(w in POSSESSIONS for w in words[:3]):
        return None  # a place, employer or possession nobody holds: the fixed patterns read those
    verb = " ".join(m["verb"].split()).casefold()
    said = {"don't have": "no longer has", "do not have": "no longer has", "don't own": "no longer owns", "no longer have": "no longer has",
            "no longer own": "no longer owns", "don't take": "no longer takes", "no longer take": "no longer takes",
            "don't drive": "no longer drives", "no longer drive": "no longer drives", "don't use": "no longer uses",
            "no longer use": "no longer uses", "off": "came off"}.get(verb, verb)
    return [draft("add", c.subject, "ended", f"{said} {what}", m.group(0), cardinality="many", template=ENDED[1], valid_from=start, phrase=phrase)]


def ends(c: Clause, held: list[ClaimVersion], quote: str, start: str, phrase: str = "") -> list[Draft]:
    """Each held fact ends from `start` (or from its own start, when that is later)."""
    return [draft("retract", c.subject, h.predicate, h.value, quote, cardinality=h.cardinality, template=ENDED[1],
                  valid_from=max(start, h.valid_from), phrase=phrase) for h in held]


_WORDS = re.compile(r"[\w'’\-]+")
_SMALL_WORDS = frozenset("a an the my our his her their of to at in on for with".split())


# What one has with a place or a service, said after its name ("my Orlin membership", "the Tarrow booking").
_HAD_WITH = frozenset("membership memberships subscription subscriptions booking bookings reservation plan contract account pass".split())


def _naming(c: Clause, what: str) -> list[ClaimVersion]:
    """Held open facts that `what` names: each of its words is in the fact's value or its slot's name
    ("my Corefit membership": gym_membership = "at Corefit"), and one at least in the value, or all of the
    slot's words said ("my gym membership"), or its last ("the locker": gym_locker)."""
    timed = find_time_phrase(what)
    if timed:  # "my Corefit membership yesterday": when, not what
        what = what.replace(timed, " ")
    said = [t for t in _WORDS.findall(what.casefold()) if t not in _SMALL_WORDS]
    # "my Orlin membership": what one has with a thing named is no word of it (but "my gym membership" is a slot's)
    bare = [t for t in said if t not in _HAD_WITH]
    readings = [said] + ([bare] if bare and len(bare) < len(said) else [])
    found = []
    for held in c.open_held():
        if held.predicate in ("note", "ended", "relation", "name"):
            continue
        value = set(_WORDS.findall(held.value.casefold()))
        slot = set(held.predicate.split("_"))
        head = held.predicate.split("_")[-1]
        for tokens in readings:
            plural = {t.removesuffix("s") for t in tokens}
            if tokens and all(t in value | slot or t.removesuffix("s") in value | slot for t in tokens) and (
                value & (set(tokens) | plural) or slot <= set(tokens) | plural or head in set(tokens) | plural
            ):
                found.append(held)
                break
    return found


_FIXED_VERBS = frozenset("like love enjoy live work".split())


def _no_longer(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I don't play bandy anymore', 'I'm not vegetarian any more', 'we no longer use Trello': every held
    fact it names ends (from its time words, or when said). Nothing held: another pattern may read it."""
    if m["dont"] and not re.search(r"(?i)\bany\s?more\b", c.text):
        return None  # "I don't eat meat" is how things are, not news that something ended
    if (m["verb"] or "").casefold() in _FIXED_VERBS:
        return None  # the fixed slots' own endings ("I don't like X anymore", "I don't live in X any more")
    if m["am"] and not re.search(r"(?i)\b(?:any\s?more|no\s+longer)\b", m.group(0)):
        return None
    what = clean_value(m["what"])
    if not what or len(what.split()) > 6 or re.match(r"(?i)^(?:it|that|this|them|him|her|you|sure|so|really|very|too)\b", what):
        return None
    if _DIET_WORD.fullmatch(what):
        return None  # a diet ends into the next one the turn names ("not vegan any more … flexitarian"): the diet pattern
    held = _naming(c, what)
    if not held:
        return None
    start, phrase = change_time(c, c.text)
    return ends(c, held, m.group(0), start, phrase)


def _they_cancelled(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'Glenmorie cancelled on me', 'the airline cancelled': what the user holds with them (a booking naming
    them) ends when said; what the rest of the clause says ('… rebooked with Y') is read too."""
    held = [h for h in _naming(c, m["who"]) if h.predicate == "booked" or h.cardinality == "many"]
    if not held:
        return None
    return ends(c, held, m.group(0), c.said_at) + _read_after(c, m.end(), booked_again=True)


def _cancelled_held(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I cancelled my Corefit membership', 'cancelled the hotel', 'forget the locker': the held facts it
    names end when said."""
    what = clean_value(m["what"])
    held = _naming(c, what) if what and len(what.split()) <= 6 else []
    if not held:
        return None
    drafts = ends(c, held, m.group(0), c.said_at)
    instead = _STAY_INSTEAD.search(c.text, m.end()) if any(h.predicate == "stays_at" for h in held) else None
    if instead:  # "… cancelled the Varnholm, found a better deal at the Corriemoor Lodge": where the user stays now
        drafts.append(draft("add", c.subject, "stays_at", instead["v"], c.text, cardinality="many", template=STAYS[1], valid_from=c.said_at))
    return drafts


# Where a stay moved to after a cancellation: "found a better deal at the Corriemoor Lodge", "booked the Quayhouse".
_STAY_INSTEAD = re.compile(r"\b(?:found|got|booked|moved\s+to|switched\s+to)\s+(?:a\s+(?:better\s+|cheaper\s+)?(?:deal|room|place)\s+)?(?:at\s+)?"
                           r"(?P<v>(?:the\s+)?[A-Z][\w'’&\-]*(?:\s+[A-Z][\w'’&\-]*)*)")


# Roles a person fills for the user that end when that person leaves ("my reviewer is Fabrizio", "Fabrizio left").
_PERSON_HELD_NOT = frozenset({"relation", "name", "ended", "note", "lives_in", "works_at", "likes", "has", "booked"})


def _someone_left(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'Fabrizio left on Friday', 'Ondrea retired', 'Bo got poached by X': a person who leaves no longer fills
    the roles the user's facts give them (their manager, their reviewer). Nobody held: not read here."""
    who = normalise(m["who"])
    held = [h for h in c.open_held() if h.predicate not in _PERSON_HELD_NOT and not h.predicate.endswith("_contact")
            and re.fullmatch(r"(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+){0,2}", h.value)
            and (h.value_key == who or normalise(re.sub(r"^(?:Dr|Mr|Mrs|Ms)\.?\s+", "", h.value).split()[0]) == who)]
    if not held:
        return None
    start, phrase = change_time(c, c.text)
    # (the turn, not the clause: "…, so I've …" is a clause of its own)
    at = c.turn.find(m.group(0))
    successor = _SUCCESSOR.match(_AFTER_TIME.sub("", c.turn[at + len(m.group(0)):], count=1)) if len(held) == 1 and at >= 0 else None
    if successor:
        # "Perrin retired so I've switched to a firm, Ostrade & Tullwin": the one role they held, filled anew
        value = clean_value(successor["v"])
        if value and normalise(value) != held[0].value_key:
            return [held_replaced(c, held[0], value, m.group(0), start, phrase)]
    # "Fabrizio left on Friday :( Gwenllian does my reviews now": what the rest of the clause says is read too
    return ends(c, held, m.group(0), start, phrase) + _read_after(c, m.end())


# The time words right after the news ("retired in May", "left last week"), before what follows it.
_AFTER_TIME = re.compile(r"(?i)^\s*(?:(?:in|on|at|last|this|yesterday|today)\b[^,;]{0,20}?)?(?=\s*(?:[,;:]|\s(?:so|and)\s))")
# Who fills a role after the one who held it left, said in the same breath: "so I've moved to a firm,
# Ostrade & Tullwin", "and we're with Dr. Quarles now".
_SUCCESSOR = re.compile(
    r"^[,;:]?\s*(?:so\s+|and\s+|now\s+)*(?:(?:I|we)(?:['’]ve|\s+have)?\s+)?(?:"
    # (moving to a bare name is moving house: "so I moved to Harrowby"; to "a firm, Name" is not)
    r"(?:now\s+)?moved\s+(?:over\s+)?to\s+(?:a|an|another)\s+(?:new\s+)?[a-z]+(?:\s+[a-z]+)?\s*[,:—–-]\s*"
    r"|(?:(?:now\s+)?(?:switched|gone|changed|went)\s+(?:over\s+)?(?:to|with)|(?:I['’]m|I\s+am|we['’]re|we\s+are)\s+(?:now\s+)?with)\s+"
    r"(?:(?:a|an|another)\s+(?:new\s+)?[a-z]+(?:\s+[a-z]+)?\s*[,:—–-]\s*)?)(?:the\s+)?"
    + PROPER + r"(?=\s*(?:$|[,.!;]|\s(?:now|instead|at|from|since)\b))"
)


# Where a clause's news about someone ends and what follows it begins: a smiley, a comma, "so".
_AFTER_NEWS = re.compile(r"\s*(?:[:;]-?[()DPp/\\|]+|[,;]|\s(?:so|and)\s)\s*")


def _read_after(c: Clause, end: int, *, booked_again: bool = False) -> list[Draft]:
    """What the clause says after the news read up to `end` ("… :( Gwenllian does my reviews now"), each
    piece read as a clause of its own; `booked_again`: "rebooked with Y" there drops its "I"."""
    drafts: list[Draft] = []
    pieces = _AFTER_NEWS.split(c.text[end:])[1:]
    at = 0
    while at < len(pieces):
        # a piece alone, else with the next one ("I report to the studio head, Ben Ode")
        for width in (1, 2):
            rest = ", ".join(pieces[at : at + width]).strip(" ,.;!")
            if booked_again:
                rest = re.sub(r"(?i)^(?:and\s+|so\s+)?(?=(?:re)?booked\b)", "I ", rest)
            read = everyday(dataclasses.replace(c, text=rest)) if rest and at + width <= len(pieces) else None
            if read:
                drafts += read
                break
        at += width if read else 1
    return drafts


def _new_one(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'we have a new landlord, Mrs. Ivanova-Tull', 'a new manager called Radka Ferreiro': the slot's value changes now."""
    key = attribute_key(m["attr"])
    if not key or key.split("_")[-1] in _ATTR_STOP or key in RELATION_WORDS or key in POSSESSIONS:
        return None
    value = clean_value(m["v"])
    noun = " ".join(m["attr"].split())
    key = _held_key(c, key)
    return [state(c, key, value, m.group(0), template=f"{{subject}}'s {key.replace('_', ' ')} is {{value}}", changed=True)]


_PLAIN_MODS = re.compile(r"(?i)^(?:(?:little|nice|great|good|lovely|local|small|big|cheap|cheaper|better|proper|decent|tiny)\s+)+")


def _found_one(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'joined a running club, Harefield Striders', 'found a physio near work, Dr Penhale': a thing of the
    user's named as it is first met (an undated add; a change of what the slot held)."""
    attr = _PLAIN_MODS.sub("", " ".join(m["attr"].split()))
    key = attribute_key(attr)
    value = clean_value(m["v"])
    if (not key or key.split("_")[-1] in _ATTR_STOP or key in RELATION_WORDS or key in POSSESSIONS or key in _PET_WORDS
            or not value or value.casefold() in _WEEK_AND_MONTH_WORDS or _BAD_VALUE.match(value)):
        return None
    held = _held_key(c, key)
    return [state(c, held, value, m.group(0), template=f"{{subject}}'s {held.replace('_', ' ')} is {{value}}",
                  changed=bool(c.open_held(held)))]


def _held_key(c: Clause, key: str) -> str:
    """The held slot a change names by its last word ("new teacher is Mr. Pashek" when the piano teacher
    is held): that slot's key when exactly one held open slot ends so and none is `key` itself."""
    if c.open_held(key):
        return key
    ends = {h.predicate for h in c.open_held() if h.cardinality == "one" and h.predicate.endswith("_" + key)
            and h.predicate not in ("name", "note", "ended")}
    return ends.pop() if len(ends) == 1 else key


def _passed_away(m: re.Match[str], c: Clause) -> list[Draft] | None:
    who = m["who"].strip()
    start, phrase = change_time(c, c.text)
    held = _mentioning(c, who)
    drafts = [draft("retract", c.subject, h.predicate, h.value, m.group(0), cardinality=h.cardinality, template=ENDED[1],
                    valid_from=start, phrase=phrase) for h in held]
    drafts.append(draft("add", c.subject, "ended", f"lost {who} ({' '.join(m['how'].split())})", m.group(0), cardinality="many",
                        template=ENDED[1], valid_from=start, phrase=phrase))
    return drafts


_LIVE_NOW = re.compile(r"(?i)(?<![\w.\-])(?P<new>[\w.\-]+(?:\s+(?-i:[A-Z])[\w.\-]*)?)(?:['’]s|\s+is|\s+went)\s+live\b")


def _ripped_out(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'tarnlog's live, quaylytics SDK ripped out': the held value (as typed, small or not) gives way to what
    the turn says went live, else it just ends, from when it was said. Only a value held as a whole word
    is read: the turn's old name is the anchor, as for "X is gone"."""
    old = m["old"]
    held = [h for h in c.open_held() if h.value_key == normalise(old) and h.predicate not in ("note", "ended", "relation")]
    if len(held) != 1:
        return None
    (h,) = held
    start, phrase = change_time(c, c.text)
    live = _LIVE_NOW.search(c.turn)
    if live and normalise(live["new"]) != h.value_key:
        return [held_replaced(c, h, live["new"], c.text, start, phrase)]
    return ends(c, held, m.group(0), start, phrase)


# Who one is with: a relation a breakup ends.
PARTNERS = frozenset("boyfriend girlfriend partner husband wife fiance fiancee fiancé fiancée spouse".split())
_WITH_ME = re.compile(r"(?P<who>[A-Z][\w'’\-]+)\s+and\s+I\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+)?(?:split|broke|separated|divorced|got\s+divorced|called\s+it)")


def _split_up(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'Tobin and I split up last week', 'I broke up with Tobin', 'we broke up': the one held partner (named,
    or the only one held) is no longer the user's partner, from when it was said (or its time words)."""
    named = m["who"] or m["pair"] or next((w["who"] for w in _WITH_ME.finditer(c.turn)), None)
    partners = [h for h in c.request.current if h.tx_to is None and h.valid_to is None and h.predicate == "relation"
                and h.value.casefold() in PARTNERS and (named is None or h.subject_key == normalise(named))]
    if len(partners) != 1:
        return None  # nobody held as their partner, or several it could be: not a guess
    (held,) = partners
    start, phrase = change_time(c, c.text)
    return [draft("retract", held.subject, "relation", held.value, m.group(0), cardinality=held.cardinality,
                  template="{subject} is the user's {value}", valid_from=start, phrase=phrase)]


HABIT_VERBS = {"drive": "drives", "ride": "rides", "take": "takes", "use": "uses", "play": "plays", "speak": "speaks", "own": "owns"}


def _habit(m: re.Match[str], c: Clause) -> list[Draft] | None:
    verb = m["verb"].casefold()
    value = clean_value(m["v"])
    if verb in ("drive", "ride", "take"):
        # "I drive a 2009 Pellago Twist, rusty but fine": what follows the comma is said of it
        value = value.split(",")[0].strip()
    # "I use Lingoro for my Welsh, 15 min a day": how often or how long is no part of what is used
    value = ", ".join(p for p in re.split(r",\s*", value) if not _HOW_OFTEN_PART.match(p)) or value
    if not value or _BAD_VALUE.match(value) or len(value.split()) > 7 or re.match(r"(?i)^(?:it|that|this|them|care|time|a\s+(?:look|break|nap|walk|while))\b", value):
        return None
    if verb == "take" and not re.search(r"(?i)\b(?:train|bus|tube|subway|metro|tram|ferry|bike|car|taxi|uber)\b", value):
        return None
    predicate = HABIT_VERBS[verb]
    value = _ARTICLES.sub("", value) if verb in ("drive", "ride", "own") else value
    changed = bool(_CHANGE.search(m.group(0)))
    # "I speak Portuguese and a bit of French": one fact each (a list only where values are names)
    parts = [value] if verb in ("take", "drive", "ride") else [
        re.sub(r"(?i)^(?:a\s+(?:bit|little)\s+of|some|basic)\s+", "", p).strip() for p in re.split(r",\s*|\s+and\s+", value)
    ]
    return [state(c, predicate, p, m.group(0), template=f"{{subject}} {predicate} {{value}}", changed=changed, cardinality="many") for p in parts if p]


_HOW_OFTEN_PART = re.compile(
    r"(?i)^(?:(?:about|around|roughly|like|maybe)\s+)?(?:\d+(?:\.\d+)?\s*(?:-\s*\d+\s*)?(?:min|mins|minutes|hours?|hrs?|h|x|times|days?)\b.*|once|twice|daily|weekly|monthly|every\s+\w+.*)"
    r"(?:\b(?:a|per|each|every)\s+(?:day|week|month|night|morning|evening)s?\b.*)?$"
)


def _work_from(m: re.Match[str], c: Clause) -> list[Draft] | None:
    value = clean_value(m["v"])
    if not value or re.search(r"(?i)\b(?:most|some|many)\s+days\b|\b(?:sometimes|usually|often|occasionally|twice|once)\b", c.text):
        return None
    start, phrase = change_time(c, c.text)
    dated = bool(phrase)
    others = [v for v in c.open_held("works_from") if v.value_key != normalise(value)]
    op = "supersede" if others else "add"
    return [draft(op, c.subject, "works_from", value, c.text if dated else m.group(0), cardinality="one",
                  template="{subject} works from {value}", valid_from=start if (dated or others) else None, phrase=phrase)]


BOOKED = ("many", "{subject} booked {value}")


def _booked(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I booked a flight to X for March 3'; in a turn that says it replaces something ("going to Y
    instead, same dates, booked Z") and with one booking held, that booking is replaced."""
    value = m["v"].strip(" ,.;!")
    if not value or len(value.split()) > 14:
        return None
    held = c.open_held("booked")
    if len(held) == 1 and _INSTEAD.search(c.turn) and held[0].value_key != normalise(value):
        return [draft("supersede", c.subject, "booked", value, m.group(0), cardinality="many", template=BOOKED[1],
                      valid_from=c.said_at, replaces=held[0].value)]
    return [draft("add", c.subject, "booked", value, m.group(0), cardinality="many", template=BOOKED[1], valid_from=c.said_at)]


_INSTEAD = re.compile(r"(?i)\binstead\b")


def _cancel_rebook(m: re.Match[str], c: Clause) -> list[Draft] | None:
    old, new = clean_value(m["old"]), clean_value(m["new"])
    pattern = re.compile(rf"(?i)(?<!\w){re.escape(old)}(?!\w)")
    held = [h for h in c.open_held("booked") if pattern.search(h.value)]
    if not held:
        return [draft("add", c.subject, "booked", new, m.group(0), cardinality="many", template=BOOKED[1], valid_from=c.said_at)]
    return [draft("supersede", c.subject, "booked", pattern.sub(new, h.value, count=1), m.group(0), cardinality="many",
                  template=BOOKED[1], valid_from=c.said_at, replaces=h.value) for h in held]


def _cancelled(m: re.Match[str], c: Clause) -> list[Draft] | None:
    what = clean_value(m["what"])
    named = re.match(r"(?:the\s+|my\s+|our\s+)?([A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*)*)", what)
    what = named[1] if named else what  # "Sapporo 😩 work launch got moved": the booking named first
    held = [h for h in c.open_held("booked") if re.search(rf"(?i)(?<!\w){re.escape(_ARTICLES.sub('', what))}(?!\w)", h.value)]
    if not held:
        return None
    return [draft("retract", c.subject, "booked", h.value, m.group(0), cardinality="many", template=BOOKED[1], valid_from=c.said_at) for h in held]


def _renamed(value: str, old: str, new: str) -> str:
    """`value` with its word `old` (whole, any case; the first) said as `new`: "Go on Kubernetes (EKS)"
    with EKS replaced by GKE."""
    return re.sub(rf"(?i)(?<!\w){re.escape(old)}(?!\w)", lambda _: new, value, count=1)


def _held_naming(c: Clause, word: str) -> list[ClaimVersion]:
    pattern = re.compile(rf"(?i)(?<!\w){re.escape(word)}(?!\w)")
    return [h for h in c.open_held() if h.predicate not in ("note", "ended") and pattern.search(h.value)]


_NEW_AFTER = re.compile(rf"(?:\b(?:on|onto|to|for|with|by|bought|got)\s+(?:[a-z][\w\-]*\s+){{0,2}}?(?-i:{PROPER.replace('<v>', '<new>')})|(?-i:{PROPER.replace('<v>', '<new2>')})\s+(?:all\s+the\s+way\s+)?(?:now|instead)\b)")


def replacement_in_turn(turn: str) -> tuple[str, str] | None:
    """'we ditched CircleCI, everything runs on Buildkite now', 'scratch EKS, we moved to GKE': (old, new).
    Also the old said after the new: 'I go to Kettleworks Gym now instead of Ironhall', 'we're on Drone now,
    Travis is gone'."""
    m = _DITCHED.search(turn)
    if m:
        after = _NEW_AFTER.search(turn, m.end())
        new = (after["new"] or after["new2"]) if after else None
        old = m["old"]
    else:
        m = _INSTEAD_OF.search(turn) or _GONE.search(turn)
        if not m:
            return None
        old = m["old"]
        # the new one: named before the old in its sentence ("… Kettleworks Gym now instead of Ironhall")
        before = re.split(r"(?<=[.!?])\s+", turn[: m.start()])[-1]
        found = [f for f in _NEW_AFTER.finditer(before) if normalise(f["new"] or f["new2"]) != normalise(old)]
        if not found and m.re is _GONE:
            # ... or after it: "Quayline is gone, our contract ran out. we've been on Gantry since Tuesday"
            found = [f for f in _NEW_AFTER.finditer(turn, m.end()) if normalise(f["new"] or f["new2"]) != normalise(old)][:1]
        new = (found[-1]["new"] or found[-1]["new2"]) if found else None
    if not new or normalise(new) == normalise(old):
        return None
    return old, new


_INSTEAD_OF = re.compile(r"(?i)\binstead\s+of\s+(?:(?:the|my|our)\s+)?(?-i:(?P<old>[A-Z][\w.+\-]*(?:\s+[A-Z][\w.+\-]*)?))")
_GONE = re.compile(r"(?-i:(?P<old>[A-Z][\w.+\-]*))\s+(?:is|'s|are)\s+(?:gone|dead|history)\b")


_DITCHED = re.compile(
    r"(?i)\b(?:ditched|dropped|dumped|ripped\s+out|got\s+rid\s+of|killed\s+off|(?:got|(?:we're|we\s+are)(?:\s+finally)?)\s+off|(?:moved|migrated|switched)(?:\s+(?:(?:the|our|my)\s+)?[a-z]+(?:\s+[a-z]+)?)?\s+(?:off(?:\s+of)?|away\s+from)|scratch|replaced|sold|traded(?:\s+in)?|(?:moved|migrated|switched)\s+(?:all\s+)?(?:(?:the|our|my)\s+)?[a-z]+(?:\s+[a-z]+)?\s+from)\s+"
    r"(?:(?:the|my|our)\s+)?(?-i:(?P<old>[A-Z][\w.+\-]*(?:\s+\d[\d.]*)?))"
)


def _not_the_held(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'we're on Quistrel, not Pellbrook' when a held value names Pellbrook: it was Quistrel all along (a
    correction holds over the old value's whole valid time). Nothing held names it: nothing is read."""
    old, new = m["old"].strip(" ,.;:!"), clean_value(m["new"])
    if not new or not old or normalise(new) == normalise(old) or len(new.split()) > 4:
        return None
    held = [h for h in _held_naming(c, old) if h.subject_key == normalise(c.subject)]
    theirs = _someone_elses_slot(c, old) if not held else None
    if theirs is not None:  # "the school is Quarlow, not Pellory" when the son's school is the one held naming it
        c, held = dataclasses.replace(c, subject=theirs.subject), [theirs]
    if len(held) != 1:
        return None  # none, or several it could correct: not a guess (a cue's correction leaves a receipt)
    return [held_replaced(c, h, _renamed(h.value, old, new), m.group(0), h.valid_from, "") for h in held]


_TITLES = ("Dr", "Mr", "Mrs", "Ms", "Mx", "Prof")
_CAPITALISED_WORD = re.compile(r"(?<![\w'’])[A-Z][\w'’&\-]+")


def _switched_from_named(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'Pellbrook broke 3 mugs so I've switched to Quistrel', 'the old place shut, I'm with Dr. Quistrel now': the one
    held value the turn names (by a capitalised word of it) is replaced by the new one, from when it was
    said. The held value is the anchor: a turn naming none, or several, is not read."""
    new = clean_value(m["v"])
    if not new:
        return None
    own = {normalise(x.strip(".")) for x in new.split()}
    said = {w for w in _CAPITALISED_WORD.findall(c.turn)
            if normalise(w) not in own and w not in _TITLES}
    held = {h.id: (h, w) for w in sorted(said) for h in _held_naming(c, w)
            if h.predicate not in ("name", "relation", "lives_in", "works_at", "birthday")}
    if len(held) != 1:
        return None
    ((h, word),) = held.values()
    if re.fullmatch(rf"(?:(?:{'|'.join(_TITLES)})\.?\s+)?{re.escape(word)}", h.value):
        value = new  # "Dr. Ambergate" is the person: the new one is who holds the slot now
    else:
        # the whole name the turn says ("casa quillet's too small, switched to Hotel Brakka": both words go)
        run = re.search(rf"(?:[A-Z][\w'’\-]*\s+)*{re.escape(word)}(?:\s+[A-Z][\w'’\-]*)*", h.value)
        bare = {re.sub(r"['’]s$", "", w) for w in said}
        # a new name of its own words ("Ostrade & Tullwin" for "Perrin Oakes", said as "Perrin") is the
        # whole name's successor; one word ("Quistrel" for "Pellbrook Ground") stands for the word said
        whole = run is not None and (len(new.split()) > 1 or all(w in bare for w in run.group(0).split()))
        named = run.group(0) if whole else word
        value = _renamed(h.value, named, new)
    if normalise(value) == normalise(h.value):
        return None
    start, phrase = change_time(c, c.text)
    return [held_replaced(c, h, value, m.group(0), start, phrase)]


def _ditched(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """Held values naming X now name Y, from when it was said (or its time words)."""
    found = replacement_in_turn(c.turn)
    if found is None:
        return None
    old, new = found
    held = _held_naming(c, old)
    if not held:
        return None
    start, phrase = change_time(c, c.turn)
    if re.search(r"(?i)\b(?:sold|traded)\b", m.group(0)):
        # "sold the Corvanne and bought a Tessly Fabrin": the thing is replaced whole, not renamed ("Corvanne 3")
        return [held_replaced(c, h, new, m.group(0), start, phrase) for h in held]
    return [held_replaced(c, h, _renamed(h.value, old, new), m.group(0), start, phrase) for h in held]


# "we ditched pellmark CI in March, it all runs on Quorrow now": a tool said with the kind it is (an
# acronym: CI, DB, CDN …), replaced by a name the turn says next; with nothing held it is news of the slot.
_DITCHED_A_KIND = re.compile(
    r"^(?:we|I)(?:'ve|\s+have)?(?:\s+(?:just|finally|now|also))*\s+(?:ditched|dropped|dumped|binned|got\s+rid\s+of|killed\s+off|moved\s+off(?:\s+of)?)\s+"
    r"(?:(?:the|our|my)\s+(?:old\s+)?)?(?P<old>[\w.+\-]+)\s+(?-i:(?P<kind>[A-Z]{2,5}))\b", re.I
)


def _ditched_a_kind(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """With the held slot of that kind, its new value; with nothing held, the new value from when it was
    said (or its time words) and the old one up to then."""
    after = _NEW_AFTER.search(c.turn, c.turn.find(m["kind"]) + len(m["kind"]))
    new = clean_value((after["new"] or after["new2"]) if after else "")
    old = m["old"].strip()
    if not new or normalise(new) == normalise(old) or normalise(new) == normalise(m["kind"]):
        return None
    key = attribute_key(m["kind"])
    start, phrase = change_time(c, c.turn)
    template = f"{{subject}}'s {m['kind']} is {{value}}"
    held = c.open_held(key)
    if held:
        return [held_replaced(c, h, new, m.group(0), start, phrase) for h in held]
    return [draft("add", c.subject, key, old, m.group(0), cardinality="one", template=template, valid_from=UNKNOWN_START, valid_to=start),
            draft("add", c.subject, key, new, m.group(0), cardinality="one", template=template, valid_from=start, phrase=phrase)]


# "we swapped Memcord out for Tallyvine as the job queue in May": the slot named after "as the".
_SWAPPED_AS = re.compile(
    r"^(?:we|I)(?:'ve|\s+have)?(?:\s+(?:just|finally|now|also))*\s+(?:swapped|replaced|switched|traded|changed)\s+(?:out\s+)?"
    r"(?:(?:the|our|my)\s+)?(?P<old>[\w.+\-]+(?:\s+[\w.+\-]+)?)\s+(?:out\s+)?(?:for|with|to)\s+(?P<v>[\w.+\-]+(?:\s+[\w.+\-]+)?)\s+"
    r"as\s+(?:the|our|my)\s+(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)(?=\s*$|\s+(?:this|last|in|on|since|from|a|two|three|yesterday|today|now)\b|[,;])",
    re.I,
)


def _swapped_as(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """The slot's new value from when it was said (the held one it replaces, or none: the old one said is
    then dated by the priors, as for "swapped X for Y")."""
    key, new = attribute_key(m["attr"]), clean_value(m["v"])
    if not key or not new or _BAD_VALUE.match(new) or normalise(new) == normalise(m["old"]):
        return None
    return [state(c, key, new, m.group(0), template=f"{{subject}}'s {' '.join(m['attr'].split())} is {{value}}", changed=True)]


_DIETS = r"vegetarian|vegan|pescatarian|pescetarian|flexitarian|keto|paleo|gluten[- ]free|dairy[- ]free|veggie|veggo"
_DIET_SAID_SHORT = {"veggie": "vegetarian", "veggo": "vegetarian"}  # "not veggie anymore" ends "vegetarian"
_DIET_WORD = re.compile(rf"(?i)\b(?:{_DIETS})\b")


def _diet(m: re.Match[str], c: Clause) -> list[Draft] | None:
    value = m["v"].casefold().replace(" ", "-")
    value = _DIET_SAID_SHORT.get(value, value)
    if m["no"]:
        if m["no"].casefold() == "not" and not re.search(r"(?i)any\s?more", m.group(0)):
            return None
        held = [h for h in c.open_held("diet") if h.value_key == normalise(value)]
        start, phrase = change_time(c, c.text)
        # what the turn says after the ending (the turn may differ in case from the clause: "i" read as "I")
        at = c.turn.casefold().find(m.group(0).casefold())
        then = _DIET_WORD.search(c.turn, at + len(m.group(0))) if at >= 0 else _DIET_WORD.search(c.text, m.end())
        new = _DIET_SAID_SHORT.get(then[0].casefold(), then[0].casefold().replace(" ", "-")) if then else ""
        if new and new != value and held:  # "no longer vegetarian, so pescatarian I guess": the diet is the new one
            return [draft("supersede", c.subject, "diet", new, m.group(0), cardinality="one",
                          template="{subject}'s diet is {value}", valid_from=start, phrase=phrase)]
        return [draft("retract", c.subject, "diet", h.value, m.group(0), cardinality="one", template="{subject}'s diet is {value}",
                      valid_from=start, phrase=phrase) for h in held] or None
    return [state(c, "diet", value, m.group(0), template="{subject}'s diet is {value}", changed=bool(_CHANGE.search(c.text)))]


def _headcount(m: re.Match[str], c: Clause) -> list[Draft] | None:
    if not re.search(r"(?i)\b(?:us|we|team|staff|people|company|hired|hire|laid\s+off|lay\s+off|employees|startup|shop|bakery|studio)\b", c.turn):
        return None
    value = f"{m['n'] or m['n2']} people"
    return [state(c, "headcount", value, m.group(0), template="{subject}'s team counts {value}", changed=bool(c.open_held("headcount")))]


_REPLACE_IT = re.compile(r"(?i)\b(?:bought|got|ordered|picked\s+up)\s+(?P<v>(?:a|an|the)\s+[^,.;!]+?)\s+to\s+replace\s+(?:it|her|him|them)\b")


def _stolen(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'bike got stolen, bought a Cannondale to replace it': the held bike is the new one (or none)."""
    what = m["what"].casefold()
    held = c.open_held(what) or _mentioning(c, what)
    if not held:
        return None
    start, phrase = change_time(c, c.text)
    new = _REPLACE_IT.search(c.turn)
    target = held[0]
    if new and target.cardinality == "one":
        return [held_replaced(c, target, clean_value(new["v"]), new.group(0), start, phrase)]
    return [draft("retract", c.subject, h.predicate, h.value, m.group(0), cardinality=h.cardinality, template=ENDED[1],
                  valid_from=start, phrase=phrase) for h in held]


_PEOPLE = re.compile(r"(?i)^(\d{1,5})\s+(?:people|staff|employees|of\s+us|heads)$")


# What a habit counted by the day or week is of, by the words it is counted in ("4 espressos a day" is the
# coffee; "10 a day", smoked, the smoking), and the verb that counts it when no word does.
_HABIT_WORDS = {
    "coffee": "coffee", "coffees": "coffee", "espresso": "coffee", "espressos": "coffee", "latte": "coffee", "lattes": "coffee",
    "cappuccino": "coffee", "cappuccinos": "coffee", "americano": "coffee", "americanos": "coffee", "flat white": "coffee",
    "flat whites": "coffee", "cups of coffee": "coffee", "cup of coffee": "coffee", "cups": "coffee",
    "tea": "tea", "teas": "tea", "cups of tea": "tea", "cup of tea": "tea",
    "cigarettes": "smoking", "cigs": "smoking", "fags": "smoking", "smokes": "smoking",
    "pints": "alcohol", "beers": "alcohol", "glasses of wine": "alcohol", "units": "alcohol", "drinks": "alcohol",
    "steps": "steps", "runs": "running", "km": "running", "miles": "running", "hours": "sleep", "hrs": "sleep",
}
_HABIT_VERB_SLOT = {"smoke": "smoking", "smoking": "smoking", "sleep": "sleep", "sleeping": "sleep", "vape": "vaping"}
_HABIT_SAID = {"coffee": "{subject} drinks {value} (coffee)", "tea": "{subject} drinks {value} (tea)",
               "smoking": "{subject} smokes {value}", "alcohol": "{subject} drinks {value} (alcohol)",
               "steps": "{subject} walks {value} (steps)", "running": "{subject} runs {value}",
               "sleep": "{subject} sleeps {value}", "vaping": "{subject} vapes {value}"}
_HABIT_NUMBER = r"(?:\d[\d.,]*k?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|a\s+couple(?:\s+of)?|a\s+few)"
_HABIT_COUNTED = (rf"(?P<count>(?:about\s+|around\s+|roughly\s+|like\s+|maybe\s+)?{_HABIT_NUMBER}\s*"
                  rf"(?P<what>(?:{'|'.join(sorted((re.escape(w).replace(chr(92) + ' ', chr(92) + 's+') for w in _HABIT_WORDS), key=len, reverse=True))})\s+)?"
                  r"(?:a|per|each)\s+(?:day|week|night|month))\b")


def _habit_slot(verb: str, what: str | None) -> str | None:
    if what:
        return _HABIT_WORDS.get(" ".join(what.casefold().split()))
    return _HABIT_VERB_SLOT.get(verb.casefold())


def _habit_count(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I smoke about 10 a day', 'I drink 4 espressos a day', 'averaging 9k steps a day': how much of a
    habit, a `one` slot named by what it counts (or the verb that counts it)."""
    slot = _habit_slot(m["verb"], m["what"])
    if slot is None:
        return None
    value = " ".join(m["count"].split())
    return [state(c, slot, value, m.group(0), template=_HABIT_SAID[slot], changed=bool(_CHANGE.search(m.group(0))))]


# What quitting names, as the habit slot it ends ("quit caffeine" ends the coffee counted a day).
_HABIT_ENDED = {"smoking": "smoking", "cigarettes": "smoking", "cigs": "smoking", "caffeine": "coffee", "coffee": "coffee",
                "drinking": "alcohol", "alcohol": "alcohol", "booze": "alcohol", "vaping": "vaping", "tea": "tea"}
_HABIT_STEMS = (("smok", "smoking"), ("cig", "smoking"), ("vap", "vaping"), ("coffee", "coffee"))  # "smoke-free", "vaped"
_HABIT_IN_TURN = re.compile(r"(?i)\b(?:smok\w*|cigarettes?|cigs|vap(?:e|ing|ed)|caffeine|coffees?|drinking|booze|alcohol)\b")


def _quit_unnamed(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'two weeks smoke-free today!! I quit on March 1': the one habit held that the turn names ends,
    from the clause's time words. A turn naming no habit held is not read here (a job may be what was quit)."""
    named = {_HABIT_ENDED.get(w.casefold()) or next((slot for start, slot in _HABIT_STEMS if w.casefold().startswith(start)), None)
             for w in _HABIT_IN_TURN.findall(c.turn)}
    held = [h for slot in named if slot for h in c.open_held(slot)]
    if len(held) != 1:
        return None
    start, phrase = change_time(c, c.text)
    return ends(c, held, m.group(0), start, phrase)


_ABSTAINED_SLOT = {"cigarette": "smoking", "cig": "smoking", "smoke": "smoking", "nicotine": "smoking", "coffee": "coffee",
                   "caffeine": "coffee", "drink": "alcohol", "beer": "alcohol", "alcohol": "alcohol", "booze": "alcohol"}


def _abstained(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'haven't had a cigarette since feb 11', 'day 20 without a single cigarette', 'totally nicotine free
    now': the held habit it names has ended (from the time words, else when it was said)."""
    word = next(w for w in (m["what"], m["what2"], m["what3"]) if w).casefold()
    held = c.open_held(_ABSTAINED_SLOT[word.rstrip("s")])
    if len(held) != 1:
        return None
    start, phrase = change_time(c, c.text)
    return ends(c, held, m.group(0), start, phrase)


_BODY_PARTS = (r"(?:(?:left|right|lower|upper)\s+)?(?:back|knee|ankle|wrist|shoulder|hamstring|calf|hip|neck|elbow|foot|toe|"
               r"finger|thumb|groin|quad|shin|rib|collarbone|arm|leg|hand|heel|it\s+band|rotator\s+cuff|acl|mcl)s?")
INJURED = ("many", "{subject} injured {value}")


def _injured(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'tweaked my lower back pulling last week', 'sprained my left ankle on Sunday': an injury held from
    its time words (or when said) until a turn says it healed."""
    part = " ".join(m["part"].casefold().split())
    how = " ".join(m["how"].casefold().split())
    start, phrase = change_time(c, c.text)
    return [draft("add", c.subject, "injury", f"{part} ({how})", m.group(0), cardinality=INJURED[0], template=INJURED[1],
                  valid_from=start, phrase=phrase)]


def _healed(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'my back is fine now', 'ankle's healed': the held injury of that part ends, from when it was said."""
    part = " ".join(m["part"].casefold().split())
    held = [h for h in c.open_held("injury") if re.search(rf"(?<!\w){re.escape(part.split()[-1].rstrip('s'))}", h.value)]
    if not held:
        return None
    start, phrase = change_time(c, c.text)
    return ends(c, held, m.group(0), start, phrase)


SEAT = ("one", "{subject} prefers {value} seats")


def _seat(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'seat pref aisle, always', 'window seats from now on', 'I've switched to window seats'."""
    value = (m["v"] or m["v2"] or m["v3"]).casefold()
    return [state(c, "seat_preference", value, m.group(0), template=SEAT[1], changed=bool(_CHANGE.search(c.text)))]


def _habit_down_to(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'down to one coffee a day now', 'cut back to 5 a day': the held habit the words count (or the one
    held habit counted so) now counts that, from when it was said."""
    value = " ".join(m["count"].split())
    slot = _habit_slot("", m["what"])
    held = c.open_held(slot) if slot else [h for h in c.open_held() if h.predicate in _HABIT_SAID]
    if len(held) != 1:
        return None
    start, phrase = change_time(c, c.text)
    (h,) = held
    return [held_replaced(c, h, value, m.group(0), start, phrase)]


def _up_to(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'weekly mileage is up to 35 km'; 'the bakery's up to 11 people' is the held headcount's news."""
    key = attribute_key(m["attr"])
    if key.split("_")[-1] in _ATTR_STOP:
        return None
    people = _PEOPLE.match(clean_value(m["v"]))
    if people and (c.open_held("headcount") or not c.open_held(key)):
        return [state(c, "headcount", f"{people[1]} people", m.group(0), template="{subject}'s team counts {value}", changed=True)]
    template = f"{{subject}}'s {' '.join(m['attr'].split())} is {{value}}"
    if re.search(r"(?i)(?:\bis|['’]s)\s+going\b|\b(?:will\s+go|goes)\b", m.group(0)):
        # "rent is going up to 1,420 from April", said in March: from this April on, not last April's
        start, phrase = future_or_change_time(c, c.text[m.end():] or c.text, clean_value(m["v"]))
        change = state(c, key, m["v"], m.group(0), template=template, changed=True)
        return [dataclasses.replace(change, valid_from=start, time_phrase=phrase)]
    return [state(c, key, m["v"], m.group(0), template=template, changed=True)]


_FROM_MONTH = re.compile(
    r"(?i)\b(?:from|starting(?:\s+in)?|as\s+of|in)\s+(?P<month>january|february|march|april|may|june|july|august|september|october|november|december)\b"
)
_MONTH_NUMBERS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), start=1)}


def future_or_change_time(c: Clause, text: str, value: str = "") -> tuple[str | None, str]:
    """Like `change_time`, but a change announced ahead ("from May", said in April) starts then, not when
    it was said: a month alone is its next start on or after the month it was said in."""
    ahead = _FROM_MONTH.search(text)
    if ahead and not (value and ahead.group(0) in value):
        month, year, said_month = _MONTH_NUMBERS[ahead["month"].casefold()], int(c.said_at[:4]), int(c.said_at[5:7])
        if month > said_month:
            return f"{year:04d}-{month:02d}-01T00:00:00.000000Z", ahead.group(0)
    phrase = find_time_phrase(text)
    if phrase and not (value and phrase in value):
        span = resolve_time_phrase(phrase, c.said_at)
        if span is not None and span.valid_from is not None and re.match(r"(?i)(?:from|starting|as\s+of|in|on|next)\b", phrase):
            return span.valid_from, phrase
    return change_time(c, text, value)


def _amount(text: str) -> float | None:
    m = re.search(r"(\d[\d,]*(?:\.\d+)?)\s*(k\b)?", text)
    if not m:
        return None
    return float(m[1].replace(",", "")) * (1000 if m[2] else 1)


def _held_figure_near(c: Clause, value: str) -> list[ClaimVersion]:
    """'the landlord's putting it up to 1,315': "it" is the one held figure of about that size (within a
    factor of 1.5), when exactly one is."""
    new = _amount(value)
    if not new:
        return []
    near = [h for h in c.open_held() if h.cardinality == "one" and (old := _amount(h.value)) and 1 / 1.5 <= new / old <= 1.5]
    return near if len(near) == 1 else []


# The user (said or dropped) sets a figure: "bumping savings to 25%", "I'm raising my rate to €400".
_OWN_FIGURE_SET = re.compile(r"(?i)^(?:[^,;]*[,;]\s*)?(?:(?:also|and|so|then|ok)\s+)?(?:(?:I|we)(?:['’](?:m|re|ve))?\s+(?:am\s+|are\s+|have\s+)?)?(?:just\s+|finally\s+)?"
                             r"(?:rais|increas|bump|lower|reduc)\w*\s+(?:my\s+|our\s+)?")


def _raised(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'the landlord is raising the rent to €1,530 from May': a held quantity's new value, from its time words."""
    attr = re.sub(r"(?i)\s+(?:up|down)$", "", m["attr"])
    key = attribute_key(attr)
    held = c.open_held(key) if key != "it" else _held_figure_near(c, m["v"])
    if not held and key != "it":
        # "lowered the deposit target" of a held "target": the held slot its last words name
        words = key.split("_")
        held = [h for h in c.open_held() if h.cardinality == "one" and words[-len(h.predicate.split("_")):] == h.predicate.split("_")]
        held = held if len({h.predicate for h in held}) == 1 else []
    if held:
        key = held[0].predicate
    value = clean_value(m["v"])
    if not held and _OWN_FIGURE_SET.match(c.text) and re.search(r"[%$€£]|\dk\b", value) and _plain_attribute(attr) and key not in ("it", "them"):
        # "bumping savings to 25%": a share or sum of the user's own, set by the user, first heard of here
        start, phrase = future_or_change_time(c, c.text[m.end():] or c.text, value)
        return [draft("add", c.subject, key, value, m.group(0), cardinality="one", template=f"{{subject}}'s {attr} is {{value}}",
                      valid_from=start, phrase=phrase)]
    if not held or not re.search(r"\d", held[0].value):
        return None  # only a number the ledger holds changes so ("cut the grass to 3 cm" is no fact)
    start, phrase = future_or_change_time(c, c.text[m.end():] or c.text, value)
    return [draft("supersede", c.subject, key, value, m.group(0) + c.text[m.end():].split(".")[0], cardinality="one",
                  template=f"{{subject}}'s {key.replace('_', ' ')} is {{value}}", valid_from=start, phrase=phrase)]


def _version_bump(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'we bumped to Django 5.1', 'ops upgraded the db to MariaDB 11.4': held values naming Django (with
    another version) now name the new one; with none held, the thing (or the tool's version) is the fact."""
    name, version = m["name"], m["ver"]
    new = f"{name} {version}"
    old = re.compile(rf"(?i)(?<!\w){re.escape(name)}\s+v?\d+(?:\.\d+)*(?!\w)")
    start, phrase = change_time(c, c.text[m.end():] or c.text)
    held = [h for h in c.open_held() if old.search(h.value) and not re.search(rf"(?i)(?<!\w){re.escape(new)}(?!\w)", h.value)]
    if held:
        return [held_replaced(c, h, old.sub(new, h.value, count=1), m.group(0), start, phrase) for h in held]
    changed = bool(re.search(r"(?i)(?:bumped|upgraded|updated|moved|migrated|went)\s", m.group(0)) or m["now"])
    if not changed and not _held_naming(c, name) and not (m["still"] and "." in version):
        # "we're on Node 22.4" is news only said as a change, or of a tool held at another version; "we're
        # still on Elm 0.18" says which version it has been all along
        return None
    if "." not in version and not re.search(r"(?i)(?:bumped|upgraded|updated)\s", m.group(0)):
        return None  # "I moved to Room 4": a place, not a version
    thing = _ARTICLES.sub("", (m["thing"] or "").strip())
    key = attribute_key(thing) if thing and _plain_attribute(thing) else attribute_key(f"{name} version")
    noun = thing if thing and _plain_attribute(thing) else f"{name} version"
    return [state(c, key, new, m.group(0), template=f"{{subject}}'s {noun} is {{value}}", changed=changed or bool(held))]


_SLOT_CUE = re.compile(
    r"(?i)\b(?:new\s+(?P<a>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)|(?P<b>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+(?:changed|is\s+different)|"
    r"(?:switched|changed)\s+(?P<c>[a-z][\w\-]*?)s\b|"
    r"(?P<d>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+(?:got|was|has\s+been)\s+(?:reshuffled|changed|reassigned|swapped|moved|updated)|"
    r"(?P<e>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+(?:moved|changed)\b|"
    r"renamed\s+(?:the|my|our)\s+(?P<f>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\b)"
)


def _slot_named_in_turn(c: Clause) -> ClaimVersion | None:
    """The one held open slot the turn says changed ("new landlord", "pool locker changed", "switched
    gyms"): its key holds every word named (singular)."""
    if re.search(r"(?i)\b(?:taking|took|taken|changed|changing)\s+(?:his|her|their|my)\s+(?:last\s+|sur)?name\b", c.turn):
        named = c.open_held("name")
        if len(named) == 1:
            return named[0]  # "I'm taking his name so it's Edie Korver now"
    for cue in _SLOT_CUE.finditer(c.turn):
        named = cue["a"] or cue["b"] or cue["c"] or cue["d"] or cue["e"] or cue["f"]
        # "fyi parking got reshuffled": the words before the cue may start with a lead-in word
        for thing in dict.fromkeys((named, named.split()[-1])):
            held = _held_slot_named(c, thing)
            if held is not None:
                return held
    return None


def _held_value_named_elsewhere(c: Clause) -> ClaimVersion | None:
    """'the Harbour Inn was full so I'm at the Quayside instead': the one held open value whose name
    (a capitalised word of it) the clause's sentence says before it."""
    clause = c.text.casefold()
    sentence = next((s for s in re.split(r"(?<=[.!?;])\s+", c.turn.casefold()) if clause in s), "")
    rest = sentence[: sentence.find(clause)]
    said = {w.casefold() for w in re.findall(r"[\w'’\-]{4,}", rest)}
    held = [h for h in c.open_held() if {w.casefold() for w in re.findall(r"(?<![\w'’])[A-Z][\w'’\-]{3,}", h.value)} & said]
    return held[0] if len(held) == 1 else None


def _word_like(word: str, part: str) -> bool:
    """Whether a word said names a word of a slot's name: the same stem ("gyms", "gym"; "insurer",
    "insurance"; "mum's", "mum")."""
    word, part = re.sub(r"['’]s$", "", word), re.sub(r"['’]s$", "", part)
    if len(word) < 3:
        return word == part
    if part.startswith(word) or (len(part) >= 4 and word.startswith(part)):
        return True
    common = len(os.path.commonprefix([word, part]))
    return common >= 5 or (common >= 4 and min(len(word), len(part)) <= 5)


def _held_slot_named(c: Clause, thing: str) -> ClaimVersion | None:
    """The one held open single-valued slot whose name holds every word of `thing` (singular)."""
    words = [w.rstrip("s") if len(w) > 3 and not w.endswith(("'s", "’s")) else w for w in thing.casefold().split()]
    words = [w for w in words if w not in ("my", "our", "the", "a", "at", "of", "for")]
    if not words:
        return None
    held = [h for h in c.open_held() if h.cardinality == "one" and h.predicate not in ("name", "ended", "note")
            and all(any(_word_like(w, part) for part in re.split(r"[_\s]+", h.predicate)) for w in words)]
    return held[0] if len({h.predicate for h in held}) == 1 else None


def _switched_under_heading(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'insurance: switched to Pellmoor': the heading names the held slot ("car insurance"), now Y."""
    heading = re.search(r"(?i)(?P<h>[a-z][\w'’\- ]*?)\s*:\s*$", c.lead)
    return _slot_now(m, c, heading["h"]) if heading else None


STAYS = ("many", "{subject} is staying at {value}")


_LODGING_WORDS = r"hotel|hostel|guesthouse|guest\s+house|b&b|campsite|cottages?|lodge|inn|airbnb|resort|motel|chalet"
# "Hotel Varnholm", "the Quarrel Bay hotel", "Pellby campsite", "the Tansy Inn": a name with its kind of lodging
_LODGING_NAMED = (r"(?:(?:Hotel|Hostel|Casa|Maison|Albergo|Villa|Pension|Auberge)\s+[A-Z][\w'’&\-]*(?:\s+[A-Z][\w'’&\-]*){0,2}"
                  r"|[A-Z][\w'’&\-]*(?:\s+[A-Z][\w'’&\-]*){0,3}\s+(?i:" + _LODGING_WORDS + r"))"
                  r"(?=\s*(?:$|[,;.!?(]|\s+(?:in|on|for|from|until|till|near|by|instead|now|then|and|but|so|with|at|this|next|tonight)\b))")


def _named_stay(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'they've put me in Hotel Varnholm', 'booked a guesthouse there, Casa Tremont', 'Accommodation is booked
    at the Brisket Grand': where the user stays; said instead of a stay the turn names, in its place."""
    value = clean_value(m["v"] or m["v2"] or m["v3"])
    if not value or _BAD_VALUE.match(value) or c.subject != "user" and not c.text.startswith("I "):
        return None
    if _INSTEAD.search(c.text) or _CHANGE.search(c.turn):
        # "pellby lost our booking, so we're at X instead": the one held stay the turn names
        said = {w.casefold() for w in re.findall(r"[\w'’\-]{4,}", c.turn)} - {w.casefold() for w in value.split()}
        named = [h for h in c.open_held("stays_at")
                 if {w.casefold() for w in re.findall(r"(?<![\w'’])[A-Z][\w'’\-]{3,}", h.value)} & said]
        if len(named) == 1 and normalise(named[0].value) != normalise(value):
            return [held_replaced(c, named[0], value, m.group(0), c.said_at, "")]
    return [draft("add", c.subject, "stays_at", value, m.group(0), cardinality="many", template=STAYS[1], valid_from=c.said_at)]


def _staying_at(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I'm staying at the Hotel Varnholm in Asakusa': where the user stays (a cancellation naming it ends it)."""
    value = clean_value(m["v"])
    if not value or _BAD_VALUE.match(value):
        return None
    return [draft("add", c.subject, "stays_at", value, m.group(0), cardinality="many", template=STAYS[1], valid_from=c.said_at)]


_HOMES = frozenset("house home flat apartment place city country town".split())


def _switched_to(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'switched car insurance to Y', 'changed my bank to Y': the held slot the words name, now Y. With
    what it moved off said ('moved CI off Trundlebox to Kestrelworks') and nothing held of it, the thing
    holds Y from the change (what it held before was never a fact here)."""
    found = _slot_now(m, c, m["thing"])
    thing = " ".join(m["thing"].split())
    if (found is not None or not m["old"] or _held_slot_named(c, thing) is not None or not _plain_attribute(thing)
            or thing.casefold() in _HOMES):
        return found  # (a home moved is where the user lives: the move patterns read it)
    key, value = attribute_key(thing), clean_value(m["v"])
    if not key or key.split("_")[-1] in _ATTR_STOP or not value or _BAD_VALUE.match(value) or _person_named(c, thing):
        return None
    return [state(c, key, value, m.group(0), template=f"{{subject}}'s {thing} is {{value}}", changed=True)]


def _switched_kind(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'switched clubs — Tolworth Harriers', 'changed dentists - Dr Quarles now': the one held slot the
    kind names (singular) now holds the name; nothing held of it, the kind holds the name from the change."""
    thing = singular(m["thing"])
    value = clean_value(m["v"])
    if not _plain_attribute(thing) or thing in _ATTR_STOP or thing in _NOT_FIGURES or value.casefold() in _WEEK_AND_MONTH_WORDS:
        return None
    if re.match(r"(?i)\s*(?:is|are|was|were)\s+(?:off|out|cancelled|over)\b", m.string[m.end():]):
        return None  # "changed plans, Sedgemoor is off": the name is what changed, not the new one
    found = _slot_now(m, c, thing)
    if found is not None or _held_slot_named(c, thing) is not None:
        return found
    key = attribute_key(thing)
    if not key or not value or _BAD_VALUE.match(value) or _person_named(c, thing):
        return None
    return [state(c, key, value, m.group(0), template=f"{{subject}}'s {thing} is {{value}}", changed=True)]


# "changed vets, the new one is Dr. Varnsey": a kind switched, then in the next words the one who holds it now
_SWITCHED_THEN_NAMED = re.compile(
    r"(?i)\b(?:switched|changed|swapped)\s+(?P<kind>[a-z]+s)\b[^.!?]{0,20}?[.!?,;:—–-]+\s*(?:the\s+)?new\s+(?:one|[a-z]+)\s*(?:is\s+|[:,—–-]\s*)"
    r"(?P<v>(?-i:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+[A-Z][\w'’\-]+|[A-Z][\w'’&\-]+(?:\s+[A-Z][\w'’&\-]+){0,3}))"
)


def switched_then_named(turn: str, said_at: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> list[Draft]:
    """'changed vets, the new one is Dr. Varnsey' with one vet held (the user's or a pet's): that slot holds the
    name now, from when it was said. Nothing when no one holds the kind, or several do, or a draft of the
    turn already fills it."""
    out = []
    for m in _SWITCHED_THEN_NAMED.finditer(turn):
        slot = singular(m["kind"])
        holders = [c for c in current if c.predicate == slot and c.tx_to is None and c.valid_to is None]
        if len(holders) != 1 or any(d.predicate == slot for d in [*drafts, *out]):
            continue
        held = holders[0]
        found = in_place_of_held(held.subject, slot, clean_value(m["v"]), m.group(0), f"{{subject}}'s {slot} is {{value}}", said_at, current)
        out += [found] if found else []
    return out


def _slot_now(m: re.Match[str], c: Clause, thing: str) -> list[Draft] | None:
    """The one held slot `thing` names now holds the match's value `v`, from the clause's time words or
    when said; None when no one slot is named or the value is the one held."""
    held = _held_slot_named(c, thing)
    value = clean_value(m["v"])
    if held is None or not value or normalise(value) == held.value_key or _BAD_VALUE.match(value):
        return None
    start, phrase = change_time(c, c.text)
    return [held_replaced(c, held, value, m.group(0), start, phrase)]


def _changed_to(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'mum's gate code changed to 9025', 'rent went up this month, it's 1,615 now': the held slot the
    words name now holds the value. Nothing held of that name: not read here."""
    thing = m["thing"]
    if (thing.casefold() in _NOT_PLAIN or (thing[:1].isupper() and " " not in thing and not m.group(0).startswith(thing))
            or _person_named(c, thing)):
        return None  # "I moved to Porto", "so Anna moved to Milan": someone, not something held
    found = _slot_now(m, c, thing)
    if found is not None or _held_slot_named(c, thing) is not None:
        return found
    # Nothing held of it: a thing of the user's moved to a day, a date or a time ("swimming moved to
    # Thursdays 4:30") is news of when it now is; not a person, a pet or a home moved somewhere.
    thing = re.sub(r"(?i)^(?:(?:but|and|so|also|then|the|my|our)\s+)+", "", thing)
    ahead = find_time_phrase(thing)
    if ahead and thing.casefold().startswith(ahead.casefold()):  # "from next week choir moves to …": the choir
        thing = re.sub(r"(?i)^(?:(?:the|my|our)\s+)+", "", thing[len(ahead):].strip(" ,"))
    subject = c.subject
    owner = re.match(r"(?P<who>[\w\-]+)['’]s\s+(?P<rest>\S.*)$", thing)
    if owner:  # "elsa's choir moves to thursdays": Elsa's choir, when the ledger knows Elsa
        known = {h.subject for h in c.request.current if h.subject_key == normalise(owner["who"])}
        if len(known) == 1:
            subject, thing = known.pop(), owner["rest"]
    words = thing.split() or [""]
    value = clean_value(m["v"])
    if not re.search(r"(?i)\b(?:moved|moves|moving|changed|pushed|postponed|rescheduled|put\s+back|brought\s+forward)\b", m.group(0)) and not re.fullmatch(r"[$€£]?\d[\d.,]*\s*(?:k|%|[a-z]{1,5})?", value):
        return None  # "the dose went up to 100 mg of sertraline": not a figure alone (the medication's pattern reads it)
    if (any(w[:1].isupper() for w in words) or not _plain_attribute(thing) or attribute_key(thing) in RELATION_WORDS
            or words[-1].casefold() in _PEOPLE_WORDS or words[-1].casefold() in _PET_WORDS or thing.casefold() in _HOMES
            or not re.match(rf"(?i)(?:\d|(?:{'|'.join(_WEEK_AND_MONTH_WORDS)})s?\b)", value)):
        return None
    key = attribute_key(thing)
    start, phrase = change_time(c, m.group(0), value)
    return [draft("add", subject, key, value, m.group(0), cardinality="one", template=f"{{subject}}'s {thing} is {{value}}",
                  valid_from=start, phrase=phrase)]


_PEOPLE_WORDS = frozenset("kids children people everyone family parents folks team class guys girls boys".split())


def _person_named(c: Clause, word: str) -> bool:
    """Whether `word` is someone the ledger knows (a subject, or a held value that is a name)."""
    key = normalise(word)
    return any(h.subject_key == key or (h.value[:1].isupper() and normalise(h.value.split()[0]) == key) for h in c.request.current)


def _set_to(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'landlord = Mr Ebbage', 'parking → P7-412', 'new plumber: Marrin & Sons', 'editor=vscode, shell=zsh':
    things set to values in note-taking signs. A held slot the words name now holds its value; 'new one
    = Y' is the held slot the turn named before ('landlord sold up, new one = Y'). Nothing held: a thing
    of the user's holds it (not after a colon, a heading's sign: 'note to self: Mum's birthday …')."""
    pairs = [m]
    if m["sign"] != ":":  # "editor=vscode, shell=zsh": every pair of the list
        pairs += list(_MORE_SET_TO.finditer(c.text, m.end()))
    drafts = []
    for pair in pairs:
        found = _one_set_to(pair, c)
        drafts += found or []
    return drafts or None


def _one_set_to(m: re.Match[str], c: Clause) -> list[Draft] | None:
    thing = " ".join(m["thing"].split())
    value = clean_value(m["v"])
    if not value or _BAD_VALUE.match(value) or normalise(value) == normalise(thing):
        return None
    if thing.casefold() == "one":
        before = c.turn[: c.turn.find(m.group(0)) + m.start("thing") - m.start()]
        held = _slot_named_in_turn(c) or _held_slot_said_before(c, before)
    else:
        held = _held_slot_named(c, thing)
    if held is not None:
        if normalise(value) == held.value_key:
            return None
        start, phrase = change_time(c, c.text, value)
        return [held_replaced(c, held, value, m.group(0), start, phrase)]
    if (m["sign"] == ":" or thing.casefold() == "one" or thing[:1].isupper() or not _plain_attribute(thing)
            or _person_named(c, thing)):
        return None  # ("Jenkins → Drone": a value changed to another, not a thing named Jenkins)
    key = attribute_key(thing)
    if not key or key.split("_")[-1] in _ATTR_STOP or key in RELATION_WORDS:
        return None
    return [state(c, key, value, m.group(0), template=f"{{subject}}'s {thing} is {{value}}", changed=False)]


def _held_slot_said_before(c: Clause, before: str) -> ClaimVersion | None:
    """The one held open single-valued slot whose name's words are all said in `before`."""
    said = re.findall(r"[\w'’\-]+", before.casefold())
    held = [h for h in c.open_held() if h.cardinality == "one" and h.predicate not in ("name", "ended", "note")
            and all(any(_word_like(w, part) for w in said) for part in h.predicate.split("_"))]
    return held[0] if len({h.predicate for h in held}) == 1 else None


def _value_under_heading(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'new plumber: Marrin & Sons', 'parking: P7-412': a bare value under a heading (the lead-in words
    the clause reader cut) that names a held slot or says it is new."""
    # (a colon before a capital ends a clause: the heading is the turn's words right before this one)
    before = c.lead or c.turn[: max(c.turn.find(c.text), 0)]
    heading = re.search(r"(?i)(?:^|[,;.!?]\s*)(?:(?:got|have|there's)\s+(?:a\s+)?)?(?P<new>new\s+)?(?:(?:my|our|the)\s+)?"
                        r"(?P<h>[a-z][\w'’\-]*(?:\s+[a-z][\w'’\-]*){0,3}?)(?:\s+(?:as\s+of|from|starting)\s+[\w ]+?)?\s*:\s*$", before)
    if heading is None or len(m["v"].split()) > 5 or _HAS_VERB.search(m["v"]):
        return None
    held = _held_slot_named(c, heading["h"])
    if held is None and not heading["new"]:
        return None  # "note to self: Mum's birthday": a heading, nothing it names
    return _one_set_to(_HeadingMatch(heading["h"], m["v"], heading.group(0).strip(" ,;.!?") + " " + m.group(0)), c)


@dataclass(frozen=True)
class _HeadingMatch:
    """A heading and its value, read as a `_SET_TO` match ('new plumber: X' is 'plumber = X')."""

    thing: str
    v: str
    whole: str

    def __getitem__(self, name: str) -> str:
        return {"thing": self.thing, "v": self.v, "sign": "="}[name]

    def group(self, _: int = 0) -> str:
        return self.whole

    def start(self, _: str | int = 0) -> int:
        return 0


_HAS_VERB = re.compile(r"(?i)\b(?:is|are|was|were|has|have|had|will|can|do|does|did|i|we|you|he|she|they)\b")


_SET_TO_THING = r"(?P<thing>[a-z][\w'’\-]*(?:\s+[a-z][\w'’\-]*){0,3}?)"
# (after "=" or an arrow the value may be typed small and run to a few words: "vet → dr pellow @ hartcombe vets")
_SET_TO_VALUE = (r"(?P<v>(?-i:[A-Z0-9€$£#])[^,;!?]*?|(?<=[=>→])\s*[a-z0-9][\w.\-]*"
                 r"(?:\s+(?!(?:and|but|so|because|which|who|if|when|then|i|we|he|she|they)\b)[\w.\-@&'’]+){0,4})"
                 r"(?=\s*(?:$|[,;!?(]|(?<!Dr)(?<!Mr)(?<!Mrs)(?<!Ms)(?<!St)(?<!Prof)\.(?:\s|$)))")
_MORE_SET_TO = re.compile(rf"(?i)[,;]\s*{_SET_TO_THING}\s*(?P<sign>=|→|->)\s*{_SET_TO_VALUE}")


def _withdrew(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I've withdrawn from Harrowmere', 'pulled out of the Harrowmere 10k': what the user signed up for and
    the words name ends, from when it was said (or its time words). None when nothing held is named."""
    named = [w for w in re.findall(r"[\w'’\-]+", clean_value(m["v"]).casefold()) if w not in ("the", "a", "an", "my", "our", "it")]
    if not named:
        return None
    held = [h for h in c.open_held("signed_up_for") if all(w in h.value_key.split() for w in named)]
    if not held:
        return None
    start, phrase = change_time(c, c.text)
    return [draft("retract", c.subject, "signed_up_for", h.value, m.group(0), cardinality="many",
                  template="{subject} signed up for {value}", valid_from=max(start or c.said_at, h.valid_from), phrase=phrase)
            for h in held]


def _promoted(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'got promoted to senior developer!', 'I've been made deputy head': the job title, from when said."""
    title = clean_value(m["v"])
    if not title or _BAD_VALUE.match(title) or len(title.split()) > 5:
        return None
    start, phrase = change_time(c, c.text, title)
    held = c.open_held("job_title")
    drafts = [draft("supersede" if held else "add", c.subject, "job_title", title, m.group(0), cardinality="one",
                    template="{subject} works as {value}", valid_from=start, phrase=phrase)]
    # "got promoted … the day before yesterday": the day too, in words a "when did I get promoted?" finds
    dated = event_draft("did", c.subject, f"got promoted to {title}", m.group(0), phrase, c.said_at) if phrase else None
    return drafts + ([dated] if dated else [])


# The last word of a role someone fills (in a team, a club, a project): "release manager", "primary on-call".
_ROLE_HEADS = ("manager|lead|owner|coordinator|captain|chair|chairperson|treasurer|secretary|editor|coach|PM|CTO|CEO|head|director|"
               "supervisor|mentor|tutor|instructor|trainer|on-call|organi[sz]er|admin|maintainer|reviewer|rep|officer|planner|producer")


def _named_in_role(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'Quillan Orr is release manager', 'Solenne took over primary on-call': the role's slot held by that
    person (the held slot the role names, in its place; else the role as a slot of the user's)."""
    if c.subject != "user" or m["v"].casefold() in _NOT_PLAIN:
        return None
    return _covering_as(m, c) if _held_slot_named(c, m["role"]) is not None else _role_filled(m, c)


def _role_filled(m: re.Match[str], c: Clause) -> list[Draft] | None:
    who, role = m["v"].strip(), " ".join(m["role"].split())
    key = attribute_key(role)
    if not key or key in RELATION_WORDS:
        return None
    held = c.open_held(key)
    if held and held[0].value_key == normalise(who):
        return []
    start, phrase = change_time(c, c.text)
    return [draft("supersede" if held else "add", c.subject, key, who, m.group(0), cardinality="one",
                  template=f"{{subject}}'s {role} is {{value}}", valid_from=start if held else None, phrase=phrase if held else "")]


# Where each kind of training happens, by its slot ("training at X": the gym; "swimming at X": the pool).
_TRAINS_AT = {"training": "gym", "lifting": "gym", "working out": "gym", "swimming": "pool", "climbing": "climbing_gym",
              "bouldering": "climbing_gym", "rowing": "rowing_club", "skating": "rink"}
# Lifting said as what the user does ("i lift at X"), only with "I" or "we" right before (the other acts so
# said are the pastime pattern's: "I swim at X")
_TRAIN_VERBS = {"lift": "lifting"}


def _where_i_train(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'training at Brackwell leisure centre now', 'signed up at Tollbar gym', 'swimming at Corrie Lido for now':
    where the user trains (the gym, the pool), in place of the one held."""
    if c.subject != "user" and not c.text.startswith("I "):
        return None
    value = clean_value(m["v"])
    act = " ".join((m["act"] or "").casefold().split())
    if act in _TRAIN_VERBS:
        if not re.search(r"(?i)\b(?:I|we)\s+(?:usually\s+|mostly\s+|now\s+|still\s+)?$", c.text[: m.start("act")]):
            return None  # "lift at X tomorrow?": nobody said to do it there
        act = _TRAIN_VERBS[act]
    if m["joined"] and not re.search(r"(?i)\b(?:gym|leisure\s+centre|sports\s+centre|club|pool|baths|lido|wall)$", value):
        return None  # "joined Quillan for lunch": no place to train
    key = _TRAINS_AT.get(act, "gym")
    if not value or _BAD_VALUE.match(value) or value.casefold() in _NOT_PLAIN:
        return None
    # said as done there ("user swims at X"), in the words a "where do I swim?" asks by
    verb = {"gym": "trains", "pool": "swims", "climbing_gym": "climbs", "rowing_club": "rows", "rink": "skates"}[key]
    return [state(c, key, value, m.group(0), template=f"{{subject}} {verb} at {{value}}", changed=bool(_CHANGE.search(c.turn)))]


def _covering_as(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'Ozren's on leave, Maelis is covering as team lead': the role's slot held by Maelis now (the held slot the
    role names, else the role as a slot of the user's)."""
    who, role = m["v"].strip(), " ".join(m["role"].split())
    held = _held_slot_named(c, role)
    start, phrase = change_time(c, c.text)
    if held is not None:
        return None if normalise(who) == held.value_key else [held_replaced(c, held, who, m.group(0), start, phrase)]
    key = attribute_key(role)
    if not key or key in RELATION_WORDS or key.split("_")[-1] in _ATTR_STOP:
        return None
    return [state(c, key, who, m.group(0), template=f"{{subject}}'s {role} is {{value}}", changed=True)]


def _now_it_is(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'pool locker changed, it's 2093 now', 'new landlord … it's Ashby Lettings now', 'switched gyms,
    I'm at Rockhouse now', "yoga's on fridays now": the named slot's new value."""
    held = _slot_named_in_turn(c) or _held_value_named_elsewhere(c)
    subject = re.match(r"(?i)(?:(?:my|our|the)\s+)?(?P<thing>[a-z][\w\-]*)['’]s\s+(?:on|at|with)\s", c.text)
    if held is None and subject:  # "yoga's on fridays now": the held slot the clause's subject names
        held = _held_slot_named(c, subject["thing"])
    value = clean_value(m["v"])
    if held is None or not value or normalise(value) == held.value_key or _BAD_VALUE.match(value):
        return None
    start, phrase = change_time(c, c.text)
    return [held_replaced(c, held, value, m.group(0), start, phrase)]


# -- things changed by someone, who handles what, where the user is, how much of what ---------------

# A value that can end a change ("to Feb 13", "to Thursday evenings", "to every 14 days", "to 3:45"): a
# name, a number, or a recurrence; never "to the bedroom" (a place things are put, not a value).
_CHANGED_VALUE = r"(?P<v>(?:every\s+|each\s+)?(?:(?-i:[A-Z0-9€$£])[^,;.!?]*?|(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve)\b[^,;.!?]*?))"


def _moved_thing(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'the practice moved her appointment to Feb 13', 'security shortened the token rotation to every 14
    days': the thing's new value, superseding the held slot the words name (or the thing's own slot)."""
    thing = " ".join(m["thing"].split())
    value = clean_value(m["v"])
    if not value or _BAD_VALUE.match(value) or not _plain_attribute(thing) or len(value.split()) > 6:
        return None
    start, phrase = future_or_change_time(c, c.text[m.end():] or c.text, value)
    held = _held_slot_named(c, thing)
    if held is not None:
        if normalise(value) == held.value_key:
            return None
        return [held_replaced(c, held, value, m.group(0), start, phrase)]
    key = attribute_key(thing)
    if not key or key.split("_")[-1] in _ATTR_STOP:
        return None
    return [draft("supersede" if c.open_held(key) else "add", c.subject, key, value, m.group(0), cardinality="one",
                  template=f"{{subject}}'s {thing} is {{value}}", valid_from=start, phrase=phrase)]


def _owner_key(thing: str) -> tuple[str, str]:
    """(slot, words) for who handles a thing: keyed by its first word, so "the revenue numbers" and "the
    revenue reporting" are one slot ("who handles revenue")."""
    words = [w for w in thing.casefold().split() if w not in ("the", "our", "my", "all")]
    head = words[0] if words else thing.casefold()
    head = head[:-1] if head.endswith("s") and len(head) > 4 and not head.endswith("ss") else head
    return attribute_key(f"{head} contact"), " ".join(words)


def _handles(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'Aiyana runs the deploys now', 'Ana in finance owns the budget', 'Kestrin took over the rota', 'the
    invoices come from Ottla now': who handles a thing of the user's (one person at a time)."""
    who = " ".join(m["v"].split())
    thing = " ".join(m["thing"].split())
    if (not _plain_attribute(thing) or who.casefold() in ("i", "it", "this", "that", "everyone", "nobody")
            or who.split()[0].casefold() in _CALENDAR_WORDS or len(thing.split()) > 4):
        return None
    key, words = _owner_key(thing)
    start, phrase = change_time(c, c.text[m.end():] or c.text)
    c = dataclasses.replace(c, subject="user")  # whom the user asks about the thing: the user's, whoever the clause was about
    held = c.open_held(key)
    if held and held[0].value_key == normalise(who):
        return None
    changed = bool(held) or bool(_CHANGE.search(m.group(0))) or bool(re.search(r"(?i)took\s+over|taking\s+over|taken\s+over", m.group(0)))
    return [draft("supersede" if held else "add", c.subject, key, who, m.group(0), cardinality="one",
                  template=f"{{subject}}'s contact for {words} is {{value}}", valid_from=start if changed else None,
                  phrase=phrase if changed else "")]


def _is_in(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'landed in Malaga on Sunday', 'made it to Seville', 'I'm in Lisbon until the 20th': where the user
    is now (a traveller's place, not where they live)."""
    place = clean_value(m["v"])
    if not place or find_time_phrase(place) == place or re.search(r"(?i)\b(?:next|tomorrow|tonight|later)\b", c.text):
        return None  # "I'm in Lisbon next week" is a plan, not where the user is
    start, phrase = change_time(c, c.text[m.end():] or c.text)
    held = c.open_held("is_in")
    if held and held[0].value_key == normalise(place):
        return None
    return [draft("supersede" if held else "add", c.subject, "is_in", place, m.group(0), cardinality="one",
                  template="{subject} is in {value}", valid_from=start, phrase=phrase)]


# Words after "in" / "made it to" that are no place a traveller is ("made it to bed", "in pain now").
_NOT_PLACES = frozenset(
    "bed work home town time class school office hospital hospitals gym church court love pain trouble charge "
    "shape luck tears hell heaven agony bits pieces debt denial the a an my our his her their this that it".split()
)


def _is_in_small(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'made it to vellory!!', 'in marrow bay now!': a place typed small after a traveller's verb (after a
    bare "in" only with "now"), read as the name it is."""
    if not (m["verb"] or m["now"]):
        return None
    words = m["v"].split()
    if any(w.casefold() in _NOT_PLACES for w in words):
        return None
    return _is_in(_Named(m, " ".join(w[:1].upper() + w[1:] for w in words)), c)


_QUANTITY = r"\d[\d.,:]*\s*(?:kg|kgs|kilos|lbs?|km|kms|mi|miles|m|min|mins|minutes|s|secs|reps|%|bpm|cm|mm|g|ml|l)?(?:\s+per\s+(?:km|mile|mi|100\s?m))?"
_ITEM = rf"[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?\s+(?:about\s+|around\s+|at\s+)?{_QUANTITY}"
_UNIT_LEAD = re.compile(r"(?i)(?:^|\s)(?P<head>[a-z][\w\-]*)\s*:\s*$")


def singular(word: str) -> str:
    """A plural's singular, case folded ("clubs" -> "club", "boxes" -> "box"; "glass" stays)."""
    word = word.casefold()
    if word.endswith("es") and word[:-2].endswith(("x", "s", "ch", "sh")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _quantities(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'current maxes: squat 100 kg, bench 70 kg', 'resting HR 52 bpm', 'easy pace about 6:10 per km': a
    log's figures, each its own slot ("squat max"), the list's heading naming what they are."""
    lead = _UNIT_LEAD.search(c.lead)
    head = singular(lead["head"]) if lead else ""
    if head in ("update", "log", "note", "fyi", "remember", "context", "stats", "today", "numbers", "progress", "current"):
        head = ""
    drafts = []
    for item in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", m.group(0)):
        found = re.fullmatch(rf"(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+(?:about\s+|around\s+|at\s+)?(?P<q>{_QUANTITY})", item.strip(), re.I)
        if not found:
            return None
        attr = " ".join(found["attr"].split())
        if not re.search(r"[a-z%]\s*$|\d:\d", found["q"]) or not _plain_attribute(attr) or attr.split()[0].casefold() in _NOT_FIGURES:
            return None  # "room 12", "down to 88 kg": no figure of a thing
        noun = f"{attr} {head}" if head and head not in attr.split() else attr
        key = attribute_key(noun)
        if key.split("_")[-1] in _ATTR_STOP:
            return None
        held = _held_slot_named(c, noun)
        value = " ".join(found["q"].split())
        if held is not None and held.predicate != key:
            drafts.append(held_replaced(c, held, value, item, *change_time(c, c.text)))
            continue
        drafts.append(state(c, key, value, item, template=f"{{subject}}'s {noun} is {{value}}", changed=bool(c.open_held(key))))
    return drafts or None


def _code(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'parking spot K2-114', 'spot K3-040 from today', 'desk now 7B-21': a thing's code said tersely.
    The held slot a word of it names takes the new code ("spot" for parking_spot); else the thing is new."""
    attr = " ".join(m["attr"].split())
    if re.fullmatch(r"(?i)\d+(?:[.,]\d+)?[a-z]{1,5}", m["v"]):
        return None  # "ran 10km", "meeting 10am": a measure or a time, no code (the figures read those)
    if not _plain_attribute(attr) or attr.split()[0].casefold() in _NOT_FIGURES or attr.split()[-1].casefold() in _NOT_FIGURES:
        return None
    key = attribute_key(attr)
    if not key or key.split("_")[-1] in _ATTR_STOP:
        return None
    held = _held_slot_named(c, attr)
    changed = bool(re.search(r"(?i)\b(?:now|from\s+today|from\s+now)\b", m.group(0)))
    if held is not None and held.predicate != key:
        return [held_replaced(c, held, m["v"], m.group(0), *change_time(c, c.text))]
    return [state(c, key, m["v"], m.group(0), template=f"{{subject}}'s {attr} is {{value}}", changed=changed or bool(c.open_held(key)))]


def _shape(value: str) -> str:
    """A code's shape: letters as A, digits as 9 ("7B-21" -> "9A-99")."""
    return re.sub(r"\d", "9", re.sub(r"[^\W\d_]", "A", value.strip()))


_CORRECTING = re.compile(r"(?i)\b(?:scratch\s+that|no\s+wait|wait\s+no|sorry|correction|my\s+bad|oops|actually|i\s+meant)\b")


def _its_code(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'scratch that, it's 7B-12': a correction of the code last said, found by its shape (the held
    value "7B-21" has the shape of "7B-12"); it was never the old one."""
    if not _CORRECTING.search(c.lead + " " + c.text):
        return None
    shaped = [h for h in c.open_held() if h.cardinality == "one" and h.predicate not in ("name", "note", "ended")
              and _shape(h.value) == _shape(m["v"]) and h.value != m["v"]]
    if not shaped:
        return None
    held = max(shaped, key=lambda h: (h.tx_from, h.id))
    return [corrected_state(c, held.predicate, m["v"], m.group(0), template=f"{{subject}}'s {held.predicate.replace('_', ' ')} is {{value}}")]


_NOT_HEADS = frozenset("now currently still just also only maybe like than then and or but so was is were plus each every".split())
_NOT_FIGURES = frozenset("down up to at from about around by of in on for with day days week weeks page room level step".split())


_COUNTS = {"once": "1", "twice": "2", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7"}


def _activity(word: str) -> str:
    """'running', 'runs', 'run' -> 'run'; 'swimming' -> 'swim'."""
    word = word.casefold()
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
        if len(word) > 2 and word[-1] == word[-2]:
            word = word[:-1]
    elif word.endswith("s") and len(word) > 3:
        word = word[:-1]
    return word


def _how_often(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I'm running 4 times a week', 'cut down to 3 runs a week', 'I swim twice a week': how often the user
    does a thing (one slot per activity)."""
    act = _activity(m["act"])
    if act in ("time", "day", "week", "hour", "minute", "morning", "evening", "night", "work", "meeting", "go", "do", "be"):
        return None
    value = " ".join(m["freq"].split())
    key = attribute_key(f"{act} frequency")
    return [state(c, key, value, m.group(0), template=f"{{subject}}'s {act} frequency is {{value}}", changed=bool(c.open_held(key)))]


# One figure said as a fragment ("rent 1,240", "target 30k", "squat 1RM is 110kg", "pot's at 16,400",
# "take home's 3,480 now"): a short head, an optional link word, a number with its unit.
_FIGURE_ITEM = re.compile(
    r"(?i)(?:the\s+|my\s+|our\s+)?(?P<attr>[a-z][\w\-]*(?:\s+[a-z0-9][\w\-]*){0,2}?)"
    r"(?:\s+(?:is|are|at|of)|['’]s(?:\s+at)?|\s*[:=])?\s+(?:now\s+|still\s+|currently\s+)?(?:at\s+)?(?:about\s+|around\s+|roughly\s+)?"
    r"(?P<q>[$€£]?\d[\d.,:]*(?:\s*(?:k|kg|kgs|kilos|lbs?|km|kms|mi|miles|min|mins|minutes|secs|reps|%|bpm|cm|mm|ml|mg|iu|w|watts)\b|%)?"
    r"(?:\s+(?:a|per)\s+(?:day|week|month|year|km|mile))?)(?P<now>\s+(?:now|tho|though|lol|btw|today))?"
)
_WEEK_AND_MONTH_WORDS = frozenset(MONTHS) | frozenset(WEEKDAYS)  # with their short forms ("sept", "thu")


def _figure_item(text: str) -> re.Match[str] | None:
    """`text` as one figure of a thing (_FIGURE_ITEM), or None: its head names no time, place in a
    sequence or pronoun, and its number reads as a measure (a unit, a sum, a decimal, a time, two digits)."""
    m = _FIGURE_ITEM.fullmatch(text.strip(" .!"))
    if not m:
        return None
    words = m["attr"].casefold().split()
    if (words[0] in _NOT_FIGURES or any(w in _NOT_HEADS for w in words) or words[-1] in _NOT_FIGURES or not _plain_attribute(m["attr"])
            or any(w in _WEEK_AND_MONTH_WORDS for w in words) or words[-1] in _ATTR_STOP or words[-1] in ("times", "x")):
        return None
    q = m["q"]
    if not re.search(r"[a-z%]\s*$|[$€£]|\d,\d{3}|\d\.\d|\d:\d|\d\d|\d\s*k$", q, re.I):
        return None
    return m


def _figure(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'rent 1,240', 'pot's at 16,400', 'take home's 3,480 now': one figure of a thing, its own slot (or
    the held slot its head names)."""
    found = _figure_item(c.text)
    if found is None:
        return None
    attr = " ".join(found["attr"].split())
    key = attribute_key(attr)
    value = " ".join(found["q"].split())
    held = _held_slot_named(c, attr)
    if len(attr.split()) == 1 and re.fullmatch(r"\d+(?:\.\d+)*", value) and not (held is not None and held.value[:1].isdigit()):
        value = f"{attr} {value}"  # "node 20", "wanikani 27": a bare number says little without its name (unless held so)
    if held is not None and held.predicate != key:
        return [held_replaced(c, held, value, c.text, *change_time(c, c.text))]
    return [state(c, key, value, c.text, template=f"{{subject}}'s {attr} is {{value}}",
                  changed=bool(c.open_held(key)) or bool(found["now"] and "now" in found["now"]))]


class _Swapped:
    """A match read by group name with a pattern's other spelling of a group (`v2` for `v`) standing in
    when the first did not take part: one builder for alternatives that name their parts apart."""

    def __init__(self, m: re.Match[str], others: dict[str, str] | None = None) -> None:
        self._m = m
        self._others = others or {"v": "v2", "thing": "thing2"}

    def __getitem__(self, name: str) -> str:
        value = self._m.group(name)
        if value is None and name in self._others:
            value = self._m.group(self._others[name])
        return value

    def group(self, index: int | str = 0) -> str:
        return self._m.group(index)

    def end(self) -> int:
        return self._m.end()


class _Named(_Swapped):
    """A match whose value `v` is read as a name (typed small, given its capitals)."""

    def __init__(self, m: re.Match[str], value: str) -> None:
        super().__init__(m)
        self._value = value

    def __getitem__(self, name: str) -> str:
        return self._value if name == "v" else super().__getitem__(name)


_ORG = r"[A-Z][\w&'’\-]*(?:\s+(?:&\s+)?[A-Z][\w&'’\-]*){0,3}"
# A day said for a job's start or end ("4 August", "August 4th", "monday", "next week").
_DAY_SAID = r"\d{1,2}(?:st|nd|rd|th)?\s+[a-z]+|[a-z]+\s+\d{1,2}(?:st|nd|rd|th)?|monday|tuesday|wednesday|thursday|friday|next\s+\w+"
_STARTS = re.compile(rf"(?i)\bstart(?:s|ing)?\s+(?:on\s+|in\s+)?(?P<when>(?:{_DAY_SAID}))")


def _took_offer(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'took the Pellory offer!!! … start 4 August', 'accepted an offer from Pellory': a new job, from
    the start it names (ahead of when it was said) or from when it was said."""
    org = clean_value(m["org"] or m["org2"] or "")
    if not org or _BAD_VALUE.match(org) or normalise(org) in _CALENDAR_WORDS:
        return None
    start, phrase = c.said_at, ""
    begins = _STARTS.search(c.turn)
    if begins:
        # "start 4 August" said in July is this August's 4th: a start is ahead of the offer taken
        span = resolve_time_phrase(begins["when"], c.said_at, ahead=True)
        if span is not None and span.valid_from is not None:
            start, phrase = span.valid_from, begins.group(0)
    held = c.open_held("works_at")
    if held and held[0].value_key == normalise(org):
        return None
    drafts = [draft("supersede" if held else "add", c.subject, "works_at", org, m.group(0), cardinality="one",
                    template=WORKS[1], valid_from=start, phrase=phrase)]
    pay = _OFFERED_PAY.findall(c.turn)
    if len(pay) == 1:
        # "took the Pellory offer!!! senior planner, £48k, start 9 June": what it pays, from the same start
        paid = c.open_held("salary")
        if not paid or paid[0].value_key != normalise(pay[0]):
            drafts.append(draft("supersede" if paid else "add", c.subject, "salary", pay[0], m.group(0), cardinality="one",
                                template="{subject}'s salary is {value}", valid_from=start, phrase=phrase))
    return drafts


# A yearly figure an offer names: "£48k", "$112,000", "€61.5k" (not "£40 a month", "$12/h").
_OFFERED_PAY = re.compile(r"(?<![\w.])[£$€]\s?\d{2,3}(?:(?:\.\d)?k\b|,\d{3}\b(?![.,]\d))(?!\s*(?:/|an?\s+|per\s+)(?:h|hr|hour|day|week|month|mo)\b)", re.I)


def _org_held(c: Clause, org: str) -> ClaimVersion | None:
    """The held works_at that `org` names: the same name, its first word ("Carnhallow" for "Carnhallow
    Studio") or its initials ("B&P" for "Brackley & Pumfrey")."""
    key = normalise(org)
    for held in c.open_held("works_at"):
        words = re.findall(r"[A-Za-z][\w'’\-]*", held.value)
        initials = "".join(w[0] for w in words if w.casefold() not in ("and", "of", "the", "de")).casefold()
        if key in (held.value_key, normalise(words[0]) if words else "", initials) or (
            len(key) > 1 and key.replace("&", "").replace(" ", "") == initials
        ):
            return held
    return None


def _days_before(said_at: str, days: int) -> str:
    moment = to_datetime(said_at) - timedelta(days=days)
    return format_time(moment.replace(hour=0, minute=0, second=0, microsecond=0))


# Places a first day is at that name no employer ("first week at uni done").
_NOT_WORKPLACES = frozenset(
    "work uni university college school home camp nursery daycare kindergarten gym church the my our a an this that last "
    "last least job office hospital clinic practice studio site".split()
)
_FIRST_SPAN = {"day": 0, "shift": 0, "morning": 0, "week": 7, "fortnight": 14, "month": 30}


_WORKY = re.compile(r"(?i)\b(?:job|work|working|role|position|team|colleagues?|boss|manager|office|onboarding|induction|hired|offer|notice|shift)\b")


def _first_at(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'first week at Carnhallow done', 'first day at Quarlow tomorrow': the user works there, since that
    first day (a week back for a first week done; the day its time words name, ahead of when said)."""
    small = m["small"]
    if small and small.casefold() in _NOT_WORKPLACES:
        return None  # "first week at uni", "first day at school": no one's name
    if not (_WORKY.search(c.turn) or any(h.predicate == "works_at" for h in c.held()) or _ORG_WORDS.search(" " + (m["v"] or ""))):
        return None  # "my first day at Disneyland was magic": a first day, not at a job
    org = small.capitalize() if small else clean_value(m["v"])
    if not org or _BAD_VALUE.match(org) or normalise(org) in _CALENDAR_WORDS or _someone_elses(c.text[: m.start("small" if small else "v")]):
        return None
    if _org_held(c, org) is not None:
        return None  # already held there
    rest = c.text[m.end():]
    phrase = find_time_phrase(rest) or ""
    span = resolve_time_phrase(phrase, c.said_at, ahead=True) if phrase else None
    if span is not None and span.valid_from is not None:
        start = span.valid_from
    else:
        start, phrase = _days_before(c.said_at, _FIRST_SPAN[m["span"].casefold()]), ""
    return [state_from(c, "works_at", org, m.group(0), template=WORKS[1], start=start, phrase=phrase)]


def _last_day_at(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'last day at B&P is 3 Oct', 'my last day at Pellow was Friday': the held job ends after that day."""
    org = clean_value(m["v"] or "")
    held = _org_held(c, org) if org else (c.open_held("works_at")[0] if len(c.open_held("works_at")) == 1 else None)
    if held is None:
        return None
    span = resolve_time_phrase(m["when"], c.said_at, ahead=not re.match(r"(?i)was\b", m["verb"]))
    if span is None or span.valid_from is None:
        return None
    end = format_time(to_datetime(span.valid_from) + timedelta(days=1))
    if end <= held.valid_from:
        return None
    return [draft("retract", c.subject, "works_at", held.value, m.group(0), cardinality="one", template=WORKS[1],
                  valid_from=end, phrase=m["when"])]


def _start_at(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I start at Quarlow on Monday', 'starting at Pellory in March': a new job from the day named."""
    org = clean_value(m["v"])
    if not org or _BAD_VALUE.match(org) or normalise(org) in _CALENDAR_WORDS or _someone_elses(c.text[: m.start("v")]):
        return None
    if _org_held(c, org) is not None:
        return None
    span = resolve_time_phrase(m["when"], c.said_at, ahead=True)
    if span is None or span.valid_from is None:
        return None
    return [state_from(c, "works_at", org, m.group(0), template=WORKS[1], start=span.valid_from, phrase=m["when"])]


def state_from(c: Clause, predicate: str, value: str, quote: str, *, template: str, start: str, phrase: str) -> Draft:
    """A `one` slot's new value from `start`: superseding what it holds open, else an add."""
    held = [h for h in c.open_held(predicate) if h.value_key != normalise(value)]
    return draft("supersede" if held else "add", c.subject, predicate, value, quote, cardinality="one", template=template,
                 valid_from=start, phrase=phrase)


# A measured value: money, or a number with its unit (the unit is what ties it to a held slot).
_MEASURE_UNITS = r"kgs?|kilos|lbs?|km|kms|mi|miles|mg|mcg|ml|iu|bpm|cm|mm|%|k"
_MEASURE = re.compile(
    rf"(?i)(?P<m>(?P<cur>[£$€])\s?\d[\d,.]*\s*k?\b|\d[\d,.]*(?::\d\d)?\s*(?P<unit>{_MEASURE_UNITS})(?![\w])"
    r"(?:\s*(?:per|/|a)\s*(?:km|mile|mi|day|week|month))?)"
)
_UNITS_ALIKE = {"kgs": "kg", "kilos": "kg", "lb": "lbs", "kms": "km", "miles": "mi"}
# Words of a slot's name too general to say which slot a figure belongs to ("bench max": "bench" says it).
_GENERAL_SLOT_WORDS = frozenset("max pb pr best current weekly daily monthly rate level dose amount total number count my new usual".split())


_FROM_AHEAD = re.compile(rf"(?i)\b(?:from|starting|as\s+of|come)\s+(?:next\s+)?(?:{'|'.join(sorted(MONTHS))}|{'|'.join(sorted(WEEKDAYS))}|week|month|year)\b")


# Words saying a figure moved without naming what moved ("so we're down to", "it's now at").
_MOVED_WORDS = frozenset(
    "so and but we re i m it s is are was were now at down up back to dropped fell rose went gone our my"
    # verbs and time words that name no slot ("hit 77.5 kg on saturday" after "bench finally moved!!")
    " hit hitting reached managed got did finally already just new today yesterday on".split()
)


def _unit_of(measure: re.Match[str]) -> str:
    if measure["cur"]:
        return measure["cur"]
    unit = measure["unit"].casefold()
    return _UNITS_ALIKE.get(unit, unit)  # "42 km a week" is in the unit of a held "20 km" (weekly mileage)


def _figure_alone(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'91.6 today.', '89.3!!!!' in a log: a number said alone is the new value of the one held figure it
    is within a tenth of (in that figure's unit), when exactly one is; else nothing is read."""
    number = float(m["n"])
    near = []
    for held in c.open_held():
        said = re.fullmatch(r"(?i)(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>[a-z%]{1,5})?", held.value.strip())
        if held.cardinality != "one" or held.predicate in ("note", "ended", "name") or said is None:
            continue
        if m["unit"] and (said["unit"] or "").casefold() != m["unit"].casefold():
            continue
        old = float(said["n"])
        if old and number != old and abs(number - old) / old <= 0.1:
            near.append((held, said["unit"] or ""))
    measured = [n for n in near if n[1]]
    if len(near) > 1 and len(measured) == 1:
        near = measured  # a log's number said alone goes on the one measure held near it ("89.3" after "91.6 kg")
    if len(near) != 1:
        return None  # no held figure near it, or several: a number alone says too little
    held, unit = near[0]
    value = f"{m['n']} {unit}".strip() if not unit.startswith("%") else f"{m['n']}{unit}"
    start, phrase = change_time(c, c.text, value)
    return [held_replaced(c, held, value, m.group(0), start, phrase)]


def _measure_moved(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'bench finally moved: 75 kg for a single', 'resting heart rate's down to 52 bpm': a figure in the
    unit of one held slot whose name the clause says is that slot's new value."""
    measures = list(_MEASURE.finditer(c.text))
    if len(measures) > 1:
        # "ate £600 of the fund, so we're down to £3,400": the figure the thing moved to
        moved_to = [f for f in measures if re.search(r"(?i)\b(?:(?:down|up|back)\s+to|now(?:\s+at)?|at)\s*$", c.text[: f.start()])]
        measures = moved_to
    if len(measures) != 1:
        return None  # several figures: which is which is for the list patterns
    measure = measures[0]
    if re.match(r"(?i)\s+(?:of|out\s+of|from|off)\b", c.text[measure.end():]):
        return None  # "ate £600 of the emergency fund", "took £80 out of savings": an amount taken, not the value
    unit = _unit_of(measure)
    # the words before it, with the clause's lead ("bench finally moved: 75 kg" splits at the colon)
    own = {w.casefold().rstrip("s") for w in re.findall(r"[A-Za-z]+", f"{c.lead} {c.text[: measure.start()]}")}
    if not own - _MOVED_WORDS:
        # nothing named before the figure ("so we're down to £3,400"): what the turn named before the clause
        at = c.turn.find(c.text)
        own |= {w.casefold().rstrip("s") for w in re.findall(r"[A-Za-z]+", c.turn[:at] if at > 0 else "")}
    slots = []
    for held in c.open_held():
        said = _MEASURE.search(held.value)
        if held.cardinality != "one" or held.predicate in ("note", "ended", "name") or said is None or _unit_of(said) != unit:
            continue
        named = {w.rstrip("s") for w in held.predicate.split("_") if w not in _GENERAL_SLOT_WORDS}
        if named and named & own:
            slots.append(held)
    if len(slots) != 1:
        return None
    value = " ".join(measure["m"].split())
    held = slots[0]
    if normalise(value) == held.value_key or re.sub(r"\D", "", value) == re.sub(r"\D", "", held.value):
        return None
    if _FROM_AHEAD.search(c.text[measure.end():]):
        return None  # "… to €975 from May": a change ahead, dated by the patterns that read plans
    ahead = find_time_phrase(c.text[measure.end():])
    # ("hit 77.5 kg on saturday": done, so the Saturday before, not a change ahead)
    done = re.search(r"(?i)\b(?:hit|did|got|ran|lifted|was|were|[a-z]{3,}ed)\b", c.text[: measure.start()])
    span = resolve_time_phrase(ahead, c.said_at, ahead=not done) if ahead else None
    if span is not None and span.valid_from is not None and span.valid_from > c.said_at:
        return None  # "raising the rent to €975 from May": a change ahead, dated by the patterns that read plans
    start, phrase = change_time(c, c.text[measure.end():] or c.text)
    return [held_replaced(c, held, value, c.text, start, phrase)]


_SHARES_A_HOME = frozenset("flatmate roommate housemate lodger flat-mate room-mate house-mate".split())


def _moved_out(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'Ondine moved out': a flatmate (roommate, lodger) held by that name no longer is one, from when said."""
    held = [h for h in c.held(m["who"]) if h.valid_to is None and h.predicate == "relation" and h.value.casefold() in _SHARES_A_HOME]
    if not held:
        return None
    start, phrase = change_time(c, c.text)
    return [draft("retract", h.subject, "relation", h.value, m.group(0), cardinality="many", template="{subject} is the user's {value}",
                  valid_from=max(start, h.valid_from) if start else None, phrase=phrase) for h in held]


def _pastime_at(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I swim at Ridgeway Leisure Centre', 'now I climb at Greyholm Walls': where the user does it (one
    place a pastime; a new one replaces it)."""
    place = clean_value(m["v"])
    if not place or _BAD_VALUE.match(place) or normalise(place) in _CALENDAR_WORDS:
        return None
    act = " ".join(m["act"].casefold().split())
    verb, _, rest = act.partition(" ")
    said = {"do": "does", "box": "boxes"}.get(verb, verb + "s") + (f" {rest}" if rest else "")
    key = attribute_key(f"{act} at".replace("do ", ""))
    return [state(c, key, place, m.group(0), template=f"{{subject}} {said} at {{value}}", changed=bool(_CHANGE.search(c.turn)))]


def _pay_bumped(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'got bumped to £64k', 'I was raised to €58,000': the held pay's new value (the one held slot of pay)."""
    value = clean_value(m["v"])
    held = [h for h in c.open_held() if re.search(r"salary|pay|wage|rate", h.predicate) and re.search(r"\d", h.value)]
    if len({h.predicate for h in held}) > 1:
        return None  # two held amounts: which one changed is not said
    start, phrase = change_time(c, c.text[m.end():] or c.text)
    if held:
        if held[0].value_key == normalise(value):
            return None
        return [held_replaced(c, held[0], value, m.group(0), start, phrase)]
    return [draft("add", c.subject, "salary", value, m.group(0), cardinality="one", template="{subject}'s salary is {value}",
                  valid_from=start, phrase=phrase)]


def _called(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I run a small cafe called Gannet & Gorse', 'I play in a ceilidh band called Harrow Reel': what the user's
    thing of that kind is called (its head word names the slot: "what's my band called?")."""
    name = clean_value(m["v"])
    kind = m["kind"].casefold().split()
    if not name or _BAD_VALUE.match(name) or kind[-1] in _NOT_CALLED:
        return None
    # what the clause goes on to say is read too ("…, 4 of us"); a head that says only that it is a place
    # names the slot with the word before it ("a coworking space": the coworking)
    head = kind[-2] if len(kind) > 1 and kind[-1] in ("space", "place", "spot", "venue", "thing") else kind[-1]
    return [state(c, attribute_key(head), name, m.group(0), template=f"{{subject}}'s {' '.join(kind)} is called {{value}}",
                  changed=bool(_CHANGE.search(c.text)))] + _read_after(c, m.end())


# Kinds a thing "called X" is not the user's own of: a person or animal is named as such elsewhere
# (a pet, a relative), and "a guy called X" is someone.
_NOT_CALLED = frozenset("guy man woman lady girl boy bloke person friend mate colleague dog cat puppy kitten pet horse".split())


def _in_band(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I'm in salary band S3', 'I'm in class 4B at the moment': the user's place in a graded thing, a
    code with letters and digits (a bare number or a name is read elsewhere, or not at all)."""
    attr = " ".join(m["attr"].casefold().split())
    key = attribute_key(attr)
    if not key or key.split("_")[-1] in _ATTR_STOP:
        return None
    return [state(c, key, m["v"], m.group(0), template=f"{{subject}}'s {attr} is {{value}}", changed=bool(_CHANGE.search(c.text)))]


def _allergic(m: re.Match[str], c: Clause) -> list[Draft] | None:
    """'I'm allergic to latex', 'allergic to cats and dust': what the user is allergic to (many)."""
    parts = [clean_value(p) for p in re.split(r",\s*|\s+and\s+", m["v"]) if clean_value(p)]
    if not parts or any(_BAD_VALUE.match(p) or len(p.split()) > 3 for p in parts):
        return None
    return [state(c, "allergic_to", _ARTICLES.sub("", p), m.group(0), template="{subject} is allergic to {value}", changed=False,
                  cardinality="many") for p in parts]


# -- the table -----------------------------------------------------------------------------------

_I = r"^I(?:'ve|\s+have|'m|\s+am)?(?:\s+(?:just|finally|recently|now|also|actually|officially))*"

PATTERNS: tuple[Pattern, ...] = (
    Pattern(
        "a held figure moved",
        re.compile(rf"(?i)^(?=.*?(?:[£$€]\s?\d|\d\s*(?:{_MEASURE_UNITS})(?![\w])))"),
        _measure_moved,
        examples=((("my bench max is 70 kg", "good news though, bench finally moved: 75 kg for a single yesterday"), (("user", "bench_max", "75 kg"),)),
                  (("my bench max is 70 kg", "bench finally moved!! hit 72.5 kg on saturday"), (("user", "bench_max", "72.5 kg"),)),
                  (("resting heart rate 58 bpm", "resting heart rate is down to 52 bpm these days"), (("user", "resting_heart_rate", "52 bpm"),))),
        counter=("ran 10 km today", "bought 2 kg of flour"),
    ),
    Pattern(
        "a held figure said alone",
        re.compile(r"(?i)^(?P<n>\d{1,4}(?:\.\d{1,2})?)(?:\s*(?P<unit>kg|kgs|lbs?|km|bpm|%))?(?:\s+(?:this\s+morning|today|tonight|now|lol|tho|though|fyi|btw))*$"),
        _figure_alone,
        examples=((("weigh-in 94.2 kg", "91.6 today", "89.3"), (("user", "weight", "89.3 kg"),)),
                  (("weigh-in 94.2 kg", "squats are 3x8 at 90", "91.6 today"), (("user", "weight", "91.6 kg"),)),
                  (("resting heart rate 61 bpm", "58 this morning"), (("user", "resting_heart_rate", "58 bpm"),))),
        counter=("2024", "12", "3 today"),
    ),
    Pattern(
        "switched to Y, the held X named",
        re.compile(r"^(?:.*?\s)?(?:(?:switched|changed)(?:\s+over)?\s+to|rebooked\s+(?:at|with)|(?:gone|going|went)\s+with|(?:I'm|I\s+am|we're|we\s+are)\s+(?:now\s+)?with)\s+(?:the\s+)?"
                   # what the new one is, before its name: "switched to a firm, Ostrade & Tullwin"
                   r"(?:(?:a|an|another)\s+(?:new\s+)?[a-z]+(?:\s+[a-z]+)?\s*[,:—–-]\s*(?:the\s+)?)?"
                   + PROPER + r"(?=\s*(?:$|[,.!;:]|\s(?:now|instead|from|since|last|this|today|yesterday|at|for|and|but|so)\b))"),
        _switched_from_named,
        examples=((("booked a guesthouse called Casa Quillet, looks tiny", "casa quillet's too small for two so switched to Hotel Brakka"),
                   (("user", "booked", "a guesthouse called Hotel Brakka, looks tiny"),)),
                  (("shipping is Pellbrook Ground for everything", "Pellbrook broke 3 mugs so I've switched to Quistrel"),
                   (("user", "shipping", "Quistrel Ground for everything"),)),
                  (("my GP is Dr. Ambergate", "Dr. Ambergate retired last month, I'm with Dr. Quistrel at the same practice now"),
                   (("user", "gp", "Dr. Quistrel"),)),
                  (("my accountant is Perrin Oakes", "Perrin retired so I've switched to a firm, Ostrade & Tullwin"),
                   (("user", "accountant", "Ostrade & Tullwin"),))),
        counter=("I've switched to Quistrel",),
    ),
    Pattern(
        "Y, not the held X",
        re.compile(r"(?i)^(?:.*?\b(?:on|at|in|with|use|using|it's|it\s+is|is|was|meant)\s+)?(?:the\s+)?(?P<new>[^,;]{1,40}?),?\s+not\s+(?:the\s+)?(?P<old>[^\s,;.!?][^,;.!?]{0,30}?)\s*[.!]*$"),
        _not_the_held,
        examples=((("our warehouse is Pellbrook", "wait, we're on Quistrel, not Pellbrook"), (("user", "warehouse", "Quistrel"),)),
                  (("my appointment is on 12 May at 4:15", "3:45, not 4:15. just checked"), (("user", "appointment", "on 12 May at 3:45"),))),
        counter=("I want tea, not coffee", "we're on Quistrel, not Pellbrook"),
    ),
    Pattern(
        "swapped X for Y as the Z",
        _SWAPPED_AS,
        _swapped_as,
        examples=((("we swapped Memcord out for Tallyvine as the job queue this week",), (("user", "job_queue", "Tallyvine"),)),
                  (("our job queue is Memcord", "we replaced Memcord with Tallyvine as the job queue"), (("user", "job_queue", "Tallyvine"),))),
        counter=("we swapped seats for the second half",),
    ),
    Pattern(
        "ditched X for Y",
        re.compile(_DITCHED.pattern.replace(r"\b(?:ditched", r"^(?:.*?\s)?(?:ditched", 1)
                   + "|^.*?" + _INSTEAD_OF.pattern.replace("(?i)", "").replace("(?P<old>", "(?P<old2>")
                   + "|^.*?" + _GONE.pattern.replace("(?P<old>", "(?P<old3>"), re.I),
        _ditched,
        examples=((("CI is Travis", "we ditched Travis, everything runs on Drone now"), (("user", "ci", "Drone"),)),
                  (("our orchestrator is Pellbrook", "we finally got off Pellbrook, everything's been running on Quistrel since last week"),
                   (("user", "orchestrator", "Quistrel"),)),
                  (("hosting is Pellbrook", "we moved hosting off Pellbrook to Quistrel two weeks ago"), (("user", "hosting", "Quistrel"),)),
                  (("our stack is Go on Kubernetes (AKS)", "scratch AKS, we moved to DOKS last month"), (("user", "stack", "Go on Kubernetes (DOKS)"),)),
                  (("I drive a Corvanne 3", "sold the Corvanne and bought a Tessly Fabrin"), (("user", "drives", "Tessly Fabrin"),)),
                  (("I use Quillnote for notes", "moved all my notes from Quillnote to Obsivault"), (("user", "uses", "Obsivault for notes"),)),
                  (("my gym is Ironhall", "I go to Kettleworks Gym now instead of Ironhall"), (("user", "gym", "Kettleworks Gym"),)),
                  (("our CI is Trundle", "we're on Kestrelworks now, trundle is gone"), (("user", "ci", "Kestrelworks"),)),
                  (("I drive a Corvanne 3", "traded the corvanne in for a Tessly Fabrin last week"), (("user", "drives", "Tessly Fabrin"),))),
    ),
    Pattern(
        "ditched a tool of a kind",
        _DITCHED_A_KIND,
        _ditched_a_kind,
        examples=((("we ditched pellmark CI last sprint, everything builds on Quorrow now",), (("user", "ci", "Quorrow"),)),
                  (("our CI is Tarnhill", "we dropped tarnhill CI, it all runs on Quorrow now"), (("user", "ci", "Quorrow"),))),
        counter=("we ditched the old CI",),
    ),
    Pattern(
        "version bump",
        re.compile(r"^(?:.*?\s)?(?:(?:bumped|upgraded|updated|moved|migrated|went)\s+(?:(?P<thing>the\s+[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?|[a-z][\w\-]*)\s+)?(?:up\s+)?to|(?i:we're|we\s+are|I'm|I\s+am|it's|it\s+is)\s+(?i:now\s+|(?P<still>still)\s+)?(?i:on))\s+(?:(?:a|an|the)\s+)?(?P<name>[A-Z][\w.+\-]*)\s+v?(?P<ver>\d+(?:\.\d+)*)(?!\w)(?P<now>\s+now\b)?"),
        _version_bump,
        examples=((("our stack is Django 4.2 on Postgres 15", "we bumped to Django 5.1 last week"), (("user", "stack", "Django 5.1 on Postgres 15"),)),
                  (("ops upgraded the db to MariaDB 11.4 over the weekend",), (("user", "db", "MariaDB 11.4"),)),
                  (("we're still on Elm 0.18 at work (ugh)",), (("user", "elm_version", "Elm 0.18"),))),
        counter=("I moved to Room 4",),
    ),
    Pattern(
        "it's Y now",
        re.compile(r"(?i)^(?:.*?\b)?(?:it['’]?s|it\s+is|we['’]re|we\s+are|I'm\s+(?:at|in)|I\s+am\s+(?:at|in)|I\s+go\s+to|(?:(?:I'm|I\s+am|we're|we\s+are)\s+)?(?:seeing|using|on))\s+(?:now\s+)?(?:the\s+)?(?P<v>(?-i:[A-Z0-9][^,;]*?|[a-z][\w.\-]*\d[\w.\-]*)|(?:mon|tues|wednes|thurs|fri|satur|sun)days?(?:\s+(?:mornings?|evenings?|nights?))?)\s+(?:now|instead)\b"
                   r"|^.*?\b(?:changed|moved|is\s+different),\s+(?:it's\s+)?now\s+(?:on\s+|at\s+|with\s+|seeing\s+)?(?P<v2>(?-i:[A-Z0-9][^,;]*?|[a-z][\w.\-]*\d[\w.\-]*))\s*$"),
        lambda m, c: _now_it_is(_Swapped(m), c),
        examples=((("remember: locker code at the pool is 1234", "pool locker changed, it's 5678 now"), (("user", "locker_code_at_the_pool", "5678"),)),
                  (("I play in a ceilidh band called Harrow Reel", "renamed the band, we're Reel Thing now"), (("user", "band", "Reel Thing"),)),
                  (("my gym is Fitbox", "switched gyms, I'm at Corehouse now"), (("user", "gym", "Corehouse"),)),
                  (("Hi, I'm Aino Laine", "we got married! I'm taking his name so it's Aino Koski now"), (("user", "name", "Aino Koski"),)),
                  (("note: my desk at the office is D-12", "desks got reshuffled, I'm in F-03 now"), (("user", "desk_at_the_office", "F-03"),)),
                  (("remember: bike lock code 4471", "lock code changed, now 6092"), (("user", "bike_lock_code", "6092"),)),
                  (("remember: bike lock code 4471", "lock code changed, its 6092 now"), (("user", "bike_lock_code", "6092"),)),  # typed without its apostrophe
                  (("my dentist is Dr. Okafo", "switched dentists, seeing Dr. Quarles now"), (("user", "dentist", "Dr. Quarles"),)),
                  (("my yoga class is on Mondays", "yoga's on fridays now"), (("user", "yoga_class", "fridays"),)),
                  (("my flight is QX 117 on May 3", "flight changed, now on QX 119"), (("user", "flight", "QX 119"),)),
                  (("I booked 2 nights at the Harbour Inn", "the harbour inn was full so I'm at the Quayside Lodge instead"),
                   (("user", "booked", "Quayside Lodge"),))),
        counter=("it's Monday now",),
    ),
    Pattern(
        "X changed to Y",
        re.compile(r"(?i)^(?:.*?(?:[,;]\s*|\b(?:so|and|but|also)\s+))?(?:(?:my|our|the)\s+)?(?P<thing>[a-z][\w'’\-]*(?:\s+[a-z][\w'’\-]*){0,4}?)\s+(?:has\s+|have\s+|just\s+|was\s+|got\s+)?"
                   r"(?:changed|moved|moves|moving|went\s+(?:up|down)|increased|decreased|dropped|rose|gone\s+(?:up|down)"
                   r"|(?:been\s+|is\s+|was\s+|got\s+)?(?:pushed|postponed|rescheduled|put\s+back|brought\s+forward))(?:\s+(?:back|forward))?"
                   r"(?:\s+(?:this|last)\s+\w+|\s+today|\s+again)?(?:\s+(?:to|from\s+[^,;]+?\s+to)\s+|\s*[,;:]\s*(?:it's\s+|it\s+is\s+|now\s+|it's\s+now\s+)+)"
                   r"(?P<v>(?-i:[A-Z0-9€$£#](?:[^,;]|,(?=\d))*?)|(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b[^,;]*?"
                   r"|(?:the\s+\d{1,2}(?:st|nd|rd|th)|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?)\b[^,;]*?)"
                   r"(?=\s*(?:$|[,;.!](?!\d)|\s+(?:now|from|since|as|because|instead)\b))"),
        _changed_to,
        examples=((("remember door code at dad's block is 3390", "dad's door code changed to 5127. forget the old one"),
                   (("user", "door_code_at_dad's_block", "5127"),)),
                  (("rent is €1,250 a month", "Rent went up this month, it's €1,310 now"), (("user", "rent", "€1,310"),)),
                  (("swimming moved to Thursdays 4:30, the wednesday slot got cancelled",), (("user", "swimming", "Thursdays 4:30"),)),
                  (("rehearsals moved to tuesday nights because the hall is busy",), (("user", "rehearsals", "tuesday nights"),)),
                  (("bad news: ftp dropped to 209 after a month off",), (("user", "ftp", "209"),)),
                  (("the knee op is on june 2", "knee op got moved back to june 9, theatre's double booked"), (("user", "knee_op", "june 9"),)),
                  (("choir moves to wednesday evenings from next week",), (("user", "choir", "wednesday evenings"),)),
                  (("my sister Elsa lives in Tarnmouth", "elsa's choir moves to friday lunchtimes"), (("Elsa", "choir", "friday lunchtimes"),))),
        counter=("the plan changed to something else", "my mood changed", "it changed to Monday", "my brother moved to Tarnmouth in May",
                 "my friend Tamsk moved to Tarnmouth", "the kids moved to Year 3"),
    ),
    Pattern(
        "X = Y",
        # the sign's value: after "=" or an arrow anything up to the clause's end ("editor=vscode"); after a
        # colon a name, code or number only, and only for a thing said new or held
        re.compile(rf"(?i)^(?:.*?(?:[,;:]\s*|\b(?:so|and|also|plus)\s+))??(?:(?:new|my|our|the)\s+)*"
                   rf"{_SET_TO_THING}\s*(?P<sign>=|→|->|:)\s*{_SET_TO_VALUE}"),
        _set_to,
        examples=((("my landlord is Mr Ruddock", "upd: landlord sold up, new one = Gwendis Marloe. locker combo same"),
                   (("user", "landlord", "Gwendis Marloe"),)),
                  (("my work parking spot is P3-090", "parking → P7-418, they repainted the lot"), (("user", "work_parking_spot", "P7-418"),)),
                  (("my plumber is Evrard Pimm", "forget evrard, he retired. new plumber: Brisco Pipes"), (("user", "plumber", "Brisco Pipes"),)),
                  (("ctx: editor=vscode, shell=zsh",), (("user", "editor", "vscode"), ("user", "shell", "zsh"))),
                  (("ctx: editor=vscode, shell=bash", "ctx update: shell=fish (with starship)"), (("user", "editor", "vscode"), ("user", "shell", "fish"))),
                  (("also landlord = Mr Okwell-Vane, text him",), (("user", "landlord", "Mr Okwell-Vane"),)),
                  (("vet → dr pellow @ hartcombe vets",), (("user", "vet", "Dr Pellow @ hartcombe vets"),))),
        counter=("note to self: Mum's birthday is in May", "2 + 2 = 4", "ratio: 3 to 1", "status: Done", "Vellory → Quenmoor → Cardle",
                 "CI: Jenkins → Drone"),
    ),
    Pattern(
        "heading: Y",
        re.compile(rf"^{_SET_TO_VALUE}"),
        _value_under_heading,
        examples=((("my plumber is Evrard Pimm", "he retired. new plumber: Brisco Pipes"), (("user", "plumber", "Brisco Pipes"),)),
                  (("new dentist: Dr. Quellam",), (("user", "dentist", "Dr. Quellam"),)),
                  (("my manager is Ysolda Ostrand", "new manager as of monday: Kestrin Wrell"), (("user", "manager", "Kestrin Wrell"),)),
                  (("my phone number is 07700 900123", "got a new number: 07700 900456"), (("user", "phone_number", "07700 900456"),))),
        counter=("note to self: Mum's birthday is in May", "status: Done", "Update: Back from holiday"),
    ),
    Pattern(
        "heading: switched to Y",
        re.compile(r"(?i)^(?:I\s+)?(?:(?:switched|changed|moved)\s+(?:over\s+)?to|(?:it's\s+)?now)\s+(?P<v>(?-i:[A-Z0-9][^,;]*?))(?=\s*(?:$|[,;.!]))"),
        _switched_under_heading,
        examples=((("remember car insurance is with Ferrowdale", "insurance: switched to Pellmoor"), (("user", "car_insurance", "Pellmoor"),)),),
        counter=("switched to Monday",),
    ),
    Pattern(
        "staying at",
        re.compile(r"(?i)^(?:I(?:'m|\s+am)|we(?:'re|\s+are)|(?:.*?,\s*)?(?=staying\s))\s*(?:now\s+|also\s+)?staying\s+(?:at|in)\s+(?P<v>(?:the\s+)?(?-i:[A-Z][\w'’&\-]*(?:\s+(?:[A-Z][\w'’&\-]*|of|de|la|am))*))"
                   r"(?:\s+(?:in|on|near|by)\s+(?P<where>(?-i:[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*)?)))?"),
        _staying_at,
        examples=((("I'm staying at the Hotel Varnholm in Asakusa.", "Hotel update: I cancelled the Varnholm, found a better deal at the Corriemoor Lodge"),
                   (("user", "stays_at", "the Corriemoor Lodge"),)),
                  (("I'm staying at the Quayhouse Inn",), (("user", "stays_at", "the Quayhouse Inn"),)),
                  (("Booked Tromvik! Flying out 12 February, back the 19th, staying at the Hotel Skelda.",), (("user", "stays_at", "the Hotel Skelda"),))),
        counter=("I'm staying in tonight", "my sister is staying at the Quayhouse Inn"),
    ),
    Pattern(
        "a named place to stay",
        re.compile(r"^(?!.*\b(?i:cancell?(?:ed|ing)|scrap(?:ped)?)\b)(?!(?:my|our|his|her|their)\s+(?!hotel|room|accommodation)[a-z\-]+\b|(?:he|she|they)\b(?!['’]ve\s+put\s+me)|(?!Accommodation|Hotel|Room)[A-Z][a-z]+\s+(?:is|['’]s|was|are)\s)"
                   r"(?:(?!(?i:(?:I|we)(?:['’]ve|\s+have)?\s+)?(?i:just\s+|also\s+)?(?i:re)?booked\b).*?\b(?:at|in|into|chose|got|found)\s+(?:a\s+)?(?P<v>(?:the\s+)?" + _LODGING_NAMED + r")"
                   r"|.*?\b(?i:accommodation|the\s+hotel|our\s+hotel|my\s+hotel|room)\s+(?i:is\s+|was\s+)?(?i:booked|reserved)\s+(?i:at|in)\s+(?:the\s+)?(?P<v2>[A-Z][\w'’&\-]*(?:\s+[A-Z][\w'’&\-]*){0,3})"
                   r"|.*?\b(?i:booked|found|got)\s+(?:a|an|the)\s+(?:[a-z]+\s+){0,2}?(?i:" + _LODGING_WORDS + r")(?:\s+(?:there|here))?,\s+(?P<v3>[A-Z][\w'’&\-]*(?:\s+[A-Z][\w'’&\-]*){0,3}))"),
        _named_stay,
        examples=((("work put me up in Hotel Varnholm for the week",), (("user", "stays_at", "Hotel Varnholm"),)),
                  (("two nights at Pellby campsite, then home",), (("user", "stays_at", "Pellby campsite"),)),
                  (("work booked me into the Quarrel Bay hotel",), (("user", "stays_at", "the Quarrel Bay hotel"),)),
                  (("the room is booked at the Brisket Grand.",), (("user", "stays_at", "Brisket Grand"),)),
                  (("booked a cheap guesthouse, Casa Tremont",), (("user", "stays_at", "Casa Tremont"),)),
                  (("work put me up in Hotel Varnholm", "the varnholm lost our booking, we're at Tansy Farm cottages instead"), (("user", "stays_at", "Tansy Farm cottages"),))),
        counter=("I'm in Hotel California mode", "my sister is at the Quayside Inn", "we met at a hotel bar"),
    ),
    Pattern(
        "switched X to Y",
        re.compile(r"(?i)^(?:.*?\b)?(?:switch(?:ed|ing)|chang(?:ed|ing)|mov(?:ed|ing)|migrat(?:ed|ing)|port(?:ed|ing))\s+(?:my\s+|our\s+|the\s+)?(?P<thing>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)\s+"
                   r"(?:(?:off|from|away\s+from)\s+(?:the\s+)?(?P<old>[\w.\-]+(?:\s+(?-i:[A-Z])[\w.\-]*)?)\s+)?(?:over\s+)?(?:to|onto)\s+"
                   # (a new value typed small only beside the old one: "migrated CI from gantry to tarnhub actions")
                   r"(?P<v>(?(old)(?!(?:a|an|the|my|our|it|them|mon|tues|wednes|thurs|fri|satur|sun)(?:day)?s?\b)[\w.][^,;]*?|(?-i:[A-Z0-9])[^,;]*?))"
                   r"(?=\s*(?:$|[,;.!]|\s+(?:now|instead|because|since|as|last|this|yesterday|today)\b))"),
        _switched_to,
        examples=((("remember: my home insurance is with Harwick Mutual", "fyi switched home insurance to Quellam & Co, Harwick wanted more"),
                   (("user", "home_insurance", "Quellam & Co"),)),
                  (("fyi we moved CI off trundlebox to Kestrelworks last sprint, builds are faster",), (("user", "ci", "Kestrelworks"),)),
                  (("CI on gantry", "migrated CI from gantry to tarnhub actions, way cheaper"), (("user", "ci", "tarnhub actions"),)),
                  (("also moving my pension from Sedgemoor Life to Wragby Mutual, should go through next week",), (("user", "pension", "Wragby Mutual"),))),
        counter=("I switched to decaf", "switched the lamp from red to a softer light", "moved the standup from monday to tuesday",
                 "moving back to the flat soon"),
    ),
    Pattern(
        "switched Xs, Y",
        re.compile(r"^(?:.*?\b)?(?i:switched|changed|swapped)\s+(?P<thing>(?i:[a-z][\w\-]*s))\s*(?:[—–:,]|\s-)\s*"
                   r"(?:(?i:now|it['’]?s|i['’]m\s+(?:with|at|seeing)|we['’]re\s+(?:with|at))\s+)*(?:the\s+)?" + PROPER
                   # the name ends what is said of it ("swapped hotels, the Brimrun messed up …" names the old one)
                   + r"(?=\s*(?:$|[,;.!(]|\s+(?i:now|instead|from|since|today|this|last|they|it|which|who)\b))"),
        _switched_kind,
        examples=((("my club is Harefield Striders", "i switched clubs — Tolworth Harriers, theyre closer"),
                   (("user", "club", "Tolworth Harriers"),)),
                  (("my dentist is Dr Okafo", "changed dentists - Dr Quarles now"), (("user", "dentist", "Dr Quarles"),)),
                  (("swapped banks, Wragby Mutual now",), (("user", "bank", "Wragby Mutual"),))),
        counter=("switched days, Monday works better", "changed plans, Sedgemoor is off", "switched hands - OK now",
                 "swapped hotels, the Ketteridge messed up my booking"),
    ),
    Pattern(
        "someone changed X to Y",
        re.compile(r"(?i)^(?:.*?\b)?(?:moved|changed|shortened|lengthened|pushed|pushed\s+back|brought\s+forward|rescheduled|extended|shifted)\s+"
                   r"(?:my|our|the|her|his|their)\s+(?P<thing>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)\s+(?:back\s+|forward\s+|up\s+|down\s+|over\s+)?to\s+"
                   + _CHANGED_VALUE + r"(?=\s*(?:$|[,;.!?]|\s+(?:instead|because|since|as|so|but|and|now)\b))"),
        _moved_thing,
        examples=((("the dentist moved my check-up to May 4",), (("user", "check_up", "May 4"),)),
                  (("note to self: the service token rotates every 30 days", "security shortened the token rotation to every 10 days"),
                   (("user", "token_rotation", "every 10 days"),)),
                  (("my tutor moved our lesson to Friday mornings",), (("user", "lesson", "Friday mornings"),))),
        counter=("I moved the couch to the bedroom", "we moved the meeting to later", "I moved to Berlin"),
    ),
    Pattern(
        "someone handles X",
        re.compile(r"^(?:.*?(?:[,;]\s*|\b(?:so|and|also|now)\s+))?(?:(?P<v>(?:Dr\.?\s+)?[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+)?)(?:\s+(?:in|from|on)\s+[a-z]+)?\s+(?:now\s+)?"
                   r"(?:runs|owns|handles|manages|does|leads|is\s+leading|is\s+running|is\s+handling|is\s+covering(?!\s+as\b)|took\s+over|has\s+taken\s+over|is\s+taking\s+over|takes\s+care\s+of|looks\s+after|is\s+in\s+charge\s+of|is\s+responsible\s+for)\s+"
                   r"(?:the\s+|our\s+|my\s+|all\s+the\s+)?(?P<thing>(?:[A-Z][\w\-]*\s+(?=[a-z]))?[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)"
                   r"|(?:the\s+|our\s+|my\s+)?(?P<thing2>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)\s+(?:now\s+)?(?:come|comes)\s+(?:now\s+)?from\s+(?P<v2>[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+)?))"
                   r"(?=\s*(?:$|[,;.!?]|\s+(?:now|from|as\s+of|since|today|these\s+days|on|at|in|for)\b))"),
        lambda m, c: _handles(_Swapped(m), c),
        examples=((("also Tobias runs our deploys, ping him first", "Tobias moved teams, Aiyana runs the deploys now"),
                   (("user", "deploy_contact", "Aiyana"),)),
                  (("Nadia in finance owns the budget numbers", "Corin took over the budget reporting as of today"),
                   (("user", "budget_contact", "Corin"),)),
                  (("the invoices come from Ottla Berg now",), (("user", "invoice_contact", "Ottla Berg"),)),
                  (("My coworker Ysolde Quarrin is leading the Harrowgate migration", "Ysolde got promoted, so Tobrin Keel has taken over the Harrowgate migration"),
                   (("user", "harrowgate_contact", "Tobrin Keel"),))),
        counter=("I run the house", "It does the job", "Monday runs late"),
    ),
    Pattern(
        "where I am",
        re.compile(r"^(?:I\s+)?(?:(?:just\s+|finally\s+)?(?:landed|arrived)\s+(?:in|at)|(?:just\s+|finally\s+)?made\s+it\s+to|got\s+to|I(?:'m|\s+am)\s+(?:now\s+|currently\s+|still\s+)?in)\s+" + PROPER
                   + r"(?=\s*(?:$|[,;.!?]|\s+(?:now|today|yesterday|on|last|this|until|till|for|at\s+the\s+moment|right\s+now)\b))"),
        _is_in,
        examples=((("working remotely this year, I'm in Porto until March 2", "made it to Seville", "landed in Malaga on Sunday"),
                   (("user", "is_in", "Malaga"),)),),
        counter=("I'm in London next week", "I'm in a meeting", "I'm in March"),
    ),
    Pattern(
        "where I am, typed small",
        re.compile(r"^(?:I(?:'m|\s+am)\s+)?(?:(?P<verb>(?:just\s+|finally\s+)?(?:landed|arrived)\s+in|(?:just\s+|finally\s+)?made\s+it\s+to)|in)\s+"
                   r"(?P<v>[a-z][a-z\-]+(?:\s+(?!now\b)[a-z][a-z\-]+)?)(?P<now>\s+now)?(?=\s*(?:$|[,;.!?]|\s+(?:today|yesterday|on|last|this|until|till|for|and|but|so)\b))"),
        _is_in_small,
        examples=((("made it to vellory!! hostel wifi is trash",), (("user", "is_in", "Vellory"),)),
                  (("made it to vellory", "in marrow bay now! my bag strap snapped"), (("user", "is_in", "Marrow Bay"),)),
                  (("made it to vellory", "in cardle now and the altitude is brutal"), (("user", "is_in", "Cardle"),))),
        counter=("made it to bed by 10", "in pain now", "in marrow bay next week", "in the office now", "landed in trouble"),
    ),
    Pattern(
        "flew in yesterday",
        re.compile(r"^(?:.*?,\s*)?(?:I\s+|we\s+)?(?:just\s+|finally\s+)?(?P<verb>flew\s+(?:in)?to|took\s+the\s+(?:night\s+)?(?:bus|train|ferry)\s+to|got\s+into)\s+"
                   r"(?P<v>[A-Za-z][a-z\-]+(?:\s+(?!now\b|yesterday\b|today\b|this\b|last\b)[A-Za-z][a-z\-]+)?)(?P<now>)(?=\s+(?:yesterday|today|this\s+morning|last\s+night)\b)"),
        _is_in_small,
        examples=((("in vellory now", "plans changed, flew to tarrow bay yesterday since the border closed"), (("user", "is_in", "Tarrow Bay"),)),),
        counter=("flew to the moon yesterday lol", "I flew to Paris in 2019", "flew to work yesterday, so late"),
    ),
    Pattern(
        "promoted to",
        re.compile(r"(?i)^I(?:'ve|\s+have)?(?:\s+(?:just|finally|officially))*\s+(?:got\s+|been\s+|was\s+|am\s+)?(?:promoted\s+to|made(?!\s+(?:to|it|sure|up|do|me|a\s+(?:mess|mistake|note|list|plan|booking)))\b)\s+(?:a\s+|an\s+|the\s+)?"
                   r"(?P<v>(?!to\b)[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3}?)(?=\s*(?:$|[,;.!?]|\s+(?:at|from|since|last|this|today|yesterday|on|and|so|which|the\s+day|\w+\s+(?:days?|weeks?|fortnights?|months?)\s+ago)\b))"),
        _promoted,
        examples=((("I'm a junior developer at Pixelwright", "got promoted to senior developer!"), (("user", "job_title", "senior developer"), ("user", "works_at", "Pixelwright"))),
                  (("got promoted to planner II the day before yesterday!!",), (("user", "job_title", "planner II"),))),
        counter=("I was made to wait an hour", "got promoted to the front of the queue lol"),
    ),
    Pattern(
        "covering as",
        re.compile(r"^(?:.*?(?:[,;]\s*|\b(?:so|and|now)\s+))?(?P<v>(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+)?)\s+(?:is\s+|'s\s+)?(?:now\s+)?"
                   r"(?:covering|acting|standing\s+in|filling\s+in|stepping\s+in)\s+as\s+(?:the\s+|our\s+|my\s+)?(?:acting\s+|interim\s+)?"
                   r"(?P<role>(?!(?:if|though|usual|always|normal|such|well|per)\b)[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)(?=\s*(?:$|[,;.!?]|\s+(?:now|until|till|for|while|from|since)\b))"),
        _covering_as,
        examples=((("my team lead is Ozren", "Ozren's on paternity leave, Maelis is covering as team lead"), (("user", "team_lead", "Maelis"),)),),
        counter=("Maelis is acting as if nothing happened",),
    ),
    Pattern(
        "Name is the role",
        re.compile(r"^(?:.*?(?:[,;]\s*|\b(?:so|and|now|but)\s+))?(?P<v>(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?(?-i:[A-Z][\w'’\-]+)(?:\s+(?-i:[A-Z][\w'’\-]+))?)\s+"
                   r"(?:(?:is|['’]s)\s+(?:now\s+)?(?:the\s+|our\s+)?(?:new\s+)?|(?:has\s+)?took\s+over\s+(?:as\s+)?(?:the\s+|our\s+)?|(?:has\s+)?taken\s+over\s+(?:as\s+)?(?:the\s+|our\s+)?)"
                   r"(?P<role>(?:(?!(?:my|our|your|his|her|their|officially|actually|still|also)\b)[a-z][\w\-]*\s+){0,2}(?:" + _ROLE_HEADS + r"))(?=\s*(?:$|[,;.!?(—–]|\s+(?:now|until|till|for|while|from|since|on|at|and|but|so|not|again|this|next|during|in)\b))"),
        _named_in_role,
        examples=((("Quillan Orr is release manager",), (("user", "release_manager", "Quillan Orr"),)),
                  (("Quillan Orr is release manager", "Quillan is off sick, Solenne Vire is release manager this sprint"), (("user", "release_manager", "Solenne Vire"),)),
                  (("Solenne took over primary on-call",), (("user", "on_call", "Solenne"),)),
                  (("Ondrea is the PM",), (("user", "pm", "Ondrea"),))),
        counter=("Quillan is the best", "Solenne is our friend", "Ondrea took over the conversation", "Bo is the manager's son"),
    ),
    Pattern(
        "where I train",
        re.compile(r"^(?:.*?(?:^|[,;:]\s*|\b(?:so|and|but|also|now)\s+))?(?:(?i:I['’]m|I\s+am|we['’]re|we\s+are|I(?:['’]ve|\s+have)?(?:\s+just)?)\s+)?(?i:now\s+|mostly\s+|usually\s+)?"
                   r"(?:(?P<act>(?i:training|swimming|climbing|bouldering|lifting|working\s+out|rowing|skating|lift))\s+(?i:at|in)|(?P<joined>(?i:signed\s+up|joined))\s+(?i:at|with)?)\s+(?:the\s+)?"
                   r"(?P<v>[A-Z][\w'’&\-]*(?:\s+(?:[A-Z][\w'’&\-]*|(?i:leisure\s+centre|sports\s+centre|gym|pool|baths|lido|wall|club)))*)"
                   r"(?=\s*(?:$|[,;.!?(]|\s+(?i:now|instead|for\s+now|these\s+days|on|in|round|near|by|at|with|and|but|so|since|from|every|mon|tues|wednes|thurs|fri|satur|sun)\b))"),
        _where_i_train,
        examples=((("training at Pellhurst gym, tue/thu mornings",), (("user", "gym", "Pellhurst gym"),)),
                  (("day 2 of the log. i lift at Tessmark Barbell every evening",), (("user", "gym", "Tessmark Barbell"),)),
                  (("joined Tollbar gym near the office", "left tollbar, training at Brackwell sports centre now"), (("user", "gym", "Brackwell sports centre"),)),
                  (("the baths are closed, swimming at Corrie Lido these days",), (("user", "pool", "Corrie Lido"),))),
        counter=("training at the moment is hard", "swimming at 7am", "joined Quillan for lunch", "my sister is training at Pellhurst gym",
                 "lift at Tessmark Barbell tomorrow?", "they lift at Corrie Lido"),
    ),
    Pattern(
        "how often",
        re.compile(r"(?i)^(?:.*?\b)?(?:(?:I(?:'m|\s+am)\s+|I've\s+been\s+|been\s+|I\s+)?(?P<act>[a-z]+ing|swim|run|cycle|ride|train|lift|climb|row)\s+(?:about\s+|around\s+)?(?P<freq>(?:\d+|once|twice|one|two|three|four|five|six|seven)(?:\s+times)?\s+(?:a|per)\s+week)"
                   r"|(?:cut\s+(?:it\s+)?(?:down|back)\s+to|down\s+to|up\s+to|went\s+(?:down|up)\s+to|dropped\s+to|stepped\s+up\s+to)\s+(?P<freq2>(?:\d+|one|two|three|four|five|six|seven)\s+(?P<act2>[a-z]+?)s?\s+(?:a|per)\s+week))"),
        lambda m, c: _how_often(_Swapped(m, {"act": "act2", "freq": "freq2"}), c),
        examples=((("I'm running 4 times a week at the moment", "shins hurt so I cut down to 3 runs a week"), (("user", "run_frequency", "3 runs a week"),)),
                  (("I swim twice a week",), (("user", "swim_frequency", "twice a week"),))),
        counter=("I work 5 days a week", "we meet twice a week"),
    ),
    Pattern(
        "medication",
        re.compile(r"(?i)^(?:.*?\b)?(?P<verb>put\s+me\s+on|switched\s+me\s+(?:over\s+)?to|prescribed\s+me|I(?:'m|\s+am)\s+(?:now\s+)?(?:on|taking)|I\s+(?:now\s+)?take|I\s+started\s+(?:on|taking)|(?:the\s+)?dose\s+(?:went|is|was\s+(?:raised|lowered|increased|reduced))(?:\s+(?:up|down))?\s+to|"
                   r"(?:bumped|raised|upped|increased|lowered|reduced|dropped|doubled|halved)(?=\s+(?:me|the|my)\s+[\w\- ]*?\d)|^(?=[a-z][\w\-]+\s+\d))\s*(?P<rest>.+)$"),
        _medication,
        examples=(
            (("My doctor put me on 500 mg of metformin for my blood sugar.",), (("user", "medication", "metformin 500 mg"),)),
            (("I take 50mg of sertraline", "The dose went up to 100 mg of sertraline after my check-up."), (("user", "medication", "sertraline 100 mg"),)),
            (("meds: atenolol 10 mg in the morning", "doc bumped the atenolol to 20 mg"), (("user", "medication", "atenolol 20 mg"),)),
        ),
        counter=("I take the bus to school", "I'm on my way"),
    ),
    Pattern(
        "ended",
        re.compile(
            r"(?i)^(?:I\s+|we\s+)?(?:(?:have|'ve)\s+)?(?:just\s+|finally\s+|officially\s+|recently\s+)?"
            r"(?P<verb>stopped\s+taking|stopped\s+using|stopped\s+drinking|stopped\s+eating|stopped(?=\s+(?:the|my)\s)|quit|gave\s+up|cut\s+out|sold|gave\s+away|got\s+rid\s+of|"
            r"no\s+longer\s+(?:have|own|take|drive|use)|(?:don't|do\s+not)\s+(?:have|own|take|drive|use)(?=.*\bany\s?more\b))\s+(?P<what>.+)$"
        ),
        _ended,
        examples=(
            (("I drive a 2015 Opel Astra.", "Sold the Astra last week."), ()),
            (("I don't have a gym membership anymore",), (("user", "ended", "no longer has a gym membership"),)),
            (("I have a cat", "I don't have a cat anymore"), ()),
            (("I quit coffee in March",), (("user", "ended", "quit coffee"),)),
            (("I cut out sugar in january",), (("user", "ended", "cut out sugar"),)),
        ),
        counter=("I quit?", "I gave up on it", "Don't have time for this", "I cut out early"),
    ),
    Pattern(
        "taken off",
        re.compile(r"(?i)^(?:.*?\b(?:took|taken|has\s+taken|have\s+taken)\s+me|(?:I['’]m|I\s+am|I['’]ve\s+come|I\s+came|came)(?:\s+finally)?)"
                   r"\s+(?P<verb>off)\s+(?!(?:work|sick|duty|the\s+(?:hook|list|rota|team|case|project)|to\b)\b)(?P<what>.+)$"),
        _ended,
        examples=((("Dr. Penhallow started me on sertavex 20 mg", "Dr. Penhallow took me off sertavex completely last month"), ()),
                  (("meds: atenolol 10 mg in the morning", "I'm off the atenolol now"), ())),
        counter=("I'm off to Lisbon tomorrow", "took me off the project", "I'm off work till Monday"),
    ),
    Pattern(
        "no longer does X",
        re.compile(r"(?i)^(?:I|we)(?:\s+(?P<dont>don't|do\s+not|no\s+longer)\s+(?:really\s+)?(?P<verb>[a-z]+)(?:\s+(?:to|at|in|with|on))?|(?P<am>'m|\s+am|'re|\s+are)\s+(?:not|no\s+longer)\s+(?:a\s+|an\s+|on\s+|with\s+|at\s+|in\s+)?)\s*(?P<what>[^,;]+?)(?:\s+any\s?more)?(?=\s*(?:$|[,;.!]))"),
        _no_longer,
        examples=((("I play bandy every weekend", "I don't play bandy anymore"), ()),
                  (("I'm vegetarian", "I'm not vegetarian anymore, I eat fish again"), ()),
                  (("we use Trello for sprints", "we no longer use Trello"), ())),
        counter=("I don't eat meat", "I'm not sure anymore", "I don't know anymore"),
    ),
    Pattern(
        "someone left",
        re.compile(r"^(?:.*?(?:[,;:]\s*|\b(?:so|and|also|but|btw|fyi)\s+))?(?P<who>(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+)?)\s+(?:has\s+|had\s+|just\s+|finally\s+|officially\s+)*"
                   r"(?:left|quit|retired|resigned|moved\s+on|is\s+leaving|was\s+(?:let\s+go|laid\s+off|fired|made\s+redundant)|got\s+(?:let\s+go|laid\s+off|fired|poached)|"
                   r"(?:moved|changed|switched)\s+teams|moved\s+(?:over\s+)?to\s+(?:the\s+|another\s+|a\s+different\s+)?[a-z]+\s+team)\b"),
        _someone_left,
        examples=((("my reviewer is Fabrizio Lenz", "Fabrizio left on Friday :( Gwenllian does my reviews now"), ()),
                  (("my dentist is Dr. Ferro", "Dr. Ferro retired in May"), ()),
                  (("my accountant is Perrin Oakes", "Perrin retired so I've moved to a firm, Ostrade & Tullwin"),
                   (("user", "accountant", "Ostrade & Tullwin"),))),
        counter=("Anna left the party early", "Bo quit smoking"),
    ),
    Pattern(
        "passed away",
        re.compile(r"^(?P<who>(?:[Mm]y|[Oo]ur)\s+[a-z]+|[A-Z][a-z]+)\s+(?P<how>passed\s+away|died|was\s+put\s+down)\b"),
        _passed_away,
        examples=((("Nutmeg passed away last night",), (("user", "ended", "lost Nutmeg (passed away)"),)),),
        counter=("The battery died",),
    ),
    Pattern(
        "X ripped out",
        re.compile(r"(?i)^(?:.*?[,;]\s+)?(?:the\s+|our\s+)?(?P<old>[\w.\-]+)(?:\s+(?:sdk|app|integration|plugin|client))?\s+(?:is\s+|was\s+|got\s+|has\s+been\s+)?(?:ripped\s+out|switched\s+off|turned\s+off|uninstalled)\b"),
        _ripped_out,
        examples=((("crashes go to quaylytics", "tarnlog's live, quaylytics SDK ripped out"), (("user", "crash_reporting", "tarnlog"),)),),
        counter=("the old shelves got ripped out",),
    ),
    Pattern(
        "split up",
        re.compile(r"(?i)^(?:I|we|(?-i:(?P<pair>[A-Z][\w'’\-]+))\s+and\s+I)\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+)?(?:split\s+up|broke\s+up|separated|divorced|got\s+divorced|called\s+it\s+(?:off|quits))\b(?!\s+(?:the|a|an|it|them|this|that|our|my|his|her|their)\b)"
                   r"(?:\s+with\s+(?-i:(?P<who>[A-Z][\w'’\-]+)))?"),
        _split_up,
        # (a sister held beside the partner: the table's check that no other relation is left held is the retraction's)
        examples=((("my sister is Ada", "my boyfriend is Tobin", "Tobin and I split up last week"), (("Ada", "relation", "sister"),)),
                  (("my sister is Ada", "my girlfriend is Maren", "I broke up with Maren"), (("Ada", "relation", "sister"),)),
                  (("my sister is Ada", "my partner is Pellan", "we broke up, Pellan moved out"), (("Ada", "relation", "sister"),))),
        counter=("we split up the bill", "I broke up the fight"),
    ),
    Pattern(
        "cancelled and rebooked",
        re.compile(r"(?i)^I(?:'ve)?\s+cancell?ed\s+(?P<old>.+?)\s+and\s+(?:re)?booked\s+(?P<new>[^,]+?)(?:\s+instead)?(?:,.*)?$"),
        _cancel_rebook,
        examples=((("I booked a week in Mechelen from May 12 to 19", "I cancelled Mechelen and booked Bruges instead, same dates"),
                   (("user", "booked", "a week in Bruges from May 12 to 19"),)),),
    ),
    Pattern(
        "booked",
        re.compile(r"(?i)^I(?:'ve|\s+have)?(?:\s+(?:just|finally|also))*\s+(?:re)?booked\s+(?P<v>.+)$"),
        _booked,
        examples=((("I booked a flight to Tampere for March 3",), (("user", "booked", "a flight to Tampere for March 3"),)),
                  (("booked the Quillet Inn for the week", "ferries are off, going to Vellory instead, same dates, booked the Brakka Lodge"),
                   (("user", "booked", "the Brakka Lodge"),))),
        counter=(),
    ),
    Pattern(
        "cancelled",
        re.compile(r"(?i)^I(?:'ve)?\s+(?:just\s+)?(?:cancell?ed|had\s+to\s+cancel)\s+(?P<what>[^,]+)$"),
        _cancelled,
        examples=((("I booked a table at Nora's for Friday", "I cancelled Nora's"), ()),),
    ),
    Pattern(
        "they cancelled",
        re.compile(r"^(?P<who>[A-Z][\w'’&\-]+(?:\s+[A-Z][\w'’&\-]+){0,2})\s+(?:has\s+|have\s+|just\s+)*(?:cancell?ed|called\s+off|dropped)(?:\s+(?:on\s+(?:me|us)|the\s+\w+|my\s+\w+|our\s+\w+|it|everything))?(?=\s*(?:$|[,;.!]|\s+(?:so|and|but)\b))"),
        _they_cancelled,
        examples=((("I've booked a rental car with Glenmorie Hire, pickup on 23 Sept", "Glenmorie cancelled on me!! rebooked the car with Fasach Rentals"),
                   (("user", "booked", "the car with Fasach Rentals"),)),),
        counter=("Netflix cancelled my favourite show",),
    ),
    Pattern(
        "cancelled what is held",
        re.compile(r"(?i)^(?:I|we)(?:'ve|\s+have)?\s+(?:just\s+|finally\s+|also\s+)?(?:cancell?ed|ended|terminated|had\s+to\s+cancel)\s+(?P<what>[^,;]+)"),
        _cancelled_held,
        examples=((("My gym membership is at Corefit.", "I cancelled my Corefit membership."), ()),
                  (("working from a coworking space called Orlin", "cancelled my Orlin membership yesterday, I work from home now"), ()),
                  (("I booked a hotel too, the Grand Arden", "also cancelled the hotel, we found a flat instead"), ())),
        counter=("I cancelled it",),
    ),
    Pattern(
        "forget X",
        re.compile(r"(?i)^(?:please\s+|you\s+can\s+)?forget\s+(?:about\s+)?(?P<what>(?:the|my|our)\s+[^,;]+)$"),
        _cancelled_held,
        examples=((("my gym locker is 31", "cancelled the gym. forget the locker"), ()),),
        counter=("forget the old one", "forget it"),
    ),
    Pattern(
        "pets named",
        re.compile(rf"(?i)^(?=.*?{PETS_NAMED.pattern[4:]})"),  # anywhere in the clause (the builder reads each)
        _pets_named,
        examples=((("we've got two cats, Sesame and Quince, plus a corn snake called Brisket",),
                   (("Sesame", "relation", "cat"), ("Quince", "relation", "cat"), ("Brisket", "relation", "corn snake"),
                    ("user", "has", "two cats"))),
                  (("my dog Quiller is 11 now",), (("Quiller", "relation", "dog"),)),
                  (("we adopted a second cat, Tansy! 8 months old",), (("Tansy", "relation", "cat"),)),
                  # the rest of the clause is read too
                  (("I moved to Carnbre with my dog Quiller",), (("Quiller", "relation", "dog"), ("user", "lives_in", "Carnbre")))),
        counter=("my sister has a dog called Pip", "a cat sat on the mat"),
    ),
    Pattern(
        "pet gone",
        _PET_GONE,
        _pet_gone,
        examples=((("we've got two cats, Sesame and Quince", "rough week. Quince died on Sunday"), (("Sesame", "relation", "cat"),)),
                  (("a corn snake called Brisket", "rehomed Brisket with a reptile guy from the club"), ()),
                  (("our old cat Quince (16) is unimpressed", "we had to put Quince to sleep on saturday"), ()),
                  (("my boyfriend Corvinel and I got a cat, Sesame", "Corvinel and I broke up. He kept Sesame."), ())),
        counter=("Quince died on Sunday",),
    ),
    Pattern(
        "a new X, Name",
        re.compile(r"(?i)^(?:.*?(?:[,;]\s*|\b(?:so|and|also|but|then)\s+))??(?:(?:we|I)(?:\s+(?:now\s+)?have|['’]?ve\s+got|\s+have\s+got|\s+got|\s+bought|\s+hired)\s+)?(?:a|an|my|our)?\s*new\s+(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s*(?:[,:\-–]|\s+is|\s+called|\s+named)\s*"
                   r"(?P<v>(?-i:(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?[A-Z][\w'’&\-]*(?:\s+(?:[A-Z][\w'’&\-]*|\d+)){0,3}))(?=\s*(?:$|[,;.!(]|\s+(?:now|from|since|as|who|and|but)\b))"),
        _new_one,
        examples=((("fyi my landlord is Mr. Penhallow", "we have a new landlord, Mrs. Ivanova-Tull"), (("user", "landlord", "Mrs. Ivanova-Tull"),)),
                  (("my manager is Ruben Vos", "we have a new manager called Radka Ferreiro"), (("user", "manager", "Radka Ferreiro"),)),
                  (("my piano teacher is Mrs. Olvey", "Mrs. Olvey retired, new teacher is Mr. Pashek"), (("user", "piano_teacher", "Mr. Pashek"),)),
                  (("my running shoes are Pellor Stride", "bought new running shoes, Quenna Dart 9"), (("user", "running_shoes", "Quenna Dart 9"),)),
                  (("our drummer is Brannow", "Brannow is off travelling, so I'm on drums and weve got a new bassist, Ulfric"), (("user", "bassist", "Ulfric"),))),
        counter=("got a new phone, Pixel 9", "new job: Acme"),
    ),
    Pattern(
        "found a X, Name",
        re.compile(r"(?i)^(?:.*?(?:[,;]\s*|\b(?:so|and|also|but|then)\s+))??(?:(?:we|I)(?:['’]?ve)?\s+)?(?:just\s+|finally\s+|also\s+|now\s+)?"
                   r"(?:joined|found|picked(?:\s+up)?|chose|hired|signed\s+up\s+(?:with|for|at)|registered\s+with|(?:switched|moved|changed)\s+(?:over\s+)?to|went\s+with|got|building|built|launched)\s+(?:a|an)\s+"
                   r"(?P<attr>(?:[a-z][\w\-]*\s+){0,2}?[a-z][\w\-]*)(?:\s+(?:there|here|nearby|locally|near\s+(?:me|us|work)))?\s*"
                   # "a new regular client, a publisher called X": the first kind said is the slot
                   r"(?:,\s*(?:a|an)\s+(?:[a-z][\w\-]*\s+){0,2}?(?:called|named)\s+|[,:\-–—]|\s+called|\s+named)\s*"
                   r"(?P<v>(?-i:(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?[A-Z][\w'’&\-]*(?:\s+(?:[A-Z][\w'’&\-]*|\d+)){0,3}))(?=\s*(?:$|[,;.!(]|\s+(?:now|from|since|as|who|and|but|they|which)\b))"),
        _found_one,
        examples=((("joined a running club, Harefield Striders", "i switched clubs — Tolworth Harriers, theyre closer"),
                   (("user", "running_club", "Tolworth Harriers"),)),
                  (("finally found a physio near work, Dr Penhale",), (("user", "physio", "Dr Penhale"),)),
                  (("we signed up with a little nursery called Wragby Saplings",), (("user", "nursery", "Wragby Saplings"),)),
                  (("flour prices went mad so I switched to a local mill, Tollard",), (("user", "mill", "Tollard"),)),
                  (("Liesel retired so Ive moved to a firm, Tarrant Ledger",), (("user", "firm", "Tarrant Ledger"),)),
                  (("a contract ended, then i picked up a new retainer client, a studio called Parrow Lane",), (("user", "retainer_client", "Parrow Lane"),)),
                  (("weekend project: building a recipe scaler called Dollopwise",), (("user", "recipe_scaler", "Dollopwise"),))),
        counter=("joined a gym, Monday was my first session", "found a cat, Tuesday", "joined a club, and I love it"),
    ),
    Pattern(
        "left and joined",
        re.compile(
            rf"{_I}\s+(?:left|quit)\s+(?P<old>[A-Z][^,]*?)\s+(?:and|to)\s+(?:joined|join|started\s+at|moved\s+to)\s+{PROPER}"
            r"(?:\s+as\s+an?\s+(?P<role>[a-z][\w\- ]*?))?(?=\s*(?:$|[,.;!]|\s(?:last|this|on|in|since|two|a|yesterday|today)\b))"
        ),
        _left_joined,
        examples=((("I'm a nurse at Hollyfield Clinic", "I left Hollyfield Clinic and joined Fenwick Health as a charge nurse"),
                   (("user", "works_at", "Fenwick Health"), ("user", "job_title", "charge nurse"))),),
    ),
    Pattern(
        "took the offer",
        re.compile(rf"(?i)^(?:.*?\b)?(?:I\s+)?(?:took|accepted|signed)\s+(?:the\s+|an?\s+)?(?:(?-i:(?P<org>{_ORG}))\s+)?(?:job\s+)?(?:offer|job|contract)\b(?:\s+(?:from|at|with)\s+(?-i:(?P<org2>{_ORG})))?"),
        _took_offer,
        examples=((("I work at Mardleton", "took the Pellory offer!!! senior planner, start tomorrow"), (("user", "works_at", "Pellory"),)),
                  (("salary's £39k", "took the Pellory offer, £47k, start monday"), (("user", "works_at", "Pellory"), ("user", "salary", "£47k"))),
                  (("accepted an offer from Tolworth & Rowe today",), (("user", "works_at", "Tolworth & Rowe"),))),
        counter=("took the job seriously", "I accepted the offer"),
    ),
    Pattern(
        "first day at",
        re.compile(rf"(?i)^(?:.*?\b)?(?:my\s+)?first\s+(?P<span>day|shift|morning|week|fortnight|month)\s+(?:at|with)\s+"
                   rf"(?:(?-i:{PROPER})|(?P<small>(?-i:[a-z][\w'’\-]{{2,}}))(?=\s*(?:$|[,.!;]|\s+(?:done|over|today|tomorrow|on|is|was|went|starts|and|but|so)\b)))"),
        _first_at,
        examples=((("I'm a planner at Mardleton Freight", "first week at Quarlow Labs done, my brain is full"),
                   (("user", "works_at", "Quarlow Labs"),)),
                  (("first day at Pellory Labs today, nervous!",), (("user", "works_at", "Pellory Labs"),))),
        counter=("my first day at Disneyland was magic", "her first week at Quarlow Labs went well"),
    ),
    Pattern(
        "last day at",
        re.compile(rf"(?i)^(?:.*?\b)?(?:my\s+)?last\s+day(?:\s+(?:at|with)\s+(?-i:{PROPER}))?\s+(?P<verb>is|was|will\s+be|['’]s)\s+"
                   rf"(?:on\s+)?(?P<when>(?:{_DAY_SAID}|saturday|sunday|tomorrow))"),
        _last_day_at,
        examples=((("I work at Brackley & Pumfrey", "handed in my notice, last day at B&P is 3 October"), ()),),
        counter=("last day at the beach was lovely",),
    ),
    Pattern(
        "start at",
        re.compile(rf"(?i)^(?:.*?\b)?I\s+(?:start|begin)\s+(?:at|with)\s+(?-i:{PROPER})\s+"
                   rf"(?P<when>(?:on\s+|in\s+)?(?:{_DAY_SAID}|tomorrow|january|february|march|april|may|june|july|august|september|october|november|december))"),
        _start_at,
        examples=((("I work at Mardleton Freight", "I start at Quarlow Labs next month"), (("user", "works_at", "Mardleton Freight"),)),),
        counter=("I start at the top on Monday",),
    ),
    Pattern(
        "moved out",
        re.compile(r"^(?P<who>[A-Z][a-z][\w'’\-]*)\s+(?:has\s+|just\s+|finally\s+)*(?:moved|'s\s+moved)\s+out\b"),
        _moved_out,
        examples=((("my flatmate is Ondrey", "Ondrey moved out, my new flatmate is Petroc"), (("Petroc", "relation", "flatmate"),)),),
        counter=("Ondrey moved out",),
    ),
    Pattern(
        "pastime at",
        re.compile(r"(?i)^(?:.*?\b(?:so|and|but)\s+)?(?:now\s+)?(?:I|we)(?:\s+(?:now|still|usually|mostly|also|just))*\s+(?P<act>swim|climb|boulder|train|row|box|skate|surf|dance|"
                   r"do\s+(?:yoga|pilates|spin|crossfit|parkrun)|play\s+(?:tennis|squash|padel|badminton|football|golf|chess))\s+at\s+(?:the\s+)?(?-i:" + PROPER + ")"),
        _pastime_at,
        examples=((("I swim at Pellow Baths",), (("user", "swim_at", "Pellow Baths"),)),
                  (("I swim at Pellow Baths", "Pellow Baths closed so now I swim at Ridgeway Leisure Centre"), (("user", "swim_at", "Ridgeway Leisure Centre"),))),
        counter=("I swim at night", "we train at 6am"),
    ),
    Pattern(
        "pay bumped",
        re.compile(r"(?i)^(?:.*?\b)?(?:got|was|been|am|I'm)\s+(?:just\s+|already\s+|finally\s+)*(?:bumped|raised|upped|moved)(?:\s+up)?\s+to\s+(?P<v>[£$€]\s?\d[\d,.]*\s*k?)"),
        _pay_bumped,
        examples=((("salary's £48k", "I already got bumped to £53k since I took on the launch"), (("user", "salary", "£53k"),)),),
        counter=("got bumped to first class",),
    ),
    Pattern(
        "runs a X called Y",
        re.compile(r"(?i)^(?:.*?\b)?(?:I|we)\s+(?:(?:also|now|still)\s+)?(?:run|own|have|started|set\s+up|founded|co-?founded|opened|launched|host|play\s+in|sing\s+in|(?:'m|am)\s+in)"
                   r"\s+(?:a|an|my|our|this)\s+(?:(?:small|little|tiny|new|local|weekly|monthly|side|online)\s+)*(?P<kind>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+(?:called|named)\s+"
                   + PROPER),
        _called,
        examples=((("I run a small cafe called Gannet & Gorse, 4 of us",), (("user", "cafe", "Gannet & Gorse"),)),
                  (("I play in a ceilidh band called Harrow Reel",), (("user", "band", "Harrow Reel"),))),
        counter=("I met a guy called Tobin", "we have a dog called Pixel"),
    ),
    Pattern(
        "at a X called Y",
        # "working out of a coworking called The Pellery", "I train at a gym called The Tolva": where the user
        # works or trains, by the kind of place it is (where a trip stays is the trips' own)
        re.compile(r"(?i)^(?:.*?\b)?(?:(?:I|we)(?:['’]m|\s+am|['’]re|\s+are|['’]ve\s+been|\s+have\s+been)?\s+|^|(?<=,\s))(?:now\s+|still\s+|mostly\s+)?"
                   r"(?:working|work|based|train|training|swim|swimming|climb|climbing)\s+(?:out\s+of|from|at|in)\s+"
                   r"(?:a|an)\s+(?:(?:small|little|tiny|new|local|nice|lovely|cheap)\s+)*(?P<kind>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+(?:called|named)\s+"
                   + f"(?-i:{PROPER})"),
        _called,
        examples=((("working out of a coworking called The Pellery",), (("user", "coworking", "The Pellery"),)),
                  (("I've been working from a coworking space called Orlin near the harbour",), (("user", "coworking", "Orlin"),)),
                  (("based here till June, working out of a coworking called The Pellery",), (("user", "coworking", "The Pellery"),)),
                  (("I train at a bouldering gym called The Tolva",), (("user", "gym", "The Tolva"),))),
        counter=("I work with a guy called Tobin",),
    ),
    Pattern(
        "in band X",
        re.compile(r"(?i)^(?:.*?\b)?I(?:['’]m|\s+am)\s+(?:now\s+|still\s+)?in\s+(?:the\s+)?(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)\s+"
                   r"(?-i:(?P<v>[A-Z]{1,3}-?\d{1,3}[A-Za-z]?|\d{1,2}[A-Z]))(?=\s*(?:$|[,.;!]|\s(?:at|now|since|from|for)\b))"),
        _in_band,
        examples=((("I'm in salary band S3 at work",), (("user", "salary_band", "S3"),)),
                  (("I'm in pay grade G7 since the restructure",), (("user", "pay_grade", "G7"),))),
        counter=("I'm in room with Jo", "I'm in Ellendune now"),
    ),
    Pattern(
        "allergic to",
        re.compile(r"(?i)^(?:.*?\b)?(?:I(?:'m|\s+am)\s+|I've\s+been\s+|turns\s+out\s+I'm\s+)?(?:also\s+|severely\s+|very\s+|mildly\s+|really\s+)?allergic\s+to\s+(?P<v>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)*?(?:(?:,\s*|\s+and\s+)[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)*)(?=\s*(?:$|[;.!]|,\s+(?!and\b)|\s+(?:but|so|never|too|as|since|btw)\b))"),
        _allergic,
        examples=((("oh and put this on file, I'm allergic to latex, never mentioned it before",), (("user", "allergic_to", "latex"),)),
                  (("allergic to cats and dust mites",), (("user", "allergic_to", "cats"), ("user", "allergic_to", "dust mites")))),
        counter=("are you allergic to anything?",),
    ),
    Pattern(
        "role at",
        re.compile(rf"{_I}\s+(?:(?:started|starting|began|working|now)\s+as\s+)?(?:(?:a|an)\s+|(?=(?:[a-z][\w\-]*\s+){{0,3}}(?:{'|'.join(sorted(_JOBS_FOR_BARE))})\s+(?:at|for)\s))(?P<role>(?:(?:[A-Z][a-z]+|[A-Z]{{1,3}})\s+\d{{1,2}}\s+)?(?:[a-z][\w\-]*|[A-Z]{{2,5}})(?:\s+[a-z][\w\-]*){{0,3}})"
                   r"(?:\s+(?:on|in)\s+the\s+[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?\s+(?:ward|team|desk|unit|floor|department|squad|line))?"
                   rf"\s+(?:at|for|with)\s+(?:the\s+)?{_A_PLACE_CALLED}?{PROPER}"),
        _role_at,
        examples=((("I'm a data analyst at Quarrymoor Foods",), (("user", "works_at", "Quarrymoor Foods"), ("user", "job_title", "data analyst"))),
                  (("I'm content strategy lead at Pellory, B2B software",), (("user", "works_at", "Pellory"), ("user", "job_title", "content strategy lead"))),
                  (("from Monday I'm a QA lead at Tovi Labs",), (("user", "works_at", "Tovi Labs"), ("user", "job_title", "QA lead"))),
                  (("I just started as a sous-chef at Harrowgill",), (("user", "works_at", "Harrowgill"), ("user", "job_title", "sous-chef"))),
                  (("I'm head chef at Tannery Row now",), (("user", "works_at", "Tannery Row"), ("user", "job_title", "head chef"))),
                  (("so I'm a Band 6 staff nurse on the cardiac ward at St Pellan's",), (("user", "works_at", "St Pellan's"), ("user", "job_title", "Band 6 staff nurse"))),
                  (("I started as a paramedic with the Tolland Ambulance Trust",), (("user", "works_at", "Tolland Ambulance Trust"), ("user", "job_title", "paramedic"))),
                  (("I just started as a pastry cook at a little bakery called Tressaby's in Quellmoor",), (("user", "works_at", "Tressaby's"), ("user", "job_title", "pastry cook")))),
        counter=("I'm a big fan of Arsenal", "I'm a regular at Joe's"),
    ),
    Pattern(
        "work verb at",
        re.compile(rf"^[Ii]\s+(?:(?:teach|lecture|nurse|code|program|consult|intern|tutor)(?:\s+[\w+#.\-]+(?:\s+[\w+#.\-]+){{0,3}}?)?"
                   rf"|(?:do|design|develop|build|write|sell|market|manage|run|lead|head|supervise|cover)\s+(?!(?:a|an|my|our|his|her|some)\b)[\w+#.\-]+(?:\s+[\w+#.\-]+){{0,3}}?)"
                   rf"\s+(?:at|for)\s+{PROPER}"),
        _work_verb_at,
        examples=((("I teach geography at Skelbrook Academy, years 7 and 8",), (("user", "works_at", "Skelbrook Academy"),)),
                  (("quick context: I do iOS at Tarnwell Mobile.",), (("user", "works_at", "Tarnwell Mobile"),)),
                  (("I run the data team at Ashwendle Labs",), (("user", "works_at", "Ashwendle Labs"),))),
        counter=("I swim at Ardley Park", "I run at Holloway Park on Sundays", "I do yoga at Stillpoint Studio",
                 "I do a class at Skelbrook College", "I teach my kids at home"),
    ),
    Pattern(
        "role",
        re.compile(rf"{_I}\s+(?:a|an)\s+(?P<role>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}})(?=\s*(?:$|[,;]))"),
        _role,
        examples=((("I'm a pharmacist",), (("user", "job_title", "pharmacist"),)), (("I'm now a senior data engineer",), (("user", "job_title", "senior data engineer"),))),
        counter=("I'm a perfectionist", "I'm a big fan", "I'm a mess", "I'm a vegetarian"),
    ),
    Pattern(
        "joined",
        re.compile(rf"{_I}\s+(?:joined|started\s+at|started\s+working\s+at|started\s+a\s+new\s+job\s+at)\s+{PROPER}(?:\s+(?:on|last|this)\s+[A-Z]?[a-z]+|\s+(?:a|an|one|two|three|four|a\s+few|\d+)\s+(?:days?|weeks?|months?)\s+ago)?(?:\s+as\s+an?\s+(?P<role>[A-Za-z][\w\- ]*?))?(?=\s*(?:$|[,.;!]))"),
        _joined,
        examples=((("I started at Pellwood on Monday as a product designer",), (("user", "works_at", "Pellwood"), ("user", "job_title", "product designer"))),
                  (("Two weeks ago I started at Ormesby Analytics.",), (("user", "works_at", "Ormesby Analytics"),))),
        counter=("I joined Strava", "I started at Corefit two weeks ago"),
    ),
    Pattern(
        "not at any more",
        re.compile(rf"(?i)^(?:I'm\s+|I\s+am\s+)?(?:not|no\s+longer)\s+(?:at|with|working\s+at|working\s+for)\s+{PROPER}(?:\s+any\s?more)?"),
        _not_at,
        examples=((("I work at Globex", "Not at Globex anymore"), ()),),
    ),
    Pattern(
        "with now",
        re.compile(rf"^I(?:'m|\s+am)\s+(?:now\s+)?(?:with|at|working\s+for)\s+{PROPER}(?=\s+now\b|\s+these\s+days\b|\s*$)"),
        _with_now,
        examples=((("I work at Globex", "Not at Globex anymore, I'm with Initech now."), (("user", "works_at", "Initech"),)),),
        counter=("I'm at Tesco now",),
    ),
    Pattern(
        "reports to",
        re.compile(rf"^(?:(?:so|and|for\s+now|now|from\s+now\s+on)\s*,?\s+)*I(?:\s+now)?\s+report\s+(?:directly\s+|straight\s+)?to\s+"
                   rf"(?:(?:the|our|my)\s+[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}},\s+)?{PROPER}"),
        _report_to,
        examples=((("My manager is Ana Lind", "I report to Ben Ode now"), (("user", "manager", "Ben Ode"),)),
                  (("My manager is Ana Lind", "Ana left, so for now I report straight to the studio head, Ben Ode"), (("user", "manager", "Ben Ode"),))),
        counter=("I report to the board on Fridays",),
    ),
    Pattern(
        "a role or job at",
        re.compile(rf"(?i)^(?=.*\b(?:I|I'm|I've|I\s+am|my|started|starting|new|took|got|accepted|landed)\b).*?\b(?:an?\s+|my\s+|the\s+|new\s+)?(?P<role>(?:[a-z][\w\-]*\s+){{1,3}}?)?(?:role|job|position|post)"
                   rf"(?:\s+as\s+(?:an?\s+)?(?P<as_role>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}}?))?\s+(?:at|with)\s+(?-i:{PROPER})"),
        _job_role_at,
        examples=((("I left Quarlow. I'm two weeks into a platform lead role at Tennick Systems.",), (("user", "works_at", "Tennick Systems"), ("user", "job_title", "platform lead"))),
                  (("got a new job at Ashwendle Labs!!",), (("user", "works_at", "Ashwendle Labs"),)),
                  (("my little bro Tamhas just landed a job as a line cook at Pellow Kitchen in hartby!!",),
                   (("Tamhas", "relation", "brother"), ("Tamhas", "works_at", "Pellow Kitchen"), ("Tamhas", "job_title", "line cook")))),
        counter=("my sister got a job at Tennick", "is there a role at Tennick for me?"),
    ),
    Pattern(
        "a role in the X office",
        # "she's a staff architect in the Kellmoor office": the job and the office it is in
        re.compile(r"^I(?:['’]m|\s+am)\s+(?:now\s+)?(?:a|an)\s+(?P<role>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3}?)\s+(?:in|at|based\s+in|out\s+of)\s+the\s+"
                   r"(?P<v>[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*)?)\s+office\b"),
        _role_in_office,
        examples=((("my mentor is Orvella Quist, she's a staff architect in the Kellmoor office",),
                   (("Orvella Quist", "office", "Kellmoor"), ("Orvella Quist", "job_title", "staff architect"))),),
        counter=("I'm a big fan of the Tarrow office",),
    ),
    Pattern(
        "the office",
        re.compile(rf"(?i)^(?:.*?\b)?(?:I['’]m|I\s+am|I['’]ve\s+(?:switched|moved)|I\s+(?:switched|moved|transferred)|switched|moved|based)\s+(?:now\s+)?(?:based\s+)?(?:in|to|at|from|out\s+of)\s+(?:the\s+)?(?-i:(?P<v>[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*)?))\s+(?:office|site|branch|campus|depot|store|studio)\b"),
        _the_office,
        examples=((("I'm in the Tollmere office and my manager is Ana Lind", "I've switched to the Carnbre office as of this month"), (("user", "office", "Carnbre"),)),),
        counter=("I'm in the office today",),
    ),
    Pattern(
        "team",
        re.compile(rf"(?i)^(?:I(?:(?:'ve|\s+have)?(?:\s+(?:just|now))?\s+(?:(?:got\s+|was\s+|been\s+)?(?:moved|switched|transferred|went)\s+{_FROM_TEAM}(?:to|onto)|joined)|(?:'m|\s+am)\s+(?:now\s+)?on)"
                   rf"|(?:they|work|my\s+(?:boss|manager|lead))(?:'ve|\s+have)?(?:\s+just)?\s+(?:moved|transferred|put|shifted|switched)\s+me\s+{_FROM_TEAM}(?:to|onto|on))"
                   rf"\s+the\s+(?P<team>[\w\- ]+?\s+(?:team|squad|crew|pod))\b(?:\s+(?:at|in|for)\s+(?-i:{PROPER}))?"),
        _team,
        examples=((("I moved over to the payments team",), (("user", "team", "payments team"),)),
                  (("they've transferred me from support onto the pricing team",), (("user", "team", "pricing team"),)),
                  (("I'm on the payments team at Quarrymoor Foods.",), (("user", "team", "payments team"), ("user", "works_at", "Quarrymoor Foods"))),
                  (("i'm on the search squad at Tollbridge",), (("user", "team", "search squad"), ("user", "works_at", "Tollbridge")))),
    ),
    Pattern(
        "team after switching teams",
        # "changed teams last week, I'm on the checkout squad now": the team said without its word
        re.compile(r"(?i)^I(?:'m|\s+am)\s+(?:now\s+)?on\s+(?:the\s+)?(?P<team>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2})\s+now\b"),
        _team_switched,
        examples=((("i'm on the data team at Tarrow", "changed teams last week, i'm on the checkout squad now"), (("user", "team", "checkout squad"),)),
                  (("i'm on the data team at Tarrow", "I switched teams, I'm on ledger-ops now (new manager too)"), (("user", "team", "ledger-ops"),))),
        counter=("I'm on the train now",),
    ),
    Pattern(
        "weight",
        re.compile(r"(?i)^(?:(?:current\s+weight|my\s+weight\s+is(?:\s+now)?|(?:body\s?)?weight|I\s+weigh|weighed\s+in\s+at|(?:I'm\s+)?down\s+to|(?:I'm\s+)?up\s+to|now\s+at|"
                   r"I'm|I\s+am|(?:the\s+)?scale\s+(?:says|said|shows|showed|reads|read)|weigh-?\s?in(?:\s+today)?)\s*(?::\s*|is\s+|of\s+|at\s+)?(?P<v>\d+(?:\.\d+)?\s*(?:kg|kgs|kilos|lbs|lb|pounds))\b"
                   r"|(?:current\s+weight|weight|weighed|(?:the\s+)?scales?(?:['’]s|\s+is)?\s+(?:says|said|shows|showed|reads|read|at))\s*:?\s*(?P<bare>\d{2,3}(?:\.\d)?)"
                   r"(?:\s+(?:this\s+morning|today|now|tho|though|fyi|btw))*\s*[.!]*$|(?P<alone>\d{2,3}(?:\.\d)?\s*(?:kg|kgs|kilos|lbs))(?:\s+(?:this\s+morning|today|now))?\s*!*$)"),
        _weight,
        examples=((("Current weight 91 kg", "Log: down to 88 kg."), (("user", "weight", "88 kg"),)),
                  (("weigh-in log: 91 kg, goal 85", "weight 89.5", "88.2 kg this morning!"), (("user", "weight", "88.2 kg"),)),
                  (("I'm 201 lb and my bench is 175", "weigh-in 196 lb", "Scale says 193 lb."), (("user", "weight", "193 lb"),)),
                  (("weigh-in 91.2 kg", "weighed 89.9 this morning fyi", "scale's at 88.1 tho", "scale said 86.3."), (("user", "weight", "86.3 kg"),))),
        counter=("I bought 2 kg of apples",),
    ),
    Pattern(
        "habit counted",
        re.compile(rf"(?i)^(?:I(?:['’]m|\s+am)?\s+)?(?:(?:currently|usually|normally|still|probably|typically)\s+)?(?P<verb>smoke|drink|have|do|walk|run|sleep|vape|averag(?:e|ing))\s+{_HABIT_COUNTED}"),
        _habit_count,
        examples=((("I smoke about 10 a day and I want to quit",), (("user", "smoking", "about 10 a day"),)),
                  (("I drink about 4 espressos a day",), (("user", "coffee", "about 4 espressos a day"),)),
                  (("I'm averaging 9k steps a day lately",), (("user", "steps", "9k steps a day"),))),
        counter=("I drink 2 a day", "I have a meeting a day", "I do one thing a day"),
    ),
    Pattern(
        "quit, the habit said beside",
        re.compile(r"(?i)^(?:I(?:['’]ve|\s+have)?\s+)?(?:finally\s+)?(?:quit|stopped|gave\s+up|packed\s+(?:it|them)\s+in)(?=\s+(?:on|in|last|yesterday|today|this|\d)\b|\s*$|\s*[,.!])"),
        _quit_unnamed,
        # (the coffee held beside it stays: only the habit the turn names ends)
        examples=((("I smoke about 10 a day", "I drink about 4 espressos a day", "two weeks smoke-free today!! I quit on March 1 and haven't had one since"),
                   (("user", "coffee", "about 4 espressos a day"),)),),
        counter=("I quit on Friday",),
    ),
    Pattern(
        "habit abstained",
        re.compile(r"(?i)^(?:.*?\b)?(?:(?:haven['’]?t|have\s+not|not)\s+(?:had|smoked|touched|drunk)\s+(?:a\s+(?:single\s+)?|any\s+)?(?P<what>cigarettes?|cigs?|smokes?|coffees?|drinks?|beers?)\b(?=\s+(?:since|in|for)\b)"
                   r"|\b(?:day\s+\d+|\d+\s+(?:days|weeks|months))\s+without\s+(?:a\s+(?:single\s+)?|any\s+)?(?P<what2>cigarettes?|smokes?|coffees?|drinks?|beers?)\b"
                   r"|\b(?P<what3>smoke|nicotine|caffeine|alcohol|booze)[\s-]free\b(?!\s+(?:zone|area|building|policy|campus|venue|flat|home|room|beer|coffee|drink)))"),
        _abstained,
        # (the coffee held beside it stays: only the habit the turn names ends)
        examples=((("I smoke about 10 a day", "I drink about 4 espressos a day", "haven't had a cigarette since march 1!!!"),
                   (("user", "coffee", "about 4 espressos a day"),)),
                  (("I smoke about 10 a day", "I drink about 4 espressos a day", "off the patches too now, totally nicotine free"),
                   (("user", "coffee", "about 4 espressos a day"),))),
        counter=("I haven't had a coffee yet today", "a smoke-free zone sign"),
    ),
    Pattern(
        "injured",
        re.compile(rf"(?i)^(?:.*?\b)?(?:I(?:['’]ve|\s+have)?\s+)?(?P<how>tweaked|pulled|strained|sprained|hurt|injured|broke|fractured|tore|twisted|jarred|bruised|dislocated)\s+my\s+(?P<part>{_BODY_PARTS})\b"),
        _injured,
        examples=((("tweaked my lower back pulling last week, physio says no deadlifts",), (("user", "injury", "lower back (tweaked)"),)),
                  (("sprained my left ankle on the trail run",), (("user", "injury", "left ankle (sprained)"),))),
        counter=("I hurt my feelings", "broke my phone screen"),
    ),
    Pattern(
        "healed",
        re.compile(rf"(?i)^(?:.*?\b)?(?:my\s+|the\s+)?(?P<part>{_BODY_PARTS})(?:['’]s|\s+is|\s+has)\s+(?:all\s+|totally\s+|fully\s+|finally\s+)?(?:fine|better|healed|ok|okay|recovered|good|back\s+to\s+normal)(?:\s+now|\s+again)?\b"),
        _healed,
        examples=((("sprained my left ankle on the trail run", "pulled my hamstring at football", "ankle's fine now, back running"),
                   (("user", "injury", "hamstring (pulled)"),)),),
        counter=("my back is fine",),
    ),
    Pattern(
        "seat preference",
        re.compile(r"(?i)^(?:.*?\b)?(?:seat\s+pref(?:erence)?s?\s*(?:is\s+|:\s*|=\s*)?(?P<v>aisle|window|middle)\b"
                   r"|(?P<v2>aisle|window)\s+seats?\s+(?:from\s+now\s+on|always|only|now|please|every\s+time)\b"
                   r"|I(?:['’]ve|\s+have)?\s+(?:switched\s+to|prefer|always\s+(?:book|take|pick|get))\s+(?:the\s+|an?\s+)?(?P<v3>aisle|window)(?:\s+seats?)?\b)"),
        _seat,
        examples=((("seat pref aisle, always",), (("user", "seat_preference", "aisle"),)),
                  (("seat pref aisle, always", "new rule for bookings: window seats from now on"), (("user", "seat_preference", "window"),))),
        counter=("the window seat was broken",),
    ),
    Pattern(
        "habit down to",
        re.compile(rf"(?i)^(?:I(?:['’]m|\s+am|['’]ve|\s+have)?\s+)?(?:(?:now|finally|already|just)\s+)?(?:cut\s+(?:down|back)|got\s+(?:it\s+)?down|down|up|back)\s+to\s+{_HABIT_COUNTED}"),
        _habit_down_to,
        examples=((("I drink about 4 espressos a day", "down to one coffee a day now"), (("user", "coffee", "one coffee a day"),)),
                  (("I smoke about 10 a day", "cut down to 5 a day this week"), (("user", "smoking", "5 a day"),))),
        counter=("down to 2 a day",),
    ),
    Pattern(
        "X is up to Y",
        re.compile(r"(?i)^(?:my\s+|our\s+|the\s+)?(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3}?)(?:\s+(?:is|are|went|has\s+gone|is\s+going|goes|will\s+go|was\s+(?:raised|cut|increased|reduced|lowered))|['’]s)\s+(?:now\s+)?(?:up|down)?\s*to\s+(?P<v>(?:about\s+|around\s+|roughly\s+)?[$€£]?\d[\d,.]*(?:\s*(?!(?:a|per|from|in|on|at|by|next|this|starting|as|and|but|so|since|because|now|for|with)\b)[^\s,.;!]+)?(?:\s+(?:a|per)\s+(?:week|month|year|day))?)"),
        _up_to,
        examples=((("Weekly mileage is 20 km", "Weekly mileage is up to 35 km."), (("user", "weekly_mileage", "35 km"),)),
                  (("we're 6 people", "the studio's up to 9 people since March"), (("user", "headcount", "9 people"),)),
                  (("My rent went up to €1,450 a month",), (("user", "rent", "€1,450 a month"),))),
        counter=("It is up to you",),
    ),
    Pattern(
        "X is going from A to B",
        # "the gym fee's going from 38 to 42 a month from june": the new figure, from when it starts
        re.compile(r"(?i)^(?:my\s+|our\s+|the\s+)?(?!(?:it|this|that|he|she|they|we|there)\b)(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)(?:\s+is|['’]s)\s+going\s+(?:up\s+|down\s+)?"
                   r"from\s+[$€£]?\d[\d,.]*\s+to\s+(?P<v>[$€£]?\d[\d,.]*(?:k|%)?(?:\s+(?:a|per)\s+(?:week|month|year|day))?)"),
        _up_to,
        examples=((("rent is 1,100 a month", "rent's going from 1,100 to 1,160 a month as of today, ugh"), (("user", "rent", "1,160 a month"),)),),
        counter=("the bus is going from Tarnby to Oskel",),
    ),
    Pattern(
        "X is going up from a day, Y",
        # "the gym fee's going up from june, 42 a month": the figure after the day it starts
        re.compile(r"(?i)^(?:my\s+|our\s+|the\s+)?(?!(?:it|this|that|he|she|they|we|there)\b)(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)(?:\s+is|['’]s)\s+going\s+(?:up|down)\s+"
                   r"(?:from|in|next|this)(?:\s+[a-z]+){1,2}(?:\s+\d{1,2})?\s*,\s*(?:to\s+)?(?P<v>[$€£]?\d[\d,.]*(?:k|%)?(?:\s+(?:a|per)\s+(?:week|month|year|day))?)"),
        _up_to,
        examples=((("my rent is 1,150", "rent's going up from this month, 1,210 a month. fine"), (("user", "rent", "1,210 a month"),)),),
        counter=("it's going up from here, 3 floors to go",),
    ),
    Pattern(
        "raising X to Y",
        re.compile(r"(?i)^(?:.*?\s)?(?:rais(?:ing|ed|es)|increas(?:ing|ed|es)|put(?:ting)?\s+up|put(?:ting|s)?|push(?:ing|ed|es)?|bump(?:ing|ed|s)|cut(?:ting|s)?|lower(?:ing|ed|s)|reduc(?:ing|ed|es)|dropp(?:ing|ed))\s+(?:the\s+|my\s+|our\s+)?(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+(?:up\s+|down\s+)?to\s+(?P<v>[$€£]?\d[\d,.]*(?:\s*(?!(?:from|in|on|at|by|next|this|last|starting|a|per|as|of|and|but|so|since|because|now|for|to|with|which|after|before)\b)(?:k|%|[a-z]+))?(?:\s+(?:a|per)\s+(?:week|month|year|day))?)"),
        _raised,
        examples=((("rent is €900 a month", "landlord raised the rent to €975 last week"), (("user", "rent", "€975"),)),
                  (("take home is 4,100 a month", "rent 910", "the landlord is putting it up to 960"), (("user", "rent", "960"), ("user", "take_home", "4,100 a month"))),
                  (("got a raise, bumping savings to 25%",), (("user", "savings", "25%"),)),
                  (("my landlord is Tamsk Orrell", "rent is £900 a month", "Tamsk has put the rent up to £950 starting this month"),
                   (("user", "rent", "£950"),))),
        counter=("they cut the grass to 3 cm", "they bumped the fee to £40"),
    ),
    Pattern(
        "diet",
        re.compile(rf"(?i)^(?:.*?,\s+(?=(?:no\s+longer|not)\s))?(?:(?:I'm\s+|I\s+am\s+)?(?P<no>no\s+longer|not)\s+|(?:I'm|I\s+am|I've\s+been|I\s+went|went|so|I'm\s+now|now)\s+(?:now\s+|fully\s+|mostly\s+|strictly\s+)?(?:a\s+)?)(?P<v>{_DIETS})\b(?:\s+any\s?more)?"),
        _diet,
        examples=((("I'm vegan fyi",), (("user", "diet", "vegan"),)), (("I'm vegetarian", "no longer vegetarian btw, so pescatarian"), (("user", "diet", "pescatarian"),)),
                  (("I'm a vegetarian",), (("user", "diet", "vegetarian"),)),
                  (("I'm vegan", "I'm not vegan any more, eating eggs again. flexitarian I suppose"), (("user", "diet", "flexitarian"),)),
                  (("I'm vegetarian", "and i eat fish again, not veggie anymore"), ())),
        counter=("not vegetarian food though",),
    ),
    Pattern(
        "we're N",
        re.compile(r"(?i)^(?:.*?\b)?(?:(?:we're|we\s+are)\s+(?:now\s+|down\s+to\s+|up\s+to\s+)?(?P<n>\d{1,5})(?:\s+(?:people|now|strong|of\s+us))*|(?P<n2>\d{1,5})\s+of\s+us(?:\s+(?:incl\w*\s+me|in\s+total|now))?)\s*$"),
        _headcount,
        examples=((("we're 8 people at the studio", "hired two more, we're 10 now"), (("user", "headcount", "10 people"),)),),
        counter=("we're 5 minutes away",),
    ),
    Pattern(
        "stolen",
        re.compile(r"(?i)^(?:my\s+|our\s+|the\s+)?(?P<what>[a-z][\w\-]*)\s+(?:got|was|has\s+been)\s+(?:stolen|nicked|totall?ed|written\s+off|wrecked)\b"),
        _stolen,
        examples=((("my bike is a blue Brompton", "bike got stolen last night, bought a Tern Link to replace it"), (("user", "bike", "a Tern Link"),)),),
    ),
    Pattern(
        "signed up",
        re.compile(r"(?i)^I(?:'ve|\s+have)?(?:\s+(?:just|finally|also))*\s+(?:signed\s+up|registered|entered|enrolled)\s+(?:for|in)\s+(?P<v>.+)$"),
        lambda m, c: [draft("add", c.subject, "signed_up_for", m["v"].strip(" .,!"), m.group(0), cardinality="many",
                            template="{subject} signed up for {value}", valid_from=c.said_at)],
        examples=((("I've signed up for the Bristol 10k in June",), (("user", "signed_up_for", "the Bristol 10k in June"),)),),
    ),
    Pattern(
        "withdrew from",
        re.compile(r"(?i)^I(?:'ve|\s+have)?(?:\s+(?:just|also|finally|officially|had\s+to))*\s+(?:withdr[ae]wn?|pulled\s+out|dropped\s+out|backed\s+out)\s+(?:of|from)\s+(?P<v>[^,;.!?]+)"),
        _withdrew,
        examples=((("I've signed up for the Harrowmere 10k in June", "I've signed up for the Ellisford swim", "bad news, I've withdrawn from Harrowmere"),
                   (("user", "signed_up_for", "the Ellisford swim"),)),),
        counter=("I withdrew from the conversation", "I pulled out of the driveway"),
    ),
    Pattern(
        "work from",
        re.compile(r"(?i)^I(?:'ve|\s+have)?(?:\s+been)?\s+(?:working|work)\s+(?:from|out\s+of)\s+(?P<v>the\s+[\w\- ]+?\s+office|home|[A-Z][\w\- ]+?\s+office)\b"),
        _work_from,
        examples=((("I've been working from the Mechelen office since last Monday",), (("user", "works_from", "the Mechelen office"),)),),
    ),
    Pattern(
        "thing on",
        re.compile(rf"(?i)^(?:(?:the|our)\s+(?P<thing>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,3}}?)\s+(?:is|runs|lives|sits|is\s+hosted)|(?P<bare>(?-i:[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?|CI|DB|DNS|CDN|CMS|CRM|VCS))\s+(?:lives|runs|run|sits|is\s+hosted|are\s+hosted))\s+(?:now\s+)?(?P<prep>on|in)\s+(?-i:{PROPER})"),
        _thing_on,
        examples=((("Our stack is Symfony on MySQL 8.", "The checkout service is on Postgres now, we finished the migration from MySQL last week."),
                   (("user", "checkout_service", "on Postgres"), ("user", "stack", "Symfony on Postgres"))),
                  (("code lives on Codeberg",), (("user", "code", "on Codeberg"),)),
                  (("Sennit and Brisling, and builds run on Quayline.",), (("user", "ci", "on Quayline"),)),
                  (("CI runs on Gantry Actions these days",), (("user", "ci", "on Gantry Actions"),))),
        counter=("The meeting is in March", "we run on Quayline coffee"),
    ),
    Pattern(
        "deployed on",
        re.compile(rf"(?i)^(?:(?:[^.;!?]|\.(?=\S))*?,\s*)?(?:(?:it['’]s|it\s+is|it|we['’]re|we\s+are|(?:(?:the|our)\s+)?(?:site|app|shop|service|api|website|backend|frontend)(?:\s+is)?)\s+)?"
                   rf"(?:deployed|hosted)\s+(?:on|to|at)\s+(?-i:{PROPER})"),
        _deployed,
        examples=((("it's Quorra 14, npm, deployed on Quayhost. node 18 on my machine",), (("user", "hosting", "Quayhost"),)),
                  (("site is deployed to Brisling.io",), (("user", "hosting", "Brisling.io"),)),
                  (("the site is deployed on Quayhost", "we moved hosting off Quayhost to Brindle last week"), (("user", "hosting", "Brindle"),))),
        counter=("deployed on Friday", "I deployed the fix"),
    ),
    Pattern(
        "goes to",
        re.compile(rf"(?i)^(?:(?:[^.;!?]|\.(?=\S))*?,\s*)?(?:(?:nightly|daily|weekly|our|the|all)\s+)?(?P<thing>{_STACK_THING_WORDS})"
                   r"\s+(?:(?:go|goes|get\s+sent|are\s+sent|is|are|run|runs)\s+)?(?:to|on|via|through)\s+(?P<v>(?!(?:a|an|the|my|our|it|them|me|us|be|do)\b)[A-Za-z][\w.\-]*(?:\s+[A-Z0-9][\w.\-]*)?)(?=\s*(?:$|[,;.!)]|\s+(?:now|and|but|so|too|as|since|because)\b))"),
        _goes_to,
        examples=((("we're on Sennit 1.9, CI on gantry, crashes go to quaylytics. our lead is on leave",),
                   (("user", "ci", "gantry"), ("user", "crash_reporting", "quaylytics"))),
                  (("homelab: nightly backups to tarnvault B2",), (("user", "backups", "tarnvault B2"),))),
        counter=("my builds are on hold", "crashes go to the wall", "ci on it"),
    ),
    Pattern(
        "Name's X is Y",
        re.compile(r"^(?:(?:(?:(?:[Mm]y|[Oo]ur)\s+)?(?P<rel>[a-z][a-z\-]+(?:\s+friend)?)\s+)?(?!(?:What|Who|Where|When|How|Which|That|It|There|Here|He|She|Let|Today|Tomorrow|Everyone|Nobody)['’])"
                   r"(?P<who>[A-Z][a-z][\w\-]*)|(?:[Mm]y|[Oo]ur)\s+(?P<unnamed>[a-z][a-z\-]+(?:\s+friend)?))['’]s\s+(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)\s+(?:is|are)\s+(?:now\s+|actually\s+|still\s+)?(?P<v>[^;]+)$"),
        _their_attribute,
        examples=((("Please remember my partner Wenna's birthday is 4 November.", "sorry, I got it wrong. Wenna's birthday is 8 November, not the 4th"),
                   (("Wenna", "birthday", "8 November"), ("Wenna", "relation", "partner"))),
                  (("Corvinel's school is Wenlock Primary",), (("Corvinel", "school", "Wenlock Primary"),)),
                  (("note: sister Seluna's bday is 3 feb",), (("Seluna", "birthday", "3 feb"), ("Seluna", "relation", "sister"))),
                  (("my son's school is Hallam Primary",), (("user's son", "school", "Hallam Primary"),)),
                  (("my son Corvinel is in year 3", "my son's teacher is Mrs Pellow"), (("Corvinel", "teacher", "Mrs Pellow"),)),
                  (("My partner Wenna's birthday is May 3, can you help me think of gift ideas?", "no wait, Wenna's birthday is April 3, not May"),
                   (("Wenna", "birthday", "April 3"),))),
        counter=("What's the plan is unclear", "Anna's idea is great", "Tom's car is red"),
    ),
    Pattern(
        "the X on our team is Name",
        # "the new PM on our team is Orvella Quist": a role of the user's team is a person of the user's work
        re.compile(r"^(?:[Tt]he|[Oo]ur)\s+(?P<mods>(?:new|current|interim|acting)\s+)?(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?|[A-Z]{2,4})\s+"
                   r"(?:on|in|for|of)\s+(?:our|my|the)\s+(?:team|squad|project|floor|ward|unit|department|group)\s+(?:is|['’]s)\s+(?:now\s+)?"
                   r"(?P<v>(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*){0,2})$"),
        _open_attribute,
        examples=((("the new PM on our team is Orvella Quist",), (("user", "pm", "Orvella Quist"),)),),
        counter=("the best player on our team is a goalie",),
    ),
    Pattern(
        "my X is Y",
        re.compile(r"(?i)^(?:(?:my|our)\s+|(?=[a-z][\w\-]*['’]s\s+(?:first\s+)?name\s+is\s))(?P<mods>(?:new|current|old|actual|real|main|usual|regular)\s+)?(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,5}?(?:['’]s\s+(?:first\s+)?name)?)(?:\s+(?:is|are|'s)|['’]s(?=\s+(?:now\s+)?(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?(?-i:[A-Z])))\s+(?:now\s+|still\s+|currently\s+|officially\s+)?(?P<v>.+)$"),
        _open_attribute,
        examples=(
            (("remember: my dentist is Dr. Osei", "remember: my dentist is now Dr. Lund"), (("user", "dentist", "Dr. Lund"),)),
            (("Our stack is Flask on SQLite",), (("user", "stack", "Flask on SQLite"),)),
            (("My landlord is Mrs. Okoro.",), (("user", "landlord", "Mrs. Okoro"),)),
            (("my flatmate's name is Quenneth, she's lovely",), (("Quenneth", "relation", "flatmate"),)),
            (("new flatmate moves in next week", "flatmate's name is Ysolt btw"), (("Ysolt", "relation", "flatmate"),)),
            (("my manager is Ilkka Rantala", "first week done. my manager's Brannagh Byrne, really nice"), (("user", "manager", "Brannagh Byrne"),)),
            (("fyi the night supervisor is Ottla not Bertram",), (("user", "night_supervisor", "Ottla"),)),
            (("my cat is called Quibblet",), (("Quibblet", "relation", "cat"),)),
        ),
        counter=("my manager's office is on the third floor", "My head is killing me", "my phone is broken", "My name is on the list?", "my bad is so real", "my favourite is pizza"),
    ),
    Pattern(
        "command: X is Y",
        # (a capitalised first word is someone's name: "fyi Orvella is the design lead" is about her)
        re.compile(r"(?i)^(?P<attr>(?-i:[a-z])[\w'’\-]*(?:\s+[a-z][\w'’\-]*){0,5}?)\s+(?:is|are)\s+(?:now\s+)?(?P<v>[^,;]+)(?:[,;].*)?$"),
        lambda m, c: _open_attribute(m, c) if re.search(r"(?i)\b(?:remember|rmbr|rmb|note|nts|fyi|record|memo|keep in mind)\b", c.lead) else None,
        examples=((("remember: locker code at the gym is 5521", "remember: locker code at the gym is 8830 now"),
                   (("user", "locker_code_at_the_gym", "8830"),)),
                  (("remember door code at dad's block is 3390",), (("user", "door_code_at_dad's_block", "3390"),))),
        counter=("the weather is lovely", "fyi Orvella is actually the design lead"),
    ),
    Pattern(
        "X is Name",
        # "coworking is Pellory Hub, 140 a month": a thing of the user's said without "my", when what it is
        # is a name (capitalised words), not a remark about it ("the weather is lovely")
        re.compile(r"^(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s+(?:is|'s)\s+(?:now\s+)?(?P<v>(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*){0,3}(?:,\s+[^,;]+)?)$"),
        _thing_is_name,
        examples=((("coworking is Pellory Hub, 140 a month",), (("user", "coworking", "Pellory Hub"),)),
                  (("gym is Tarrow Fitness now",), (("user", "gym", "Tarrow Fitness"),))),
        counter=("the weather is Lovely", "it's Tuesday", "mum is Sarah", "this is Pellory", "Lunch is Pizza Express"),
    ),
    Pattern(
        "my X Name",
        re.compile(rf"^(?:[Mm]y|[Oo]ur)\s+(?:new\s+)?(?P<attr>manager|boss|lead|dentist|doctor|GP|gp|landlord|landlady|teacher|coach|therapist|trainer|physio|vet|accountant|lawyer|tutor|mentor|hairdresser|mechanic)\s+{PROPER}(?=\s+(?:is|was|wants|said|says|asked|thinks|told|has|had|will|just|and)\b|\s*[,.;!]|\s*$)"),
        lambda m, c: [state(dataclasses.replace(c, text=m.group(0)), "manager" if m["attr"].casefold() in ("boss", "lead") else m["attr"].casefold(), m["v"], m.group(0),
                            template=f"{{subject}}'s {m['attr'].casefold()} is {{value}}", changed=False)]
        if len(m["v"].split()) <= 3 else None,
        examples=((("my manager Ondrea Okoro wants the report by friday",), (("user", "manager", "Ondrea Okoro"),)),),
        counter=("my manager is away",),
    ),
    Pattern(
        "figure",
        re.compile(r".+"),
        _figure,
        examples=((("rent 1,240",), (("user", "rent", "1,240"),)),
                  (("savings at 4,300", "savings at 5,050 now"), (("user", "savings", "5,050"),)),
                  (("target 30k",), (("user", "target", "30k"),)),
                  (("deadlift 1RM is 140kg",), (("user", "deadlift_1rm", "140kg"),)),
                  (("also deno 20 now",), (("user", "deno", "deno 20"),))),
        counter=("day 3", "gate 4", "sept 14", "back on the 21st", "it's 12", "2 times", "page 40"),
    ),
    Pattern(
        "X is Y, said plainly",
        re.compile(r"^(?:[Tt]he\s+)?(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?|[A-Z]{2,5})(?:\s+(?:is|are)|['’]s)\s+(?:now\s+|still\s+)?(?P<v>(?:(?:on|through|with|at|in)\s+(?:(?:my|our)\s+[a-z]+\s+(?=[A-Z]))?|(?:a|an|my|our)\s+(?:(?:old|new|trusty|little|second-hand|used)\s+)?(?=[A-Z0-9]))?(?:[A-Z€$£]|\d|[\w\-]*\d[\w\-]*\.|[\w\-]+\.[a-z]|(?i:(?:mon|tues|wednes|thurs|fri|satur|sun)days?)\b)(?:[^,;]|,(?=\d)|,(?=\s*(?i:flat|apt|apartment|unit|suite)\s+\w*\d))*)(?:,\s+(?!\d).*)?$"),
        lambda m, c: _open_attribute(m, c) if _plain_attribute(m["attr"]) else None,
        examples=((("CI is Jenkins, repos are on Bitbucket",), (("user", "ci", "Jenkins"), ("user", "repos", "on Bitbucket"))),
                  (("spare key is with my neighbour Ozren now",), (("user", "spare_key", "with my neighbour Ozren"),)),
                  (("rent is £1,150 a month", "sorry, the rent is £1,250 not £1,150"), (("user", "rent", "£1,250"),)),
                  (("rent is €900 a month",), (("user", "rent", "€900 a month"),)),
                  (("rent is €1,250 a month, due on the 1st", "oops: the rent is €1,205, not €1,250"), (("user", "rent", "€1,205"),)),
                  (("recycling day is tuesday",), (("user", "recycling_day", "tuesday"),)),
                  (("new flat is 12 Orlin Row, flat 2C, moving in soon", "oops, it's flat 2D not 2C"), (("user", "flat", "12 Orlin Row, flat 2D"),))),
        counter=("Today is Monday", "It is March", "That is Kai's", "the weather is lovely", "Everything is OK"),
    ),
    Pattern(
        "Y is my X",
        re.compile(r"^(?:.*?(?:[,;]\s+|\b(?:so|and|but)\s+))??(?P<rev>(?:Dr\.?\s+)?[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*){0,3})\s+(?:is|'s)\s+(?:(?:now|officially|currently|still)\s+)*"
                   r"(?:(?P<acting>covering|acting|standing\s+in|filling\s+in|stepping\s+in)\s+as\s+)?(?:my|our)\s+(?P<mods>(?:new|current|interim|acting)\s+)?"
                   r"(?P<attr>[A-Za-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3}?)(?:\s+(?:now|in\s+the\s+meantime|for\s+now|for\s+the\s+time\s+being|from\s+today))?$"),
        _open_attribute,
        examples=((("Dr. Mensah is my GP",), (("user", "gp", "Dr. Mensah"),)),
                  (("My lead is Quentin Vellacott-Ash", "Tamsyn Greaves is covering as my lead in the meantime"), (("user", "lead", "Tamsyn Greaves"),)),
                  (("My lead is Quentin Vellacott-Ash", "he's joining the ops team, so Tamsyn is officially my lead now"), (("user", "lead", "Tamsyn"),)),
                  (("My lead is Quentin Vellacott-Ash", "Tamsyn Greaves is covering as my lead", "Quentin is back but he's joining the ops team, so Tamsyn is officially my lead now"),
                   (("user", "lead", "Tamsyn Greaves"),)),
                  (("My lead is Quentin Vellacott-Ash", "Quentin's off on leave, Tamsyn Greaves is covering as my lead"), (("user", "lead", "Tamsyn Greaves"),))),
        counter=("Pizza is my favourite",),
    ),
    Pattern(
        "habit",
        re.compile(r"(?i)^(?:I|we)(?:\s+(?:now|still|mostly|usually|also))*\s+(?P<verb>drive|ride|take|use|play|speak|own)\s+(?P<v>.+)$"),
        _habit,
        examples=((("I drive a 2019 Kia Ceed.",), (("user", "drives", "2019 Kia Ceed"),)),
                  (("I drive a 2009 Pellago Twist, rusty but fine",), (("user", "drives", "2009 Pellago Twist"),)),
                  (("I take the tram to work now",), (("user", "takes", "the tram to work"),)),
                  (("we use Taskwell for sprints", "we moved from Taskwell to Orbitask"), (("user", "uses", "Orbitask for sprints"),)),
                  (("I use Lingoro for Welsh, 15 min a day",), (("user", "uses", "Lingoro for Welsh"),)),
                  (("I use Lingoro for my Welsh, 15 min a day",), (("user", "uses", "Lingoro for my Welsh"),))),
        counter=("I take it easy on weekends", "I use it a lot", "I take a break"),
    ),
    Pattern(
        "greeting name",
        re.compile(r"^(?:I'm|I\s+am)\s+(?P<v>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)$"),
        _name,
        examples=((("Hi, I'm Saskia",), (("user", "name", "Saskia"),)),),
        counter=("I'm British", "I'm Done"),
    ),
    Pattern(
        "call me",
        re.compile(r"^(?P<called>(?:[Pp]lease\s+)?call\s+me|[Mm]y\s+friends\s+call\s+me|[Ii]t's)\s+(?P<v>[A-Z][a-z]+)"),
        _name,
        examples=((("My friends call me Jo",), (("user", "name", "Jo"),)),),
    ),
    Pattern(
        "it's the code, corrected",
        re.compile(r"(?i)^(?:it['’]s|it\s+is|make\s+that|I\s+meant)\s+(?P<v>(?=[\w\-]*\d)[a-z0-9][\w\-]{2,})[.!]*$"),
        _its_code,
        examples=((("and my desk is 4D-07", "we changed floors. desk now 7B-21", "scratch that, it's 7B-12. misread the plan"),
                   (("user", "desk", "7B-12"),)),),
        counter=("it's 2024",),
    ),
    Pattern(
        "code",
        re.compile(r"(?i)^(?:\+\s*|and\s+|also\s+)?(?:my\s+|our\s+|the\s+)?(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)\s+(?:is\s+)?(?:now\s+)?"
                   r"(?P<v>(?=[\w\-]*\d)(?=[\w\-]*[a-z])[a-z0-9][\w\-]{2,}|\d{3,}[\w\-]*)(?:\s+(?:from\s+today|from\s+now|now))?$"),
        _code,
        examples=((("+ parking spot K2-114",), (("user", "parking_spot", "K2-114"),)),
                  (("+ parking spot K2-114", "parking moved. spot K3-040 from today"), (("user", "parking_spot", "K3-040"),)),
                  (("and my desk is 4D-07", "we changed floors. desk now 7B-21"), (("user", "desk", "7B-21"),))),
        counter=("day 3 of 10", "room 12", "page 4", "version 2", "up 5kg", "ran 10km", "meeting 10am", "slept 8hrs"),
    ),
    Pattern(
        "figures",
        re.compile(rf"(?i)^{_ITEM}(?:\s*,\s*(?:and\s+)?{_ITEM})*$"),
        _quantities,
        examples=((("current maxes: squat 100 kg, bench 70 kg, deadlift 130 kg", "squat max is 110 now"),
                   (("user", "squat_max", "110"), ("user", "bench_max", "70 kg"), ("user", "deadlift_max", "130 kg"))),
                  (("bodyweight 74 kg",), (("user", "weight", "74 kg"),)),  # the weight pattern's: one slot for the scale
                  (("easy pace about 6:10 per km", "easy pace 5:55 per km"), (("user", "easy_pace", "5:55 per km"),))),
        counter=("day 3 of 10", "room 12", "page 4", "10 slides max"),
    ),
)


# Read before the fixed-slot patterns: each is more specific than the fixed pattern that would also match
# ("I left X and joined Y" is not only "I left X").
FIRST_PATTERNS = frozenset({"runs a X called Y", "swapped X for Y as the Z", "ditched a tool of a kind", "a held figure said alone", "found a X, Name", "quit, the habit said beside", "moved out", "a held figure moved", "first day at", "last day at", "start at", "Y, not the held X", "switched to Y, the held X named", "it's the code, corrected", "pet gone", "Name's X is Y", "X changed to Y", "no longer does X", "someone left", "a new X, Name", "allergic to", "took the offer", "pay bumped", "someone changed X to Y", "someone handles X", "where I am", "how often", "ditched X for Y", "version bump", "it's Y now", "raising X to Y", "medication", "left and joined", "joined", "cancelled and rebooked", "ended", "not at any more", "with now"})


def everyday(clause: Clause, *, only: frozenset[str] | None = None) -> list[Draft] | None:
    """The drafts of the first pattern that decides `clause` (among `only`, when given), or None."""
    for pattern in PATTERNS:
        if only is not None and pattern.name not in only:
            continue
        m = pattern.regex.match(clause.text)
        if not m:
            continue
        drafts = pattern.build(m, clause)
        if drafts is not None:
            return drafts
    return None
