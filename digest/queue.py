"""The review queue for a real backlog: exact counts, pages, views by status, filters and search, and a
dry run of a bulk decision that shows every change before it runs.

`queue_filter` checks what a reviewer asked for (an unknown scope or view is an error naming the field,
never a silent empty queue); `queue_page` reads one page and the exact count per status under the same
filter; `bulk_preview` runs `accept_many` / `reject_many` in a transaction that is rolled back, so what
it shows is what the real run would do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from factledger.ledger import Ledger, LedgerError, ValidationError
from factledger.ledger.keys import key
from factledger.ledger.times import display

from .model import Proposal, QueueFilter
from .recorder import recorder_for
from .review import OPEN, STATUSES, Accepted, accept_many, reject_many

VIEWS: dict[str, tuple[str, ...] | None] = {
    "open": OPEN,  # what waits for a reviewer: held, and came back after a rejection
    **{s: (s,) for s in STATUSES},
    "all": None,
}
MAX_PER_PAGE = 200
BulkAction = Literal["accept", "reject"]


def _given(text: str | None) -> str | None:
    if text is None:
        return None
    text = text.strip()
    return text or None


def queue_filter(
    ledger: Ledger, *, view: str = "open", scope: str | None = None, subject: str | None = None,
    predicate: str | None = None, session: str | None = None, extractor: str | None = None,
    policy: str | None = None, reason: str | None = None, search: str | None = None,
) -> QueueFilter:
    """The filter for these choices (empty text means any). Raises ValidationError naming the field for
    an unknown view or scope (a scope with neither proposals nor claims)."""
    view = _given(view) or "open"
    if view not in VIEWS:
        raise ValidationError(f"{view!r} is not a view; use one of {', '.join(VIEWS)}", field="view")
    scope = _given(scope)
    if scope is not None:
        known = set(recorder_for(ledger.storage).proposal_scopes()) | set(ledger.scopes())
        if scope not in known:
            names = ", ".join(sorted(known)) or "none yet"
            raise ValidationError(f"no scope {scope!r} has proposals or claims (scopes: {names})", field="scope")
    subject, predicate = _given(subject), _given(predicate)
    return QueueFilter(
        statuses=VIEWS[view], scope=scope,
        subject_key=key(subject, "subject") if subject else None,
        predicate=key(predicate, "predicate") if predicate else None,
        session=_given(session), extractor=_given(extractor), policy=_given(policy),
        reason=_given(reason), search=_given(search),
    )


@dataclass(frozen=True)
class QueuePage:
    """One page of a queue: the proposals, the exact count of the view, and the count per status under
    the same filter (so a reviewer sees "505 open" and how many were applied or rejected)."""

    proposals: tuple[Proposal, ...]
    total: int
    counts: dict[str, int]
    page: int
    per_page: int
    oldest_first: bool

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.total / self.per_page))

    @property
    def first(self) -> int:
        """The position (1-based) of the page's first proposal in the queue (0 when empty)."""
        return (self.page - 1) * self.per_page + 1 if self.proposals else 0

    @property
    def last(self) -> int:
        return self.first + len(self.proposals) - 1 if self.proposals else 0


def queue_page(ledger: Ledger, f: QueueFilter, *, page: int = 1, per_page: int = 25, oldest_first: bool = False) -> QueuePage:
    """Page `page` (1-based) of the proposals `f` selects, newest first unless `oldest_first`."""
    if not 1 <= per_page <= MAX_PER_PAGE:
        raise ValidationError(f"must be between 1 and {MAX_PER_PAGE}", field="per_page")
    if page < 1:
        raise ValidationError("must be 1 or more", field="page")
    recorder = recorder_for(ledger.storage)
    with ledger.storage.snapshot():  # the count and the page from one committed state
        counts = recorder.queue_counts(f.without_statuses())
        total = sum(n for s, n in counts.items() if f.statuses is None or s in f.statuses)
        pages = max(1, math.ceil(total / per_page))
        if page > pages:
            raise ValidationError(f"the queue has {pages} page{'s' if pages != 1 else ''} of {per_page}", field="page")
        rows = recorder.queue(f, oldest_first=oldest_first, limit=per_page, offset=(page - 1) * per_page)
    return QueuePage(tuple(rows), total, {s: counts.get(s, 0) for s in STATUSES}, page, per_page, oldest_first)


@dataclass(frozen=True)
class BulkItem:
    """What a bulk decision would do to one proposal, in words."""

    proposal: Proposal
    lines: tuple[str, ...]


@dataclass(frozen=True)
class BulkPreview:
    """Every change a bulk accept or reject would make, found by running it and rolling it back;
    `blocked` says why it would fail as a whole (all or nothing), "" when it would run."""

    action: BulkAction
    items: tuple[BulkItem, ...]
    blocked: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "action": self.action, "blocked": self.blocked,
            "items": [{"proposal": i.proposal.id, "lines": list(i.lines)} for i in self.items],
        }


class _RollBack(Exception):
    """Raised inside the dry run to undo it."""


def _span(start: str | None, end: str | None) -> str:
    return f"[{display(start)}, {display(end)})"


def _accept_lines(a: Accepted) -> tuple[str, ...]:
    lines = [f"accept: {a.proposal.describe()}"]
    kept = {o.value_key for o in a.opened}
    for v in a.closed:
        lines.append(f"{'cut' if v.value_key in kept else 'close'} claim version #{v.id}: {v.value!r} {_span(v.valid_from, v.valid_to)}")
    for o in a.opened:
        lines.append(f"write {o.value!r} {_span(o.valid_from, o.valid_to)}")
    if not a.closed and not a.opened:
        lines.append("changes no version (the value already holds there)")
    return tuple(lines)


