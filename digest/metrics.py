"""Training figures said in passing: what a fitness log says the user's numbers are now.

"tested again yesterday, ftp 243!!", "deadlift finally moved!! pulled 152.5 kg", "swam 800 in 14:05 at
the lido", "mileage is up to 48k a week": the clause is news, a request or a list, so no pattern reads it
whole, yet it says a figure of a well-known kind. Each kind below is data, its words and the form its
value takes, with examples and counter-examples (tests/digest/test_metrics.py); `figures_in_passing`
adds the figure the rules did not already draft, in place of the one held for the same kind. A figure
aimed at ("target 250w", "want to bench 100kg") is no figure of the user's yet.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise

from .model import Draft
from .passing import in_place_of_held

# How far after the words naming a figure its value may be said ("deadlift finally moved!! pulled 152.5 kg").
_REACH = 48
_AIMED = re.compile(r"(?i)\b(?:target|goal|aim(?:ing)?|want(?:s|ed)?\s+to|hop(?:e|ing)\s+to|trying\s+to|by\s+(?:the\s+)?(?:end|summer|spring|autumn|winter)|plan|next)\b")
_WEIGHT = r"\d{2,3}(?:\.\d{1,2})?\s*(?:kg|kgs|lbs?)\b"


@dataclass(frozen=True)
class Figure:
    """One kind of training figure: the words that name it, the form of its value, and its slot."""

    name: str
    words: re.Pattern[str]
    value: re.Pattern[str]
    key: str  # the slot; "{kind}" is the word that names it ("bench", "5k", "running")
    noun: str  # as the fact's sentence says it
    examples: tuple[tuple[str, tuple[str, str]], ...]  # (turn, (slot, value))
    counter: tuple[str, ...] = ()
    value_before: re.Pattern[str] | None = None  # the value said first, in the same sentence ("22:59 at the parkrun")
    gap: int | None = None  # at most this many characters between the words and the value, in one sentence


FIGURES: tuple[Figure, ...] = (
    Figure(
        "ftp",
        re.compile(r"(?i)\bftp\b|\bre-?test(?:ed)?\b|\bramp\s+test\b"),
        re.compile(r"(?i)(?P<v>\d{3}\s*(?:w|watts)\b|(?<=ftp\s)\d{3}\b|(?<=ftp:\s)\d{3}\b|(?<=ftp\sis\s)\d{3}\b)"),
        "ftp", "FTP",
        (("tested again yesterday, ftp 243!! legs gone", ("ftp", "243")),
         ("did a ramp test as well: 219w. cycling 5 hrs a week", ("ftp", "219w")),
         ("ftp retest after the build block: 257 watts!!!", ("ftp", "257 watts")),
         ("retest: 238w, the intervals pay off", ("ftp", "238w"))),
        ("ftp target is 250w by summer", "ftp test on the 21st at 7pm", "my ftp zones, 5 of them"),
    ),
    Figure(
        "a lift",
        re.compile(r"(?i)\b(?P<kind>bench(?:\s+press)?|squat|deadlift|overhead\s+press|ohp)(?:ed|ted|s)?\b(?!\s+(?:rack|racks|shoes|bar|stand|belt|form|technique|day|session))"),
        re.compile(rf"(?i)(?P<v>{_WEIGHT})(?!\s*(?:dumbbells?|kettlebells?|plates?|bars?|vest|bag|each|per\s+side|x\s*\d|for\s+\d|reps?))"),
        "{kind}_1rm", "{kind} 1RM",
        (("deadlift finally moved!! pulled 152.5 kg on sunday", ("deadlift_1rm", "152.5 kg")),
         ("BENCHED 92KG TODAY new pb!!", ("bench_1rm", "92KG")),
         ("new log: squat 132kg, felt easy", ("squat_1rm", "132kg"))),
        ("want to bench 100kg by summer", "squat rack was taken, did lunges with 20kg dumbbells"),
    ),
    Figure(
        "a time for a distance",
        re.compile(r"(?i)\b(?P<kind>\d{1,2}\s?k|\d{3,4}\s?m?|half(?:\s+marathon)?|marathon|parkrun)\b"),
        re.compile(r"(?i)\b(?:in|of|was|is)\s+(?:a\s+)?(?P<v>\d{1,2}:\d{2}(?::\d{2})?)\b"),
        "{kind}_time", "{kind} time",
        (("5k done in 23:41!!! the half is next", ("5k_time", "23:41")),
         ("swam 800 in 14:05 at the lido on sunday", ("800_time", "14:05")),
         ("400m free this morning in 6:52 at the pool", ("400_time", "6:52")),
         ("parkrun on saturday was 25:38, legs fine", ("5k_time", "25:38")),
         ("PB!!! 22:59 at Tarnbury parkrun today", ("5k_time", "22:59"))),
        ("the 10k starts at 9:30", "half marathon in october, aiming for 1:45", "10k in may, 12:30 start"),
        re.compile(r"(?i)(?P<v>\d{1,2}:\d{2}(?::\d{2})?)\s+(?:at|in)\s+(?:the\s+)?(?:[A-Z][\w'’\-]*\s+){0,3}$"),
        gap=30,
    ),
    Figure(
        "a week's training",
        re.compile(r"(?i)\b(?P<kind>mileage|running|run|riding|ride|cycling|swimming|training)\b"),
        re.compile(r"(?i)(?P<v>\d{1,3}(?:\.\d)?\s*(?:k|km|kms|miles|mi|hrs?|hours)\s*(?:(?:a|per)\s+|/\s*)week)\b"),
        "weekly_{kind}", "weekly {kind}",
        (("legs ok, running 48k a week at the moment", ("weekly_running", "48k a week")),
         ("cycling about 6 hrs a week all in", ("weekly_cycling", "6 hrs a week"))),
        ("running 3 times a week", "want to be running 50k a week by june"),
    ),
)

# A week's figure moved, its kind unsaid ("back up to 38k a week", "down to 18k/week"): the one week's
# figure held in the same unit moves.
_WEEK_MOVED = re.compile(r"(?i)\b(?:up|down|back\s+up|back\s+down|drop(?:ped)?|cut(?:\s+back)?)\s+to\s+(?:around\s+|about\s+|~)?"
                         r"(?P<v>\d{1,3}(?:\.\d)?\s*(?P<unit>k|km|kms|miles|mi|hrs?|hours)\s*(?:(?:a|per)\s+|/\s*)week)\b")
_HOURS = re.compile(r"(?i)\d\s*(?:hrs?|hours)\b")


def _week_moved(turn: str, said: list["Said"], held_weekly: list[ClaimVersion]) -> list["Said"]:
    """'back up to 38k a week' with the running held at 26k a week: the running's figure, 38k a week."""
    out = []
    for m in _WEEK_MOVED.finditer(turn):
        if any(m["v"] in s.quote for s in said) or _AIMED.search(re.split(r"[.!?\n]", turn[: m.start()])[-1]):
            continue
        hours = bool(_HOURS.search(m["v"]))
        same = [h for h in held_weekly if bool(_HOURS.search(h.value)) == hours]
        if len(same) == 1:
            slot = same[0].predicate
            out.append(Said(_WEEK, slot, slot.replace("_", " "), " ".join(m["v"].split()), m.group(0)))
    return out


