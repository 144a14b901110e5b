"""Table-driven tests of the portion algebra (ledger/portion.py): SQL:2011 FOR PORTION OF semantics.

Intervals are written in days of January 2024 (`5` is 2024-01-05); None is an open end. A slot's
versions are written as (value, from, to). Each table row gives the slot before, the operation and the
slot after (or the error it must raise, with the field it names).
"""

from __future__ import annotations

import pytest

from factledger.ledger import ConflictError, NotFoundError, ValidationError
from factledger.ledger import portion as algebra


def day(n: int | None) -> str | None:
    return None if n is None else f"2024-01-{n:02d}T00:00:00.000000Z"


def spans(*versions: tuple[str, int, int | None]) -> list[algebra.Span]:
    """Database versions (each with a row id) from (value, from, to) triples."""
    return [
        algebra.Span(value.lower(), value, day(start), day(end), (f"src:{value}{start}",), row_id=n + 1)  # type: ignore[arg-type]
        for n, (value, start, end) in enumerate(versions)
    ]


def shape(result: list[algebra.Span]) -> list[tuple[str, int, int | None]]:
    def n(text: str | None) -> int | None:
        return None if text is None else int(text[8:10])

    return sorted((s.value, n(s.valid_from), n(s.valid_to)) for s in result)  # type: ignore[misc]


def portion(start: int | None, end: int | None) -> algebra.Portion:
    return algebra.Portion(day(start), day(end))


NOOP = "no-op"  # the operation returns the slot unchanged (the very same version objects)

# -- add -----------------------------------------------------------------------------------------

ADD = [
    # (case, cardinality, before, value, portion, after | NOOP | (error, field))
    ("empty slot", "one", [], "B", (3, None), [("B", 3, None)]),
    ("closed portion", "one", [], "B", (3, 4), [("B", 3, 4)]),
    ("other value, portion before", "one", [("A", 5, 10)], "B", (1, 3), [("A", 5, 10), ("B", 1, 3)]),
    ("other value, portion after", "one", [("A", 5, 10)], "B", (12, None), [("A", 5, 10), ("B", 12, None)]),
    ("other value, touching before", "one", [("A", 5, 10)], "B", (1, 5), [("A", 5, 10), ("B", 1, 5)]),
    ("other value, touching after", "one", [("A", 5, 10)], "B", (10, None), [("A", 5, 10), ("B", 10, None)]),
    ("other value, overlapping start", "one", [("A", 5, 10)], "B", (3, 6), (ConflictError, "value")),
    ("other value, overlapping end", "one", [("A", 5, 10)], "B", (9, 12), (ConflictError, "value")),
    ("other value, inside", "one", [("A", 5, 10)], "B", (6, 7), (ConflictError, "value")),
    ("other value, covering", "one", [("A", 5, 10)], "B", (1, None), (ConflictError, "value")),
    ("other value, open version, later portion", "one", [("A", 5, None)], "B", (20, 21), (ConflictError, "value")),
    ("other value, open version, earlier open portion", "one", [("A", 5, None)], "B", (1, None), (ConflictError, "value")),
    ("same value inside: no-op", "one", [("A", 5, 10)], "A", (6, 7), NOOP),
    ("same value, exact: no-op", "one", [("A", 5, 10)], "A", (5, 10), NOOP),
    ("same value inside an open version: no-op", "one", [("A", 5, None)], "A", (7, None), NOOP),
    ("same value covering: merge", "one", [("A", 5, 10)], "A", (1, None), [("A", 1, None)]),
    ("same value overlapping start: merge", "one", [("A", 5, 10)], "A", (3, 6), [("A", 3, 10)]),
    ("same value overlapping end: merge", "one", [("A", 5, 10)], "A", (8, None), [("A", 5, None)]),
    ("same value touching before: merge", "one", [("A", 5, 10)], "A", (1, 5), [("A", 1, 10)]),
    ("same value touching after: merge", "one", [("A", 5, 10)], "A", (10, 12), [("A", 5, 12)]),
    ("same value apart: two versions", "one", [("A", 5, 10)], "A", (12, 14), [("A", 5, 10), ("A", 12, 14)]),
    ("same value bridging two versions", "one", [("A", 1, 3), ("A", 5, 7)], "A", (3, 5), [("A", 1, 7)]),
    ("same value between other values", "one", [("A", 1, 3), ("B", 5, 7)], "A", (3, 5), [("A", 1, 5), ("B", 5, 7)]),
    ("many: other value overlapping is fine", "many", [("A", 5, 10)], "B", (6, 7), [("A", 5, 10), ("B", 6, 7)]),
    ("many: same value covering merges", "many", [("A", 5, 10), ("B", 1, None)], "A", (2, 6), [("A", 2, 10), ("B", 1, None)]),
    ("many: same value inside: no-op", "many", [("A", 5, 10), ("B", 1, None)], "A", (6, 7), NOOP),
]


