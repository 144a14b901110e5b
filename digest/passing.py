"""What a turn says in passing, in a `one` slot (digest.metrics, digest.trips): the value in place of the
one held for that slot, from when it was said; with none held, an undated add (since at least then)."""

from __future__ import annotations

from collections.abc import Sequence

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise

from .model import Draft


def in_place_of_held(subject: str, slot: str, value: str, quote: str, template: str, said_at: str,
                     current: Sequence[ClaimVersion]) -> Draft | None:
    """`value` for `subject`'s `slot`, superseding the open value held there; None when that is `value`."""
    held = [c for c in current if c.subject_key == normalise(subject) and c.predicate == slot and c.tx_to is None and c.valid_to is None]
    if held and held[0].value_key == normalise(value):
        return None
    return Draft(op="supersede" if held else "add", subject=subject, predicate=slot, value=value, quote=quote.strip(),
                 cardinality="one", template=template, valid_from=max(said_at, held[0].valid_from) if held else None)
