"""A trip's plan said in passing: where the user flies into, the days out and home, where they are going.

"trip sorted, we fly into corrandel on may 3", "we land in brisport on may 5, not corrandel", "flights
done, out jun 3 back the 11th", "I'm flying home from Tarsk on august 2 instead", "the trains there are on
strike, so we're going to Tessaly instead": travel talk is news and requests at once, so no
pattern reads the clause whole, yet it says the plan. Each part below is data, the words that say it and
its slot, with examples and counter-examples (tests/digest/test_trips.py); `trip_in_passing` adds what
the rules did not already draft, in place of what the slot holds (a plan changed is the new plan).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise
from factledger.ledger.when import MONTHS, WEEKDAYS

from .model import Draft
from .passing import in_place_of_held

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
DATE = rf"(?:{_MONTH}\s+{_DAY}\b|{_DAY}\s+(?:of\s+)?{_MONTH}|the\s+{_DAY}\b)"
# A place: a name, or one word typed small right after the words that say it ("fly into corrandel").
_PLACE = r"(?P<v>(?-i:[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+)?)|[a-z][\w'’\-]{2,})"
# Travel talk: a turn saying none of these is about something else ("going to Tesco for milk").
_TRAVEL = re.compile(r"(?i)\b(?:trip|holiday|flights?|fly|flying|flew|land|landing|airline|airport|hotel|hostel|guesthouse|ryokan|itinerary|nights?|ferr(?:y|ies)|train|visa|passport|booked|outbound|return\s+flight)\b")
_NOT_PLACES = frozenset("the a an my our his her their it them there here home town bed work trouble style time a couple".split())
# "they moved my flight to June 14": a day, not where the flight goes
_DAY_NAMES = frozenset(MONTHS) | frozenset(WEEKDAYS) | {"thur", "tomorrow", "tonight", "today"}


@dataclass(frozen=True)
class Part:
    """One part of a trip's plan: the words that say it, its slot, and how its fact reads."""

    name: str
    regex: re.Pattern[str]
    key: str
    template: str
    examples: tuple[tuple[str, tuple[str, str]], ...]  # (turn, (slot, value))
    counter: tuple[str, ...] = ()
    place: bool = False  # the value is a place (given its capitals when typed small)