def _run(operation, before, expected):
    original = list(before)
    if isinstance(expected, tuple):
        error, field = expected
        with pytest.raises(error) as info:
            operation(original)
        assert info.value.field == field
        return
    result = operation(original)
    assert original == before, "the input list is not modified"
    if expected == NOOP:
        assert result == before  # identity: the same version objects, nothing to write
        assert algebra.diff(before, algebra.settle(before, result)).empty
    else:
        assert shape(result) == sorted(expected)
        # Versions the operation did not touch are kept as they are (same object, same row).
        for kept in (s for s in result if s.row_id is not None):
            assert kept in before


@pytest.mark.parametrize("case,cardinality,before,value,interval,expected", ADD, ids=[r[0] for r in ADD])
def test_add(case, cardinality, before, value, interval, expected):
    _run(lambda s: algebra.add(s, cardinality, value.lower(), value, portion(*interval)), spans(*before), expected)


def test_add_merges_sources_of_the_versions_it_absorbs():
    before = spans(("A", 5, 10), ("A", 12, 14))
    result = algebra.add(before, "one", "a", "A", portion(10, 12), ("src:new",))
    assert [s.source for s in result] == [("src:A5", "src:A12", "src:new")]


# -- supersede -------------------------------------------------------------------------------------

SUPERSEDE = [
    # (case, cardinality, before, value, replaces, portion, after | NOOP | (error, field))
    ("nothing in an empty slot", "one", [], "B", None, (1, None), (NotFoundError, "valid_from")),
    ("portion before the version", "one", [("A", 5, 10)], "B", None, (1, 3), (NotFoundError, "valid_from")),
    ("portion after the version", "one", [("A", 5, 10)], "B", None, (12, None), (NotFoundError, "valid_from")),
    ("portion touching before", "one", [("A", 5, 10)], "B", None, (1, 5), (NotFoundError, "valid_from")),
    ("portion touching after", "one", [("A", 5, 10)], "B", None, (10, None), (NotFoundError, "valid_from")),
    ("portion inside: split in three", "one", [("A", 5, 10)], "B", None, (6, 8), [("A", 5, 6), ("B", 6, 8), ("A", 8, 10)]),
    ("portion covering", "one", [("A", 5, 10)], "B", None, (1, None), [("B", 1, None)]),
    ("portion exact", "one", [("A", 5, 10)], "B", None, (5, 10), [("B", 5, 10)]),
    ("portion overlapping start", "one", [("A", 5, 10)], "B", None, (3, 7), [("B", 3, 7), ("A", 7, 10)]),
    ("portion overlapping end, open", "one", [("A", 5, 10)], "B", None, (8, None), [("A", 5, 8), ("B", 8, None)]),
    ("open version, open portion", "one", [("A", 5, None)], "B", None, (8, None), [("A", 5, 8), ("B", 8, None)]),
    ("open version, closed portion", "one", [("A", 5, None)], "B", None, (8, 9), [("A", 5, 8), ("B", 8, 9), ("A", 9, None)]),
    ("two versions under the portion", "one", [("A", 1, 5), ("B", 5, 9)], "C", None, (3, 7),
     [("A", 1, 3), ("C", 3, 7), ("B", 7, 9)]),
    ("same value already covering: no-op", "one", [("A", 5, 10)], "A", None, (6, 8), NOOP),
    ("merges with a same-value neighbour", "one", [("A", 1, 5), ("B", 5, 10)], "A", None, (5, 7),
     [("A", 1, 7), ("B", 7, 10)]),
    ("one: replaces names the held value", "one", [("A", 5, 10)], "B", "A", (6, None), [("A", 5, 6), ("B", 6, None)]),
    ("one: replaces names another value", "one", [("A", 5, 10)], "B", "C", (6, None), (NotFoundError, "replaces")),
    ("many without replaces", "many", [("A", 5, 10)], "B", None, (6, None), (ValidationError, "replaces")),
    ("many: replaces not held", "many", [("A", 5, 10)], "B", "C", (6, None), (NotFoundError, "replaces")),
    ("many: replaces held outside the portion", "many", [("A", 5, 10)], "B", "A", (10, None), (NotFoundError, "replaces")),
    ("many: only the replaced value is cut", "many", [("A", 5, 10), ("C", 1, None)], "B", "A", (6, 8),
     [("A", 5, 6), ("B", 6, 8), ("A", 8, 10), ("C", 1, None)]),
    ("many: new value merges with its own version", "many", [("A", 5, 10), ("B", 10, 12)], "B", "A", (7, 10),
     [("A", 5, 7), ("B", 7, 12)]),
]


@pytest.mark.parametrize(
    "case,cardinality,before,value,replaces,interval,expected", SUPERSEDE, ids=[r[0] for r in SUPERSEDE]
)
def test_supersede(case, cardinality, before, value, replaces, interval, expected):
    _run(
        lambda s: algebra.supersede(
            s, cardinality, value.lower(), value, portion(*interval), None if replaces is None else replaces.lower()
        ),
        spans(*before),
        expected,
    )


