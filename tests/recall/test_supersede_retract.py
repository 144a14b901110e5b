"""Supersede and retract: the old value leaves current search and the prompt block, and stays findable
as of a time before the change (valid time and transaction time)."""

from __future__ import annotations

import pytest

from .conftest import define, values, write

# The recall lane contract: every test here runs on SQLite and on PostgreSQL (DESIGN §9).
pytestmark = pytest.mark.both_engines


@pytest.fixture
def moved(clocked_ledger, clock):
    define(clocked_ledger, clock, "lives_in", "one", "{subject} lives in {value}")
    write(clocked_ledger, clock, "2025-01-02T00:00:00Z", [
        ("add", "s", "user", "lives_in", "Berlin", {"valid_from": "2024-06-01", "source": "journal:1"}),
    ])
    write(clocked_ledger, clock, "2025-03-01T00:00:00Z", [
        ("supersede", "s", "user", "lives_in", "Madrid", {"valid_from": "2025-02-15", "source": "journal:2"}),
    ])
    clock.now = "2025-04-01T00:00:00Z"
    return clocked_ledger


@pytest.mark.parametrize("query", ["where does the user live", "Berlin", "user lives in Berlin", "city"])
def test_superseded_value_is_gone_from_current_search(moved, recall, query):
    assert "Berlin" not in values(recall.search(query, "s"))


def test_current_value_is_found(moved, recall):
    hits = recall.search("where does the user live", "s")
    assert values(hits) == ["Madrid"]
    assert hits[0].claim.source == ("journal:2",)
    assert hits[0].sentence == "user lives in Madrid (since 2025-02-15)"


def test_prompt_block_never_shows_superseded_value_as_current(moved, recall):
    block = recall.prompt_block("Berlin user lives", "s")
    assert "Berlin" not in block
    assert "user lives in Madrid (since 2025-02-15)" in block


def test_as_of_valid_time_before_the_change(moved, recall):
    hits = recall.search("where does the user live", "s", valid_at="2025-01-01")
    assert values(hits) == ["Berlin"]
    # As of then, the Berlin version (re-written with its end) carries its interval.
    assert hits[0].claim.valid_to == "2025-02-15T00:00:00.000000Z"


def test_as_of_known_time_before_the_change(moved, recall):
    hits = recall.search("Berlin", "s", valid_at="2025-03-01", known_at="2025-02-01")
    assert values(hits) == ["Berlin"]
    assert hits[0].claim.valid_to is None  # as believed then: open-ended
    assert "Berlin" in recall.prompt_block("Berlin", "s", valid_at="2025-03-01", known_at="2025-02-01")


def test_retract_removes_from_current_and_keeps_history(clocked_ledger, clock, recall):
    define(clocked_ledger, clock, "owns", "many", "{subject} owns {value}")
    write(clocked_ledger, clock, "2025-01-02T00:00:00Z", [
        ("add", "s", "user", "owns", "a red bicycle", {"valid_from": "2024-01-01"}),
        ("add", "s", "user", "owns", "a green kayak", {"valid_from": "2024-01-01"}),
    ])
    write(clocked_ledger, clock, "2025-02-01T00:00:00Z", [
        ("retract", "s", "user", "owns", "a red bicycle", {"valid_from": "2025-01-20"}),
    ])
    clock.now = "2025-03-01T00:00:00Z"
    assert "a red bicycle" not in values(recall.search("bicycle", "s"))
    assert "bicycle" not in recall.prompt_block("red bicycle", "s")
    assert values(recall.search("kayak", "s")) == ["a green kayak"]
    # Before the retraction it is found first (its window neighbour may follow on shared context).
    assert values(recall.search("bicycle", "s", valid_at="2025-01-10"))[0] == "a red bicycle"
    assert values(recall.search("bicycle", "s", known_at="2025-01-15"))[0] == "a red bicycle"


def test_never_true_retraction_hides_it_at_every_valid_time(clocked_ledger, clock, recall):
    write(clocked_ledger, clock, "2025-01-02T00:00:00Z", [("add", "s", "user", "likes", "jazz", {"valid_from": "2024-01-01"})])
    write(clocked_ledger, clock, "2025-02-01T00:00:00Z", [("retract", "s", "user", "likes", "jazz", {"all_valid_time": True})])
    clock.now = "2025-03-01T00:00:00Z"
    for valid_at in (None, "2024-06-01"):
        assert recall.search("jazz", "s", valid_at=valid_at) == []
    assert values(recall.search("jazz", "s", valid_at="2024-06-01", known_at="2025-01-15")) == ["jazz"]
