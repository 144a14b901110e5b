"""What a slot held before a change the ledger first hears of (factledger.digest.priors), through the real
digest: each shape's examples leave the new value held now and the old one held just before the change,
from an unknown start; its counter-examples add no earlier value."""

from __future__ import annotations

import pytest

from factledger.digest.priors import SHAPES, prior_said
from factledger.ledger.times import UNKNOWN_START

SAID = "2026-03-14T10:00:00Z"
EXAMPLES = [(s.name, turn, predicate, old) for s in SHAPES for turn, predicate, old in s.examples]
COUNTER = [(s.name, turn) for s in SHAPES for turn in s.counter]


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("shape", "turn", "predicate", "old"), EXAMPLES, ids=[f"{n}: {t[:40]}" for n, t, _, _ in EXAMPLES])
def test_examples(talk, shape: str, turn: str, predicate: str, old: str) -> None:
    talk.say(turn, SAID)
    talk.digest()
    now = [c for c in talk.ledger.current([talk.scope]) if c.predicate == predicate]
    assert len(now) == 1 and now[0].value != old, (shape, now)
    earlier = [c for c in talk.ledger.as_of([talk.scope], valid_at="2025-06-01T00:00:00Z") if c.predicate == predicate]
    assert [(c.value, c.valid_from, c.valid_to) for c in earlier] == [(old, UNKNOWN_START, now[0].valid_from)], shape


@pytest.mark.parametrize(("shape", "turn"), COUNTER, ids=[f"{n}: {t[:40]}" for n, t in COUNTER])
def test_counter_examples(shape: str, turn: str) -> None:
    """No value of the turn is read as replacing another by this shape."""
    for value in turn.replace(",", " ").split():
        found = prior_said(turn, value)
        assert found is None or found[2].name != shape, (turn, value, found)


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_slot_with_history_keeps_it(talk) -> None:
    """When the slot holds something, the change supersedes it: no second history is made up."""
    talk.say("our CI is Tollbox", "2026-01-10T10:00:00Z")
    talk.digest()
    talk.say("we migrated CI from Rumbleci to Gantry last sprint", SAID)
    talk.digest()
    said = [entry.version.value for entry in talk.ledger.history([talk.scope], subject="user", predicate="ci")]
    assert "Rumbleci" not in said and said[0] == "Tollbox", said
