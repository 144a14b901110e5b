"""What a turn says in passing (digest.metrics, trips, commute, couples, companions, pursuits, hosting): the
open values a subject holds, a held value ended when the turn was said, and, in a `one` slot, the value in
place of the one held, from when it was said (with none held, an undated add: since at least then)."""

from __future__ import annotations

from collections.abc import Sequence

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise

from .model import Draft


def held_open(current: Sequence[ClaimVersion], subject: str, slot: str | None = None) -> list[ClaimVersion]:
    """What `subject` holds open (in `slot`, when one is given)."""
    key = normalise(subject)
    return [c for c in current if c.subject_key == key and (slot is None or c.predicate == slot) and c.tx_to is None and c.valid_to is None]


def ended_when_said(held: ClaimVersion, quote: str, said_at: str) -> Draft:
    """`held` ends when `quote` was said (at its own start, when that is later)."""
    return Draft(op="retract", subject=held.subject, predicate=held.predicate, value=held.value, quote=quote.strip(),
                 cardinality=held.cardinality, valid_from=max(said_at, held.valid_from))  # type: ignore[arg-type]


def in_place_of_held(subject: str, slot: str, value: str, quote: str, template: str, said_at: str,
                     current: Sequence[ClaimVersion]) -> Draft | None:
    """`value` for `subject`'s `slot`, superseding the open value held there; None when that is `value`."""
    held = held_open(current, subject, slot)
    if held and held[0].value_key == normalise(value):
        return None
    return Draft(op="supersede" if held else "add", subject=subject, predicate=slot, value=value, quote=quote.strip(),
                 cardinality="one", template=template, valid_from=max(said_at, held[0].valid_from) if held else None)
