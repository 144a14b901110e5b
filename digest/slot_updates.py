"""A held slot's new value said tersely: "new bike shed code: 5064", "storage unit → K-12", "storage
units got renumbered, ours is K-12 now", "tea order update: hibiscus with honey".

A first statement names a slot in the user's own words ("note: bike shed code 2718" holds
bike_shed_code); a later turn changes it naming only some of those words, often with an arrow, "now" or
"changed" instead of a verb, so no clause pattern reads it. Each way of saying it is data with examples
and counter-examples (tests/digest/test_slot_updates.py):

- **a code**: the held value has digits ("2718", "U-31", "9:40"). The turn names the slot (two of its
  words, or one when the value has letters or signs beside its digits, which no count or measure has),
  says a change (changed, reset, moved, new, now, an arrow, "=") and then a value of the held one's
  shape ("5064", "K-12", "10:50"; shapes compared with each run of letters or digits as one); a bare
  number only as long as the held one and with no unit after it ("3 laps" is no code).
- **a code alone**: no slot named, a code of letters and digits said as what the user now is ("I'm S4
  now", "moved up to 5B"): the one held code of that shape ("S3") is the one it replaces.
- **words**: the held value has none. The turn names the slot by all its words, in order, then a change
  marker at once (an arrow, "=", "now", a dash or colon after "change"/"update"), then the value up to
  the end of its phrase.

Only a slot of the user's that holds one value, only when exactly one held slot is named so and no
other reader of the turn drafted it; the value holds in place of the held one from when it was said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise

from .model import Draft
from .passing import held_open, in_place_of_held

# Words of a slot's name that do not name it on their own ("my work parking spot": "parking" does).
_GENERIC = frozenset("my our the work home new old current daily weekly usual main time day number".split())
# Slots other readers keep, with their own rules for a change (a job, a home, a name, a trip's days).
_KEPT = frozenset("works_at lives_in name birthday job_title relation has likes did ended note booked".split())
_CHANGE = re.compile(
    r"(?i)(?:\b(?:changed|change|reset|resets|moved|moving|updated|update|switched|swapped|renumbered|new|now|again)\b|→|->|=>|=)"
)
_TOKEN = re.compile(r"(?<![\w])[\w][\w:\-./]*[\w]|(?<![\w])\w(?![\w])")
# "tea order update: hibiscus": the marker right after the slot's words, then the value
_WORDS_MARK = re.compile(r"(?i)\s*(?:(?:change|changed|update|updated)\s*(?:[—–:]|-\s|->|→)|→|->|=>|=|:?\s*now\b(?:\s+is\b)?|is\s+now\b)\s*")
_VALUE_END = re.compile(r"\s*(?:[.;!?(\n]|,\s|\s[—–-]\s|\s(?:from\s+now|going\s+forward|as\s+of|starting|since|because|cos|lol|btw)\b)")
_NOT_A_VALUE = re.compile(r"(?i)^(?:same|unchanged|still|the\s+same|as\s+before|tbc|tbd|pending|\?)")
_SLOT_WORD = re.compile(r"[a-z]{3,}")
# "2 km", "40 mins", "3 sets": a measure or a count, not a code's new digits
_UNIT_AFTER = re.compile(
    r"(?i)\s*(?:k?m|kms?|mi|miles?|kg|kgs|lbs?|g|mg|ml|l|mins?|minutes?|hours?|hrs?|h|secs?|%|x|times|laps|sets|reps|people|"
    r"days?|weeks?|months?|years?|quid|pounds?|euros?|dollars?|bucks|each|pcs|items?)\b"
)


@dataclass(frozen=True)
class Update:
    """One held slot's new value a turn says."""

    held: ClaimVersion
    value: str
    quote: str


@dataclass(frozen=True)
class Way:
    """One way a held slot's new value is said tersely, with what holds the slot first."""

    name: str
    examples: tuple[tuple[str, str, str, str], ...]  # (the first turn, the update, the slot, its new value)
    counter: tuple[tuple[str, str], ...] = ()  # (the first turn, a later turn that changes nothing)


