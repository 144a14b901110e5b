"""The review workflow as a new reviewer meets it: lifted rejections become decidable, accepting is
previewed exactly, bulk decisions are all or nothing, edits are the reviewer's correction."""

from __future__ import annotations

import pytest

from factledger.digest import (
    Edit,
    accept,
    accept_many,
    accept_one,
    detail,
    erase_journal,
    get_proposal,
    lift,
    list_proposals,
    list_rejections,
    open_from_session,
    preview,
    reject,
    reject_many,
)
from factledger.ledger import ConflictError, NotFoundError, ValidationError
from factledger.ledger.times import UNKNOWN_START

from tests.digest.conftest import sql_execute

# The contract suite: SQLite and PostgreSQL (tests/conftest.py); see erase_guard_on_engine (conftest).
pytestmark = [pytest.mark.both_engines, pytest.mark.usefixtures("erase_guard_on_engine")]

ANN = "operator:ann"


def _counts(ledger) -> tuple[int, ...]:
    return tuple(
        ledger.storage.one(f"SELECT COUNT(*) FROM {t}")[0] for t in ("transactions", "claims", "proposals", "rejections")
    ) + (ledger.storage.one("SELECT COUNT(*) FROM claims WHERE tx_to IS NULL")[0],)


@pytest.fixture
def strict(talk):
    talk.policy = "strict"
    return talk


@pytest.fixture
def two_cities(strict):
    """Two held lives_in proposals in one queue (Lisbon, then Paris)."""
    strict.say("I live in Lisbon", "2026-01-01T10:00:00Z")
    strict.say("I live in Paris", "2026-02-01T10:00:00Z")
    strict.digest()
    lisbon, paris = sorted(list_proposals(strict.ledger), key=lambda p: p.id)
    return strict, lisbon, paris


def test_a_lifted_rejection_makes_the_proposal_decidable_again(strict) -> None:
    strict.say("I live in Paris", "2026-01-01T10:00:00Z")
    strict.digest()
    (first,) = list_proposals(strict.ledger)
    rejected = reject(strict.ledger, first.id, principal=ANN, reason="joke")
    strict.say("I live in Paris!", "2026-01-02T10:00:00Z")
    strict.digest()
    (again,) = list_proposals(strict.ledger, status="rejected_again")
    with pytest.raises(ConflictError) as error:
        accept(strict.ledger, again.id, principal=ANN)
    assert f"lift rejection #{rejected.rejection_id} first" in str(error.value)
    lift(strict.ledger, rejected.rejection_id, principal=ANN)
    back = get_proposal(strict.ledger, again.id)
    assert back.status == "pending" and f"rejection #{rejected.rejection_id} lifted by {ANN}" in back.reason
    assert accept(strict.ledger, again.id, principal=ANN).status == "applied"
    assert strict.current("lives_in") == {"lives_in": ["Paris"]}


def test_a_rejected_again_proposal_whose_rejection_was_lifted_elsewhere_is_accepted(strict) -> None:
    """Status alone does not decide: the rejection in force does."""
    strict.say("I live in Paris", "2026-01-01T10:00:00Z")
    strict.digest()
    (first,) = list_proposals(strict.ledger)
    rejected = reject(strict.ledger, first.id, principal=ANN)
    strict.say("I live in Paris!", "2026-01-02T10:00:00Z")
    strict.digest()
    (again,) = list_proposals(strict.ledger, status="rejected_again")
    # A lift recorded directly (e.g. by an older factledger) leaves the proposal rejected_again.
    sql_execute(strict.ledger, "UPDATE rejections SET lifted_at = ?, lifted_by = ? WHERE id = ?", ("2026-01-03T00:00:00.000000Z", ANN, rejected.rejection_id))
    assert accept(strict.ledger, again.id, principal=ANN).status == "applied"


