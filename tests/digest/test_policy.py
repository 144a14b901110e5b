"""Policy: auto applies grounded proposals but holds changes to confirmed values and conflicts; strict
holds everything. The reason is on the proposal and on the ledger transaction."""

from __future__ import annotations

from factledger.digest import accept, confirm, list_proposals

from .scripted import ScriptedExtractor, draft


def test_strict_holds_everything_with_its_reason(talk) -> None:
    talk.policy = "strict"
    talk.say("I live in Paris and I love jazz", "2026-01-01T10:00:00Z")
    report = talk.digest()
    assert report.proposals == {"pending": 2}
    assert talk.current() == {}
    assert all("strict policy" in p.reason and p.policy == "strict" for p in list_proposals(talk.ledger))


def test_auto_holds_a_change_to_a_confirmed_value(talk) -> None:
    talk.say("I live in Paris", "2026-01-01T10:00:00Z")
    talk.digest()
    (claim,) = talk.ledger.current(["chat"])
    confirm(talk.ledger, claim.id, principal="operator:ann")

    talk.say("I moved to Lisbon", "2026-02-01T10:00:00Z")
    talk.say("I love jazz", "2026-02-01T10:01:00Z")  # unrelated: still applied
    report = talk.digest("2026-02-02T00:00:00Z")
    assert report.proposals == {"pending": 1, "applied": 1}
    (held,) = list_proposals(talk.ledger, status="pending")
    assert held.op == "supersede" and held.value == "Lisbon"
    assert "operator-confirmed" in held.reason and "operator:ann" in held.reason
    assert talk.current("lives_in") == {"lives_in": ["Paris"]}

    # The operator accepts: applied as the operator; the transaction names the proposal by id, and the
    # operator's words stay on the proposal (which erase reaches; transactions it cannot rewrite).
    accepted = accept(talk.ledger, held.id, principal="operator:ann", reason="she told me too")
    tx = talk.ledger.transaction_record(accepted.tx)
    assert tx.principal == "operator:ann" and tx.reason == f"review accept: proposal #{held.id}" and tx.sources == held.sources
    assert accepted.review_reason == "she told me too"
    talk.clock.now = "2026-03-01T00:00:00.000000Z"
    assert talk.current("lives_in") == {"lives_in": ["Lisbon"]}


def test_retracting_a_confirmed_value_is_held(talk) -> None:
    talk.say("I love jazz", "2026-01-01T10:00:00Z")
    talk.digest()
    confirm(talk.ledger, talk.ledger.current(["chat"])[0].id, principal="operator:ann")
    talk.say("I no longer like jazz", "2026-02-01T10:00:00Z")
    assert talk.digest().proposals == {"pending": 1}


def test_a_conflict_is_held_and_accepting_it_supersedes(talk) -> None:
    talk.say("I live in Paris", "2026-01-01T10:00:00Z")
    talk.digest()
    talk.say("I lived in Rome from 2025 to 2026", "2026-02-01T10:00:00Z")
    report = talk.digest(
        "2026-02-02T00:00:00Z",
        extractor=ScriptedExtractor(
            draft("add", "lives_in", "Rome", "I lived in Rome", valid_from="2025-06-01T00:00:00.000000Z", valid_to="2026-06-01T00:00:00.000000Z")
        ),
    )
    assert report.proposals == {"pending": 1}
    (held,) = list_proposals(talk.ledger, status="pending")
    assert held.reason.startswith("held: conflicts with the ledger")
    assert held.decision == "hold" and held.decided_at is None
    assert talk.ledger.storage.one("SELECT COUNT(*) FROM transactions")[0] == 1  # the failed apply left nothing
    accept(talk.ledger, held.id, principal="operator:ann")
    values = [c.value for c in talk.ledger.as_of(["chat"], predicate="lives_in", valid_at="2026-03-01", known_at="2026-12-01")]
    assert values == ["Rome"]


def test_retract_of_nothing_is_dropped(talk) -> None:
    talk.say("I no longer like jazz", "2026-01-01T10:00:00Z")
    assert talk.digest().proposals == {"dropped": 1}
    assert "nothing to retract" in list_proposals(talk.ledger, status="dropped")[0].reason


def test_supersede_of_an_empty_slot_is_an_add(talk) -> None:
    talk.say("I moved to Lisbon", "2026-01-01T10:00:00Z")
    talk.digest(extractor=ScriptedExtractor(draft("supersede", "lives_in", "Lisbon", "moved to Lisbon", cardinality="one")))
    talk.clock.now = "2026-02-01T00:00:00.000000Z"
    assert talk.current() == {"lives_in": ["Lisbon"]}


def test_erased_value_is_dropped_not_written_back(talk) -> None:
    talk.say("I live in Oslo", "2026-01-01T10:00:00Z")
    talk.digest()
    talk.ledger.erase(scope="chat", subject="user", predicate="lives_in", principal="operator:ann")
    talk.say("I live in Oslo!", "2026-01-02T10:00:00Z")  # the journal redacts the erased value
    assert talk.digest().proposals == {}
    # An extractor that infers the value anyway: dropped, and the proposal keeps neither value nor quote.
    talk.say("I still live there", "2026-01-03T10:00:00Z")
    scripted = ScriptedExtractor(draft("add", "lives_in", "OSLO", "I still live there", cardinality="one"))
    assert talk.digest(extractor=scripted).proposals == {"dropped": 1}
    (dropped,) = list_proposals(talk.ledger, status="dropped")
    assert "erased" in dropped.reason and dropped.value == "[erased]" and "oslo" not in str(dropped).lower()


def test_many_supersede_without_replaces_is_an_add(talk) -> None:
    talk.say("I love jazz", "2026-01-01T10:00:00Z")
    talk.digest()
    talk.say("These days it is blues I love", "2026-02-01T10:00:00Z")
    talk.digest(extractor=ScriptedExtractor(draft("supersede", "likes", "blues", "it is blues I love")))
    talk.clock.now = "2026-03-01T00:00:00.000000Z"
    assert sorted(talk.current()["likes"]) == ["blues", "jazz"]
