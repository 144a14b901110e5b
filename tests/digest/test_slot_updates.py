"""A held slot's new value said tersely (factledger.digest.slot_updates), through the real digest: the
first turn holds the slot, each example's update holds its new value in place of the old from when it was
said, and a counter-example's later turn leaves the held value as it was."""

from __future__ import annotations

import pytest

from factledger.digest.slot_updates import WAYS

EXAMPLES = [(w.name, *e) for w in WAYS for e in w.examples]
COUNTER = [(w.name, *c) for w in WAYS for c in w.counter]


def held(talk, slot: str, **when) -> set[str]:
    versions = talk.ledger.as_of([talk.scope], **when) if when else talk.ledger.current([talk.scope])
    return {c.value for c in versions if c.predicate == slot}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("way", "first", "update", "slot", "value"), EXAMPLES, ids=[f"{e[0]}: {e[2][:40]}" for e in EXAMPLES])
def test_examples(talk, way: str, first: str, update: str, slot: str, value: str) -> None:
    talk.say(first, "2026-03-02T10:00:00Z")
    talk.digest()
    before = held(talk, slot)
    assert len(before) == 1, (way, "the first turn holds the slot", before)
    talk.say(update, "2026-05-11T10:00:00Z")
    talk.digest()
    assert held(talk, slot) == {value}, way
    assert held(talk, slot, valid_at="2026-04-01T00:00:00Z") == before, way  # the old value, as of before the update
    # nothing else holds the new value under a slot named from the update's words ("ours", "…_swapped")
    assert [c.predicate for c in talk.ledger.current([talk.scope]) if c.value == value] == [slot], way


@pytest.mark.parametrize(("way", "first", "later"), COUNTER, ids=[f"{c[0]}: {c[2][:40]}" for c in COUNTER])
def test_counter_examples(talk, way: str, first: str, later: str) -> None:
    talk.say(first, "2026-03-02T10:00:00Z")
    talk.digest()
    before = {(c.predicate, c.value) for c in talk.ledger.current([talk.scope])}
    talk.say(later, "2026-05-11T10:00:00Z")
    talk.digest()
    after = {(c.predicate, c.value) for c in talk.ledger.current([talk.scope])}
    assert before <= after, (way, later, before - after)
