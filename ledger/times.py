"""Timestamps: one fixed-width UTC text form, so that text comparison is time comparison."""

from __future__ import annotations

import re
from functools import lru_cache
from datetime import date, datetime, timedelta, timezone

from .errors import ValidationError

# 'YYYY-MM-DDTHH:MM:SS.ffffffZ', 27 characters.
FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
END_OF_TIME = "9999-12-31T23:59:59.999999Z"
# The valid_from of an undated statement ("I live in Lyon"): true since some moment nobody said, up to when
# it was said (DESIGN §2). The earliest instant of the form, so a later dated change narrows the fact and
# never erases its past, and every read, index and constraint treats it as an ordinary time.
UNKNOWN_START = "0001-01-01T00:00:00.000000Z"
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CANONICAL = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")


def format_time(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("naive datetime: factledger needs an offset")
    utc = moment.astimezone(timezone.utc)
    # Not strftime: its %Y does not pad years before 1000, and the form must stay fixed-width.
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
        f".{utc.microsecond:06d}Z"
    )


def parse_time(value: object, field: str = "time") -> str:
    # Text is the common input and a pure function of itself: the canonical form of each distinct text
    # (with the field it was given for) is kept, so a batch that names the same instants again parses
    # each once. A refusal raises and is never kept.
    if type(value) is str:
        return _parse_text(value, field)
    return _parse_time(value, field)


@lru_cache(maxsize=65536)
def _parse_text(value: str, field: str) -> str:
    return _parse_time(value, field)


def _parse_time(value: object, field: str) -> str:
    """Normalise an ISO date or datetime to the canonical UTC text. One rule on every input path (CLI
    options, JSON Lines, journal turns, SQL, the Python API):

    - text: a date means midnight UTC; a datetime with an offset or Z is converted to UTC; a datetime
      **without** an offset is UTC (the ledger has one zone, every table shows it with Z, and SQL's
      TIMESTAMP columns are UTC too). `2024-06-01 08:00Z`, the form tables print, reads back as itself.
    - a `datetime` object must be timezone-aware: Python's naive datetimes are conventionally local
      time (`datetime.now()`), so taking one as UTC would shift it by the machine's offset unnoticed.
    """
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValidationError(
                f"datetime {value.isoformat()!r} has no tzinfo: pass an aware datetime (e.g. "
                "datetime.now(timezone.utc)) or the text form, where an offset-less time is UTC",
                field=field,
            )
        try:
            return format_time(value)
        except OverflowError:
            raise ValidationError(f"{value.isoformat()!r} is out of range in UTC", field=field) from None
    if isinstance(value, date):
        return format_time(datetime(value.year, value.month, value.day, tzinfo=timezone.utc))
    if not isinstance(value, str):
        raise ValidationError(f"expected an ISO-8601 date or datetime, got {type(value).__name__}", field=field)
    text = value.strip()
    if _CANONICAL.match(text):
        try:  # the fast path still checks the calendar: 2024-02-30 has the right shape, not a date
            datetime.fromisoformat(text[:-1])
        except ValueError as exc:
            raise ValidationError(f"{value!r} is not a valid timestamp ({exc})", field=field) from None
        return text
    if _DATE_ONLY.match(text):
        try:
            day = date.fromisoformat(text)
        except ValueError as exc:
            raise ValidationError(f"{value!r} is not a valid date ({exc})", field=field) from None
        return format_time(datetime(day.year, day.month, day.day, tzinfo=timezone.utc))
    candidate = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    try:
        moment = datetime.fromisoformat(candidate)
    except ValueError:
        raise ValidationError(
            f"{value!r} is not an ISO-8601 date or datetime (e.g. 2024-06-01 or 2024-06-01T10:00:00Z)",
            field=field,
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)  # offset-less text is UTC (see the docstring)
    try:
        return format_time(moment)
    except OverflowError:  # e.g. 0001-01-01T00:00:00+01:00 is before year 1 in UTC
        raise ValidationError(f"{value!r} is out of range in UTC", field=field) from None


def parse_optional(value: object, field: str) -> str | None:
    return None if value is None else parse_time(value, field)


def utc_now() -> str:
    return format_time(datetime.now(timezone.utc))


def to_datetime(text: str) -> datetime:
    return datetime.strptime(text, FORMAT).replace(tzinfo=timezone.utc)


def next_after(text: str) -> str:
    """The smallest timestamp later than `text` (one microsecond on)."""
    try:
        moment = to_datetime(text)
    except ValueError:  # only a client that bypassed the schema's checks can have stored it
        raise ValidationError(
            f"the last transaction's tx_time {text!r} is not a timestamp; `factledger verify` lists such rows",
            field="tx_time",
        ) from None
    try:
        return format_time(moment + timedelta(microseconds=1))
    except OverflowError:
        raise ValidationError(f"no timestamp is later than {text}", field="tx_time") from None


def display(text: str | None, *, open_end: str = "…", precise: bool = False) -> str:
    """The one human form of a time, for tables, the prompt block and messages (JSON keeps the canonical
    text): `2024-06-01` at midnight UTC, else `2024-06-01 08:00Z`, with seconds only when they are
    non-zero (`08:00:30Z`) and microseconds only when non-zero and `precise` asks for them. Shortening
    truncates (never rounds up past the instant). Every form is accepted back as input. Text that is not
    a canonical timestamp is returned as it is."""
    if text is None:
        return open_end
    if text == UNKNOWN_START:
        return "unknown"
    if not _CANONICAL.match(text):
        return text
    minutes, seconds, micro = text[:16].replace("T", " "), text[17:19], text[20:26]
    if precise and micro != "000000":
        return f"{minutes}:{seconds}.{micro}Z"
    if seconds != "00":
        return f"{minutes}:{seconds}Z"
    if minutes.endswith(" 00:00") and (micro == "000000" or not precise):
        return text[:10]
    return minutes + "Z"
