"""Training figures said in passing: what a fitness log says the user's numbers are now.

"tested again yesterday, ftp 243!!", "deadlift finally moved!! pulled 152.5 kg", "swam 800 in 14:05 at
the lido", "mileage is up to 48k a week", "deadlift 142.5kg x3, squat 92", "doing 4 runs a week, roughly 30km in all",
"2300 cals a day": the clause is news, a request or a list, so no pattern reads it
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
from .passing import held_open, in_place_of_held

# How far after the words naming a figure its value may be said ("deadlift finally moved!! pulled 152.5 kg").
_REACH = 48
_AIMED = re.compile(r"(?i)\b(?:target|goal|aim(?:ing)?|want(?:s|ed)?\s+to|hop(?:e|ing)\s+to|trying\s+to|by\s+(?:the\s+)?(?:end|summer|spring|autumn|winter)|plan|next)\b")
_WEIGHT = r"\d{2,3}(?:\.\d{1,2})?\s*(?:kg|kgs|lbs?)\b"


# A lift named ("bench", "benched", "squat's"): not its rack, its shoes or the day of it.
_LIFT = re.compile(r"(?i)\b(?P<kind>bench(?:\s+press)?|squat|deadlift|overhead\s+press|ohp)(?:ed|ted|s)?\b(?!\s+(?:rack|racks|shoes|bar|stand|belt|form|technique|day|session))")


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
    per: str = ""  # what the value is per, when the turn says it apart from the value ("20km total" of a week's runs)


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
        _LIFT,
        re.compile(rf"(?i)(?P<v>{_WEIGHT})(?!\s*(?:dumbbells?|kettlebells?|plates?|bars?|vest|bag|each|per\s+side|x\s*\d|for\s+\d|reps?))"),
        "{kind}_1rm", "{kind} 1RM",
        (("deadlift finally moved!! pulled 152.5 kg on sunday", ("deadlift_1rm", "152.5 kg")),
         ("BENCHED 92KG TODAY new pb!!", ("bench_1rm", "92KG")),
         ("new log: squat 132kg, felt easy", ("squat_1rm", "132kg"))),
        ("want to bench 100kg by summer", "squat rack was taken, did lunges with 20kg dumbbells"),
    ),
    Figure(
        "a lift for reps",
        _LIFT,
        # the weight, its unit or none, then the reps: "60kg x5", "70 for 5", "80 kg x 3"
        re.compile(r"(?i)(?<![\d.])(?P<v>\d{2,3}(?:\.\d{1,2})?(?:\s*(?:kg|kgs|lbs?))?)\s*(?:x\s*|for\s+)(?P<reps>[2-9]|1\d)(?:\s*reps?)?(?![\d.:x])"),
        "{kind}_{reps}rm", "{kind} for {reps} reps",
        (("week 3 of the block: bench 62.5kg x6, rows after", ("bench_6rm", "62.5kg")),
         ("squat up to 90 for 3 today!!", ("squat_3rm", "90")),
         ("new PR: deadlift 140kg x 2 🎉", ("deadlift_2rm", "140kg"))),
        ("bench 3x5 at 60kg", "squat 5x5 today, legs gone", "want to bench 80kg x5 by june", "squatted 100kg for 30 min of accessories"),
        gap=24,
    ),
    Figure(
        "a lift logged bare",
        _LIFT,
        # a weight without its unit right after the lift ("squat 85", "squat's stuck at 100"): a log's
        # figure, not a count of reps, sets or minutes
        re.compile(r"(?i)(?:['’]s)?(?:\s+(?:is|was|stuck\s+at|up\s+to|at|now|:))*\s*(?P<v>\d{2,3}(?:\.\d{1,2})?)(?!\d|[.,:]\d|\s*(?:x\b|x\d|for\s+\d|reps?|sets?|min|mins|minutes|secs?|seconds|km|k\b|m\b|%|kg|kgs|lbs?|times|days?|weeks?|months?|years?|people|quid|pounds|dollars|euros))"),
        "{kind}_1rm", "{kind} 1RM",
        (("day 4 of logging. squat 92, felt heavy", ("squat_1rm", "92")),
         ("deadlift's stuck at 130 tho, any ideas", ("deadlift_1rm", "130"))),
        ("squat 20 reps with the bar", "bench 10 min of warmup", "deadlift 3 times a week", "squat 5x5", "bench 45 kg"),
        gap=0,
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
    Figure(
        "runs a week and their total",
        re.compile(r"(?i)\b\d\s+(?:easy\s+|short\s+|long\s+)?runs?\s*(?:a|per|/)\s*(?:week|wk)\b|\bruns?\s*/\s*wk\b"),
        re.compile(r"(?i)(?:~|about\s+|around\s+|like\s+|roughly\s+|approx\.?\s+)?(?P<v>\d{1,3}(?:\.\d)?\s*(?:k|km|kms|miles|mi))\b(?!\s*(?:run|race|away|from|each|per\s+run))"),
        "weekly_running", "weekly running",
        (("doing 4 runs a week, roughly 30km in all", ("weekly_running", "30km a week")),
         ("up to 5 runs/wk, about 41 km now", ("weekly_running", "41 km a week"))),
        ("3 runs a week, the long one is 14km each", "2 runs a week. race is 10k in june"),
        gap=40, per="a week",
    ),
    Figure(
        "calories a day",
        re.compile(r"(?i)\b(?:cals?|calories|kcals?)\b"),
        # a day's intake (1000 to 4999), said before its words ("2400 cals a day") or after them ("cals dropped to 2150")
        re.compile(r"(?i)\s*(?:(?:are|is|now|dropped|went|go|going|up|down|back|cut|bumped|raised|lowered|moved|set|at|to)\s+)*(?P<v>[1-4],?\d{3})(?!\d|[.,]\d)"),
        "daily_calories", "daily calorie target",
        (("dietitian has me at 2300 cals a day, help me plan lunches", ("daily_calories", "2300")),
         ("cals went up to 2650 this block", ("daily_calories", "2650"))),
        ("burned 1200 cals on the ride", "this bar is 250 cals", "want to get cals down to 1900 by summer"),
        value_before=re.compile(r"(?i)(?<!burn)(?<!burned)(?<!burnt)\s(?P<v>[1-4],?\d{3})\s*$"),
        gap=0,
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
_DAY_CALORIES = next(f for f in FIGURES if f.name == "calories a day")
# A day's calories moved, their word unsaid ("my trainer set me at 2450", "bumped it to 2,450"): the held figure moves.
_DAY_MOVED = re.compile(r"(?i)\b(?:put|puts|moved|bumped|set|sets|upped|dropped|cut|raised|lowered)\s+(?:me|it|us)?\s*(?:up\s+|down\s+|back\s+)?(?:to|at)\s+"
                        r"(?P<v>[1-4],?\d{3})(?!\d|[.,]\d|\s*(?:steps|m\b|ft|feet|metres|meters|km|words))")


def _day_moved(turn: str, said: list["Said"], held: list[ClaimVersion]) -> list["Said"]:
    """'my trainer set me at 2450' with the day's calories held: the calories' figure, 2450."""
    if len(held) != 1 or any(s.slot == _DAY_CALORIES.key for s in said):
        return []
    m = _DAY_MOVED.search(turn)
    if m is None or _AIMED.search(re.split(r"[.!?\n]", turn[: m.start()])[-1]):
        return []
    return [Said(_DAY_CALORIES, _DAY_CALORIES.key, _DAY_CALORIES.noun, m["v"], m.group(0))]

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
            reps = v.groupdict().get("reps") or ""
            slot, noun = figure.key.format(kind=kind, reps=reps), figure.noun.format(kind=kind, reps=reps)
            value = " ".join(v["v"].split()) + (f" {figure.per}" if figure.per else "")
            if all(slot != f.slot for f in found):
                found.append(Said(figure, slot, noun, value, quote))
    return found


def _misnamed(draft: Draft, said: Sequence[Said]) -> bool:
    """Whether `draft` holds a figure of `said` under the bare word that names its kind ("cals": 2650),
    where the figure's own slot says what it is (daily_calories)."""
    return any(normalise(draft.value or "") == normalise(s.value.removesuffix(f" {s.figure.per}")) and s.figure.words.fullmatch(draft.predicate.replace("_", " "))
               for s in said)


def figures_in_passing(turn: str, subject: str, said_at: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> list[Draft]:
    """`drafts` with the training figures `turn` says that they do not already have: each in place of the
    one held for its slot (from when it was said), else an undated add. When there are such figures, a
    draft holding one under the bare word naming its kind ("cals": 2650) gives way to the figure's own
    slot (daily_calories)."""
    said_here = figures_said(turn)
    kept = [d for d in drafts if not _misnamed(d, said_here)]
    drafted = {(normalise(d.subject), d.predicate) for d in kept}
    drafted_values = {normalise(d.value or "") for d in kept if d.subject == subject}
    out = []
    weekly = [c for c in held_open(current, subject) if c.predicate.startswith("weekly_")]
    calories = held_open(current, subject, _DAY_CALORIES.key)
    for said in said_here + _week_moved(turn, said_here, weekly) + _day_moved(turn, said_here, calories):
        slot, noun, value = said.slot, said.noun, said.value
        if (normalise(subject), slot) in drafted or normalise(value) in drafted_values:
            continue
        draft = in_place_of_held(subject, slot, value, said.quote, f"{{subject}}'s {noun} is {{value}}", said_at, current)
        out += [draft] if draft else []
    return kept + out if out else list(drafts)
