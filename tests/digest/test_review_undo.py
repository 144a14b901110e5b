"""Undo of a reviewer's decision (digest/review_undo.py) and the duplicates a bulk reject finds
(digest/queue.py duplicate_ids). SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from factledger.digest import (
    Edit, accept, accept_one, confirm, duplicate_ids, get_proposal, list_proposals, list_rejections, queue_filter, reject,
    undo_decision,
)
from factledger.ledger import ConflictError, PermissionDenied

pytestmark = [pytest.mark.both_engines, pytest.mark.usefixtures("erase_guard_on_engine")]

ANN = "operator:ann"


def _believed(talk) -> list[tuple[str, str, str | None]]:
    return sorted((c.value, c.valid_from[:10], c.valid_to[:10] if c.valid_to else None)
                  for c in talk.ledger.current(["chat"], predicate="lives_in"))


@pytest.fixture
def paris_over_lisbon(talk):
    """Lisbon believed from January; a held proposal of Paris from March (a supersede of Lisbon)."""
    talk.say("I live in Lisbon", "2026-01-01T10:00:00Z")
    talk.digest()
    talk.policy = "strict"
    talk.say("I moved to Paris in March", "2026-04-01T10:00:00Z")
    talk.digest()
    return next(p for p in list_proposals(talk.ledger) if p.value == "Paris")


def test_undo_accept_writes_the_inverse_and_reopens_the_proposal(talk, paris_over_lisbon) -> None:
    before = _believed(talk)
    done = accept(talk.ledger, paris_over_lisbon.id, principal=ANN)
    assert _believed(talk) != before
    undone = undo_decision(talk.ledger, paris_over_lisbon.id, principal="operator:bob", reason="clicked too fast")
    assert _believed(talk) == before  # Lisbon over its whole interval again, no Paris
    p = get_proposal(talk.ledger, paris_over_lisbon.id)  # the decision stays on record, with the undo
    copy = undone.reopened
    assert (p.status, p.tx, p.decided_by) == ("applied", done.tx, ANN)
    assert p.review_reason == (f"accepted; accept undone by operator:bob in ledger transaction #{undone.tx} (clicked too fast):"
                               f" reopened as proposal #{copy.id}")
    assert (copy.status, copy.op, copy.value, copy.valid_from, copy.quote, copy.sources, copy.extractor) == (
        "pending", p.op, "Paris", p.valid_from, p.quote, p.sources, p.extractor)
    assert copy.policy == "review" and f"(proposal #{p.id})" in copy.reason
    tx = talk.ledger.transaction_record(undone.tx)
    assert (tx.principal, tx.reason) == ("operator:bob", f"review undo: proposal #{p.id}")
    assert undone.tx > done.tx and {v.value for v in undone.closed} == {"Paris", "Lisbon"}
    assert [v.value for v in undone.opened] == ["Lisbon"] and f"pending again as proposal #{copy.id}" in undone.message()
    with pytest.raises(ConflictError, match=f"already undone: proposal #{copy.id} reopens it"):
        undo_decision(talk.ledger, p.id, principal=ANN)
    # both transactions stay in the slot's history; what was proposed can be decided again
    txs = {h.version.opened_by for h in talk.ledger.history(["chat"], subject="user", predicate="lives_in")}
    assert {done.tx, undone.tx} <= txs
    again = accept(talk.ledger, copy.id, principal=ANN)
    assert again.status == "applied" and ("Paris", "2026-03-01", None) in _believed(talk)


def test_undo_accept_refused_once_the_slot_changed_after_it(talk, paris_over_lisbon) -> None:
    accept(talk.ledger, paris_over_lisbon.id, principal=ANN)
    with talk.ledger.transaction(principal=ANN, reason="later") as tx:
        tx.supersede("chat", "user", "lives_in", "Rome", valid_from="2026-05-01")
    after = _believed(talk)
    with pytest.raises(ConflictError, match="changed user lives_in after it; that later change stands"):
        undo_decision(talk.ledger, paris_over_lisbon.id, principal=ANN)
    assert _believed(talk) == after and get_proposal(talk.ledger, paris_over_lisbon.id).status == "applied"


def test_undo_accept_refused_while_a_value_it_wrote_is_confirmed(talk, paris_over_lisbon) -> None:
    done = accept(talk.ledger, paris_over_lisbon.id, principal=ANN)
    paris = next(v for v in talk.ledger.transaction_versions(done.tx)[0] if v.value == "Paris")
    confirm(talk.ledger, paris.id, principal=ANN)
    with pytest.raises(ConflictError, match="confirmed 'Paris'"):
        undo_decision(talk.ledger, paris_over_lisbon.id, principal=ANN)


def test_undo_reject_lifts_its_memory(talk, paris_over_lisbon) -> None:
    rejected = reject(talk.ledger, paris_over_lisbon.id, principal=ANN, reason="no")
    undone = undo_decision(talk.ledger, paris_over_lisbon.id, principal=ANN)
    assert undone.lifted == rejected.rejection_id and undone.tx is None
    p = get_proposal(talk.ledger, paris_over_lisbon.id)
    assert (p.status, p.decided_by, p.rejection_id) == ("rejected", ANN, rejected.rejection_id)
    assert list_rejections(talk.ledger) == []  # lifted, so an accept is not blocked
    assert accept(talk.ledger, undone.reopened.id, principal=ANN).status == "applied"
    with pytest.raises(ConflictError, match="already undone"):
        undo_decision(talk.ledger, p.id, principal=ANN)


def test_undo_an_edited_accept_withdraws_the_correction(talk, paris_over_lisbon) -> None:
    before = _believed(talk)
    done = accept_one(talk.ledger, paris_over_lisbon.id, principal=ANN, edit=Edit(value="Paris, France"))
    with pytest.raises(ConflictError, match="undo that accept"):
        undo_decision(talk.ledger, paris_over_lisbon.id, principal=ANN)  # the original names its correction
    undone = undo_decision(talk.ledger, done.proposal.id, principal=ANN)
    assert undone.proposal.id == done.proposal.id and _believed(talk) == before
    assert undone.reopened.value == "Paris" and undone.reopened.status == "pending"  # as the extractor proposed it


def test_nothing_to_undo_and_only_operators(talk, paris_over_lisbon) -> None:
    with pytest.raises(ConflictError, match="is pending: no reviewer's decision to undo"):
        undo_decision(talk.ledger, paris_over_lisbon.id, principal=ANN)
    lisbon = next(p for p in list_proposals(talk.ledger, status="applied"))  # applied by the auto policy
    with pytest.raises(ConflictError, match="digest's policy"):
        undo_decision(talk.ledger, lisbon.id, principal=ANN)
    accept(talk.ledger, paris_over_lisbon.id, principal=ANN)
    with pytest.raises(PermissionDenied):
        undo_decision(talk.ledger, paris_over_lisbon.id, principal="agent:hermes")
    assert get_proposal(talk.ledger, paris_over_lisbon.id).status == "applied"


def test_duplicates_repeat_an_older_proposal_or_what_the_slot_holds(talk) -> None:
    talk.say("I love tea", "2026-01-01T10:00:00Z")
    talk.digest()  # tea is believed (auto policy)
    talk.policy = "strict"
    talk.say("I love jazz", "2026-02-01T10:00:00Z", session="s2")
    talk.say("I love chess", "2026-02-02T10:00:00Z", session="s2")
    talk.digest()
    for sess in ("s3", "s4"):  # the same turns said again in other sessions: the same proposals again
        talk.say("I love jazz", "2026-02-01T10:00:00Z", session=sess)
    talk.say("I love tea", "2026-01-01T10:00:00Z", session="s5")
    talk.digest()
    open_ = {p.id: p for p in list_proposals(talk.ledger, status="open", limit=50)}
    jazz = sorted(i for i, p in open_.items() if p.value == "jazz")
    found = duplicate_ids(talk.ledger, queue_filter(talk.ledger))
    tea = [i for i, p in open_.items() if p.value == "tea"]
    assert len(jazz) == 3 and set(found) == {*jazz[1:], *tea}
    assert all(found[i] == f"repeats proposal #{jazz[0]} (the same add of 'jazz' over the same valid time)" for i in jazz[1:])
    assert all("already holds 'tea'" in found[i] for i in tea)
    assert list(found) == sorted(found)  # oldest first
    assert duplicate_ids(talk.ledger, queue_filter(talk.ledger, session="s2")) == {}  # the oldest jazz is in s2
    assert list(duplicate_ids(talk.ledger, queue_filter(talk.ledger, session="s3"))) == [jazz[1]]  # older ones outside count


def test_rejecting_duplicates_keeps_no_rejection_memory(talk) -> None:
    from factledger.digest import bulk_preview, reject_many

    talk.policy = "strict"
    for sess in ("s1", "s2"):
        talk.say("I love jazz", "2026-02-01T10:00:00Z", session=sess)
    talk.digest()
    first, again = sorted(p.id for p in list_proposals(talk.ledger) if p.value == "jazz")
    shown = bulk_preview(talk.ledger, [again], "reject", principal=ANN, remember=False)
    assert "nothing goes into rejection memory (a duplicate" in shown.items[0].lines[1]
    reject_many(talk.ledger, [again], principal=ANN, reason="duplicate", remember=False)
    assert get_proposal(talk.ledger, again).status == "rejected" and list_rejections(talk.ledger) == []
    assert accept(talk.ledger, first, principal=ANN).status == "applied"  # the one it repeated is not barred
