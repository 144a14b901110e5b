"""Where an undated statement starts (ledger.portion.undated_start): the time rule as a table."""

from __future__ import annotations

import pytest

from factledger.ledger.portion import Span, undated_start
from factledger.ledger.times import UNKNOWN_START

SAID = "2026-06-01T10:00:00.000000Z"
MAR = "2026-03-01T00:00:00.000000Z"
APR = "2026-04-01T00:00:00.000000Z"
JUL = "2026-07-01T00:00:00.000000Z"


def span(value: str, start: str, end: str | None) -> Span:
    return Span(value.casefold(), value, start, end)


@pytest.mark.parametrize(
    ("what", "versions", "value", "cardinality", "expected"),
    [
        ("nothing held: since an unknown moment", [], "lyon", "one", UNKNOWN_START),
        ("another value ended before: starts where it ended", [span("Paris", UNKNOWN_START, APR)], "lyon", "one", APR),
        ("the latest earlier end wins", [span("Paris", UNKNOWN_START, MAR), span("Rome", MAR, APR)], "lyon", "one", APR),
        ("another value held when said: news from then", [span("Paris", MAR, None)], "lyon", "one", SAID),
        ("the same value held when said: from then (a no-op add)", [span("Lyon", MAR, None)], "lyon", "one", SAID),
        ("the same value ended earlier: starts after that run", [span("Lyon", UNKNOWN_START, MAR)], "lyon", "many", MAR),
        ("many: other values do not bound it", [span("Pizza", UNKNOWN_START, None)], "sushi", "many", UNKNOWN_START),
        ("a version that begins after the moment said does not bound it", [span("Paris", JUL, None)], "lyon", "one", UNKNOWN_START),
    ],
)
def test_undated_start(what: str, versions: list[Span], value: str, cardinality: str, expected: str) -> None:
    assert undated_start(versions, value, cardinality, SAID, UNKNOWN_START) == expected, what
