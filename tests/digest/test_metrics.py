"""Training figures said in passing (factledger.digest.metrics), through the real digest: each kind's
examples leave the figure held in its slot, a later figure of the same slot holds in its place, and its
counter-examples say no figure of that kind."""

from __future__ import annotations

import pytest

from factledger.digest.metrics import FIGURES, figures_said

EXAMPLES = [(f.name, turn, slot, value) for f in FIGURES for turn, (slot, value) in f.examples]
COUNTER = [(f.name, turn) for f in FIGURES for turn in f.counter]


def held(talk) -> set[tuple[str, str, str]]:
    return {(c.subject, c.predicate, c.value) for c in talk.ledger.current([talk.scope])}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("kind", "turn", "slot", "value"), EXAMPLES, ids=[f"{n}: {t[:40]}" for n, t, _, _ in EXAMPLES])
def test_examples(talk, kind: str, turn: str, slot: str, value: str) -> None:
    talk.say(turn, "2026-03-14T10:00:00Z")
    talk.digest()
    assert ("user", slot, value) in held(talk), (kind, held(talk))


@pytest.mark.parametrize(("kind", "turn"), COUNTER, ids=[f"{n}: {t[:40]}" for n, t in COUNTER])
def test_counter_examples(kind: str, turn: str) -> None:
    assert [s for s in figures_said(turn) if s.figure.name == kind] == [], (kind, turn)


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_new_figure_holds_in_place_of_the_old(talk) -> None:
    """'ftp 207w' in March, 'tested again, ftp 226!!' in June: 226 now, 207 as of April."""
    talk.say("did a ramp test, my ftp is 207w", "2026-03-02T10:00:00Z")
    talk.digest()
    talk.say("tested again yesterday, ftp 226!! legs are toast", "2026-06-10T10:00:00Z")
    talk.digest()
    now = {c.value for c in talk.ledger.current([talk.scope]) if c.predicate == "ftp"}
    april = {c.value for c in talk.ledger.as_of([talk.scope], valid_at="2026-04-01T00:00:00Z") if c.predicate == "ftp"}
    assert (now, april) == ({"226"}, {"207w"})


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_figure_aimed_at_is_not_held(talk) -> None:
    talk.say("goal for the summer: squat 120kg and ftp 260w", "2026-03-02T10:00:00Z")
    talk.digest()
    assert {c.predicate for c in talk.ledger.current([talk.scope])} & {"squat_1rm", "ftp"} == set()


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_weeks_figure_moved_without_its_kind(talk) -> None:
    """'back up to 38k a week' moves the one week's figure held in kilometres (not the hours cycled)."""
    talk.say("running about 26k a week, cycling maybe 3 hrs a week", "2026-03-02T10:00:00Z")
    talk.digest()
    talk.say("knee's fine, back up to 38k a week", "2026-05-02T10:00:00Z")
    talk.digest()
    weekly = {(c.predicate, c.value) for c in talk.ledger.current([talk.scope]) if c.predicate.startswith("weekly_")}
    assert weekly == {("weekly_running", "38k a week"), ("weekly_cycling", "3 hrs a week")}
