"""Timestamps: one fixed-width UTC text form, so that text comparison is time comparison."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

from .errors import ValidationError

# 'YYYY-MM-DDTHH:MM:SS.ffffffZ', 27 characters.
FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
END_OF_TIME = "9999-12-31T23:59:59.999999Z"
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CANONICAL = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")


def format_time(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("naive datetime: factledger needs an offset")
    return moment.astimezone(timezone.utc).strftime(FORMAT)


def parse_time(value: object, field: str = "time") -> str:
    """Normalise an ISO date or datetime (with offset or Z) to the canonical UTC text.

    A date means midnight UTC. A datetime without an offset is refused: guessing a zone would make
    the ledger's order depend on the machine.
    """
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValidationError(f"datetime {value.isoformat()!r} has no UTC offset", field=field)
        return format_time(value)
    if isinstance(value, date):
        return format_time(datetime(value.year, value.month, value.day, tzinfo=timezone.utc))
    if not isinstance(value, str):
        raise ValidationError(f"expected an ISO-8601 date or datetime, got {type(value).__name__}", field=field)
    text = value.strip()
    if _CANONICAL.match(text):
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
        raise ValidationError(
            f"{value!r} has no UTC offset; add Z or +HH:MM (a bare date is also accepted)", field=field
        )
    return format_time(moment)


def parse_optional(value: object, field: str) -> str | None:
    return None if value is None else parse_time(value, field)


def utc_now() -> str:
    return format_time(datetime.now(timezone.utc))


def to_datetime(text: str) -> datetime:
    return datetime.strptime(text, FORMAT).replace(tzinfo=timezone.utc)


def next_after(text: str) -> str:
    """The smallest timestamp later than `text` (one microsecond on)."""
    return format_time(to_datetime(text) + timedelta(microseconds=1))


def display(text: str | None, *, open_end: str = "…") -> str:
    """A short human form: the date alone at midnight, else minutes, always UTC."""
    if text is None:
        return open_end
    if text.endswith("T00:00:00.000000Z"):
        return text[:10]
    if text.endswith(":00.000000Z"):
        return text[:16].replace("T", " ") + "Z"
    return text.replace("T", " ")
