"""Who is going with the user on a trip (factledger.digest.companions), through the real digest: each
shape's examples leave the companion held (or, for one who drops out, no longer held), one coming
"instead" holds in place of the one held, and the counter-examples name nobody."""

from __future__ import annotations

import pytest

from factledger.digest.companions import SHAPES, SLOT, companions_said

EXAMPLES = [(s.name, turn, name) for s in SHAPES if not s.gone for turn, name in s.examples]
GONE = [(s.name, turn, name) for s in SHAPES if s.gone for turn, name in s.examples]
COUNTER = [(s.name, turn) for s in SHAPES for turn in s.counter]


def companions(talk, **when) -> set[str]:
    held = talk.ledger.as_of([talk.scope], **when) if when else talk.ledger.current([talk.scope])
    return {c.value for c in held if c.predicate == SLOT}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("shape", "turn", "name"), EXAMPLES, ids=[f"{n}: {t[:40]}" for n, t, _ in EXAMPLES])
def test_examples(talk, shape: str, turn: str, name: str) -> None:
    talk.say(f"booked the trip! {turn}" if "trip" not in turn else turn, "2026-03-14T10:00:00Z")
    talk.digest()
    assert name in companions(talk), (shape, companions(talk))


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("shape", "turn", "name"), GONE, ids=[f"{n}: {t[:40]}" for n, t, _ in GONE])
def test_one_who_drops_out_no_longer_goes(talk, shape: str, turn: str, name: str) -> None:
    talk.say(f"trip booked, {name} is coming too", "2026-02-02T10:00:00Z")
    talk.digest()
    assert companions(talk) == {name}
    talk.say(turn, "2026-03-14T10:00:00Z")
    talk.digest()
    assert companions(talk) == set(), shape
    assert companions(talk, valid_at="2026-03-01T00:00:00Z") == {name}


@pytest.mark.parametrize(("shape", "turn"), COUNTER, ids=[f"{n}: {t[:40]}" for n, t in COUNTER])
def test_counter_examples(shape: str, turn: str) -> None:
    assert [c for c in companions_said(f"on the trip: {turn}") if c.shape.name == shape] == [], (shape, turn)


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_one_coming_instead_holds_in_place_of_the_one_held(talk) -> None:
    """Bartram is coming to the trade fair; then "bartram's out so Ondine Lusk is coming instead" (typed
    small, no travel word: his name is what makes it about the trip)."""
    talk.say("booked the hotel for the Ormsley trade fair in Corrow, Bartram Ekwe from accounts is coming along", "2026-02-02T10:00:00Z")
    talk.digest()
    talk.say("small change: bartram's out, his knee is worse, so Ondine Lusk from legal is coming instead", "2026-03-14T10:00:00Z")
    talk.digest()
    assert companions(talk) == {"Ondine Lusk"}
    assert companions(talk, valid_at="2026-03-01T00:00:00Z") == {"Bartram Ekwe"}


def test_talk_of_something_else_names_no_companion() -> None:
    assert companions_said("Tamar is coming over on friday, Oswy is coming too") == []
