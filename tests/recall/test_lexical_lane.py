"""What users type: punctuation, case, possessives, plurals, names, numbers, CJK; and the exact lane."""

from __future__ import annotations

import pytest

from factledger.recall import Recall, RecallConfig

from .conftest import define, write

# The recall lane contract: every test here runs on SQLite and on PostgreSQL (DESIGN §9).
pytestmark = pytest.mark.both_engines

SCOPE = "typing"
FACTS = [
    ("user", "has_pet", "two dogs named Rex and Luna"),
    ("Dr. Müller", "works_at", "St. Mary's Hospital"),
    ("user", "phone_model", "Pixel 8a"),
    ("user", "flight", "LH 2417 to Lisbon on 12 June"),
    ("user", "favourite_food", "北京烤鸭"),
    ("user", "lives_in", "Berlin"),
    ("user", "studies", "running injuries"),
]
CASES = [
    ("DOGS!!!", "two dogs named Rex and Luna"),  # case + punctuation
    ("dog", "two dogs named Rex and Luna"),  # plural in the claim
    ("Rex's owner", "two dogs named Rex and Luna"),  # possessive in the query
    ("Luna", "two dogs named Rex and Luna"),  # a name
    ("mary hospital", "St. Mary's Hospital"),  # possessive in the claim
    ("Muller", "St. Mary's Hospital"),  # diacritics folded
    ("pixel 8a", "Pixel 8a"),  # alphanumeric model number
    ("2417", "LH 2417 to Lisbon on 12 June"),  # a number
    ("烤鸭", "北京烤鸭"),  # two-character CJK word
    ("北京烤鸭", "北京烤鸭"),  # CJK trigrams
    ("run", "running injuries"),  # stemming
    ("where does the user live?", "Berlin"),  # exact lane: subject + predicate
]


@pytest.fixture
def typed(clocked_ledger, clock):
    define(clocked_ledger, clock, "lives_in", "one", "{subject} lives in {value}")
    write(clocked_ledger, clock, "2025-01-02T00:00:00Z", [
        ("add", SCOPE, s, p, v, {"valid_from": "2024-01-01"}) for s, p, v in FACTS
    ])
    clock.now = "2025-02-01T00:00:00Z"
    return clocked_ledger


@pytest.mark.parametrize("query,want", CASES)
def test_lexical_lane_finds_what_users_type(typed, index_dir, query, want):
    engine = Recall(typed, index_dir, config=RecallConfig.preset("lexical"))
    hits = engine.search(query, SCOPE)
    assert hits and hits[0].claim.value == want


def test_exact_lane_answers_a_named_slot(typed, recall):
    hits = recall.search("where does the user live", SCOPE)
    assert hits[0].claim.value == "Berlin" and hits[0].scores.exact == 1.0


def test_exact_lane_with_a_predicate_held_by_one_subject(typed, recall):
    hits = recall.search("which phone model", SCOPE)
    assert hits[0].claim.value == "Pixel 8a" and hits[0].scores.exact == 1.0


def test_hit_carries_sources_interval_and_lane_scores(clocked_ledger, clock, recall):
    write(clocked_ledger, clock, "2025-01-02T00:00:00Z", [
        ("add", SCOPE, "user", "likes", "sea kayaking", {"valid_from": "2024-01-01", "valid_to": "2030-01-01",
                                                         "source": ["journal:7", "journal:9"]}),
    ])
    clock.now = "2025-02-01T00:00:00Z"
    data = recall.search("kayaking", SCOPE)[0].to_dict()
    assert data["source"] == ["journal:7", "journal:9"]
    assert (data["valid_from"], data["valid_to"]) == ("2024-01-01T00:00:00.000000Z", "2030-01-01T00:00:00.000000Z")
    assert set(data["scores"]) >= {"lexical", "exact", "vector", "fused"} and data["scores"]["lexical"] > 0


def test_memories_are_sentences_with_valid_time(typed, recall):
    sentences = {m.sentence for m in recall.memories(SCOPE)}
    assert "user lives in Berlin (since 2024-01-01)" in sentences
    assert "Dr. Müller works at St. Mary's Hospital (since 2024-01-01)" in sentences


def test_new_template_changes_search_text(typed, recall, clock):
    with typed.transaction(principal="operator:test") as tx:
        tx.define("phone_model", "many", template="{subject} carries a {value} smartphone")
    assert recall.search("smartphone", SCOPE)[0].claim.value == "Pixel 8a"
    assert recall.search("smartphone", SCOPE)[0].text == "user carries a Pixel 8a smartphone"