PARTS: tuple[Part, ...] = (
    Part(
        "flying into",
        re.compile(rf"(?i)\b(?<!not\s)(?:fly(?:ing)?\s+into|flew\s+into|land(?:ing)?\s+in(?=\s+\S+(?:\s+\S+)?\s+on\b)|flights?\s+(?:in)?to)\s+{_PLACE}"),
        "flying_into", "{subject} is flying into {value}",
        (("trip sorted, we fly into corrandel on may 3 for a week", ("flying_into", "Corrandel")),
         ("schedule change: we land in brisport on may 5, not corrandel", ("flying_into", "Brisport")),
         ("Ruth and I booked flights to Oskarby for the autumn break!", ("flying_into", "Oskarby")),
         ("cheaper fares, so we're flying into Vellmoor instead of Oskarby", ("flying_into", "Vellmoor"))),
        ("flying into a rage", "we land in trouble on friday lol", "flights to the moon are cheap",
         "the airline pushed my outbound flight to June 14, typical"),
        place=True,
    ),
    Part(
        "the day out",
        re.compile(rf"(?i)\b(?:fly(?:ing)?\s+out(?:\s+on)?|(?<=[,.;:]\s)out(?:\s+on)?|(?:land(?:ing)?\s+in|fly(?:ing)?\s+into|arriv(?:e|ing)\s+in)\s+\S+(?:\s+\S+)?\s+on|flight\s+out\s+is(?:\s+on)?)\s+(?P<v>{DATE})"),
        "flight_out", "{subject} flies out on {value}",
        (("flights done, out jun 3 back the 11th", ("flight_out", "jun 3")),
         ("the airline moved us, we fly out mar 9 now and back the 16th", ("flight_out", "mar 9")),
         ("schedule change: we land in brisport on may 5, not corrandel", ("flight_out", "may 5"))),
        ("I'm out on the 5th for dinner", "the book is out on may 3"),
    ),
    Part(
        "the day out moved",
        re.compile(rf"(?i)\b(?:moved|pushed|changed|shifted|rebooked|put\s+back)\s+(?:the|our|my)\s+(?:outbound(?:\s+flight)?|flight\s+out|flights?(?!\s+(?:home|back)))\s+(?:back\s+)?to\s+(?P<v>{DATE})"),
        "flight_out", "{subject} flies out on {value}",
        (("my partner can't get the 9th off so we moved the outbound to the 11th", ("flight_out", "the 11th")),),
        ("moved the meeting to the 11th",),
    ),
    Part(
        "the day home moved",
        re.compile(rf"(?i)\b(?:moved|pushed|changed|shifted|rebooked|put\s+back)\s+(?:the|our|my)\s+(?:return(?:\s+flight)?|flight\s+(?:home|back))\s+(?:back\s+)?to\s+(?P<v>{DATE})"),
        "flight_home", "{subject} flies home on {value}",
        (("the trip runs long, we rebooked the return flight to sept 4", ("flight_home", "sept 4")),),
        ("moved the return of the books to the 4th",),
    ),
    Part(
        "the day home",
        re.compile(rf"(?i)\b(?:(?:fly(?:ing)?|flight|flights)\s+(?:back\s+)?home\b[^.!?]{{0,40}}?\bon|(?<=\d\s)back(?:\s+on)?|(?<=\d,\s)back(?:\s+on)?|(?<=now\sand\s)back(?:\s+on)?|home\s+on)\s+(?P<v>{DATE})"),
        "flight_home", "{subject} flies home on {value}",
        (("flights done, out jun 3 back the 11th", ("flight_home", "the 11th")),
         ("border's closed so I'm flying home from Tarsk on august 2 instead", ("flight_home", "august 2")),
         ("the airline moved us, we fly out mar 9 now and back the 16th", ("flight_home", "the 16th")),
         ("one more night at the coast, so we're home on the 12th now", ("flight_home", "the 12th"))),
        ("my back on the 3rd was sore", "he's home on the 4th"),
    ),
    Part(
        "going to",
        re.compile(rf"(?i)\b(?:going|heading|off)\s+to\s+(?P<v>(?-i:[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+)?))\s+(?:instead|in\s+{_MONTH}|for\s+(?:a|my|our|two|three|\d)|next|this|on\s+{DATE})"),
        "trip_to", "{subject} is going to {value}",
        (("booked a week away for our anniversary, going to Carvelle in october", ("trip_to", "Carvelle")),
         ("the trains there are on strike, so we're going to Tessaly instead, same hotel dates", ("trip_to", "Tessaly"))),
        ("going to Tesco for milk", "going to Anna's on sunday"),
    ),
)


@dataclass(frozen=True)
class Said:
    part: Part
    value: str
    quote: str


def trip_said(text: str) -> list[Said]:
    """Each part of a trip's plan `text` says (the first of each slot), when `text` is travel talk."""
    if not _TRAVEL.search(text):
        return []
    found: list[Said] = []
    for part in PARTS:
        for m in part.regex.finditer(text):
            value = " ".join(m["v"].split())
            if part.place:
                if value.casefold() in _NOT_PLACES or value.split()[0].casefold() in _DAY_NAMES:
                    continue
                value = value[:1].upper() + value[1:]  # "fly into corrandel": Corrandel
            if re.search(r"(?i)\b(?:if|maybe|might|thinking\s+(?:of|about)|or)\s+$", text[max(0, m.start() - 16): m.start()]):
                continue  # "maybe flying into X": not the plan
            if all(s.part.key != part.key for s in found):
                found.append(Said(part, value, m.group(0)))
    return found


def trip_in_passing(turn: str, subject: str, said_at: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> list[Draft]:
    """The parts of a trip's plan `turn` says that `drafts` do not already have, each in place of the one
    held for its slot (from when it was said), else an undated add."""
    drafted = {d.predicate for d in drafts if normalise(d.subject) == normalise(subject)}
    out = []
    for said in trip_said(turn):
        key = said.part.key
        if key in drafted:
            continue
        draft = in_place_of_held(subject, key, said.value, said.quote, said.part.template, said_at, current)
        out += [draft] if draft else []
    return out
