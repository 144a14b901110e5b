"""Resolving the time words of a turn ("last March", "since 2019", "until Friday", "two years ago")
against the moment the turn was said. Pure functions; the model only quotes the phrase, this decides.

Decisions (also in docs/ARCHITECTURE.md):
- A named period is a closed-open range of days: "March 2024" is [2024-03-01, 2024-04-01).
- A bare period or "since"/"from"/"as of" gives valid_from = the period's start ("I moved last month").
- "until"/"till"/"through"/"to" include the named period: "until Friday" ends when Friday ends.
- Without a year, a month or weekday means its most recent occurrence (not after the turn) for the past
  forms, and its next occurrence (on or after the turn) after "until"/"next".
- "last March" is the most recent March before the current month; "last month" the calendar month before.
- Anything not understood resolves to None: the caller holds the proposal rather than guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from factledger.ledger.times import format_time, to_datetime

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
            ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
            ("october", "oct"), ("november", "nov"), ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
WEEKDAYS = {
    name: number
    for number, names in enumerate(
        [("monday", "mon"), ("tuesday", "tue", "tues"), ("wednesday", "wed"), ("thursday", "thu", "thurs"),
         ("friday", "fri"), ("saturday", "sat"), ("sunday", "sun")]
    )
    for name in names
}
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2,
}

_MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
# A month's whole name or its short form, for readers elsewhere that must not take "octagon" or "decided" for one.
MONTH_WORD = _MONTH
# A bare month name is only a time when it cannot be a verb or a word ("may", "mar"): "in May" is.
_FULL_MONTH_NOT_MAY = r"(?:january|february|march|april|june|july|august|september|october|november|december)"
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_YEAR = r"(?:19|20)\d{2}"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_COUNT = r"(?:\d{1,3}|a couple of|couple of|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(?:day|week|fortnight|month|year)s?"

# One point or period in time, as words.
POINT = (
    rf"(?:(?:in\s+)?{_MONTH}(?:\s+of)?\s+{_YEAR}"
    rf"|\d{{4}}-\d{{2}}-\d{{2}}"
    rf"|{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?"
    rf"|{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?"
    rf"|{_MONTH}(?:\s+of)?\s+{_YEAR}"
    rf"|(?:last|this|next)\s+(?:{_MONTH}|{_WEEKDAY}|weekend|week|month|year|summer|winter|spring|autumn|fall)"
    rf"|{_COUNT}\s+{_UNIT}\s+ago(?:\s+today)?"
    rf"|{_COUNT}\s+(?:day|week)s?\s+from\s+(?:today|now|tomorrow)"
    rf"|(?:the\s+)?day\s+(?:before\s+yesterday|after\s+tomorrow)"
    rf"|yesterday|today|tomorrow|tonight|this\s+(?:morning|afternoon|evening)|last\s+night"
    rf"|(?:on\s+)?{_WEEKDAY}"
    rf"|in\s+{_MONTH}(?!\w)|{_FULL_MONTH_NOT_MAY}"
    rf"|(?:in\s+)?{_YEAR})"
)
_START_WORDS = r"(?:since|from|as of|starting|beginning)"
_END_WORDS = r"(?:until|till|til|through|to|up to)"
# What a rules extractor searches a sentence for.
TIME_PHRASE = re.compile(
    rf"(?i)\b(?:{_START_WORDS}\s+{POINT}(?:\s+{_END_WORDS}\s+{POINT})?|{_END_WORDS}\s+{POINT}|{POINT})(?!\w)"
)

_RANGE = re.compile(rf"(?i)^(?:{_START_WORDS})\s+(?P<a>.+?)\s+(?:{_END_WORDS})\s+(?P<b>.+)$")
_SINCE = re.compile(rf"(?i)^(?:{_START_WORDS})\s+(?P<a>.+)$")
_UNTIL = re.compile(rf"(?i)^(?:{_END_WORDS})\s+(?P<b>.+)$")


@dataclass(frozen=True)
class ValidTime:
    """A resolved valid-time bound pair (canonical UTC text); either may be None (not said)."""

    valid_from: str | None
    valid_to: str | None


@dataclass(frozen=True)
class _Period:
    start: date
    end: date  # exclusive


def _month_period(year: int, month: int) -> _Period:
    end = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return _Period(date(year, month, 1), end)


def _day(d: date) -> _Period:
    return _Period(d, d + timedelta(days=1))


def _shift_months(d: date, months: int) -> date:
    index = d.year * 12 + (d.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    last = (_month_period(year, month).end - timedelta(days=1)).day
    return date(year, month, min(d.day, last))


_SEASONS = {"spring": (3, 3), "summer": (6, 3), "autumn": (9, 3), "fall": (9, 3), "winter": (12, 3)}


def _count(word: str) -> int:
    """A count said in digits or words ("3", "three", "a couple of")."""
    word = re.sub(r"\s+", " ", word.casefold())
    return int(word) if word.isdigit() else NUMBERS[word]


def _point(text: str, today: date, future: bool) -> _Period | None:
    """The period a point phrase names, relative to `today`; future=True prefers upcoming occurrences."""
    t = re.sub(r"\s+", " ", text.strip().casefold().rstrip(".,;!?")).replace(".", "")
    t = re.sub(r"^(?:in|on|the) ", "", t)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", t):
        try:
            return _day(date.fromisoformat(t))
        except ValueError:
            return None
    if t in ("today", "tonight", "this morning", "this afternoon", "this evening"):
        return _day(today)
    if t == "last night":
        return _day(today - timedelta(days=1))
    if t == "yesterday":
        return _day(today - timedelta(days=1))
    if t == "tomorrow":
        return _day(today + timedelta(days=1))
    if t in ("day before yesterday", "day after tomorrow"):
        return _day(today + timedelta(days=-2 if t.startswith("day before") else 2))
    m = re.fullmatch(rf"(?P<n>{_COUNT}) (?P<unit>day|week)s? from (?P<base>today|now|tomorrow)", t)
    if m:
        n = _count(m["n"])
        base = today + timedelta(days=1 if m["base"] == "tomorrow" else 0)
        return _day(base + timedelta(days=n * (7 if m["unit"] == "week" else 1)))
    if re.fullmatch(_YEAR, t):
        return _Period(date(int(t), 1, 1), date(int(t) + 1, 1, 1))
    m = re.fullmatch(rf"(?P<n>{_COUNT}) (?P<unit>day|week|fortnight|month|year)s? ago(?: today)?", t)
    if m:
        n = _count(m["n"])
        unit = m["unit"]
        if unit in _UNIT_DAYS:  # "three weeks ago today", "a fortnight ago": that many days back
            return _day(today - timedelta(days=n * _UNIT_DAYS[unit]))
        return _day(_shift_months(today, -n * (12 if unit == "year" else 1)))
    m = re.fullmatch(r"(?P<rel>last|this|next) (?P<what>\w+)", t)
    if m:
        rel, what = m["rel"], m["what"]
        step = {"last": -1, "this": 0, "next": 1}[rel]
        if what == "week":
            monday = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
            return _Period(monday, monday + timedelta(days=7))
        if what == "weekend":  # Saturday and Sunday of that calendar week ("last weekend": the one before this week)
            saturday = today - timedelta(days=today.weekday()) + timedelta(days=5, weeks=step)
            return _Period(saturday, saturday + timedelta(days=2))
        if what == "month":
            first = _shift_months(today.replace(day=1), step)
            return _month_period(first.year, first.month)
        if what == "year":
            return _Period(date(today.year + step, 1, 1), date(today.year + step + 1, 1, 1))
        if what in _SEASONS:
            month, length = _SEASONS[what]
            year = today.year
            start = date(year, month, 1)
            if rel == "last" and start >= date(today.year, today.month, 1):
                start = date(year - 1, month, 1)
            elif rel == "next" and start <= today:
                start = date(year + 1, month, 1)
            return _Period(start, _shift_months(start, length))
        if what in MONTHS:
            month = MONTHS[what]
            if rel == "last":
                year = today.year if month < today.month else today.year - 1
            elif rel == "next":
                year = today.year if month > today.month else today.year + 1
            else:
                year = today.year
            return _month_period(year, month)
        if what in WEEKDAYS:
            delta = today.weekday() - WEEKDAYS[what]
            if rel == "last":
                return _day(today - timedelta(days=delta if delta > 0 else delta + 7))
            if rel == "next":
                ahead = -delta if -delta > 0 else -delta + 7
                return _day(today + timedelta(days=ahead))
            return _day(today - timedelta(days=today.weekday()) + timedelta(days=WEEKDAYS[what]))
        return None
    if t in WEEKDAYS:
        target = WEEKDAYS[t]
        if future:
            return _day(today + timedelta(days=(target - today.weekday()) % 7))
        return _day(today - timedelta(days=(today.weekday() - target) % 7))
    m = re.fullmatch(rf"(?P<month>{_MONTH})(?: of)? (?P<year>{_YEAR})", t)
    if m:
        return _month_period(int(m["year"]), MONTHS[m["month"]])
    m = re.fullmatch(rf"(?P<month>{_MONTH}) (?P<day>{_DAY})(?:,? (?P<year>{_YEAR}))?", t) or re.fullmatch(
        rf"(?P<day>{_DAY}) (?:of )?(?P<month>{_MONTH})(?:,? (?P<year>{_YEAR}))?", t
    )
    if m:
        month = MONTHS[m["month"]]
        day = int(re.sub(r"\D", "", m["day"]))
        if m["year"]:
            year = int(m["year"])
        else:  # the most recent (or, forward, the next) such day
            year = today.year
            try:
                candidate = date(year, month, day)
            except ValueError:
                return None
            if future and candidate < today:
                year += 1
            elif not future and candidate > today:
                year -= 1
        try:
            return _day(date(year, month, day))
        except ValueError:
            return None
    if t in MONTHS:
        month = MONTHS[t]
        if future:
            year = today.year if month >= today.month else today.year + 1
        else:
            year = today.year if month <= today.month else today.year - 1
        return _month_period(year, month)
    return None


def _stamp(d: date) -> str:
    return format_time(datetime(d.year, d.month, d.day, tzinfo=timezone.utc))


def resolve_time_phrase(phrase: str | None, said_at: str, *, ahead: bool = False) -> ValidTime | None:
    """Turn a time phrase into valid-time bounds, relative to `said_at` (canonical UTC text). `ahead`: a
    bare month or weekday is the next one ("we're moving in June"), not the last ("we moved in June").

    Returns None for an empty or unrecognised phrase.
    """
    if not phrase or not phrase.strip():
        return None
    try:
        return _resolve(phrase, said_at, ahead)
    except (ValueError, OverflowError):  # a date outside the calendar ("9999 years ago")
        return None


def _resolve(phrase: str, said_at: str, ahead: bool = False) -> ValidTime | None:
    today = to_datetime(said_at).date()
    text = re.sub(r"\s+", " ", phrase.strip())
    m = _RANGE.match(text)
    if m:
        a, b = _point(m["a"], today, future=False), _point(m["b"], today, future=True)
        if a is None or b is None or not a.start < b.end:
            return None
        return ValidTime(_stamp(a.start), _stamp(b.end))
    m = _SINCE.match(text)
    if m:
        a = _point(m["a"], today, future=False)
        return None if a is None else ValidTime(_stamp(a.start), None)
    m = _UNTIL.match(text)
    if m:
        b = _point(m["b"], today, future=True)
        return None if b is None else ValidTime(None, _stamp(b.end))
    future = ahead or bool(re.match(r"(?i)^(next|tomorrow)", text))
    p = _point(text, today, future=future)
    return None if p is None else ValidTime(_stamp(p.start), None)


def find_time_phrase(text: str) -> str | None:
    """The first time phrase in `text`, as written (for the rules extractor)."""
    match = TIME_PHRASE.search(text)
    return match.group(0) if match else None


# -- dated events ---------------------------------------------------------------------------------

_MONTH_LABELS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]


@dataclass(frozen=True)
class EventTime:
    """When a dated event happens: the period its time words name (closed-open days) and a label."""

    start: str
    end: str
    label: str  # "on 2 June 2027", "in June 2027", "in 2027", "in the week of 7 June 2027"


def _label(p: _Period) -> str:
    days = (p.end - p.start).days
    if days == 1:
        return f"on {p.start.day} {_MONTH_LABELS[p.start.month - 1]} {p.start.year}"
    if p.start.day == 1 and p.end == _month_period(p.start.year, p.start.month).end:
        return f"in {_MONTH_LABELS[p.start.month - 1]} {p.start.year}"
    if (p.start.month, p.start.day) == (1, 1) and p.end == date(p.start.year + 1, 1, 1):
        return f"in {p.start.year}"
    if days == 7 and p.start.weekday() == 0:
        return f"in the week of {p.start.day} {_MONTH_LABELS[p.start.month - 1]} {p.start.year}"
    last = p.end - timedelta(days=1)
    return f"between {p.start.day} {_MONTH_LABELS[p.start.month - 1]} {p.start.year} and {last.day} {_MONTH_LABELS[last.month - 1]} {last.year}"


def resolve_event_time(phrase: str | None, said_at: str, *, upcoming: bool = False) -> EventTime | None:
    """The period of a dated event ("yesterday", "last Saturday", "on June 3", "in September").

    A month, weekday or day without a year is its most recent occurrence for an event that happened, and
    its next occurrence (on or after the turn) for an upcoming one ("my sister's wedding is on June 3").
    Ranges ("since", "until") are not one event: None, like anything not understood.
    """
    if not phrase or not phrase.strip():
        return None
    text = re.sub(r"\s+", " ", phrase.strip())
    if _RANGE.match(text) or _SINCE.match(text) or _UNTIL.match(text):
        return None
    try:
        today = to_datetime(said_at).date()
        future = upcoming or bool(re.match(r"(?i)^(next|tomorrow)", text))
        p = _point(text, today, future=future)
    except (ValueError, OverflowError):
        return None
    if p is None:
        return None
    return EventTime(_stamp(p.start), _stamp(p.end), _label(p))


# -- dating a turn's relative day words for a reader ------------------------------------------------

# Day words whose meaning depends on the day they were said. A weekday alone ("born tuesday", "the MRI is
# on Wednesday") points back or forward by the verb, so it is dated only when its clause says which.
_RELATIVE_DAY = re.compile(
    rf"(?i)\b(?:the\s+)?day\s+(?P<two>before\s+yesterday|after\s+tomorrow)(?![\w'’-])"
    rf"|\b(?P<n_from>{_COUNT})\s+(?P<unit_from>day|week|fortnight)s?\s+from\s+(?P<base>today|now|tomorrow)(?![\w'’-])"
    rf"|\bin\s+(?P<n_in>{_COUNT})\s+(?P<unit_in>day|week|fortnight)s?(?![\w'’-])"
    rf"|\b(?:(?P<lead>since|from|last|this|next|on)\s+)?(?P<day>{_WEEKDAY})(?!['’\w])"
    rf"|\b(?:yesterday|today|tonight|tomorrow|last\s+night|this\s+(?:morning|afternoon|evening)"
    rf"|{_COUNT}\s+(?:day|week|fortnight)s?\s+ago(?:\s+today)?)(?![\w'’-])"
)
_NO_TITLE = r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bProf)(?<!\bSt)"  # "Prof." and "Dr." end nothing
_CLAUSE_BOUNDS = re.compile(rf"{_NO_TITLE}[.!?;,]|\s+(?:and|but|so)\s+")
# A sentence's end: where a clause saying no direction looks for its verb.
_SENTENCE_BOUNDS = re.compile(rf"{_NO_TITLE}[.!?;]")
# A clause that looks back: a past form or "since". One that looks ahead: a future form or a booking.
_LOOKS_BACK = re.compile(
    r"(?i)\b(?:since|was|were|did|had|got|went|came|died|born|passed|gave|left|moved|started|finished|ran|took"
    r"|made|said|told|saw|met|bought|sold|quit|joined|began|broke|fell|lost|won|found|heard|rang|called)\b"
    r"|\b\w{3,}ed\b"
)
_LOOKS_AHEAD = re.compile(
    r"(?i)(?:\b(?:will|going\s+to|gonna|planning|due|until|till|by"
    r"|coming|upcoming|should|can|could|is|are|'s)\b|['’]ll\b)"
)
_BOOKED_FOR = re.compile(r"(?i)\b(?:booked|scheduled|planned|moved|pushed|rescheduled)\s+(?:in\s+|back\s+|to\s+)?(?:for|to|till|until)\b")
# Already followed by a date, or dated by this function: left as it is.
_DATED_AFTER = re.compile(r"\s*(?:\[|\(?\d{4}-\d{2}-\d{2}|\(?(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\b)")


_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14}


def _clause_around(text: str, start: int, end: int, bounds: re.Pattern[str] = _CLAUSE_BOUNDS) -> str:
    left = max((m.end() for m in bounds.finditer(text, 0, start)), default=0)
    right = next((m.start() for m in bounds.finditer(text, end)), len(text))
    return text[left:start] + " " + text[end:right]


def _direction(lead: str, text: str, start: int, end: int) -> bool | None:
    """Whether a day word at text[start:end] looks ahead (True) or back (False), by its clause; when the
    clause says neither ("…into a flat on Hartop Row, Ellbury on saturday"), by its sentence's other
    clauses ("moved out of my old place and into a flat …, on saturday": moved)."""
    clause = _clause_around(text, start, end)
    ahead = _weekday_ahead(lead, clause)
    if ahead is None and not _LOOKS_BACK.search(clause):
        ahead = _weekday_ahead(lead, _clause_around(text, start, end, _SENTENCE_BOUNDS))
    return ahead


def _day_named(m: re.Match[str], text: str, today: date) -> date | None:
    """The one day a `_RELATIVE_DAY` match names, said on `today`; None when it names no single day or
    its direction is not said."""
    if m.group("two"):
        return today + timedelta(days=-2 if m.group("two").casefold().startswith("before") else 2)
    if m.group("n_from"):
        base = today + timedelta(days=1 if m.group("base").casefold() == "tomorrow" else 0)
        return base + timedelta(days=_count(m.group("n_from")) * _UNIT_DAYS[m.group("unit_from").casefold()])
    if m.group("n_in"):
        # "in three weeks": a day ahead only when the clause looks ahead ("lost 2 kg in three weeks" is a span)
        if _direction("", text, m.start(), m.end()) is not True:
            return None
        return today + timedelta(days=_count(m.group("n_in")) * _UNIT_DAYS[m.group("unit_in").casefold()])
    phrase = re.sub(r"(?i)^(?:since|from|on)\s+", "", m.group(0))
    lead = (m.group("lead") or "").casefold()
    if m.group("day") is not None and lead not in ("last", "this", "next"):
        ahead = _direction(lead, text, m.start(), m.end())
        if ahead is None:
            return None
    else:
        ahead = bool(re.match(r"(?i)^(?:next|tomorrow)", phrase))
    try:
        period = _point(phrase, today, future=ahead)
    except (ValueError, OverflowError):
        return None
    return period.start if period is not None and (period.end - period.start).days == 1 else None


def _weekday_ahead(lead: str, clause: str) -> bool | None:
    """Whether a weekday alone in `clause` is the next one (True), the last one (False), or unsaid (None)."""
    if lead == "since":
        return False
    booked = _BOOKED_FOR.search(clause) is not None  # "booked for Wednesday": a past verb, a day ahead
    back = not booked and _LOOKS_BACK.search(clause) is not None
    ahead = booked or _LOOKS_AHEAD.search(clause) is not None
    return None if back == ahead else ahead


def dated_day_words(text: str, said_at: str) -> str:
    """`text` with each relative day word followed by the day it names, as said at `said_at`.

    "got promoted yesterday" said on 2026-05-20 reads "got promoted yesterday [2026-05-19]", so a reader
    of an old turn does not take "yesterday" for the day before they read it. Only single days are dated,
    and not the day it was said (the turn's own date says it): yesterday, tomorrow, last night, "three
    days ago", "two weeks ago", "the day before yesterday", "a week from tomorrow", "last/this/next
    Monday", "in three weeks" when its clause looks ahead, and a weekday alone ("on Thursday", "since
    Monday") when its clause says whether it looks back ("passed away on Thursday") or ahead ("the scan
    is on Thursday"); when it says neither ("we rehearse on Monday") or both, the weekday is left undated
    rather than guessed. The words themselves are kept as said.
    """
    try:
        today = date.fromisoformat(said_at[:10])  # the day is all that counts; any stored form starts with it
    except (ValueError, TypeError):
        return text
    out: list[str] = []
    last = 0
    found = sorted([*_RELATIVE_DAY.finditer(text), *_ORDINAL_DAY.finditer(text)], key=lambda m: m.start())
    for m in found:
        if m.start() < last or _DATED_AFTER.match(text, m.end()):
            continue
        day = _ordinal_named(m, text, today) if m.re is _ORDINAL_DAY else _day_named(m, text, today)
        if day is None or day == today:
            continue  # not one day, or the day it was said (the reader has the turn's own date)
        out.append(text[last:m.end()])
        out.append(f" [{day.isoformat()}]")
        last = m.end()
    out.append(text[last:])
    return "".join(out)


# "the 19th" with no month beside it ("the 4th of June", "July 9th" are dated as said).
_ORDINAL_DAY = re.compile(rf"(?i)\bthe\s+(?P<n>\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?{_MONTH}(?![a-z]))")
_MONTH_WORD = re.compile(rf"(?i)\b(?P<m>{_MONTH})(?![a-z])")


def _ordinal_named(m: re.Match[str], text: str, today: date) -> date | None:
    """The day "the 19th" names: of the month the text named last before it ("flying out March 27, back
    on the 31st"), in the year nearest the day it was said; with no month, of this month or the next
    when its clause looks ahead ("the physio is on the 19th"), this month or the last when it looks back,
    and no day when it says neither."""
    n = int(m.group("n"))
    if not 1 <= n <= 31:
        return None
    # a month word written small may be a verb ("may I"); "May" is the month
    named = [w for w in _MONTH_WORD.finditer(text, 0, m.start())
             if w.group("m").rstrip(".") != "may" and w.group("m").casefold().rstrip(".") in MONTHS]
    if named:
        month = MONTHS[named[-1].group("m").casefold().rstrip(".")]
        first = re.match(r"\s+(\d{1,2})\b", text[named[-1].end():])
        if first and int(first.group(1)) - n > 14:
            # "out April 27, back on the 3rd": the 3rd after it, in May (not "land April 6, not on the 4th")
            month = month % 12 + 1
        candidates: list[date] = []
        for year in (today.year - 1, today.year, today.year + 1):
            try:
                candidates.append(date(year, month, n))
            except ValueError:
                pass
        return min(candidates, key=lambda d: abs((d - today).days)) if candidates else None
    ahead = _weekday_ahead("", _clause_around(text, m.start(), m.end()))
    if ahead is None:
        return None
    for shift in ((0, 1) if ahead else (0, -1)):
        month = (today.month - 1 + shift) % 12 + 1
        year = today.year + (today.month - 1 + shift) // 12
        try:
            day = date(year, month, n)
        except ValueError:
            continue
        if (day >= today) if ahead else (day <= today):
            return day
    return None
