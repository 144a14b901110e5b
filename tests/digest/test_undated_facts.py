"""Time that follows what was said (DESIGN §2): an undated present-tense fact holds since some unknown
moment up to when it was said, so a later dated change narrows it and never erases its past."""

from __future__ import annotations

import pytest

from factledger.ledger.times import UNKNOWN_START
from factledger.recall.text import sentence

pytestmark = [pytest.mark.both_engines, pytest.mark.usefixtures("erase_guard_on_engine")]


def values_at(talk, valid_at: str, predicate: str) -> list[str]:
    return [c.value for c in talk.ledger.as_of(valid_at=valid_at, scopes=[talk.scope]) if c.predicate == predicate]


def test_a_same_day_dated_move_narrows_an_undated_home(talk) -> None:
    talk.say("I live in Lyon", "2026-11-02T09:00:00Z")
    talk.digest()
    talk.say("Oh, I moved to Bordeaux in April", "2026-11-02T09:05:00Z")
    talk.digest()
    assert talk.current("lives_in") == {"lives_in": ["Bordeaux"]}
    assert values_at(talk, "2026-03-15", "lives_in") == ["Lyon"]
    assert values_at(talk, "2026-05-15", "lives_in") == ["Bordeaux"]
    (lyon,) = talk.ledger.as_of([talk.scope], valid_at="2026-03-15", predicate="lives_in")
    assert lyon.valid_from == UNKNOWN_START and lyon.valid_to == "2026-04-01T00:00:00.000000Z"


def test_an_undated_fact_reads_since_at_least_when_it_was_learned(talk) -> None:
    talk.say("I live in Lyon", "2026-11-02T09:00:00Z")
    talk.digest()
    (claim,) = talk.ledger.current([talk.scope])
    assert claim.valid_from == UNKNOWN_START
    assert sentence("user lives in Lyon", claim.valid_from, claim.valid_to, claim.tx_from) == "user lives in Lyon (since at least 2026-11-02)"
    assert sentence("user lived in Lyon", UNKNOWN_START, "2026-04-01T00:00:00.000000Z") == "user lived in Lyon (until 2026-04-01)"


def test_an_undated_change_starts_when_said_and_keeps_the_old_past(talk) -> None:
    talk.say("I live in Lyon", "2026-01-10T09:00:00Z")
    talk.digest()
    talk.say("I live in Nantes now", "2026-06-10T09:00:00Z")
    talk.digest()
    assert talk.current("lives_in") == {"lives_in": ["Nantes"]}
    assert values_at(talk, "2025-06-01", "lives_in") == ["Lyon"]  # held since before it was said
    assert values_at(talk, "2026-03-01", "lives_in") == ["Lyon"]
    assert values_at(talk, "2026-06-11", "lives_in") == ["Nantes"]


def test_an_undated_fact_after_an_ended_one_starts_where_that_ended(talk) -> None:
    talk.say("I live in Lyon", "2026-01-10T09:00:00Z")
    talk.digest()
    talk.say("I no longer live in Lyon", "2026-03-01T09:00:00Z")
    talk.digest()
    talk.say("I live in Nantes", "2026-06-10T09:00:00Z")
    talk.digest()
    assert values_at(talk, "2026-02-01", "lives_in") == ["Lyon"]
    assert values_at(talk, "2026-04-01", "lives_in") == ["Nantes"]  # a gap nobody spoke of is not claimed empty
    (nantes,) = talk.ledger.current([talk.scope])
    assert nantes.valid_from == "2026-03-01T09:00:00.000000Z"


def test_not_at_globex_any_more_with_initech_now(talk, tmp_path) -> None:
    """The issue's case: current, as-of and the prompt block all answer Initech now, Globex before."""
    from factledger.recall import Recall

    talk.say("I work at Globex", "2026-01-10T09:00:00Z")
    talk.digest()
    talk.say("Not at Globex anymore, I'm with Initech now.", "2026-06-10T09:00:00Z")
    talk.digest()
    assert talk.current("works_at") == {"works_at": ["Initech"]}
    assert values_at(talk, "2026-03-01", "works_at") == ["Globex"]
    with Recall(talk.ledger, tmp_path / "index") as recall:
        block = recall.prompt("Where do I work?", [talk.scope])
        facts = "\n".join(h.sentence for h in block.facts)
        assert "Initech" in facts and "Globex" not in facts
        then = recall.prompt("Where did I work?", [talk.scope], valid_at="2026-03-01", known_at="2026-03-01")
        assert "Globex" in "\n".join(h.sentence for h in then.facts)
