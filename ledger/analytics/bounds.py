"""The bounds of a write's portion (`FOR PORTION OF VALID_TIME FROM a TO b`), as constants evaluated
at the statement's transaction time, the way PostgreSQL takes them (constants and functions like
now(); no columns, no subqueries):

    '2025-03-01' | TIMESTAMP '…' | DATE '…' | CAST('…' AS TIMESTAMP)     a time (offsets honoured)
    NULL | 'infinity' | '-infinity' | MINVALUE | MAXVALUE                  unbounded
    now() | CURRENT_TIMESTAMP | transaction_timestamp()                   the transaction time
    current_date                                                           midnight (UTC) of that day
    any of the times above ± INTERVAL n unit (or INTERVAL 'n unit …')      calendar arithmetic

Evaluated in Python, never by a database: the terms are parsed into `TimeTerm`s when the statement is
read, and `TimeTerm.at(now)` gives the ledger's UTC text (None: unbounded)."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlglot import exp

from factledger.ledger.times import format_time, to_datetime

from .rewrite import _literal_text, canonical_time

_UNITS = {
    "microsecond": "microseconds", "millisecond": "milliseconds", "second": "seconds", "minute": "minutes",
    "hour": "hours", "day": "days", "week": "weeks", "month": "months", "year": "years",
}
_NOW_NAMES = {"now", "transaction_timestamp", "statement_timestamp", "current_timestamp", "get_current_timestamp"}
_UNBOUNDED = {"infinity": "max", "+infinity": "max", "-infinity": "min"}
_PART = re.compile(r"^\s*([+-]?\d+)\s*([a-z]+?)s?\s*$")


class BoundError(ValueError):
    """A bound that is not a constant time; `node` is the part at fault."""

    def __init__(self, reason: str, node: exp.Expression):
        super().__init__(reason)
        self.reason = reason
        self.node = node


@dataclass(frozen=True)
class TimeTerm:
    """One bound. base: "time" (stamp), "now", "today", "min" / "max" (-infinity / +infinity) or "null"
    (unbounded at whichever end it stands: `ends` makes it min or max); shifts: (count, unit)."""

    base: str
    stamp: str | None = None
    shifts: tuple[tuple[int, str], ...] = ()
    node: exp.Expression | None = None  # where it was written, for errors

    @property
    def unbounded(self) -> bool:
        return self.base in ("min", "max", "null")

    @property
    def relative(self) -> bool:
        return self.base in ("now", "today")

    def at(self, now: str) -> str | None:
        """The ledger's UTC text of this bound at transaction time `now`; None when unbounded."""
        if self.unbounded:
            return None
        moment = to_datetime(self.stamp if self.base == "time" else now)  # type: ignore[arg-type]
        if self.base == "today":
            moment = moment.replace(hour=0, minute=0, second=0, microsecond=0)
        try:
            for count, unit in self.shifts:
                moment = _shift(moment, count, unit)
            return format_time(moment)
        except (OverflowError, ValueError):  # past what a time can hold
            raise BoundError("moves the time outside the years 0001–9999", self.node or exp.Null()) from None


def _shift(moment: datetime, count: int, unit: str) -> datetime:
    if unit in ("months", "years"):
        months = moment.month - 1 + count * (12 if unit == "years" else 1)
        year, month = moment.year + months // 12, months % 12 + 1
        day = min(moment.day, calendar.monthrange(year, month)[1])  # 31 January + 1 month = 28/29 February
        return moment.replace(year=year, month=month, day=day)
    return moment + timedelta(**{unit: count})


