"""Who is going with the user on a trip: named in the plan, joining, dropping out, coming instead.

"ten days in Lusaria this summer with my friend Tamar Quell", "Ondine from accounts is coming too", "Tamar
can't come after all, my cousin Oswy is coming instead", "Vasco is flying out to join us on day 3": said inside
travel talk, beside dates and hotels, so no first-person pattern reads it. Each shape below is data with
examples and counter-examples (tests/digest/test_companions.py); `companions_in_passing` holds each
companion named (one coming "instead" in place of the one held, when one is) and ends the one who drops
out. Only travel talk is read: "Tamar is coming for dinner" names no companion.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise
from factledger.ledger.when import MONTHS, WEEKDAYS

from .model import Draft
from .passing import ended_when_said, held_open

SLOT = "travelling_with"
TEMPLATE = "{value} is travelling with {subject}"

_NAME = r"(?-i:[A-Z][a-z][\w\-]*(?:\s+[A-Z][a-z][\w\-]*)?)"
_WHO = rf"(?:(?:my|our)\s+(?:[a-z]+\s+)?(?:friend|mate|partner|wife|husband|girlfriend|boyfriend|gf|bf|sister|brother|cousin|mum|mom|dad|colleague|coworker|boss|son|daughter|aunt|uncle)\s+)?(?P<name>{_NAME})(?:\s+from\s+[a-z]+)?"
_TRAVEL = re.compile(r"(?i)\b(?:trip|holiday|travel\w*|flights?|fly|flying|flew|nights|hotel|hostel|expo|conference|summit|festival|backpacking|itinerary|route|booked|visa|stretch|(?:days|weeks)\s+in)\b")


@dataclass(frozen=True)
class Shape:
    """One way travel talk says who is coming (`gone`: who no longer is)."""

    name: str
    regex: re.Pattern[str]
    examples: tuple[tuple[str, str], ...]  # (turn, companion)
    counter: tuple[str, ...] = ()
    gone: bool = False
    joined: bool = False  # news of someone joining: they go with the user from when it was said


SHAPES: tuple[Shape, ...] = (
    Shape(
        "with my friend Name",
        re.compile(rf"(?i)\b(?:\d+|two|three|four|five|six|seven|ten|a)\s+(?:nights|days|weeks)\s+in\s+(?-i:[A-Z][\w\-]*)(?:\s+in\s+\w+)?\s+with\s+(?:my|our)\s+(?:[a-z]+\s+)?(?:friend|mate|partner|wife|husband|girlfriend|boyfriend|gf|bf|sister|brother|cousin|mum|mom|dad|colleague)\s+(?P<name>{_NAME})"),
        (("booked it! ten days in Lusaria in August with my friend Tamar Quell, mostly by rail", "Tamar Quell"),),
        ("ten days in Lusaria with my friend, then home",),
    ),
    Shape(
        "me and my partner Name",
        re.compile(rf"(?i)\b(?:me\s+and|with)\s+(?:my|our)\s+(?:[a-z]+\s+)?(?:friend|mate|partner|wife|husband|girlfriend|boyfriend|gf|bf|sister|brother|cousin|mum|mom|dad)\s+(?P<name>{_NAME})\s*,?\s+(?:are\s+|'re\s+)?(?:\d+|two|three|four|five|six|seven|ten|a)\s+(?:nights|days|weeks)\b"),
        (("sorting the anniversary trip: me and my partner Ezra, three nights in Pellinor in may", "Ezra"),),
        ("me and my partner Ezra had dinner, three nights ago",),
    ),
    Shape(
        "Name is coming",
        re.compile(rf"(?i)\b{_WHO}\s+(?:is|['’]s|will\s+be)\s+(?:now\s+)?(?:coming|joining\s+(?:me|us))(?:\s+(?:along|too|as\s+well|with\s+(?:me|us)|instead))?\b(?!\s+(?:for|to)\s+(?:dinner|lunch|tea|drinks|the\s+party))"),
        (("the conference is in Bremholt, Bartram from accounts is coming along", "Bartram"),
         ("Tamar can't come after all, my cousin Oswy Tarrant is coming instead.", "Oswy Tarrant")),
        ("Tamar is coming for dinner on our last night", "Monday is coming too fast"),
    ),
    Shape(
        "Name flew out to join me",
        re.compile(rf"(?i)\b{_WHO}\s+(?:flew|came|is\s+flying|is\s+coming)\s+out\s+to\s+join\s+(?:me|us)\b"),
        (("reached Tarsk today, and my friend Vasco came out to join us for the final week", "Vasco"),),
        ("Vasco flew out to Tarsk for work",),
        joined=True,
    ),
    Shape(
        "Name dropped out",
        re.compile(rf"(?i)\b{_WHO}(?:(?:\s+(?:had\s+to|has|have|just))?\s+(?:drop(?:ped)?\s+out|pull(?:ed)?\s+out|can['’]t\s+come|cannot\s+come|isn['’]t\s+coming|is\s+not\s+coming|is\s+out|bailed)|['’]s\s+out)\b"),
        (("Tamar Quell pulled out over work, so we're rethinking the route", "Tamar Quell"),
         ("update on the trip: Bartram's out, his knee is worse", "Bartram")),
        ("the tide is out, no swimming",),
        gone=True,
    ),
)

_NOT_NAMES = frozenset("i the and but so we you he she they it this that my our work".split()) | frozenset(MONTHS) | frozenset(WEEKDAYS)
_INSTEAD = re.compile(r"(?i)\binstead\b")


@dataclass(frozen=True)
class Companion:
    shape: Shape
    name: str
    quote: str


def companions_said(text: str, held: Sequence[str] = ()) -> list[Companion]:
    """Each companion (or one gone) `text` names, when it is travel talk or names one `held`."""
    if not _TRAVEL.search(text) and not any(re.search(rf"(?i)\b{re.escape(name.split()[0])}\b", text) for name in held):
        return []
    found: list[Companion] = []
    for shape in SHAPES:
        for m in shape.regex.finditer(text):
            name = " ".join(m["name"].split())
            if name.split()[0].casefold() in _NOT_NAMES:
                continue
            if all(c.name != name or c.shape.gone != shape.gone for c in found):
                found.append(Companion(shape, name, m.group(0)))
    return found


def _same_person(held: ClaimVersion, name: str) -> bool:
    return normalise(held.value.split()[0]) == normalise(name.split()[0])


def companions_in_passing(turn: str, subject: str, said_at: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> list[Draft]:
    """Drafts for the companions `turn` names and the held ones it says dropped out."""
    key = normalise(subject)
    held = held_open(current, subject, SLOT)
    said = companions_said(turn, [c.value for c in held])
    out: list[Draft] = []
    gone = [c for c in held if any(s.shape.gone and _same_person(c, s.name) for s in said)]
    coming = [s for s in said if not s.shape.gone and not any(_same_person(c, s.name) for c in held)]
    if not gone and coming and len(held) == 1 and _INSTEAD.search(turn):
        gone = held  # "so Oswy is coming instead": in place of the one held
    out += [ended_when_said(c, turn, said_at) for c in gone]
    for s in coming:
        if any(normalise(d.subject) == key and d.predicate == SLOT and normalise(d.value or "") == normalise(s.name) for d in drafts):
            continue
        out.append(Draft(op="add", subject=subject, predicate=SLOT, value=s.name, quote=turn.strip(), cardinality="many",
                         template=TEMPLATE, valid_from=said_at if (gone or held or s.shape.joined) else None))
    return out
