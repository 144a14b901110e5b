"""Review is for operators only; every decision carries the operator's name."""

from __future__ import annotations

import pytest

from factledger.digest import accept, confirm, get_proposal, lift, list_proposals, reject, unconfirm
from factledger.ledger import ConflictError, NotFoundError, PermissionDenied, ValidationError

# The contract suite: SQLite and PostgreSQL (tests/conftest.py); see erase_guard_on_engine (conftest).
pytestmark = [pytest.mark.both_engines, pytest.mark.usefixtures("erase_guard_on_engine")]


@pytest.fixture
def held(talk):
    talk.policy = "strict"
    talk.say("I live in Paris", "2026-01-01T10:00:00Z")
    talk.digest()
    return list_proposals(talk.ledger)[0]


@pytest.mark.parametrize("principal", ["agent:hermes", "digest:rules", "import:csv"])
@pytest.mark.parametrize("action", ["accept", "reject", "confirm", "lift", "unconfirm"])
def test_only_operators_review(talk, held, principal: str, action: str) -> None:
    call = {"accept": accept, "reject": reject, "confirm": confirm, "lift": lift, "unconfirm": unconfirm}[action]
    with pytest.raises(PermissionDenied):
        call(talk.ledger, held.id, principal=principal)
    assert get_proposal(talk.ledger, held.id).status == "pending"


def test_bad_principal_is_a_validation_error(talk, held) -> None:
    with pytest.raises(ValidationError) as error:
        accept(talk.ledger, held.id, principal="ann")
    assert error.value.field == "principal"


def test_accept_records_the_operator(talk, held) -> None:
    done = accept(talk.ledger, held.id, principal="operator:ann")
    assert (done.status, done.decided_by) == ("applied", "operator:ann")
    assert talk.ledger.transaction_record(done.tx).principal == "operator:ann"
    with pytest.raises(ConflictError):
        accept(talk.ledger, held.id, principal="operator:ann")  # not pending any more
    with pytest.raises(ConflictError):
        reject(talk.ledger, held.id, principal="operator:ann")


def test_reject_records_the_operator_and_changes_no_claim(talk, held) -> None:
    done = reject(talk.ledger, held.id, principal="operator:bob", reason="wrong city")
    assert (done.status, done.decided_by, done.review_reason) == ("rejected", "operator:bob", "wrong city")
    assert talk.ledger.storage.one("SELECT COUNT(*) FROM claims")[0] == 0


def test_unknown_ids_are_not_found(talk) -> None:
    for call, field in ((accept, "proposal"), (reject, "proposal"), (confirm, "claim"), (lift, "rejection"), (unconfirm, "confirmation")):
        with pytest.raises(NotFoundError) as error:
            call(talk.ledger, 999, principal="operator:ann")
        assert error.value.field == field


def test_confirm_then_unconfirm(talk) -> None:
    talk.say("I live in Paris", "2026-01-01T10:00:00Z")
    talk.digest()
    claim = talk.ledger.current(["chat"])[0]
    first = confirm(talk.ledger, claim.id, principal="operator:ann")
    assert confirm(talk.ledger, claim.id, principal="operator:ann").id == first.id  # once in force
    withdrawn = unconfirm(talk.ledger, first.id, principal="operator:bob")
    assert withdrawn.lifted_by == "operator:bob"
    talk.say("I moved to Rome", "2026-02-01T10:00:00Z")
    assert talk.digest().proposals == {"applied": 1}  # no longer protected


def test_list_filters_by_status(talk, held) -> None:
    assert [p.id for p in list_proposals(talk.ledger, status=None)] == [held.id]
    assert list_proposals(talk.ledger, status="applied") == []
    with pytest.raises(ValidationError):
        list_proposals(talk.ledger, status="maybe")


def test_open_lists_held_and_rejected_again(talk, held) -> None:
    reject(talk.ledger, held.id, principal="operator:ann")
    talk.say("I live in Paris!", "2026-01-02T10:00:00Z")
    talk.say("I love jazz", "2026-01-02T10:01:00Z")
    talk.digest()
    assert [p.status for p in list_proposals(talk.ledger, status="open")] == ["pending", "rejected_again"]
    assert len(list_proposals(talk.ledger, status=("rejected", "pending"))) == 2


def test_a_preview_that_will_not_wait_says_busy_while_another_writer_holds_the_ledger(talk, held, ledger_location) -> None:
    """The review page's previews (wait=False) never queue behind a writer: while another connection is
    inside a write that holds the ledger, the preview says it was not run; afterwards it runs."""
    from factledger.digest import preview
    from factledger.ledger import Ledger

    with Ledger.open(ledger_location) as holder:
        with holder.storage.atomic():
            with holder.transaction(principal="operator:holder", reason="held") as tx:  # its commit takes the head
                tx.add("other", "someone", "note", "held")
            shown = preview(talk.ledger, held.id, wait=False)
            assert shown.busy and shown.lines()[0].startswith("preview not shown") and not shown.opens
    after = preview(talk.ledger, held.id, wait=False)
    assert not after.busy and [v.value for v in after.opens] == ["Paris"]
    assert get_proposal(talk.ledger, held.id).status == "pending"
