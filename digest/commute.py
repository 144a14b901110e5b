"""How the user gets to work: said in passing, and changed in passing.

"most days I cycle to work along the canal", "I get the number 12 bus in", "the commute is a 25 minute
tram ride now", "I've started cycling in, the trains are a mess", "so I've given up cycling": a commute is told beside the news that
changed it (a move, a new job, a stolen bike), so no pattern reads the clause whole. Each way of saying it
is data with examples and counter-examples (tests/digest/test_commute.py); `commute_in_passing` holds
the way said in place of the one held (from when it was said), and an end ("stopped cycling", "no bike
anymore") ends the held way it names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise

from .model import Draft
from .passing import ended_when_said, held_open, in_place_of_held

SLOT = "commute"
TEMPLATE = "{subject} gets to work by {value}"

_TO_WORK = r"(?:into\s+work\b|in(?=\s*(?:[,.;:!?)]|$|(?:now|these|every|from|instead|again|today|most|so|and|but|too|though|since|as|because|lol)\b))|to\s+(?:work|the\s+office|my\s+(?:job|office)|the\s+(?:plant|site|depot|warehouse|hospital|school|lab|studio)))"
_VEHICLE = r"(?:bus|train|tube|tram|metro|ferry|subway|shuttle|overground)"
# The verbs of a way, and the word the fact says it by.
_MODES = {"cycle": "bike", "bike": "bike", "cycling": "bike", "biking": "bike", "walk": "walking", "walking": "walking",
          "drive": "car", "driving": "car", "run": "running", "running": "running", "scoot": "scooter", "scooting": "scooter"}


@dataclass(frozen=True)
class Way:
    """One way of saying how the user gets to work."""

    name: str
    regex: re.Pattern[str]
    examples: tuple[tuple[str, str], ...]  # (turn, value)
    counter: tuple[str, ...] = ()


WAYS: tuple[Way, ...] = (
    Way(
        "I cycle in",
        re.compile(rf"(?i)\bI\s+(?:now\s+|still\s+|usually\s+|can\s+|just\s+)?(?P<mode>cycle|bike|walk|drive|run|scoot)\s+(?:it\s+)?{_TO_WORK}"),
        (("most days I cycle to work along the canal, about twenty minutes", "bike"),
         ("since the move I can walk to the office in ten minutes", "walking")),
        ("I drive in circles when I'm lost", "I walk to the shops"),
    ),
    Way(
        "started cycling in",
        re.compile(rf"(?i)\b(?:started|starting|back\s+to|switched\s+to|now)\s+(?P<mode>cycling|biking|walking|driving|running)\s+{_TO_WORK}"),
        (("new rota from next week. I've also started cycling in since the trains are a mess", "bike"),),
        ("started cycling in the mountains", "back to walking in the park"),
    ),
    Way(
        "I get the bus in",
        re.compile(rf"(?i)\bI\s+(?:now\s+|still\s+|usually\s+|just\s+)?(?:get|take|catch|ride)\s+(?P<v>(?:the|a)\s+(?:[\w\-]+\s+){{0,2}}?{_VEHICLE})\s+{_TO_WORK}"),
        (("I get the number 12 bus in, which is packed by eight", "the number 12 bus"),
         ("I take the overground to work now", "the overground")),
        ("I take the train to the coast on sunday", "I get the bus into town for shopping"),
    ),
    Way(
        "commute's a bus ride",
        re.compile(rf"(?i)\bcommute(?:['’]s|\s+is)\s+(?:now\s+|only\s+|just\s+)?(?:an?\s+)?(?P<v>(?:[\w\-]+\s+){{0,3}}?(?:{_VEHICLE}|bike|cycle|walk|drive)(?:\s+(?:ride|journey|trip))?)\b"),
        (("settled into the new place, the commute is a 25 minute tram ride now", "25 minute tram ride"),),
        ("the commute's awful today", "commute is 40 minutes each way"),
    ),
    Way(
        "a bus ride to work",
        re.compile(rf"(?i)\b(?:it['’]s|it\s+is)\s+(?:now\s+)?(?:an?\s+)?(?P<v>(?:[\w\-]+\s+){{0,3}}?{_VEHICLE}\s+(?:ride|journey|trip))\s+{_TO_WORK}"),
        (("love the garden here, though it's a half-hour train journey to work", "half-hour train journey"),),
        ("it's a bus ride to the beach",),
    ),
)

# "back to the bus": a way said again, only as the change of one held
_BACK_TO = re.compile(rf"(?i)\bback\s+(?:on\s+)?to\s+(?P<v>the\s+(?:[\w\-]+\s+)?{_VEHICLE})\b")
# An end: "so I've stopped cycling", "no bike anymore", "the bike got nicked".
_STOPPED = re.compile(r"(?i)\b(?:stopped|quit|gave\s+up|given\s+up|no\s+more|not)\s+(?P<mode>cycling|biking|driving|walking)\b|\bno\s+(?P<bike>bike|car)\s+any\s?more\b")


@dataclass(frozen=True)
class Said:
    way: Way
    value: str
    quote: str


def commute_said(text: str) -> list[Said]:
    """Each way `text` says the user gets to work (the first, per shape)."""
    found = []
    for way in WAYS:
        m = way.regex.search(text)
        if not m:
            continue
        value = _MODES[m["mode"].casefold()] if "mode" in way.regex.groupindex else " ".join(m["v"].split())
        found.append(Said(way, value, m.group(0)))
    return found


def _names_way(held: ClaimVersion, mode: str) -> bool:
    return _MODES.get(mode.casefold(), mode.casefold()) in held.value.casefold() or mode.casefold() in held.value.casefold()


def commute_in_passing(turn: str, subject: str, said_at: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> list[Draft]:
    """The way `turn` says the user gets to work, in place of the one held; or the end of the held way it
    says stopped."""
    key = normalise(subject)
    mine = [d for d in drafts if normalise(d.subject) == key and d.predicate == SLOT]
    if any(d.op != "retract" for d in mine):
        return []
    # a way another reader ended in this turn ("no bike anymore" ends what names the bike) is no longer held
    ended = {normalise(d.value or "") for d in mine}
    held = [c for c in held_open(current, subject, SLOT) if c.value_key not in ended]
    said = commute_said(turn)
    back = _BACK_TO.search(turn) if not said and (held or ended) else None  # "no bike anymore. back to the bus"
    value = said[0].value if said else " ".join(back["v"].split()) if back else None
    if value is not None:
        if ended and not held:
            return [Draft(op="add", subject=subject, predicate=SLOT, value=value, quote=turn.strip(), cardinality="one",
                          template=TEMPLATE, valid_from=said_at)]
        draft = in_place_of_held(subject, SLOT, value, turn, TEMPLATE, said_at, held)
        return [draft] if draft else []
    for m in _STOPPED.finditer(turn):
        mode = m["mode"] or m["bike"]
        return [ended_when_said(c, turn, said_at) for c in held if _names_way(c, mode)]
    return []