WAYS: tuple[Way, ...] = (
    Way(
        "a code",
        (("note: bike shed code 2718", "new bike shed code: 5064", "bike_shed_code", "5064"),
         ("remember: storage unit is U-31", "storage units got renumbered, ours is K-12 now", "storage_unit", "K-12"),
         ("remember: storage unit is U-31", "storage unit → K-12", "storage_unit", "K-12"),
         ("note: bike shed code 2718", "the estate swapped the bike shed locks, code = 9130", "bike_shed_code", "9130")),
        (("note: bike shed code 2718", "did 3 laps round the bike shed, 2 km now"),
         ("note: bike shed code 2718", "new bike! shed is a squeeze, code still 2718"),
         ("remember: storage unit is U-31", "the storage unit is a mess, need 4 new boxes"),
         ("note: bike shed code 2718", "bike shed code changed from the 14th")),
    ),
    Way(
        "words",
        (("for the record: tea order is lapsang, no sugar", "tea order update: hibiscus with honey", "tea_order", "hibiscus with honey"),
         ("note: boat mooring is Tansley Quay", "boat mooring → Marrowell Basin, the quay flooded", "boat_mooring", "Marrowell Basin")),
        (("for the record: tea order is lapsang, no sugar", "tea order: same as before"),
         ("for the record: tea order is lapsang, no sugar", "the tea order is taking ages today"),
         ("note: boat mooring is Tansley Quay", "boat mooring fees are up again")),
    ),
    Way(
        "a code alone",
        (("I'm in salary band S3 at work", "promo went through, I'm S4 now", "salary_band", "S4"),
         ("I'm in class 4B at the moment", "moved up to 5B this term", "class", "5B")),
        (("I'm in salary band S3 at work", "I'm S3 now, same as before"),
         ("I'm in salary band S3 at work", "I'm 40 now, wild")),
    ),
)


def _shape(token: str) -> str:
    """A token's shape, each run of letters as "a" and of digits as "0" ("K4-210" -> "a0-0")."""
    return re.sub(r"0+", "0", re.sub(r"a+", "a", re.sub(r"\d", "0", re.sub(r"[^\W\d_]", "a", token))))


def _slot_words(predicate: str) -> list[str]:
    return [w for w in predicate.split("_") if _SLOT_WORD.fullmatch(w) and w not in _GENERIC]


def _mentions(text: str, word: str) -> list[re.Match[str]]:
    return list(re.finditer(rf"(?i)\b{re.escape(word)}(?:s|es)?\b", text))


def _coded(held: ClaimVersion, text: str) -> Update | None:
    """The held code's new value in `text`: the slot named, a change said, a value of its shape after."""
    held_tokens = _TOKEN.findall(held.value)
    first = next((t for t in held_tokens if re.search(r"\d", t)), None)
    if first is None:
        return None
    shape = _shape(first)
    specific = shape != "0"  # letters or signs with the digits ("K-12", "9:40"): no count or measure is so
    words = _slot_words(held.predicate)
    found = {w: _mentions(text, w) for w in words}
    named = [w for w in words if found[w]]
    if not named or (len(named) < 2 and not specific):  # a bare number is said of too many things for one word
        return None
    start = min(m.start() for w in named for m in found[w])
    window = text[start: start + 90]
    if not _CHANGE.search(window):
        return None
    held_keys = {t.casefold() for t in held_tokens}
    for m in _TOKEN.finditer(window):
        token = m.group(0).rstrip(".:-/")
        if (_shape(token) == shape and token.casefold() not in held_keys and not _is_when(window, m)
                and (specific or (len(token) == len(first) and not _UNIT_AFTER.match(window, m.end())))):
            return Update(held, token, window[: m.end()].strip())
    return None


def _is_when(window: str, m: re.Match[str]) -> bool:
    """Whether the token is a time said about the change ("from the 3rd", "on 12/05"), not its value."""
    return re.search(r"(?i)\b(?:from|since|on|by|until|till|starting)\s*$", window[: m.start()]) is not None


