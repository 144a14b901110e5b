"""How the user gets to work (factledger.digest.commute), through the real digest: each way's examples
leave it held, a new way holds in place of the old from when it was said, an end ends the way it names,
and the counter-examples say no way to work."""

from __future__ import annotations

import pytest

from factledger.digest.commute import SLOT, WAYS, commute_said

EXAMPLES = [(w.name, turn, value) for w in WAYS for turn, value in w.examples]
COUNTER = [(w.name, turn) for w in WAYS for turn in w.counter]


def ways(talk, **when) -> set[str]:
    held = talk.ledger.as_of([talk.scope], **when) if when else talk.ledger.current([talk.scope])
    return {c.value for c in held if c.predicate == SLOT}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("way", "turn", "value"), EXAMPLES, ids=[f"{n}: {t[:40]}" for n, t, _ in EXAMPLES])
def test_examples(talk, way: str, turn: str, value: str) -> None:
    talk.say(turn, "2026-03-14T10:00:00Z")
    talk.digest()
    assert ways(talk) == {value}, way


@pytest.mark.parametrize(("way", "turn"), COUNTER, ids=[f"{n}: {t[:40]}" for n, t in COUNTER])
def test_counter_examples(way: str, turn: str) -> None:
    assert [s for s in commute_said(turn) if s.way.name == way] == [], (way, turn)


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_new_way_holds_in_place_of_the_old(talk) -> None:
    """The bus, then cycling, then the bike taken and back to the bus: each from when it was said."""
    talk.say("night shifts at the warehouse this month. i get the 12 bus in, its always late", "2026-02-02T10:00:00Z")
    talk.digest()
    talk.say("I've started cycling in now, the trains are a mess anyway", "2026-03-02T10:00:00Z")
    talk.digest()
    talk.say("someone took my bike from the rack, so it's back to the bus for now", "2026-04-06T10:00:00Z")
    talk.digest()
    assert ways(talk) == {"the bus"}
    assert ways(talk, valid_at="2026-03-20T00:00:00Z") == {"bike"}
    assert ways(talk, valid_at="2026-02-20T00:00:00Z") == {"the 12 bus"}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_an_end_ends_the_way_it_names(talk) -> None:
    talk.say("I cycle to work along the river path", "2026-02-02T10:00:00Z")
    talk.digest()
    talk.say("knee's bad so I've stopped cycling for now", "2026-03-02T10:00:00Z")
    talk.digest()
    assert ways(talk) == set()
    assert ways(talk, valid_at="2026-02-20T00:00:00Z") == {"bike"}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_the_way_is_found_by_how_a_question_asks(talk, tmp_path) -> None:
    from factledger.recall import Recall

    talk.say("settled into the new place, the commute is a 25 minute tram ride now", "2026-03-14T10:00:00Z")
    talk.digest()
    with Recall(talk.ledger, tmp_path / "index") as recall:
        facts = [h.text for h in recall.search("how do I get to work?", [talk.scope], kinds="fact", limit=3)]
    assert facts and "tram" in facts[0], facts
