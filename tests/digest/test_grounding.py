"""Grounding: a proposal whose quote is not in its source turn is dropped with a receipt."""

from __future__ import annotations

import pytest

from factledger.digest import ground, list_proposals

from .scripted import ScriptedExtractor, draft


@pytest.mark.parametrize(
    ("quote", "grounded"),
    [
        ("I moved to Lisbon", True),
        ("i   MOVED to\nlisbon", True),  # whitespace and case do not matter
        ("I’m so happy", True),  # typographic apostrophe folds to '
        ("Im so happy", True),  # apostrophes are dropped on both sides: the rules read "im" as "I'm"
        ("I’m so sad", False),
        ("I moved to Lisbon.", True),  # trailing punctuation is not evidence
        ("I moved to Porto", False),
        ("", False),
    ],
)
def test_ground(quote: str, grounded: bool) -> None:
    result = ground(quote, [("journal:1", "Guess what, I moved to Lisbon! I'm so happy")])
    assert result.grounded is grounded
    assert ("journal:1" in result.receipt) is (grounded or bool(quote))


def test_ungrounded_proposal_is_dropped_with_a_receipt(talk) -> None:
    entry = talk.say("We talked about cities today", "2026-01-01T10:00:00Z")
    report = talk.digest(
        extractor=ScriptedExtractor(
            draft("add", "lives_in", "Lisbon", "I live in Lisbon", cardinality="one"),
            draft("add", "likes", "cities", "talked about cities"),
        )
    )
    assert report.proposals == {"dropped": 1, "applied": 1}
    dropped = list_proposals(talk.ledger, status="dropped")[0]
    assert dropped.value == "Lisbon" and dropped.sources == (f"journal:{entry}",)
    assert "'I live in Lisbon' is not in journal:" in dropped.reason
    assert talk.current() == {"likes": ["cities"]}


def test_invalid_draft_is_dropped_naming_the_field(talk) -> None:
    talk.say("I like tea", "2026-01-01T10:00:00Z")
    talk.digest(extractor=ScriptedExtractor(draft("add", "likes", "   ", "I like tea")))
    (dropped,) = list_proposals(talk.ledger, status="dropped")
    assert "value" in dropped.reason