def _worded(held: ClaimVersion, text: str) -> Update | None:
    """The held words' new value in `text`: the slot's words in order, a marker at once, the value."""
    words = [w for w in held.predicate.split("_") if w]
    if not _slot_words(held.predicate):
        return None
    phrase = r"\W{0,3}".join(rf"{re.escape(w)}(?:s|es)?" for w in words)
    for m in re.finditer(rf"(?i)\b{phrase}\b", text):
        mark = _WORDS_MARK.match(text, m.end())
        if not mark:
            continue
        rest = text[mark.end():]
        end = _VALUE_END.search(rest)
        value = (rest[: end.start()] if end else rest).strip(" ,'\"")
        if not value or _NOT_A_VALUE.match(value) or len(value.split()) > 6 or normalise(value) == held.value_key:
            continue
        return Update(held, value, text[m.start(): mark.end() + len(value)].strip())
    return None


# A code said alone as what the user now is or has: "promo went through, I'm S4 now", "moved up to G8".
_CODE = r"(?:[a-z]{1,3}-?\d{1,3}[a-z]?|\d{1,2}[a-z])"
_CODE_ALONE = re.compile(
    rf"(?i)\b(?:(?:I['’]m|I\s+am|we['’]re|it['’]s)\s+(?:(?:only|finally|officially|now)\s+)?(?:on\s+|in\s+|at\s+)?(?P<a>{_CODE})\s+now\b"
    rf"|\b(?:promoted|moved|bumped)\s+(?:up\s+)?to\s+(?P<b>{_CODE})\b)"
)


def _code_alone(text: str, held: Sequence[ClaimVersion]) -> Update | None:
    """The one held code of the said code's shape (letters with digits: "S3" for "S4"), when the turn says
    a code alone as what the user now is; none when no held code, or several, has that shape."""
    m = _CODE_ALONE.search(text)
    if m is None:
        return None
    code = m["a"] or m["b"]
    shape = _shape(code)
    matching = []
    for h in held:
        tokens = [t for t in _TOKEN.findall(h.value) if re.search(r"\d", t)]
        if len(tokens) == 1 and _shape(tokens[0]) == shape and tokens[0].casefold() != code.casefold():
            matching.append(h)
    if len(matching) != 1:
        return None
    return Update(matching[0], code, m.group(0).strip())


def updates_said(text: str, subject: str, current: Sequence[ClaimVersion]) -> list[Update]:
    """The held slots of `subject` whose new value `text` says, each named by this turn alone."""
    # The turn's words, read once: a slot none of whose words (or their plurals) it says is passed over
    # before any search of its own (a long-lived user holds thousands of slots; a turn names a few).
    said = set(re.findall(r"[a-z]+", text.casefold()))
    found = []
    slots = [h for h in held_open(current, subject) if h.cardinality == "one" and h.predicate not in _KEPT]
    for held in slots:
        if not any(w in said or w + "s" in said or w + "es" in said for w in _slot_words(held.predicate)):
            continue
        update = _coded(held, text) if re.search(r"\d", held.value) else _worded(held, text)
        if update is not None:
            found.append(update)
    if not found:
        # no slot named: a code said alone ("I'm S4 now") updates the one held code of its shape
        alone = _code_alone(text, slots)
        found += [alone] if alone is not None else []
    return found


def updates_in_passing(turn: str, subject: str, said_at: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> list[Draft]:
    """The new value of the one held slot `turn` updates tersely, in place of the held one (from when it
    was said); nothing when another reader drafted that slot, or when the turn names several so."""
    updates = updates_said(turn, subject, current)
    if len(updates) != 1:
        return []
    update = updates[0]
    key = update.held.predicate
    if any(normalise(d.subject) == normalise(subject) and d.predicate == key for d in drafts):
        return []
    template = f"{{subject}}'s {key.replace('_', ' ')} is {{value}}"
    draft = in_place_of_held(subject, key, update.value, update.quote, template, said_at, current)
    return [draft] if draft else []
