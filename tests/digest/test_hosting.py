"""Where the user's project runs (factledger.digest.hosting), through the real digest: each shape's
examples leave it held, a move holds the new place in place of the old from when it was said, and the
counter-examples name no project's place."""

from __future__ import annotations

import pytest

from factledger.digest.hosting import SHAPES, SLOT, hosting_said

EXAMPLES = [(s.name, turn, project, where) for s in SHAPES for turn, (project, where) in s.examples]
COUNTER = [(s.name, turn) for s in SHAPES for turn in s.counter]


def places(talk, **when) -> set[tuple[str, str]]:
    held = talk.ledger.as_of([talk.scope], **when) if when else talk.ledger.current([talk.scope])
    return {(c.subject, c.value) for c in held if c.predicate == SLOT}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("shape", "turn", "project", "where"), EXAMPLES, ids=[f"{n}: {t[:40]}" for n, t, _, _ in EXAMPLES])
def test_examples(talk, shape: str, turn: str, project: str, where: str) -> None:
    talk.say(turn, "2026-03-14T10:00:00Z")
    talk.digest()
    assert (project, where) in places(talk), (shape, places(talk))


@pytest.mark.parametrize(("shape", "turn"), COUNTER, ids=[f"{n}: {t[:40]}" for n, t in COUNTER])
def test_counter_examples(shape: str, turn: str) -> None:
    assert [s for s in hosting_said(turn, ["Tansyweb"]) if s.shape.name == shape] == [], (shape, turn)


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_move_holds_in_place_of_the_old(talk) -> None:
    """On a linode box, then "quick Tinbread question: it's been on Koyeb.app for a week" (the project named
    by the ledger, not by the turn's words), then back: each from when it was said."""
    talk.say("my side project is called Tinbread, a little bread-timer site, and it runs on a small linode box.", "2026-02-02T10:00:00Z")
    talk.digest()
    talk.say("quick Tinbread question: it's been on Koyeb.app for a week, how do I read the build logs", "2026-03-02T10:00:00Z")
    talk.digest()
    assert places(talk) == {("Tinbread", "Koyeb.app")}
    talk.say("the free plan ended, so tinbread is back on the linode box until I decide", "2026-04-06T10:00:00Z")
    talk.digest()
    assert places(talk) == {("Tinbread", "the linode box")}
    assert places(talk, valid_at="2026-03-20T00:00:00Z") == {("Tinbread", "Koyeb.app")}
    assert places(talk, valid_at="2026-02-20T00:00:00Z") == {("Tinbread", "a small linode box")}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_where_it_runs_is_found_by_the_words_a_question_uses(talk, tmp_path) -> None:
    from factledger.recall import Recall

    talk.say("my side project Tansyweb runs on a small linode box", "2026-03-14T10:00:00Z")
    talk.digest()
    with Recall(talk.ledger, tmp_path / "index") as recall:
        for question in ("where is Tansyweb hosted?", "what is tansyweb running on?"):
            facts = [h.text for h in recall.search(question, [talk.scope], kinds="fact", limit=3)]
            assert facts and "linode box" in facts[0], (question, facts)
