"""Rejection memory: a rejected value does not come back when it is said again, and the reviewer sees it."""

from __future__ import annotations

import pytest

from factledger.digest import lift, list_proposals, list_rejections, reject, remember
from factledger.ledger import ConflictError

# The contract suite: SQLite and PostgreSQL (tests/conftest.py); see erase_guard_on_engine (conftest).
pytestmark = [pytest.mark.both_engines, pytest.mark.usefixtures("erase_guard_on_engine")]


@pytest.fixture
def strict_talk(talk):
    talk.policy = "strict"
    return talk


def test_rejected_value_said_again_is_not_applied(strict_talk) -> None:
    talk = strict_talk
    talk.say("I like pineapple pizza", "2026-01-01T10:00:00Z")
    talk.digest()
    (held,) = list_proposals(talk.ledger, status="pending")
    rejected = reject(talk.ledger, held.id, principal="operator:ann", reason="a joke, not a preference")
    assert (rejected.status, rejected.decided_by, rejected.review_reason) == ("rejected", "operator:ann", "a joke, not a preference")
    (memo,) = list_rejections(talk.ledger)
    assert (memo.predicate, memo.value_key, memo.rejected_by, memo.proposal_id) == ("likes", "pineapple pizza", "operator:ann", held.id)

    talk.policy = "auto"  # even the permissive policy does not bring it back
    talk.say("Honestly, I like PINEAPPLE   pizza.", "2026-02-01T10:00:00Z")
    report = talk.digest()
    assert report.proposals == {"rejected_again": 1}
    assert talk.current() == {}
    (again,) = list_proposals(talk.ledger, status="rejected_again")
    assert again.rejection_id == memo.id and "operator:ann" in again.reason
    assert again.value == "PINEAPPLE   pizza" or again.value.casefold().split() == ["pineapple", "pizza"]


def test_explicit_writes_consult_rejection_memory(strict_talk) -> None:
    talk = strict_talk
    talk.say("I like pineapple pizza", "2026-01-01T10:00:00Z")
    talk.digest()
    reject(talk.ledger, list_proposals(talk.ledger)[0].id, principal="operator:ann")
    write = remember(talk.ledger, scope="chat", subject="User", predicate="likes", value="Pineapple Pizza", principal="agent:hermes")
    assert write.status == "rejected" and write.tx is None
    assert [p.status for p in list_proposals(talk.ledger, status="rejected_again")] == ["rejected_again"]
    assert talk.current() == {}


def test_lifting_lets_the_value_back(strict_talk) -> None:
    talk = strict_talk
    talk.say("I like pineapple pizza", "2026-01-01T10:00:00Z")
    talk.digest()
    reject(talk.ledger, list_proposals(talk.ledger)[0].id, principal="operator:ann")
    (memo,) = list_rejections(talk.ledger)
    lifted = lift(talk.ledger, memo.id, principal="operator:bob")
    assert lifted.lifted_by == "operator:bob"
    assert list_rejections(talk.ledger) == [] and len(list_rejections(talk.ledger, include_lifted=True)) == 1
    with pytest.raises(ConflictError):
        lift(talk.ledger, memo.id, principal="operator:bob")
    write = remember(talk.ledger, scope="chat", subject="user", predicate="likes", value="pineapple pizza", principal="agent:hermes")
    assert write.status == "applied"


def test_a_rejected_again_proposal_cannot_be_accepted_before_lifting(strict_talk) -> None:
    from factledger.digest import accept

    talk = strict_talk
    talk.say("I like pineapple pizza", "2026-01-01T10:00:00Z")
    talk.digest()
    reject(talk.ledger, list_proposals(talk.ledger)[0].id, principal="operator:ann")
    talk.say("I like pineapple pizza!", "2026-01-02T10:00:00Z")
    talk.digest()
    (again,) = list_proposals(talk.ledger, status="rejected_again")
    with pytest.raises(ConflictError) as error:
        accept(talk.ledger, again.id, principal="operator:ann")
    assert "lift" in str(error.value)
