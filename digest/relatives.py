"""Who the user's people are when a turn only names them in passing.

"me and my partner Ozric, 4 nights in Vellport", "Ozric (my partner) can't get the 14th off", "Ozric, my
partner, says hi": the clause is about something else (a trip, a date), so no pattern reads it as news
about Ozric, yet it says who Ozric is. Each shape below is data with its examples and counter-examples
(tests/digest/test_relatives.py); `named_in_passing` adds the relation the rules did not already draft
and the ledger does not already hold, unless the turn hedges ("my partner Ozric, I think").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise
from factledger.ledger.when import MONTH_WORD, MONTHS, WEEKDAYS

from .everyday import RELATION_SAID_AS, RELATION_WORDS
from .model import Draft

_RELATION = "|".join(sorted((w.replace("_", r"\s+") for w in (*RELATION_WORDS, *RELATION_SAID_AS)), key=len, reverse=True))
_NAME = r"(?P<name>(?-i:[A-Z][a-z][\w'’\-]*))(?!['’]s\b)"
_NOT_NAMES = frozenset("i im i'm and but so the this that he she they we it mr mrs ms dr in on at for to of from with by as if or".split())
TEMPLATE = "{subject} is the user's {value}"


@dataclass(frozen=True)
class Shape:
    """One way a turn names someone and says who they are to the user."""

    name: str
    regex: re.Pattern[str]
    examples: tuple[tuple[str, tuple[str, str]], ...]  # (turn, (person, relation))
    counter: tuple[str, ...] = ()


SHAPES: tuple[Shape, ...] = (
    Shape(
        "my relation Name",
        re.compile(rf"(?i)\b(?:me\s+and|with|and|plus|taking|bringing)\s+my\s+(?P<rel>{_RELATION})\s+{_NAME}"),
        (("me and my partner Ozric, 4 nights in Vellport", ("Ozric", "partner")),
         ("booked a table for 3, with my sister Ilvana", ("Ilvana", "sister"))),
        ("me and my partner, 4 nights in Vellport", "with my sister In the end", "and my boss Monday said no"),
    ),
    Shape(
        "my relation Name's thing",
        re.compile(rf"(?i)\b(?:my|our)\s+(?P<rel>{_RELATION})\s+(?P<name>(?-i:[A-Z][a-z][\w\-]*))['’]s\s+(?=[a-z])"),
        (("need a table in town for my gf Wenlis's bday on the 21st", ("Wenlis", "girlfriend")),
         ("is my sister Tamsyn's flat near the station?", ("Tamsyn", "sister"))),
        ("my sister Monday's plans",),
    ),
    Shape(
        "Name (my relation)",
        re.compile(rf"(?i){_NAME}\s+\(\s*(?:my|our)\s+(?P<rel>{_RELATION})\s*\)"),
        (("change of plans, Ozric (my partner) can't get the 14th off", ("Ozric", "partner")),),
        ("the Tuesday (my partner's idea) works",),
    ),
    Shape(
        "Name, my relation,",
        re.compile(rf"(?i)(?:^|[,;]\s*|\band\s+){_NAME},\s+(?:my|our)\s+(?P<rel>{_RELATION})\s*(?:,|$)"),
        (("Ozric, my partner, says hi", ("Ozric", "partner")),),
        ("Monday, my partner, works late",),
    ),
)

_HEDGED = re.compile(r"(?i)\b(?:i\s+think|maybe|might\s+be|not\s+sure|if\s+i\s+remember|iirc)\b")
_WEEK_AND_MONTHS = frozenset(MONTHS) | frozenset(WEEKDAYS)


def relatives_named(text: str) -> list[tuple[str, str]]:
    """(person, relation) for each person `text` names in passing with who they are to the user."""
    found: list[tuple[str, str]] = []
    for shape in SHAPES:
        for m in shape.regex.finditer(text):
            name, relation = m["name"], re.sub(r"\s+", "_", m["rel"].casefold())
            relation = RELATION_SAID_AS.get(relation, relation)  # "my gf Wenlis": the girlfriend
            if name.casefold() in _NOT_NAMES or name.casefold() in _WEEK_AND_MONTHS:
                continue
            if (name, relation) not in found:
                found.append((name, relation))
    return found


def _holding(predicate: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> set[str]:
    """The subjects (their keys) the turn's drafts or the ledger's open values already give `predicate`."""
    held = {normalise(d.subject) for d in drafts if d.predicate == predicate}
    return held | {c.subject_key for c in current if c.predicate == predicate and c.tx_to is None and c.valid_to is None}


def named_in_passing(turn: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> list[Draft]:
    """The relation drafts `turn` says in passing that neither `drafts` nor the ledger (`current`) has."""
    if _HEDGED.search(turn):
        return []
    # Someone the rules already said who they are, or whom the ledger holds as a relation: that stands.
    known = _holding("relation", drafts, current)
    added = []
    for person, relation in relatives_named(turn):
        if normalise(person) in known:
            continue
        known.add(normalise(person))  # one relation a person, the first the turn says
        added.append(Draft(op="add", subject=person, predicate="relation", value=relation.replace("_", " "), quote=turn.strip(),
                           cardinality="many", template=TEMPLATE))
    return added


# "for my gf Wenlis's bday on the 21st", "Tamsyn's birthday's on 4 May": a birthday said in passing, with
# its day (a day of the month, with or without the month).
_MONTH = MONTH_WORD
_BIRTHDAY = re.compile(
    rf"(?i)\b(?P<name>(?-i:[A-Z][a-z][\w\-]*))['’]s\s+(?:bday|birthday|b-day)(?:\s+is|['’]s)?\s+(?:on\s+)?"
    rf"(?P<when>the\s+\d{{1,2}}(?:st|nd|rd|th)(?:\s+of\s+{_MONTH})?|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?)\b"
)
BIRTHDAY_EXAMPLES = (("need a table in town for my gf Wenlis's bday on the 21st", ("Wenlis", "the 21st")),
                     ("booked cake for Tamsyn's birthday on 4 May", ("Tamsyn", "4 May")))
BIRTHDAY_COUNTER = ("Wenlis's bday was great", "it's Monday's birthday special")


def birthdays_in_passing(turn: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> list[Draft]:
    """A named person's birthday said in passing, when neither `drafts` nor the ledger holds one for them."""
    if _HEDGED.search(turn):
        return []
    held = _holding("birthday", drafts, current)
    added = []
    for m in _BIRTHDAY.finditer(turn):
        name = m["name"]
        if name.casefold() in _NOT_NAMES or name.casefold() in _WEEK_AND_MONTHS or normalise(name) in held:
            continue
        held.add(normalise(name))
        added.append(Draft(op="add", subject=name, predicate="birthday", value=m["when"], quote=m.group(0),
                           cardinality="one", template="{subject}'s birthday is {value}"))
    return added
