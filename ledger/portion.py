"""The portion algebra: SQL:2011 FOR PORTION OF semantics over one slot's current versions.

Pure functions, no database. Each operation takes the slot's current versions (those whose transaction
time is open, including ones the running transaction has opened) and returns the new set. `diff` turns
old and new sets into the versions to close and the versions to open, so that a version the same
transaction both opens and undoes is never written (it would have an empty transaction-time life).

Intervals are closed-open [start, end). An end of None is +infinity; a portion start of None (only from
"all valid time") is -infinity. Timestamps are canonical text, so text order is time order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import ConflictError, NotFoundError, ValidationError
from .times import display
from .frozen import quick_init


@quick_init
@dataclass(frozen=True, eq=False)
class Span:
    """One current version of a slot, as the algebra sees it. Identity matters: eq is by object."""

    value_key: str
    value: str
    valid_from: str
    valid_to: str | None
    source: tuple[str, ...] = ()
    row_id: int | None = None  # None: opened by the running transaction, not in the database yet
    subject: str = ""  # display text of the subject, carried into remainders

    def describe(self) -> str:
        return f"{self.value!r} [{display(self.valid_from)}, {display(self.valid_to)})"


@dataclass(frozen=True)
class Portion:
    start: str | None  # None: -infinity
    end: str | None  # None: +infinity

    def __post_init__(self) -> None:
        if self.start is not None and self.end is not None and not self.start < self.end:
            raise ValidationError(
                f"must be later than valid_from ({self.end} <= {self.start})", field="valid_to"
            )


@dataclass
class Change:
    closed: list[Span] = field(default_factory=list)
    opened: list[Span] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.closed and not self.opened


def _lt_end(a: str | None, b: str | None) -> bool:
    """a < b where None is +infinity."""
    if a is None:
        return False
    return b is None or a < b


def _start_lt_end(start: str | None, end: str | None) -> bool:
    """start < end where a None start is -infinity and a None end is +infinity."""
    return start is None or end is None or start < end


def overlaps(span: Span, portion: Portion) -> bool:
    return _start_lt_end(portion.start, span.valid_to) and _start_lt_end(span.valid_from, portion.end)


def touches_or_overlaps(span: Span, portion: Portion) -> bool:
    return overlaps(span, portion) or span.valid_to == portion.start or span.valid_from == portion.end


def covers(span: Span, portion: Portion) -> bool:
    starts_before = portion.start is not None and span.valid_from <= portion.start
    ends_after = span.valid_to is None or (portion.end is not None and portion.end <= span.valid_to)
    return starts_before and ends_after


def remainders(span: Span, portion: Portion) -> list[Span]:
    """The parts of `span` outside `portion`, written again with the old value and source."""
    parts = []
    if portion.start is not None and span.valid_from < portion.start:
        parts.append(Span(span.value_key, span.value, span.valid_from, portion.start, span.source, None, span.subject))
    if portion.end is not None and _lt_end(portion.end, span.valid_to):
        parts.append(Span(span.value_key, span.value, portion.end, span.valid_to, span.source, None, span.subject))
    return parts


def _merge_sources(*groups: tuple[str, ...]) -> tuple[str, ...]:
    merged: list[str] = []
    for group in groups:
        for ref in group:
            if ref not in merged:
                merged.append(ref)
    return tuple(merged)


def add(
    spans: list[Span],
    cardinality: str,
    value_key: str,
    value: str,
    portion: Portion,
    source: tuple[str, ...] = (),
    subject: str = "",
) -> list[Span]:
    """Assert `value` over the portion. Same-value versions that overlap or touch it merge into one."""
    if portion.start is None:
        raise ValidationError("add needs a valid_from", field="valid_from")
    if cardinality == "one":
        clashes = [s for s in spans if s.value_key != value_key and overlaps(s, portion)]
        if clashes:
            raise ConflictError(
                f"the slot already holds {clashes[0].describe()}, which overlaps "
                f"[{display(portion.start)}, {display(portion.end)}); use supersede to replace it",
                field="value",
            )
    same = [s for s in spans if s.value_key == value_key and touches_or_overlaps(s, portion)]
    if any(covers(s, portion) for s in same):
        return list(spans)  # already held: a no-op that only adds provenance
    start = min([portion.start] + [s.valid_from for s in same])
    ends = [portion.end] + [s.valid_to for s in same]
    end = None if any(e is None for e in ends) else max(ends)  # type: ignore[type-var]
    merged = Span(value_key, value, start, end, _merge_sources(*(s.source for s in same), source), subject=subject)
    return [s for s in spans if s not in same] + [merged]


def _cut(spans: list[Span], targets: list[Span], portion: Portion) -> list[Span]:
    kept = [s for s in spans if s not in targets]
    for target in targets:
        kept.extend(remainders(target, portion))
    return kept


def supersede(
    spans: list[Span],
    cardinality: str,
    value_key: str,
    value: str,
    portion: Portion,
    replaces_key: str | None = None,
    source: tuple[str, ...] = (),
    subject: str = "",
) -> list[Span]:
    """Within the portion the slot now holds `value`; what it held there is cut out.

    For `one` every version overlapping the portion is replaced; for `many` only versions of
    `replaces_key`. Superseding nothing is an error, as is a `many` supersede without replaces.
    """
    if cardinality == "many":
        if replaces_key is None:
            raise ValidationError("a supersede in a `many` slot must name the value it replaces", field="replaces")
        targets = [s for s in spans if s.value_key == replaces_key and overlaps(s, portion)]
        if not targets:
            raise NotFoundError(
                f"no current version of that value overlaps [{display(portion.start)}, {display(portion.end)})",
                field="replaces",
            )
    else:
        targets = [s for s in spans if overlaps(s, portion)]
        if replaces_key is not None:
            if not any(s.value_key == replaces_key for s in targets):
                raise NotFoundError("the slot does not hold that value in the portion", field="replaces")
        if not targets:
            raise NotFoundError(
                f"nothing to supersede: the slot holds no value in [{display(portion.start)}, {display(portion.end)});"
                " use add",
                field="valid_from",
            )
        if any(s.value_key == value_key and covers(s, portion) for s in targets):
            return list(spans)  # the slot already holds exactly this value over the portion
    return add(_cut(spans, targets, portion), cardinality, value_key, value, portion, source, subject)


def retract(spans: list[Span], value_key: str | None, portion: Portion) -> list[Span]:
    """Within the portion the value (or, with no value, whatever the slot holds) is no longer held."""
    targets = [s for s in spans if overlaps(s, portion) and (value_key is None or s.value_key == value_key)]
    if not targets:
        what = "that value" if value_key is not None else "the slot"
        raise NotFoundError(
            f"nothing to retract: {what} has no current version in "
            f"[{display(portion.start) if portion.start else '-∞'}, {display(portion.end)})",
            field="value" if value_key is not None else "valid_from",
        )
    return _cut(spans, targets, portion)


def settle(original: list[Span], spans: list[Span]) -> list[Span]:
    """Put back database versions that an operation re-created with the same value and interval.

    Cutting a version and re-adding the same value over the same interval must write nothing.
    """
    settled = list(spans)
    for i, span in enumerate(settled):
        if span.row_id is None:
            twin = next(
                (
                    old
                    for old in original
                    if old not in settled
                    and (old.value_key, old.valid_from, old.valid_to) == (span.value_key, span.valid_from, span.valid_to)
                ),
                None,
            )
            if twin is not None:
                settled[i] = twin
    return settled


def diff(original: list[Span], final: list[Span]) -> Change:
    """Database versions to close (in original, gone from final) and new versions to open.

    Spans the running transaction opened and then undid are not in `final` and so are never written.
    """
    return Change(
        closed=[s for s in original if s not in final],
        opened=[s for s in final if s.row_id is None],
    )


def undated_start(versions: list[Span], value_key: str, cardinality: str, said_at: str, unknown: str) -> str:
    """Where an undated statement of `value_key` ("I live in Lyon"), said at `said_at`, starts.

    It held since some moment nobody said, up to when it was said (DESIGN §2): `unknown` (the earliest
    instant), so a later dated change narrows it and never erases its past. What the slot is known to
    have held before bounds that moment: the statement starts where the latest earlier version that it
    cannot overlap ends (in a `one` slot another value; in either, an earlier run of the same value that
    had ended). When the slot holds this value at `said_at` already, or another value there, the
    statement is news only from `said_at` (an add there is then a no-op or the conflict it is)."""
    start = unknown
    for span in versions:
        if not span.valid_from < said_at:
            continue  # begins at or after the moment said: it does not bound what came before
        same = span.value_key == value_key
        if not same and cardinality != "one":
            continue
        if span.valid_to is None or said_at < span.valid_to:
            return said_at  # held (this value or another) when it was said
        start = max(start, span.valid_to)
    return start
