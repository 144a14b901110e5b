"""Timestamps in and out (DESIGN §2): one fixed-width UTC text form, so text order is time order; anything
else is a clear error naming the field."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from factledger.ledger import ValidationError, parse_time
from factledger.ledger.times import END_OF_TIME, next_after

ACCEPTED = [
    ("2024-06-01", "2024-06-01T00:00:00.000000Z"),
    (" 2024-06-01 ", "2024-06-01T00:00:00.000000Z"),
    ("2024-06-01T10:00:00Z", "2024-06-01T10:00:00.000000Z"),
    ("2024-06-01T10:00Z", "2024-06-01T10:00:00.000000Z"),
    ("2024-06-01T10:00:00z", "2024-06-01T10:00:00.000000Z"),
    ("2024-06-01T10:00:00+02:00", "2024-06-01T08:00:00.000000Z"),
    ("2024-06-01T01:00:00+02:00", "2024-05-31T23:00:00.000000Z"),
    ("2024-06-01T10:00:00.5-01:30", "2024-06-01T11:30:00.500000Z"),
    ("2024-06-01T10:00:00.000001Z", "2024-06-01T10:00:00.000001Z"),
    ("0999-01-01", "0999-01-01T00:00:00.000000Z"),  # fixed width before year 1000
    ("0050-03-01T00:00:00+00:00", "0050-03-01T00:00:00.000000Z"),
    (datetime(2024, 6, 1, 12, tzinfo=timezone(timedelta(hours=-3))), "2024-06-01T15:00:00.000000Z"),
    (date(2024, 6, 1), "2024-06-01T00:00:00.000000Z"),
    # Offset-less text is UTC, on every input path (the same rule as SQL's TIMESTAMP literals).
    ("2024-06-01T10:00:00", "2024-06-01T10:00:00.000000Z"),
    ("2024-06-01 10:00", "2024-06-01T10:00:00.000000Z"),
    # The forms tables print read back as the same instant.
    ("2024-06-01 08:00Z", "2024-06-01T08:00:00.000000Z"),
    ("2024-06-01 08:00:30Z", "2024-06-01T08:00:30.000000Z"),
]


@pytest.mark.parametrize("given,canonical", ACCEPTED, ids=[str(a[0]) for a in ACCEPTED])
def test_accepted(given, canonical):
    assert parse_time(given, "valid_from") == canonical
    assert parse_time(canonical, "valid_from") == canonical  # canonical text is a fixed point
    assert len(canonical) == 27


REFUSED = [
    "yesterday",
    "",
    "2024-13-01",
    "2024-02-30",
    "2024-02-30T00:00:00.000000Z",  # canonical shape, impossible date
    "2024-06-01T25:00:00.000000Z",
    "0001-01-01T00:00:00+01:00",  # before year 1 in UTC
    "9999-12-31T23:00:00-02:00",  # after year 9999 in UTC
    1717236000,
    None,
    datetime(2024, 6, 1, 12),  # naive: Python's convention is local time, so it is refused, not guessed
]


@pytest.mark.parametrize("given", REFUSED, ids=[repr(r) for r in REFUSED])
def test_refused_with_the_field_named(given):
    with pytest.raises(ValidationError) as info:
        parse_time(given, "known_at")
    assert info.value.field == "known_at"
    assert str(info.value).startswith("known_at: ")


def test_text_order_is_time_order():
    instants = ["0999-12-31", "1000-01-01", "2024-06-01T10:00:00+02:00", "2024-06-01T09:00:00Z", "2024-06-01T09:00:00.000001Z"]
    texts = [parse_time(t) for t in instants]
    moments = [datetime.fromisoformat(t[:-1]) for t in texts]
    assert sorted(texts) == [t for _, t in sorted(zip(moments, texts))]


def test_next_after_is_one_microsecond_on_and_has_an_end():
    assert next_after("2024-12-31T23:59:59.999999Z") == "2025-01-01T00:00:00.000000Z"
    with pytest.raises(ValidationError) as info:
        next_after(END_OF_TIME)
    assert info.value.field == "tx_time"


DISPLAYED = [
    ("2024-06-01T00:00:00.000000Z", "2024-06-01", "2024-06-01"),
    ("2024-06-01T08:00:00.000000Z", "2024-06-01 08:00Z", "2024-06-01 08:00Z"),
    ("2024-06-01T08:00:30.000000Z", "2024-06-01 08:00:30Z", "2024-06-01 08:00:30Z"),
    ("2024-06-01T08:00:30.250000Z", "2024-06-01 08:00:30Z", "2024-06-01 08:00:30.250000Z"),
    ("2024-06-01T00:00:00.000001Z", "2024-06-01", "2024-06-01 00:00:00.000001Z"),
]


@pytest.mark.parametrize("canonical,shown,precise", DISPLAYED, ids=[d[0] for d in DISPLAYED])
def test_tables_show_minutes_seconds_when_non_zero_and_microseconds_only_when_asked(canonical, shown, precise):
    from factledger.ledger.times import display

    assert display(canonical) == shown
    assert display(canonical, precise=True) == precise
    assert parse_time(display(canonical, precise=True)) == canonical  # the precise form is exact input
    assert parse_time(shown) <= canonical  # shortening truncates: never later than the instant
