"""Taking back digested turns (a host's /undo): the facts that only undone turns support are retracted in
one ledger transaction, what they displaced is believed again, and what other turns or a person
decided stays."""

from __future__ import annotations

import pytest

from factledger.digest import Journal, accept, confirm, list_proposals, undo_entries
from factledger.ledger import ValidationError

pytestmark = [pytest.mark.both_engines, pytest.mark.usefixtures("erase_guard_on_engine")]

WHO = "agent:default"
WHY = "/undo in session s1"


def counts(ledger) -> dict[str, int]:
    return {t: ledger.storage.one(f"SELECT COUNT(*) FROM {t}")[0] for t in ("transactions", "claims", "journal", "proposals")}


def undo(talk, *entry_ids):
    return undo_entries(talk.ledger, [f"journal:{i}" for i in entry_ids], principal=WHO, reason=WHY)


def test_an_undone_supersede_brings_the_earlier_value_back(talk):
    talk.say("I live in Lisbon", "2026-01-01T10:00:00Z")
    madrid = talk.say("I live in Madrid", "2026-01-02T10:00:00Z")
    talk.digest()
    assert talk.current() == {"lives_in": ["Madrid"]}

    result = undo(talk, madrid)

    assert talk.current() == {"lives_in": ["Lisbon"]}
    assert [c.value for c in result.retracted] == ["Madrid"] and [c.value for c in result.restored] == ["Lisbon"]
    assert result.entries_removed == 1 and not result.kept
    record = talk.ledger.transaction_record(result.tx)
    assert (record.principal, record.reason, record.sources) == (WHO, WHY, (f"journal:{madrid}",))
    assert [e.id for e in Journal(talk.ledger).entries()] != [] and madrid not in [e.id for e in Journal(talk.ledger).entries()]
    # History keeps what was believed meanwhile (bitemporal): Madrid is closed, not deleted.
    versions = talk.ledger.history(["chat"], subject="user", predicate="lives_in")
    assert "Madrid" in [h.version.value for h in versions]


def test_undoing_every_turn_of_a_slot_leaves_it_empty(talk):
    lisbon = talk.say("I live in Lisbon", "2026-01-01T10:00:00Z")
    madrid = talk.say("I live in Madrid", "2026-01-02T10:00:00Z")
    talk.digest()
    result = undo(talk, lisbon, madrid)
    assert talk.current() == {}
    assert sorted(c.value for c in result.retracted) == ["Lisbon", "Madrid"] and not result.restored
    assert counts(talk.ledger)["journal"] == 0


def test_a_fact_another_turn_also_said_stays(talk):
    talk.say("I live in Lisbon", "2026-01-01T10:00:00Z")
    again = talk.say("I live in Lisbon", "2026-01-02T10:00:00Z")
    talk.digest()
    before = counts(talk.ledger)
    result = undo(talk, again)
    assert talk.current() == {"lives_in": ["Lisbon"]}
    assert result.tx is None and not result.retracted
    after = counts(talk.ledger)
    assert (after["transactions"], after["claims"], after["journal"]) == (before["transactions"], before["claims"], before["journal"] - 1)


def test_the_first_of_two_turns_saying_a_fact_is_kept_and_named(talk):
    first = talk.say("I live in Lisbon", "2026-01-01T10:00:00Z")
    second = talk.say("I live in Lisbon", "2026-01-02T10:00:00Z")
    talk.digest()
    result = undo(talk, first)
    assert talk.current() == {"lives_in": ["Lisbon"]}
    assert [k.why for k in result.kept] == [f"also supported by journal:{second}"]


def test_a_fact_a_person_accepted_in_review_stays(talk):
    talk.policy = "strict"
    said = talk.say("I live in Paris", "2026-01-01T10:00:00Z")
    talk.digest()
    accept(talk.ledger, list_proposals(talk.ledger)[0].id, principal="operator:ann")
    result = undo(talk, said)
    assert talk.current() == {"lives_in": ["Paris"]}
    assert [k.why for k in result.kept] == ["accepted in review by operator:ann"]


def test_a_value_a_person_confirmed_stays(talk):
    said = talk.say("I live in Paris", "2026-01-01T10:00:00Z")
    talk.digest()
    confirm(talk.ledger, talk.ledger.current(["chat"])[0].id, principal="operator:ann")
    result = undo(talk, said)
    assert talk.current() == {"lives_in": ["Paris"]}
    assert [k.why for k in result.kept] == ["a person confirmed this value"]


def test_a_pending_proposal_of_an_undone_turn_is_withdrawn(talk):
    talk.policy = "strict"
    said = talk.say("I live in Paris", "2026-01-01T10:00:00Z")
    talk.digest()
    (held,) = list_proposals(talk.ledger)
    result = undo(talk, said)
    assert result.withdrawn == [held.id]
    assert list_proposals(talk.ledger) == []  # no longer open for review
    (withdrawn,) = [p for p in _all(talk.ledger) if p.id == held.id]
    assert (withdrawn.status, withdrawn.decided_by) == ("dropped", WHO) and withdrawn.reason == f"withdrawn: {WHY}"


def _all(ledger):
    from factledger.digest.recorder import recorder_for

    return recorder_for(ledger.storage).proposals(statuses=None, scope=None, limit=100)


def test_a_later_turn_about_the_slot_stands(talk):
    """An undone supersede followed by a kept one: the kept decision stands, nothing comes back."""
    talk.say("I live in Lisbon", "2026-01-01T10:00:00Z")
    madrid = talk.say("I live in Madrid", "2026-01-02T10:00:00Z")
    talk.say("I live in Rome", "2026-01-03T10:00:00Z")
    talk.digest()
    result = undo(talk, madrid)
    assert talk.current() == {"lives_in": ["Rome"]}
    assert result.tx is None and not result.restored


def test_undo_is_all_or_nothing(talk, monkeypatch):
    talk.say("I live in Lisbon", "2026-01-01T10:00:00Z")
    madrid = talk.say("I live in Madrid", "2026-01-02T10:00:00Z")
    talk.digest()
    before = counts(talk.ledger)
    from factledger.digest import recorder as recorder_module

    def broken(self, entry_id):
        raise RuntimeError("disk full")

    for cls in recorder_module.RECORDERS.values():
        monkeypatch.setattr(cls, "delete_entry", broken)
    with pytest.raises(RuntimeError):
        undo(talk, madrid)
    assert counts(talk.ledger) == before and talk.current() == {"lives_in": ["Madrid"]}


def test_bad_input_is_refused_by_field(talk):
    said = talk.say("I live in Paris", "2026-01-01T10:00:00Z")
    with pytest.raises(ValidationError) as error:
        undo_entries(talk.ledger, [f"journal:{said}"], principal="someone", reason=WHY)
    assert error.value.field == "principal"
    with pytest.raises(ValidationError) as error:
        undo_entries(talk.ledger, [f"journal:{said}"], principal=WHO, reason=" ")
    assert error.value.field == "reason"
    assert counts(talk.ledger)["journal"] == 1