_WEEK = next(f for f in FIGURES if f.name == "a week's training")

# Words naming one figure several ways ("bench press", "benched": the bench; "1500m", "1500": one distance).
_SAME = {"bench press": "bench", "overhead press": "ohp", "run": "running", "ride": "riding", "parkrun": "5k"}


def _kind_word(words: str) -> str:
    word = re.sub(r"\s+", " ", words.casefold())
    word = re.sub(r"^(\d+)\s?([km]?)$", lambda d: d[1] + ("k" if d[2] == "k" else ""), word)  # "10 k": 10k; "1500m": 1500
    return _SAME.get(word, word).replace(" ", "")


@dataclass(frozen=True)
class Said:
    figure: Figure
    slot: str
    noun: str
    value: str
    quote: str  # the words from what names the figure to its value


def figures_said(text: str) -> list[Said]:
    """Each training figure `text` says, the first one of each slot."""
    found: list[Said] = []
    for figure in FIGURES:
        for m in figure.words.finditer(text):
            kind = _kind_word(m.groupdict().get("kind") or "")
            window = text[m.start(): m.end() + _REACH]
            before = re.split(r"[.!?\n]", text[: m.start()])[-1]  # the sentence so far: "goal for the summer: squat 120kg and ftp 260w"
            said = len(m.group(0))
            v = figure.value.search(window, said)  # (from the words' end: a lookbehind may still see them)
            if v is not None and figure.gap is not None and (v.start() - said > figure.gap or re.search(r"[.!?]", window[said: v.start()])):
                v = None  # "the 10k starts at 9:30 … in 45:00": too far, or in another sentence
            quote = window[: v.end()] if v else ""
            if v is None and figure.value_before is not None:
                v = figure.value_before.search(before)
                quote = before[v.start():] + m.group(0) if v else ""
            if v is None or _AIMED.search(quote) or _AIMED.search(before):
                continue
            slot, noun = figure.key.format(kind=kind), figure.noun.format(kind=kind)
            if all(slot != f.slot for f in found):
                found.append(Said(figure, slot, noun, " ".join(v["v"].split()), quote))
    return found


def figures_in_passing(turn: str, subject: str, said_at: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> list[Draft]:
    """The training figures `turn` says that `drafts` do not already have: each in place of the one held
    for its slot (from when it was said), else an undated add."""
    drafted = {(normalise(d.subject), d.predicate) for d in drafts}
    drafted_values = {normalise(d.value or "") for d in drafts if d.subject == subject}
    out = []
    said_here = figures_said(turn)
    weekly = [c for c in current if c.subject_key == normalise(subject) and c.predicate.startswith("weekly_") and c.tx_to is None and c.valid_to is None]
    for said in said_here + _week_moved(turn, said_here, weekly):
        slot, noun, value = said.slot, said.noun, said.value
        if (normalise(subject), slot) in drafted or normalise(value) in drafted_values:
            continue
        draft = in_place_of_held(subject, slot, value, said.quote, f"{{subject}}'s {noun} is {{value}}", said_at, current)
        out += [draft] if draft else []
    return out
