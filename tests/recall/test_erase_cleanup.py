"""Erase reaches recall's copies: the lexical rows, the neighbours' window context and the vectors."""

from __future__ import annotations

from .conftest import write


def test_erased_words_leave_every_lane(clocked_ledger, clock, recall):
    write(clocked_ledger, clock, "2025-01-02T00:00:00Z", [
        ("add", "s", "user", "said", "my bank PIN is hidden under the flowerpot", {"valid_from": "2024-05-01"}),
        ("add", "s", "user", "said", "the weather was lovely today", {"valid_from": "2024-05-01"}),
        ("add", "s", "user", "said", "we had soup for dinner", {"valid_from": "2024-05-01"}),
    ])
    clock.now = "2025-01-03T00:00:00Z"
    recall.sync()
    assert recall.search("flowerpot", "s")  # found before erase (own row and neighbours' context)
    clock.now = "2025-01-04T00:00:00Z"
    result = clocked_ledger.erase(scope="s", subject="user", predicate="said",
                                  value="my bank PIN is hidden under the flowerpot", principal="operator:test")
    erased_id = result.erased[0].id
    clock.now = "2025-01-05T00:00:00Z"
    storage = clocked_ledger.storage
    assert storage.one("SELECT COUNT(*) FROM recall_fts WHERE recall_fts MATCH '\"flowerpot\"'")[0] == 0
    assert recall.search("flowerpot", "s") == []
    assert recall.search("flowerpot", "s", valid_at="2024-06-01", known_at="2025-01-03") == []
    assert erased_id not in recall.index.rows_state()  # the search drained the outbox's delete
    contexts = [r[0] for r in storage.query("SELECT context FROM recall_fts")]
    assert contexts and all("flowerpot" not in c for c in contexts)
    assert recall.search("weather", "s")[0].claim.value == "the weather was lovely today"
