"""Negative gating: noise finds nothing on any surface, while positive controls in the same store hit
(so an empty system cannot pass)."""

from __future__ import annotations

import pytest

from .conftest import define, write

# The recall lane contract: every test here runs on SQLite and on PostgreSQL (DESIGN §9).
pytestmark = pytest.mark.both_engines

SCOPE = "gating"
FACTS = [
    ("user", "lives_in", "Berlin"),
    ("user", "likes", "hiking in the Alps"),
    ("user", "likes", "baking sourdough bread"),
    ("user", "has_pet", "a grey cat called Miso"),
    ("user", "plays", "the cello in an amateur orchestra"),
    ("project atlas", "uses", "PostgreSQL and Rust"),
    ("user", "allergic_to", "peanuts"),
]
NOISE = [
    "6513270e-269e-0d37-f2a7-4de452e6b438",
    "3b1612dd272d1371c17149d4",
    "SGVsbG8sIHdvcmxkIQ==",
    "asdfghjkl",
    "xqzvbnw pqlmz",
    "jkjkjkjk lolololol",
    "🙂",
    "🔥🔥🔥💯",
    "?!?!...",
    "(){}[]<>",
    "the of and a",
    "what is it",
    "is this the one that you were about to",
    "啊啊啊啊",
    "ぬるぽ ガッ",
    "   ",
]
CONTROLS = [
    ("Berlin", "Berlin"),
    ("where does the user live", "Berlin"),
    ("user's cat", "a grey cat called Miso"),
    ("SOURDOUGH?!", "baking sourdough bread"),
    ("peanut allergies", "peanuts"),
    ("mountain walks", "hiking in the Alps"),  # vector lane only
]


@pytest.fixture
def store(clocked_ledger, clock):
    define(clocked_ledger, clock, "lives_in", "one", "{subject} lives in {value}")
    write(clocked_ledger, clock, "2025-01-02T00:00:00Z", [
        ("add", SCOPE, s, p, v, {"valid_from": "2024-01-01"}) for s, p, v in FACTS
    ])
    clock.now = "2025-02-01T00:00:00Z"
    return clocked_ledger


@pytest.mark.parametrize("query", NOISE)
def test_noise_returns_nothing(store, recall, query):
    assert recall.search(query, SCOPE) == []
    assert recall.prompt_block(query, SCOPE) == ""


@pytest.mark.parametrize("query,want", CONTROLS)
def test_positive_control_hits_first(store, recall, query, want):
    hits = recall.search(query, SCOPE)
    assert hits and hits[0].claim.value == want
    assert want in recall.prompt_block(query, SCOPE)


def test_vector_only_hit_must_clear_the_floor(store, recall, embedder):
    from factledger.recall import Recall

    strict = Recall(store, recall.index.folder, config=recall.config.but(vector_floor=0.99), embedder=embedder)
    assert strict.search("mountain walks", SCOPE) == []
    assert [h.claim.value for h in recall.search("mountain walks", SCOPE)] == ["hiking in the Alps"]
