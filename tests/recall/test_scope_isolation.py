"""Another scope's rows never appear: not in search (any lane), the prompt block, memories or batch."""

from __future__ import annotations

import pytest

from .conftest import define, values, write

# The recall lane contract: every test here runs on SQLite and on PostgreSQL (DESIGN §9).
pytestmark = pytest.mark.both_engines

QUERIES = [
    "where does the user live",  # exact lane (subject + predicate)
    "Lisbon",  # lexical lane
    "which city is home",  # vector lane
    "user's favourite drink",  # lexical on the other scope's words only
    "coffee",
]


@pytest.fixture
def two_scopes(clocked_ledger, clock):
    define(clocked_ledger, clock, "lives_in", "one", "{subject} lives in {value}")
    define(clocked_ledger, clock, "drinks", "many", "{subject} drinks {value}")
    write(clocked_ledger, clock, "2025-01-02T00:00:00Z", [
        ("add", "alice", "user", "lives_in", "Lisbon", {"valid_from": "2024-01-01"}),
        ("add", "bob", "user", "lives_in", "Lisbon harbour district", {"valid_from": "2024-01-01"}),
        ("add", "bob", "user", "drinks", "strong black coffee", {"valid_from": "2024-01-01"}),
    ])
    clock.now = "2025-02-01T00:00:00Z"
    return clocked_ledger


@pytest.mark.parametrize("query", QUERIES)
def test_search_sees_only_its_scope(two_scopes, recall, query):
    for hit in recall.search(query, ["alice"]):
        assert hit.claim.scope == "alice"
    assert "strong black coffee" not in values(recall.search(query, ["alice"]))


@pytest.mark.parametrize("query", QUERIES)
def test_prompt_block_sees_only_its_scope(two_scopes, recall, query):
    block = recall.prompt_block(query, ["alice"])
    assert "harbour" not in block and "coffee" not in block


def test_other_scope_is_found_in_its_own_scope(two_scopes, recall):
    assert "strong black coffee" in values(recall.search("coffee", ["bob"]))
    assert values(recall.search("where does the user live", ["alice"])) == ["Lisbon"]


def test_memories_see_only_their_scope(two_scopes, recall):
    sentences = [m.sentence for m in recall.memories(["alice"])]
    assert sentences == ["user lives in Lisbon (since 2024-01-01)"]


def test_unknown_scope_finds_nothing(two_scopes, recall):
    for query in QUERIES:
        assert recall.search(query, ["carol"]) == []
        assert recall.prompt_block(query, ["carol"]) == ""


def test_both_scopes_when_both_are_named(two_scopes, recall):
    scopes = {h.claim.scope for h in recall.search("Lisbon", ["alice", "bob"])}
    assert scopes == {"alice", "bob"}
