"""A scripted conversation through the rules extractor, checked at several (valid_at, known_at) points,
including a correction and a retraction."""

from __future__ import annotations


def values(ledger, predicate: str, *, valid_at: str, known_at: str) -> list[str]:
    return [c.value for c in ledger.as_of(["chat"], predicate=predicate, valid_at=valid_at, known_at=known_at)]


def test_conversation_becomes_a_bitemporal_history(talk) -> None:
    talk.say("Hi! I live in Paris and I work at Acme Corp since 2019.", "2026-01-10T09:00:00Z")
    talk.say("My birthday is April 3.", "2026-01-10T09:01:00Z")
    talk.say("I love jazz.", "2026-01-10T09:02:00Z")
    talk.digest("2026-01-10T12:00:00Z")

    talk.say("Big news: I moved to Lisbon last month!", "2026-03-14T10:00:00Z")
    talk.say("Actually it was March 3, not April 3.", "2026-03-14T10:05:00Z")  # a correction
    talk.digest("2026-03-14T12:00:00Z")

    talk.say("I no longer like jazz.", "2026-04-20T08:00:00Z")  # a retraction from now on
    talk.say("I quit Acme Corp last week.", "2026-04-20T08:01:00Z")
    talk.digest("2026-04-20T12:00:00Z")
    ledger = talk.ledger

    # As known in January: Paris, Acme since 2019, April 3, jazz.
    jan = "2026-01-15T00:00:00Z"
    assert values(ledger, "lives_in", valid_at=jan, known_at=jan) == ["Paris"]
    assert values(ledger, "works_at", valid_at="2020-06-01", known_at=jan) == ["Acme Corp"]
    assert values(ledger, "birthday", valid_at=jan, known_at=jan) == ["April 3"]
    assert values(ledger, "likes", valid_at=jan, known_at=jan) == ["jazz"]

    # Known now: the move took effect in February (valid time before it was said) ...
    now = "2026-05-01T00:00:00Z"
    assert values(ledger, "lives_in", valid_at="2026-02-15", known_at=now) == ["Lisbon"]
    assert values(ledger, "lives_in", valid_at="2026-01-20", known_at=now) == ["Paris"]
    # ... but in January we did not know it yet, about the same valid instant.
    assert values(ledger, "lives_in", valid_at="2026-02-15", known_at="2026-02-20") == ["Paris"]

    # The correction: the birthday was never April 3 (from when it was first said), as known now;
    # as known before the correction, it was.
    assert values(ledger, "birthday", valid_at="2026-01-20", known_at=now) == ["March 3"]
    assert values(ledger, "birthday", valid_at="2026-01-20", known_at="2026-03-01") == ["April 3"]

    # The retraction: jazz held until the turn that said otherwise, not after.
    assert values(ledger, "likes", valid_at="2026-04-01", known_at=now) == ["jazz"]
    assert values(ledger, "likes", valid_at="2026-04-21", known_at=now) == []
    # Quitting "last week" ended the job on the Monday of the week before the turn.
    assert values(ledger, "works_at", valid_at="2026-04-12", known_at=now) == ["Acme Corp"]
    assert values(ledger, "works_at", valid_at="2026-04-14", known_at=now) == []

    talk.clock.now = "2026-05-01T00:00:00.000000Z"
    assert talk.current() == {"birthday": ["March 3"], "lives_in": ["Lisbon"]}


def test_claims_and_transactions_cite_their_journal_entries(talk) -> None:
    entry = talk.say("I live in Oslo", "2026-01-01T10:00:00Z")
    talk.digest()
    (claim,) = talk.ledger.current(["chat"])
    assert claim.source == (f"journal:{entry}",)
    tx = talk.ledger.transaction_record(claim.opened_by)
    assert tx.principal == "digest:rules"
    assert tx.sources == (f"journal:{entry}",)
    assert "digest auto" in tx.reason and "proposal #" in tx.reason
    # an undated statement held since some moment nobody said, up to when it was said (DESIGN §2)
    assert claim.valid_from == "0001-01-01T00:00:00.000000Z"
    assert claim.tx_from >= "2026-01-01T10:00:00.000000Z"
