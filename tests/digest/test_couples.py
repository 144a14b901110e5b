"""Who someone the user knows is with (factledger.digest.couples), through the real digest: each shape's
examples leave the partner held (or, for a break-up, end the one held), someone new holds in place of the
old partner, and the counter-examples say nobody's partner."""

from __future__ import annotations

import pytest

from factledger.digest.couples import SHAPES, SLOT, couples_said

EXAMPLES = [(s.name, turn, person, partner) for s in SHAPES if not s.apart for turn, (person, partner) in s.examples]
ENDINGS = [(s.name, turn, person, partner) for s in SHAPES if s.apart for turn, (person, partner) in s.examples]
COUNTER = [(s.name, turn) for s in SHAPES for turn in s.counter]


def partners(talk, **when) -> set[tuple[str, str]]:
    held = talk.ledger.as_of([talk.scope], **when) if when else talk.ledger.current([talk.scope])
    return {(c.subject, c.value) for c in held if c.predicate == SLOT}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("shape", "turn", "person", "partner"), EXAMPLES, ids=[f"{n}: {t[:40]}" for n, t, _, _ in EXAMPLES])
def test_examples(talk, shape: str, turn: str, person: str, partner: str) -> None:
    talk.say(turn, "2026-03-14T10:00:00Z")
    talk.digest()
    assert (person, partner) in partners(talk), (shape, partners(talk))


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("shape", "turn", "person", "partner"), ENDINGS, ids=[f"{n}: {t[:40]}" for n, t, _, _ in ENDINGS])
def test_a_break_up_ends_the_partner_held(talk, shape: str, turn: str, person: str, partner: str) -> None:
    relation = turn.split()[1]  # "my sister Wenna …": who the person is, said first
    talk.say(f"my {relation} {person} has a new partner, {partner}", "2026-02-02T10:00:00Z")
    talk.digest()
    assert (person, partner) in partners(talk)
    talk.say(turn, "2026-03-14T10:00:00Z")
    talk.digest()
    assert (person, partner) not in partners(talk), (shape, partners(talk))
    assert (person, partner) in partners(talk, valid_at="2026-03-01T00:00:00Z")


@pytest.mark.parametrize(("shape", "turn"), COUNTER, ids=[f"{n}: {t[:40]}" for n, t in COUNTER])
def test_counter_examples(shape: str, turn: str) -> None:
    assert [c for c in couples_said(turn, lambda name: None) if c.shape.name == shape] == [], (shape, turn)


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_someone_new_holds_in_place_of_the_old(talk) -> None:
    """With Caspar in February; in March "she and caspar are done, she's dating someone new, Ninian" (typed
    small, after news of her job): Ninian now, Caspar as of February."""
    talk.say("my flatmate Sigrun is a dental nurse and she's been with her boyfriend Caspar since uni", "2026-02-02T10:00:00Z")
    talk.digest()
    talk.say("news about sigrun: she's leaving the clinic. and she broke up with caspar, she's dating someone new, Ninian", "2026-03-14T10:00:00Z")
    talk.digest()
    assert partners(talk) == {("Sigrun", "Ninian")}
    assert partners(talk, valid_at="2026-02-15T00:00:00Z") == {("Sigrun", "Caspar")}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_whose_partner_is_never_guessed(talk) -> None:
    """A pronoun with two people named before it, or a person nobody knows, says no one's partner."""
    talk.say("my sister Wenna and my cousin Nell came over, she's dating Gwilym these days", "2026-03-14T10:00:00Z")
    talk.say("Bethoc is dating a bloke named Tobrin these days", "2026-03-14T11:00:00Z")
    talk.digest()
    assert partners(talk) == set()


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_the_partner_is_found_by_the_words_a_question_uses(talk, tmp_path) -> None:
    from factledger.recall import Recall

    talk.say("my flatmate Sigrun's boyfriend Jesper is basically living here now", "2026-03-14T10:00:00Z")
    talk.digest()
    with Recall(talk.ledger, tmp_path / "index") as recall:
        for question in ("who is Sigrun's boyfriend?", "who's Sigrun dating?"):
            facts = [h.text for h in recall.search(question, [talk.scope], kinds="fact", limit=3)]
            assert facts and "Jesper" in facts[0], (question, facts)