def time_term(node: exp.Expression) -> TimeTerm:
    """Read one bound; raises BoundError naming the part that is not a constant time."""
    if isinstance(node, exp.Paren):
        return time_term(node.this)
    if isinstance(node, exp.Null):
        return TimeTerm("null", node=node)
    if isinstance(node, exp.Column) and not node.table and node.name.upper() in ("MINVALUE", "MAXVALUE"):
        return TimeTerm("min" if node.name.upper() == "MINVALUE" else "max", node=node)
    text = _literal_text(node)
    if text is not None:
        if text.strip().lower() in _UNBOUNDED:
            return TimeTerm(_UNBOUNDED[text.strip().lower()], node=node)
        stamp = canonical_time(text)
        if stamp is None:
            raise BoundError("is not a timestamp (use ISO-8601, e.g. '2025-03-01T10:00:00Z')", node)
        return TimeTerm("time", stamp, node=node)
    if isinstance(node, exp.CurrentDate):
        return TimeTerm("today", node=node)
    if isinstance(node, exp.CurrentTimestamp) or (isinstance(node, exp.Anonymous) and node.name.lower() in _NOW_NAMES):
        if node.expressions if isinstance(node, exp.Anonymous) else False:
            raise BoundError("takes no arguments here", node)
        return TimeTerm("now", node=node)
    if isinstance(node, (exp.Add, exp.Sub)):
        base = time_term(node.this)
        if base.unbounded:
            raise BoundError("an unbounded end cannot be moved by an interval", node.this)
        sign = -1 if isinstance(node, exp.Sub) else 1
        shifts = tuple((sign * count, unit) for count, unit in interval(node.expression))
        return TimeTerm(base.base, base.stamp, base.shifts + shifts, node=node)
    raise BoundError(
        "must be a constant time: a literal, NULL, 'infinity', now(), current_date, or one of them ± INTERVAL", node
    )


def interval(node: exp.Expression) -> list[tuple[int, str]]:
    """INTERVAL 7 DAY, INTERVAL '7' DAY, INTERVAL '1 year 2 months' as (count, unit) pairs."""
    if isinstance(node, exp.Paren):
        return interval(node.this)
    if isinstance(node, exp.Neg):
        return [(-count, unit) for count, unit in interval(node.this)]
    if not isinstance(node, exp.Interval) or not isinstance(node.this, exp.Literal):
        raise BoundError("a time moves by an INTERVAL, e.g. INTERVAL 7 DAY", node)
    unit = node.args.get("unit")
    text = str(node.this.this)
    if unit is not None:
        text = f"{text} {unit.name}"
    parts = []
    for piece in re.split(r"\s*,\s*|\s+(?=[+-]?\d)", text.strip().lower()):
        found = _PART.match(piece)
        name = _UNITS.get(found.group(2)) if found else None
        if name is None:
            raise BoundError("an interval counts whole microseconds … years, e.g. INTERVAL '7' DAY", node)
        parts.append((int(found.group(1)), name))  # type: ignore[union-attr]
    return parts


def range_terms(node: exp.Expression) -> tuple[TimeTerm, TimeTerm]:
    """PostgreSQL 19's direct target: tstzrange(a, b[, '[)']) / daterange / tsrange, or '[a,b)' text."""
    if isinstance(node, exp.Paren):
        return range_terms(node.this)
    if isinstance(node, exp.Anonymous) and node.name.lower() in ("tstzrange", "tsrange", "daterange"):
        args = list(node.expressions)
        if len(args) == 3:
            kind = _literal_text(args[2])
            if kind != "[)":
                raise BoundError("valid time is closed-open: the range's bounds must be '[)'", args[2])
            args = args[:2]
        if len(args) != 2:
            raise BoundError("a range takes a start and an end", node)
        return ends(time_term(args[0]), time_term(args[1]))
    text = _literal_text(node)
    if text is not None:
        found = re.fullmatch(r"\s*\[\s*([^,]*?)\s*,\s*([^,]*?)\s*\)\s*", text)
        if found is None:
            raise BoundError("a range is written '[start,end)': valid time is closed-open", node)
        found_ends: list[TimeTerm] = []
        for part in found.groups():
            if part.strip('"') == "":
                found_ends.append(TimeTerm("null", node=node))
                continue
            stamp = canonical_time(part.strip('"'))
            if part.strip('"').lower() in _UNBOUNDED:
                found_ends.append(TimeTerm(_UNBOUNDED[part.strip('"').lower()], node=node))
            elif stamp is None:
                raise BoundError(f"{part!r} is not a timestamp", node)
            else:
                found_ends.append(TimeTerm("time", stamp, node=node))
        return ends_of(found_ends)
    raise BoundError("FOR PORTION OF VALID_TIME (…) takes tstzrange(start, end) or '[start,end)'", node)


def ends(start: TimeTerm, end: TimeTerm) -> tuple[TimeTerm, TimeTerm]:
    """A NULL start is -infinity and a NULL end +infinity (PostgreSQL's unbounded range ends)."""
    if start.base == "null":
        start = TimeTerm("min", node=start.node)
    if end.base == "null":
        end = TimeTerm("max", node=end.node)
    return start, end


def ends_of(terms: list[TimeTerm]) -> tuple[TimeTerm, TimeTerm]:
    return ends(terms[0], terms[1])