def test_preview_says_exactly_what_accept_closes_and_changes_nothing(two_cities) -> None:
    talk, lisbon, paris = two_cities
    ledger = talk.ledger
    first = accept_one(ledger, lisbon.id, principal=ANN)
    assert first.closed == () and "closed nothing" in first.message()
    before = _counts(ledger)
    shown = preview(ledger, paris.id)
    assert _counts(ledger) == before  # rolled back
    (lisbon_version,) = first.opened
    assert [v.id for v in shown.closes] == [lisbon_version.id]
    assert [v.value for v in shown.current] == ["Lisbon"]
    assert shown.op == "supersede" and not shown.blocked
    lines = "\n".join(shown.lines())
    assert f"claim version #{lisbon_version.id}" in lines and "'Lisbon'" in lines
    done = accept_one(ledger, paris.id, principal=ANN)
    assert [v.id for v in done.closed] == [v.id for v in shown.closes]
    assert [(v.value, v.valid_from, v.valid_to) for v in done.opened] == [(v.value, v.valid_from, v.valid_to) for v in shown.opens]
    assert f"closed claim version #{lisbon_version.id} 'Lisbon'" in done.message()


def test_preview_lists_competing_proposals_for_the_slot(two_cities) -> None:
    talk, lisbon, paris = two_cities
    shown = preview(talk.ledger, paris.id)
    assert [c.id for c in shown.competing] == [lisbon.id]
    assert any(line.startswith(f"competes with proposal #{lisbon.id}") for line in shown.lines())


@pytest.mark.parametrize(
    ("setup", "blocked"),
    [
        ("applied", "is applied, not pending"),
        ("rejected", "is rejected, not pending"),
    ],
)
def test_preview_of_a_decided_proposal_says_why_not(two_cities, setup: str, blocked: str) -> None:
    talk, lisbon, _ = two_cities
    (accept if setup == "applied" else reject)(talk.ledger, lisbon.id, principal=ANN)
    shown = preview(talk.ledger, lisbon.id)
    assert blocked in shown.blocked and shown.lines() == [f"cannot accept: {shown.blocked}"]


def test_detail_has_context_turns_policy_reason_and_history(strict) -> None:
    strict.say("We talked about the weather today", "2026-01-01T09:00:00Z")
    strict.say("I live in Lisbon", "2026-01-01T10:00:00Z")
    strict.digest()
    (held,) = list_proposals(strict.ledger)
    d = detail(strict.ledger, held.id)
    assert [t.text for t in d.turns] == ["I live in Lisbon"]
    assert [t.text for t in d.context] == ["We talked about the weather today"]
    assert "strict policy" in d.proposal.reason and d.history == ()
    accept(strict.ledger, held.id, principal=ANN)
    assert [h.version.value for h in detail(strict.ledger, held.id).history] == ["Lisbon"]


def test_bulk_accept_is_all_or_nothing(strict) -> None:
    strict.say("I live in Lisbon", "2026-01-01T10:00:00Z")
    strict.say("I love jazz", "2026-01-01T10:01:00Z")
    strict.say("I love tea", "2026-01-01T10:02:00Z")
    strict.digest()
    ids = sorted(p.id for p in list_proposals(strict.ledger))
    reject(strict.ledger, ids[2], principal=ANN)
    before = _counts(strict.ledger)
    with pytest.raises(ConflictError):
        accept_many(strict.ledger, ids, principal=ANN)
    assert _counts(strict.ledger) == before
    done = accept_many(strict.ledger, ids[:2], principal=ANN)
    assert [a.proposal.status for a in done] == ["applied", "applied"]
    assert len({a.proposal.tx for a in done}) == 2  # one ledger transaction per proposal


def test_bulk_accept_refuses_two_proposals_for_one_slot(two_cities) -> None:
    talk, lisbon, paris = two_cities
    before = _counts(talk.ledger)
    with pytest.raises(ConflictError) as error:
        accept_many(talk.ledger, [lisbon.id, paris.id], principal=ANN)
    assert f"proposal #{lisbon.id} and proposal #{paris.id} compete" in str(error.value)
    assert _counts(talk.ledger) == before


