"""Who someone named in passing is (factledger.digest.relatives), through the real digest: each shape's
examples leave the person held as the user's relation; its counter-examples name nobody so."""

from __future__ import annotations

import pytest

from factledger.digest.relatives import BIRTHDAY_COUNTER, BIRTHDAY_EXAMPLES, SHAPES, birthdays_in_passing, relatives_named

SAID = "2026-03-14T10:00:00Z"
EXAMPLES = [(s.name, turn, person, relation) for s in SHAPES for turn, (person, relation) in s.examples]
COUNTER = [(s.name, turn) for s in SHAPES for turn in s.counter]


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("shape", "turn", "person", "relation"), EXAMPLES, ids=[f"{n}: {t[:40]}" for n, t, _, _ in EXAMPLES])
def test_examples(talk, shape: str, turn: str, person: str, relation: str) -> None:
    talk.say(turn, SAID)
    talk.digest()
    held = [(c.subject, c.value) for c in talk.ledger.current([talk.scope]) if c.predicate == "relation"]
    assert (person, relation) in held, (shape, held)


@pytest.mark.parametrize(("shape", "turn"), COUNTER, ids=[f"{n}: {t[:40]}" for n, t in COUNTER])
def test_counter_examples(shape: str, turn: str) -> None:
    assert relatives_named(turn) == [], (shape, turn)


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_hedged_turn_names_nobody(talk) -> None:
    talk.say("me and my partner Ozric I think, or was it Ozrin", SAID)
    talk.digest()
    assert [c for c in talk.ledger.current([talk.scope]) if c.predicate == "relation"] == []


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_what_the_ledger_knows_of_them_stands(talk) -> None:
    """Someone already held as one relation is not made another by a mention in passing."""
    talk.say("my brother Tovin lives in Tarnmouth", "2026-03-01T10:00:00Z")
    talk.digest()
    talk.say("dinner with my friend Tovin tonight", SAID)
    talk.digest()
    held = sorted(c.value for c in talk.ledger.current([talk.scope]) if c.predicate == "relation" and c.subject == "Tovin")
    assert held == ["brother"], held


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("turn", "held"), BIRTHDAY_EXAMPLES, ids=[t[:40] for t, _ in BIRTHDAY_EXAMPLES])
def test_a_birthday_said_in_passing(talk, turn: str, held: tuple[str, str]) -> None:
    talk.say(turn, SAID)
    talk.digest()
    assert held in [(c.subject, c.value) for c in talk.ledger.current([talk.scope]) if c.predicate == "birthday"]


@pytest.mark.parametrize("turn", BIRTHDAY_COUNTER)
def test_no_birthday_said_in_passing(turn: str) -> None:
    assert birthdays_in_passing(turn, [], []) == []


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_birthday_said_in_passing_is_corrected_by_her(talk) -> None:
    """'for my gf Wenlis's bday on the 21st', then 'her bday is the 23rd not the 21st': the one person holding one."""
    talk.say("need a table in town for my gf Wenlis's bday on the 21st, she's vegetarian", SAID)
    talk.digest()
    talk.say("wait i messed up, her bday is the 23rd not the 21st", "2026-03-15T10:00:00Z")
    talk.digest()
    held = {(c.subject, c.predicate, c.value) for c in talk.ledger.current([talk.scope])}
    assert {("Wenlis", "birthday", "the 23rd"), ("Wenlis", "relation", "girlfriend")} <= held
