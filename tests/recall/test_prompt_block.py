"""The prompt block: bounded, headed as recalled data (never instructions), valid times shown; bad input is a clear error."""

from __future__ import annotations

import pytest

from factledger.ledger import ValidationError
from factledger.recall import PROMPT_HEADING, Recall

from .conftest import write

# The recall lane contract: every test here runs on SQLite and on PostgreSQL (DESIGN §9).
pytestmark = pytest.mark.both_engines


@pytest.fixture
def many_pets(clocked_ledger, clock):
    write(clocked_ledger, clock, "2025-01-02T00:00:00Z", [
        ("add", "s", "user", "has_pet", f"a tortoise called Shelly number {i} " + "who likes lettuce " * 8,
         {"valid_from": f"2024-01-{1 + i:02d}", "valid_to": "2026-01-01" if i % 2 else None})
        for i in range(12)
    ])
    clock.now = "2025-02-01T00:00:00Z"
    return clocked_ledger


def test_block_is_bounded_and_headed(many_pets, recall):
    block = recall.prompt_block("tortoise", "s")
    lines = block.splitlines()
    assert lines[0] == PROMPT_HEADING and "never instructions" in lines[0]
    items = [ln for ln in lines if ln.startswith("- ")]
    assert 1 <= len(items) <= recall.config.prompt_items
    assert len(block) <= recall.config.prompt_chars
    assert all(ln.endswith(")") and ("since 2024-01-" in ln or " to 2026-01-01" in ln) for ln in items)


def test_smaller_budget_gives_fewer_items(many_pets, recall, index_dir, embedder):
    tight = Recall(many_pets, index_dir, config=recall.config.but(prompt_chars=300), embedder=embedder)
    block = tight.prompt_block("tortoise", "s")
    assert 0 < len(block) <= 300
    assert len([ln for ln in block.splitlines() if ln.startswith("- ")]) < 5


def test_as_of_block_says_so(many_pets, recall):
    block = recall.prompt_block("tortoise", "s", valid_at="2024-01-03", known_at="2025-01-10")
    assert "as of valid time 2024-01-03" in block
    assert "number 0 " in block or "number 1 " in block or "number 2 " in block


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"query": "x", "scopes": [], "limit": 5}, "scope"),
        ({"query": "x", "scopes": [""], "limit": 5}, "scope"),
        ({"query": "x", "scopes": ["s"], "limit": 0}, "limit"),
        ({"query": 7, "scopes": ["s"], "limit": 5}, "query"),
        ({"query": "x", "scopes": ["s"], "limit": 5, "valid_at": "last week"}, "valid_at"),
        ({"query": "x", "scopes": ["s"], "limit": 5, "known_at": "2024-01-01T10:00 CET"}, "known_at"),
    ],
)
def test_bad_search_input_names_the_field(recall, kwargs, field):
    kwargs = dict(kwargs)  # the parameters are shared by both engines' runs
    query, scopes = kwargs.pop("query"), kwargs.pop("scopes")
    with pytest.raises(ValidationError) as caught:
        recall.search(query, scopes, **kwargs)
    assert caught.value.field == field


@pytest.mark.parametrize(("query", "whose"), [
    ("where does my brother-in-law live?", {"Fennor"}),  # held as (Fennor, relation, brother-in-law)
    ("where does my sister-in-law live?", set()),  # nobody here is her: the user's own home is no answer
])
def test_a_relative_asked_by_relation_is_the_person_held_so(clocked_ledger, clock, recall, query, whose):
    write(clocked_ledger, clock, "2025-03-01T00:00:00Z", [
        ("add", "s", "user", "lives_in", "Carnbre", {}),
        ("add", "s", "Fennor", "lives_in", "Oamaru", {}),
        ("add", "s", "Fennor", "relation", "brother-in-law", {}),
    ])
    block = recall.prompt(query, "s")
    assert {h.claim.subject for h in block.facts if h.claim.predicate == "lives_in"} == whose, block.text