def test_all_from_session_and_bulk_reject(strict) -> None:
    strict.say("I love jazz", "2026-01-01T10:00:00Z", session="a")
    strict.say("I love tea", "2026-01-01T10:01:00Z", session="a")
    strict.say("I love rain", "2026-01-01T10:02:00Z", session="b")
    strict.digest()
    from_a = open_from_session(strict.ledger, "a")
    assert [p.value for p in from_a] == ["jazz", "tea"]
    rejected = reject_many(strict.ledger, [p.id for p in from_a], principal=ANN)
    assert all(p.status == "rejected" and p.rejection_id for p in rejected)
    assert open_from_session(strict.ledger, "a") == []
    assert [p.value for p in open_from_session(strict.ledger, "b")] == ["rain"]
    with pytest.raises(ValidationError) as error:
        open_from_session(strict.ledger, " ")
    assert error.value.field == "session"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        # an undated statement starts unknown (DESIGN §2); a value-only edit keeps that
        (Edit(value="Porto"), ("Porto", UNKNOWN_START, None)),
        (Edit(valid_from="2025-09-01"), ("Lisbon", "2025-09-01T00:00:00.000000Z", None)),
        (Edit(valid_from="2025-09-01", valid_to="2025-12-01"), ("Lisbon", "2025-09-01T00:00:00.000000Z", "2025-12-01T00:00:00.000000Z")),
    ],
)
def test_accept_with_an_edit_records_the_reviewers_correction(strict, edit: Edit, expected) -> None:
    strict.say("I live in Lisbon", "2026-01-01T10:00:00Z")
    strict.digest()
    (held,) = list_proposals(strict.ledger)
    done = accept_one(strict.ledger, held.id, principal=ANN, reason="she told me", edit=edit)
    correction, original = done.proposal, done.corrected
    assert correction.id != held.id and correction.status == "applied" and correction.extractor == ANN
    assert correction.reason.startswith(f"reviewer's correction of proposal #{held.id}")
    assert (original.status, original.value, original.rejection_id) == ("rejected", "Lisbon", None)
    assert original.review_reason == f"corrected by the reviewer as proposal #{correction.id}: she told me"
    assert list_rejections(strict.ledger) == []  # a correction bars nothing
    (version,) = done.opened
    assert (version.value, version.valid_from, version.valid_to) == expected
    assert strict.ledger.transaction_record(correction.tx).reason == f"review accept: proposal #{correction.id}"
    assert f"with corrections as proposal #{correction.id}" in done.message()


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (Edit(value="  "), "value"),
        (Edit(valid_from="last Tuesday"), "valid_from"),
        (Edit(valid_from="2026-02-01", valid_to="2026-01-01"), "valid_to"),
    ],
)
def test_a_bad_edit_names_the_field_and_changes_nothing(strict, edit: Edit, field: str) -> None:
    strict.say("I live in Lisbon", "2026-01-01T10:00:00Z")
    strict.digest()
    (held,) = list_proposals(strict.ledger)
    before = _counts(strict.ledger)
    with pytest.raises(ValidationError) as error:
        accept_one(strict.ledger, held.id, principal=ANN, edit=edit)
    assert error.value.field == field
    assert _counts(strict.ledger) == before and get_proposal(strict.ledger, held.id).status == "pending"


@pytest.mark.parametrize("earlier", [None, "I moved to Vienna in October."])
def test_a_correction_turn_leaves_a_proposal_or_a_receipt(talk, earlier: str | None) -> None:
    if earlier:
        talk.say(earlier, "2026-11-01T10:00:00Z")
    entry = talk.say("Actually I moved to Vienna in September, not October.", "2026-11-02T10:00:00Z")
    talk.digest()
    rows = [p for p in list_proposals(talk.ledger, status=None) if p.entry_id == entry]
    assert rows, "the correction turn left no proposal and no receipt"
    for p in rows:
        assert p.status != "dropped" or p.reason, "a dropped proposal must say why"


def test_erasing_a_turn_takes_the_reviewers_correction_of_its_proposal(strict) -> None:
    """A correction cites the turn only in its sources (it has no entry of its own): it goes with the turn."""
    entry = strict.say("I live in Paris", "2026-01-01T10:00:00Z")
    kept = strict.say("I live in Rome", "2026-01-02T10:00:00Z", session="s2")
    strict.digest()
    first, other = sorted(list_proposals(strict.ledger), key=lambda p: p.id)
    accepted = accept_one(strict.ledger, first.id, principal=ANN, edit=Edit(value="Lyon"))
    correction = accepted.proposal
    assert correction.entry_id is None and correction.sources == (f"journal:{entry}",)
    assert erase_journal(strict.ledger, [f"journal:{entry}"]) == 1
    for gone in (first.id, correction.id):
        with pytest.raises(NotFoundError):
            get_proposal(strict.ledger, gone)
    assert get_proposal(strict.ledger, other.id).entry_id == kept
