"""Dated events as facts: what someone did (or has coming up) at a stated time.

Two `many` predicates, chosen so the rendered sentence reads as plain English:
- `did`: "{subject} {value}" with a past-tense value and its date, e.g. "user went to the pottery class
  on 12 March 2026". Valid from the start of the event's period, open-ended: the statement "user went to
  the pottery class on 12 March" is true from that day on, so current truth and a later question ("when did
  I go to the pottery class?") still see it, while an as-of read before the event does not.
- `has_event`: "{subject} has {value}" for a scheduled one, e.g. "user has sister's wedding on 3 June
  2024". Valid from when it was said (it was known, and planned, from then).
The date label is part of the value: the same activity on two dates is two events (in a `many` slot the
same value would be one), and the sentence answers "when" in words. Extractors only find the time words;
factledger.ledger.when resolves them against the turn's said-at time.
"""

from __future__ import annotations

from .model import Draft
from factledger.ledger.when import EventTime, resolve_event_time

EVENT_PREDICATES: dict[str, tuple[str, str]] = {
    "did": ("many", "{subject} {value}"),
    "has_event": ("many", "{subject} has {value}"),
}


def event_value(what: str, when: EventTime) -> str:
    """The event's words with its date label ("went to the pottery class on 12 March 2026")."""
    what = " ".join(what.split()).strip(" ,.")
    return f"{what} {when.label}"


def event_draft(
    predicate: str, subject: str, what: str, quote: str, phrase: str, said_at: str, *, upcoming: bool = False
) -> Draft | None:
    """A draft for a dated event, or None when the time words name no single period."""
    cardinality, template = EVENT_PREDICATES[predicate]
    when = resolve_event_time(phrase, said_at, upcoming=upcoming or predicate == "has_event")
    if when is None or not what.strip():
        return None
    return Draft(
        op="add",
        subject=subject,
        predicate=predicate,
        value=event_value(what, when),
        quote=quote.strip(),
        cardinality=cardinality,  # type: ignore[arg-type]
        template=template,
        valid_from=when.start if predicate == "did" else said_at,  # has_event: from when it was said
        time_phrase=phrase,
    )
