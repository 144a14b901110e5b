"""A trip's plan said in passing (factledger.digest.trips), through the real digest: each part's examples
leave it held in its slot, a changed plan holds in place of the old one, and its counter-examples say no
part of a plan."""

from __future__ import annotations

import pytest

from factledger.digest.trips import PARTS, trip_said

EXAMPLES = [(p.name, turn, slot, value) for p in PARTS for turn, (slot, value) in p.examples]
COUNTER = [(p.name, turn) for p in PARTS for turn in p.counter]


def held(talk) -> set[tuple[str, str, str]]:
    return {(c.subject, c.predicate, c.value) for c in talk.ledger.current([talk.scope])}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("part", "turn", "slot", "value"), EXAMPLES, ids=[f"{n}: {t[:40]}" for n, t, _, _ in EXAMPLES])
def test_examples(talk, part: str, turn: str, slot: str, value: str) -> None:
    talk.say(turn, "2026-03-14T10:00:00Z")
    talk.digest()
    assert ("user", slot, value) in held(talk), (part, held(talk))


@pytest.mark.parametrize(("part", "turn"), COUNTER, ids=[f"{n}: {t[:40]}" for n, t in COUNTER])
def test_counter_examples(part: str, turn: str) -> None:
    assert [s for s in trip_said(turn) if s.part.name == part] == [], (part, turn)


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_changed_plan_holds_in_place_of_the_old(talk) -> None:
    """Flying into Corrandel on May 3, then into Brisport on May 5: Brisport now, Corrandel as of April."""
    talk.say("trip sorted, we fly into corrandel on may 3 for a week", "2026-03-02T10:00:00Z")
    talk.digest()
    talk.say("schedule change: we land in brisport on may 5, not corrandel", "2026-04-10T10:00:00Z")
    talk.digest()
    now = {(c.predicate, c.value) for c in talk.ledger.current([talk.scope])}
    april = {(c.predicate, c.value) for c in talk.ledger.as_of([talk.scope], valid_at="2026-04-01T00:00:00Z")}
    assert {("flying_into", "Brisport"), ("flight_out", "may 5")} <= now
    assert {("flying_into", "Corrandel"), ("flight_out", "may 3")} <= april


def test_talk_of_something_else_says_no_plan() -> None:
    assert trip_said("going to Tesco for milk, back on the 3rd") == []
