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


# (turns said a day apart from 2026-03-01, the slot, its value now, an instant before the change, the value then)
CHANGES_SAID_WITH_THEIR_PAST = [
    (("I moved from Brno to Olomouc in February",), "lives_in", "Olomouc", "2026-01-20T00:00:00Z", "Brno"),
    (("I live in Brno", "we moved from Brno to Olomouc last week"), "lives_in", "Olomouc", "2026-02-20T00:00:00Z", "Brno"),
    (("I work at Pellmark", "I switched from Pellmark to Brisling on Monday"), "works_at", "Brisling", "2026-03-01T12:00:00Z", "Pellmark"),
]


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("turns", "predicate", "now", "then", "value_then"), CHANGES_SAID_WITH_THEIR_PAST,
                         ids=[t[-1][:40] for t, *_ in CHANGES_SAID_WITH_THEIR_PAST])
def test_a_change_keeps_what_held_before_it(talk, turns, predicate, now, then, value_then) -> None:
    for day, text in enumerate(turns, start=1):
        talk.say(text, f"2026-03-{day:02d}T10:00:00Z")
        talk.digest()
    assert [c.value for c in talk.ledger.current([talk.scope]) if c.predicate == predicate] == [now]
    assert [c.value for c in talk.ledger.as_of([talk.scope], valid_at=then) if c.predicate == predicate] == [value_then]