def test_remainders_keep_their_old_value_and_source():
    before = spans(("A", 5, 10))
    result = algebra.supersede(before, "one", "b", "B", portion(6, 8), source=("src:new",))
    by_start = {s.valid_from: s for s in result}
    assert by_start[day(5)].source == by_start[day(8)].source == ("src:A5",)
    assert by_start[day(6)].source == ("src:new",)
    assert all(s.row_id is None for s in result)  # all three are new versions; the old one is closed


# -- retract ---------------------------------------------------------------------------------------

RETRACT = [
    # (case, cardinality, before, value, portion, after | (error, field)); portion (None, None) = all valid time
    ("nothing in an empty slot", "one", [], None, (1, None), (NotFoundError, "valid_from")),
    ("portion before", "one", [("A", 5, 10)], None, (1, 3), (NotFoundError, "valid_from")),
    ("portion after", "one", [("A", 5, 10)], None, (12, None), (NotFoundError, "valid_from")),
    ("portion touching before", "one", [("A", 5, 10)], None, (1, 5), (NotFoundError, "valid_from")),
    ("portion touching after", "one", [("A", 5, 10)], None, (10, 11), (NotFoundError, "valid_from")),
    ("portion inside: a hole", "one", [("A", 5, 10)], None, (6, 8), [("A", 5, 6), ("A", 8, 10)]),
    ("portion covering", "one", [("A", 5, 10)], None, (1, None), []),
    ("ends validity (sold the car)", "one", [("A", 5, None)], None, (8, None), [("A", 5, 8)]),
    ("closed portion of an open version", "one", [("A", 5, None)], None, (8, 9), [("A", 5, 8), ("A", 9, None)]),
    ("all valid time: never true", "one", [("A", 5, 10), ("B", 10, None)], None, (None, None), []),
    ("named value", "one", [("A", 5, 10), ("B", 10, None)], "B", (1, None), [("A", 5, 10)]),
    ("named value not in the portion", "one", [("A", 5, 10), ("B", 10, None)], "A", (10, None), (NotFoundError, "value")),
    ("named value never held", "one", [("A", 5, 10)], "C", (None, None), (NotFoundError, "value")),
    ("many: only the named value", "many", [("A", 5, 10), ("B", 1, None)], "A", (None, None), [("B", 1, None)]),
    ("many: no value retracts all in the portion", "many", [("A", 5, 10), ("B", 1, None)], None, (7, None),
     [("A", 5, 7), ("B", 1, 7)]),
]


@pytest.mark.parametrize("case,cardinality,before,value,interval,expected", RETRACT, ids=[r[0] for r in RETRACT])
def test_retract(case, cardinality, before, value, interval, expected):
    _run(lambda s: algebra.retract(s, None if value is None else value.lower(), portion(*interval)), spans(*before), expected)


# -- portions, settle and diff ---------------------------------------------------------------------


@pytest.mark.parametrize("start,end", [(5, 5), (6, 5)])
def test_an_empty_or_reversed_portion_is_refused(start, end):
    with pytest.raises(ValidationError) as info:
        portion(start, end)
    assert info.value.field == "valid_to"


def test_add_needs_a_start():
    with pytest.raises(ValidationError) as info:
        algebra.add([], "one", "a", "A", portion(None, None))
    assert info.value.field == "valid_from"


def test_cut_and_re_add_of_the_same_version_writes_nothing():
    before = spans(("A", 5, 10))
    cut = algebra.retract(before, None, portion(5, 10))
    readded = algebra.add(cut, "one", "a", "A", portion(5, 10))
    settled = algebra.settle(before, readded)
    assert settled == before
    assert algebra.diff(before, settled).empty


def test_a_version_opened_and_undone_in_one_transaction_is_never_written():
    before = spans(("A", 5, None))
    step1 = algebra.supersede(before, "one", "b", "B", portion(8, None))  # A[5,8) B[8,∞)
    step2 = algebra.supersede(step1, "one", "c", "C", portion(8, None))  # B is undone
    change = algebra.diff(before, algebra.settle(before, step2))
    assert [s.row_id for s in change.closed] == [1]
    assert shape(change.opened) == [("A", 5, 8), ("C", 8, None)]


def test_many_supersedes_without_replaces_all_fail_and_change_nothing():
    before = spans(("A", 5, 10), ("B", 1, None))
    for value, interval in [("C", (1, None)), ("A", (6, 7)), ("B", (2, 3))]:
        with pytest.raises(ValidationError) as info:
            algebra.supersede(before, "many", value.lower(), value, portion(*interval))
        assert info.value.field == "replaces"
    assert shape(before) == [("A", 5, 10), ("B", 1, None)]