def _reject_lines(p: Proposal, remember: bool = True) -> tuple[str, ...]:
    if not remember:
        return (f"reject: {p.describe()}", "nothing goes into rejection memory (a duplicate: the proposal it repeats stays open)")
    remembered = (f"{p.value!r} goes into rejection memory (rejection #{p.rejection_id})" if p.rejection_id
                  else "nothing goes into rejection memory (a retract)")
    return (f"reject: {p.describe()}", remembered)


def bulk_preview(ledger: Ledger, ids: list[int], action: BulkAction, *, principal: str, remember: bool = True) -> BulkPreview:
    """What `accept_many` / `reject_many` of `ids` by `principal` would do, without doing it
    (`remember`: as reject_many's)."""
    if action not in ("accept", "reject"):
        raise ValidationError(f"{action!r} is not a bulk action; use accept or reject", field="action")
    if not ids:
        raise ValidationError("no proposals chosen", field="proposal")
    recorder = recorder_for(ledger.storage)
    items: list[BulkItem] = []
    blocked = ""
    try:
        with ledger.storage.atomic():
            if action == "accept":
                items = [BulkItem(a.proposal, _accept_lines(a)) for a in accept_many(ledger, ids, principal=principal)]
            else:
                items = [BulkItem(p, _reject_lines(p, remember)) for p in reject_many(ledger, ids, principal=principal, remember=remember)]
            raise _RollBack
    except _RollBack:
        pass
    except LedgerError as exc:
        if exc.field == "principal":
            raise
        blocked = str(exc)
        items = [BulkItem(p, ()) for p in (recorder.proposal(i) for i in dict.fromkeys(ids)) if p is not None]
    return BulkPreview(action, tuple(items), blocked)


MAX_BULK = 1000


def matching_ids(ledger: Ledger, f: QueueFilter, *, limit: int = MAX_BULK) -> list[int]:
    """The ids of the proposals `f` selects, oldest first: "all matching this filter" for a bulk
    decision. More than `limit` is refused (decide a narrower filter first)."""
    rows = recorder_for(ledger.storage).queue(f, oldest_first=True, limit=limit + 1, offset=0)
    if len(rows) > limit:
        raise ValidationError(f"more than {limit} proposals match; narrow the filter", field="filter")
    return [p.id for p in rows]


MAX_SCANNED = 20_000  # open proposals a duplicate search reads under one filter


def duplicate_ids(ledger: Ledger, f: QueueFilter, *, limit: int = MAX_BULK) -> dict[int, str]:
    """The open proposals under `f` that repeat something, each with what it repeats, oldest first: one
    that proposes what an older open proposal (under the filter or not) proposes (the same op, slot,
    value and valid time; the oldest is kept, to be decided), or a value the slot already holds now over
    the proposal's valid time (accepting it would change nothing). "Reject duplicates" rejects exactly
    these, after a preview, without rejection memory (`reject_many(..., remember=False)`). More than `limit` is refused (narrow the filter first)."""
    recorder = recorder_for(ledger.storage)
    rows = recorder.queue(f, oldest_first=True, limit=MAX_SCANNED + 1, offset=0)
    if len(rows) > MAX_SCANNED:
        raise ValidationError(f"more than {MAX_SCANNED} proposals match; narrow the filter", field="filter")
    slots: dict[tuple[str, str, str], tuple[dict[tuple[object, ...], int], list]] = {}
    found: dict[int, str] = {}
    for p in rows:
        if p.value is None or p.op == "retract":
            continue
        same = _sameness(p)
        if same is None:
            continue
        slot = (p.scope, same[0], p.predicate)
        if slot not in slots:  # the slot's open proposals, oldest first, and what it holds now: read once
            first: dict[tuple[object, ...], int] = {}
            for other in recorder.slot_proposals(scope=p.scope, subject_key=same[0], predicate=p.predicate, statuses=OPEN,
                                                 exclude=-1, limit=None):
                other_same = _sameness(other)
                if other_same is not None:
                    first.setdefault(other_same, other.id)
            slots[slot] = first, recorder.believed_versions(scope=p.scope, subject_key=same[0], predicate=p.predicate)
        first, held = slots[slot]
        if first.get(same, p.id) < p.id:
            found[p.id] = f"repeats proposal #{first[same]} (the same {p.op} of {p.value!r} over the same valid time)"
            continue
        for v in held:
            starts = v.valid_from <= p.valid_from if p.valid_from is not None else False
            ends = v.valid_to is None or (p.valid_to is not None and p.valid_to <= v.valid_to)
            if v.value_key == same[1] and starts and ends:
                found[p.id] = f"the slot already holds {v.value!r} over its valid time (claim version #{v.id}): accepting changes nothing"
                break
    if len(found) > limit:
        raise ValidationError(f"{len(found)} duplicates match, more than {limit}; narrow the filter", field="filter")
    return found


def _sameness(p: Proposal) -> tuple[object, ...] | None:
    """What makes two proposals the same proposal: slot, op, value (normalised) and valid time."""
    if p.value is None or p.op == "retract":
        return None
    try:
        return (key(p.subject, "subject"), key(p.value, "value"), p.op,
                key(p.replaces, "replaces") if p.replaces else None, p.valid_from, p.valid_to)
    except ValidationError:
        return None
