"""A machine named by its code in passing (factledger.digest.machines), through the real digest: each
shape's examples leave the code held in the slot its kind names, a new code said later holds in place of
the old from when it was said, and the counter-examples name no machine."""

from __future__ import annotations

import pytest

from factledger.digest.machines import SHAPES, machines_in_passing

EXAMPLES = [(s.name, turn, slot, code) for s in SHAPES for turn, (slot, code) in s.examples]
COUNTER = [(s.name, turn) for s in SHAPES for turn in s.counter]


def held(talk, **when) -> set[tuple[str, str]]:
    found = talk.ledger.as_of([talk.scope], **when) if when else talk.ledger.current([talk.scope])
    return {(c.predicate, c.value) for c in found}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("shape", "turn", "slot", "code"), EXAMPLES, ids=[f"{n}: {t[:40]}" for n, t, _, _ in EXAMPLES])
def test_examples(talk, shape: str, turn: str, slot: str, code: str) -> None:
    talk.say(turn, "2026-03-14T10:00:00Z")
    talk.digest()
    assert (slot, code) in held(talk), (shape, held(talk))


@pytest.mark.parametrize(("shape", "turn"), COUNTER, ids=[f"{n}: {t[:40]}" for n, t in COUNTER])
def test_counter_examples(shape: str, turn: str) -> None:
    assert machines_in_passing(turn, "user", "2026-03-14T10:00:00.000000Z", [], []) == [], (shape, turn)


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_new_code_holds_in_place_of_the_old_from_when_it_was_said(talk) -> None:
    talk.say("our pipeline deploys to the staging box stg-quell-02, any idea why the build hangs?", "2026-02-02T10:00:00Z")
    talk.digest()
    talk.say("the staging box stg-quell-05 is up, the old one is gone", "2026-03-02T10:00:00Z")
    talk.digest()
    assert ("staging_box", "stg-quell-05") in held(talk)
    assert ("staging_box", "stg-quell-02") not in held(talk)
    assert ("staging_box", "stg-quell-02") in held(talk, valid_at="2026-02-20T00:00:00Z")


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_held_code_moved_to_a_new_one_named_in_the_turn(talk) -> None:
    """'staging lives at stg-orwell.internal', then 'staging moved btw, new host is stg2-orwell.internal'."""
    talk.say("working on billing today. staging lives at stg-orwell.internal, deploys are a makefile", "2026-02-02T10:00:00Z")
    talk.digest()
    talk.say("staging moved btw, new host is stg2-orwell.internal. the old box is gone", "2026-03-02T10:00:00Z")
    talk.digest()
    assert ("staging", "stg2-orwell.internal") in held(talk)
    assert ("staging", "stg-orwell.internal") in held(talk, valid_at="2026-02-20T00:00:00Z")
    talk.say("the build moved to a new runner, nothing else changed", "2026-03-03T10:00:00Z")
    talk.digest()
    assert ("staging", "stg2-orwell.internal") in held(talk)  # no code named: nothing moves
