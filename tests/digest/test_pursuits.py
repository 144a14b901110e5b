"""What the user does besides their job (factledger.digest.pursuits), through the real digest: each start's
examples leave the pursuit held, each end leaves it held only before the end, and the counter-examples
say no pursuit."""

from __future__ import annotations

import pytest

from factledger.digest.pursuits import STARTS, started

EXAMPLES = [(s.name, turn, s.slot, value) for s in STARTS for turn, value in s.examples]
COUNTER = [(s.name, turn) for s in STARTS for turn in s.counter]

# (started, ended): each end said a month after its start, in the words people use
ENDINGS = [
    ("i coach my nephew's under-13 rugby side on tuesdays", "not coaching rugby next season, too much on"),
    ("i coach my nephew's under-13 rugby side on tuesdays", "I've stopped coaching, my knee"),
    ("my mum volunteers at the Oakhythe food bank on fridays", "mum's stopped volunteering at oakhythe"),
    ("my mum volunteers at the Oakhythe food bank on fridays", "my mum doesn't volunteer at the food bank anymore, no time"),
    ("my dad volunteers with the Ridings scouts", "my dad no longer volunteers with the scouts"),
    ("I coach my nephew's under-13 rugby side on tuesdays", "did my last session with the rugby lot on friday, sad"),
    ("I play bass in a band called the Mothlights", "left the band, creative differences"),
    ("i'm treasurer of the Brookvale residents association", "I've stepped down as treasurer, someone else's turn"),
    ("i teach an evening pottery class at the Fernleigh centre on mondays", "I'm not teaching pottery anymore, the centre closed"),
]


def pursuits(talk, **when) -> set[str]:
    held = talk.ledger.as_of([talk.scope], **when) if when else talk.ledger.current([talk.scope])
    return {c.value for c in held if c.predicate not in ("note", "relation")}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("start", "turn", "slot", "value"), EXAMPLES, ids=[f"{n}: {t[:40]}" for n, t, _, _ in EXAMPLES])
def test_examples(talk, start: str, turn: str, slot: str, value: str) -> None:
    talk.say(turn, "2026-03-14T10:00:00Z")
    talk.digest()
    held = {(c.predicate, c.value) for c in talk.ledger.current([talk.scope])}
    assert (slot, value) in held, (start, held)


@pytest.mark.parametrize(("start", "turn"), COUNTER, ids=[f"{n}: {t[:40]}" for n, t in COUNTER])
def test_counter_examples(start: str, turn: str) -> None:
    assert [s for s, _, _ in started(turn) if s.name == start] == [], (start, turn)


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("begun", "end"), ENDINGS, ids=[e[:40] for _, e in ENDINGS])
def test_an_end_leaves_it_held_only_before(talk, begun: str, end: str) -> None:
    talk.say(begun, "2026-02-02T10:00:00Z")
    talk.digest()
    before = pursuits(talk)
    assert before, begun
    talk.say(end, "2026-03-14T10:00:00Z")
    talk.digest()
    assert not (pursuits(talk) & before), (end, pursuits(talk))
    assert before <= pursuits(talk, valid_at="2026-03-01T00:00:00Z")


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_an_end_names_which_of_several(talk) -> None:
    """Coaching two teams, one ended by name: the other stays; an end naming neither ends nothing."""
    talk.say("i coach my nephew's under-13 rugby side on tuesdays", "2026-02-02T10:00:00Z")
    talk.say("I also coach the over-40s cricket team", "2026-02-03T10:00:00Z")
    talk.digest()
    talk.say("I've stopped coaching, no time", "2026-03-01T10:00:00Z")
    talk.digest()
    assert {"my nephew's under-13 rugby side", "the over-40s cricket team"} <= pursuits(talk)
    talk.say("not coaching rugby next season", "2026-03-14T10:00:00Z")
    talk.digest()
    assert "my nephew's under-13 rugby side" not in pursuits(talk) and "the over-40s cricket team" in pursuits(talk)


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_someone_elses_pursuit_and_its_end(talk) -> None:
    """"my mum's started volunteering …", then "mum's given up the library, she volunteers at the cat
    rescue instead": the rescue from when it was said, the library before it."""
    talk.say("my mum's started volunteering at the Brindle library on saturdays, keeps her busy", "2026-02-02T10:00:00Z")
    talk.digest()
    talk.say("and mum's given up the library, she volunteers at the cat rescue on fridays instead", "2026-03-14T10:00:00Z")
    talk.digest()

    def mums(**when) -> set[str]:
        held = talk.ledger.as_of([talk.scope], **when) if when else talk.ledger.current([talk.scope])
        return {c.value for c in held if c.subject == "user's mum" and c.predicate == "volunteers_at"}

    assert mums() == {"the cat rescue"}
    assert mums(valid_at="2026-02-20T00:00:00Z") == {"the Brindle library"}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_instead_replaces_the_one_held(talk) -> None:
    talk.say("my dad volunteers at the Harrow Street food bank", "2026-02-02T10:00:00Z")
    talk.digest()
    talk.say("my dad now volunteers at the repair café in the library instead", "2026-03-14T10:00:00Z")
    talk.digest()
    held = {c.value for c in talk.ledger.current([talk.scope]) if c.predicate == "volunteers_at"}
    assert held == {"the repair café in the library"}


def test_the_users_own_volunteering_is_not_read() -> None:
    """Read of someone else only: on the sets nobody tuned for, the user's own left a changed value current."""
    assert started("i volunteer at the Oakhythe food bank on fridays", users=True) == []
    assert [v for _, v, _ in started("I volunteer at the Oakhythe food bank on fridays")] == ["the Oakhythe food bank"]
