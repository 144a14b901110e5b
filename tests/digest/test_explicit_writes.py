"""remember / forget: the agent's explicit writes go through rejection memory and confirmations."""

from __future__ import annotations

import pytest

from factledger.digest import confirm, forget, get_proposal, list_proposals, remember
from factledger.ledger import NotFoundError, ValidationError

# The contract suite: SQLite and PostgreSQL (tests/conftest.py); see erase_guard_on_engine (conftest).
pytestmark = [pytest.mark.both_engines, pytest.mark.usefixtures("erase_guard_on_engine")]


def test_remember_adds_then_supersedes_a_one_slot(fresh_ledger) -> None:
    ledger = fresh_ledger
    first = remember(ledger, scope="s", subject="user", predicate="lives_in", value="Paris", cardinality="one",
                     principal="agent:hermes", valid_from="2024-01-01", source="hermes:turn-1")
    assert first.status == "applied" and first.tx is not None
    second = remember(ledger, scope="s", subject="user", predicate="lives_in", value="Rome", principal="agent:hermes",
                      valid_from="2025-01-01", reason="user said so")
    assert second.status == "applied"
    assert [c.value for c in ledger.as_of(["s"], valid_at="2024-06-01")] == ["Paris"]
    assert [c.value for c in ledger.current(["s"])] == ["Rome"]
    tx = ledger.transaction_record(second.tx)
    assert (tx.principal, tx.reason) == ("agent:hermes", f"explicit write: proposal #{second.proposal_id}")
    assert get_proposal(ledger, second.proposal_id).reason == "user said so"  # the caller's words, on the proposal
    first_claim = ledger.as_of(["s"], valid_at="2024-06-01")[0]
    assert first_claim.source == ("hermes:turn-1",)


def test_remember_holds_a_change_to_a_confirmed_value(fresh_ledger) -> None:
    ledger = fresh_ledger
    remember(ledger, scope="s", subject="user", predicate="lives_in", value="Paris", cardinality="one", principal="agent:hermes")
    confirm(ledger, ledger.current(["s"])[0].id, principal="operator:ann")
    write = remember(ledger, scope="s", subject="user", predicate="lives_in", value="Rome", principal="agent:hermes")
    assert write.status == "held" and write.proposal_id is not None and write.tx is None
    assert [c.value for c in ledger.current(["s"])] == ["Paris"]
    assert list_proposals(ledger, status="pending")[0].id == write.proposal_id
    # An operator's own explicit write is the last word.
    by_operator = remember(ledger, scope="s", subject="user", predicate="lives_in", value="Rome", principal="operator:ann")
    assert by_operator.status == "applied"


def test_forget_retracts_and_never_erases(fresh_ledger) -> None:
    ledger = fresh_ledger
    remember(ledger, scope="s", subject="user", predicate="likes", value="jazz", principal="agent:hermes", valid_from="2024-01-01")
    write = forget(ledger, scope="s", subject="user", predicate="likes", value="jazz", principal="agent:hermes", valid_from="2025-01-01")
    assert write.status == "applied"
    assert ledger.current(["s"]) == []
    assert [c.value for c in ledger.as_of(["s"], valid_at="2024-06-01")] == ["jazz"]
    with pytest.raises(NotFoundError):
        forget(ledger, scope="s", subject="user", predicate="likes", value="jazz", principal="agent:hermes")


def test_forget_all_valid_time_and_confirmed(fresh_ledger) -> None:
    ledger = fresh_ledger
    remember(ledger, scope="s", subject="user", predicate="has", value="cat", principal="agent:hermes", valid_from="2024-01-01")
    confirm(ledger, ledger.current(["s"])[0].id, principal="operator:ann")
    held = forget(ledger, scope="s", subject="user", predicate="has", value="cat", principal="agent:hermes", all_valid_time=True)
    assert held.status == "held"
    done = forget(ledger, scope="s", subject="user", predicate="has", value="cat", principal="operator:ann", all_valid_time=True)
    assert done.status == "applied"
    assert ledger.as_of(["s"], valid_at="2024-06-01") == []


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"scope": "", "subject": "u", "predicate": "p", "value": "v", "principal": "agent:x"}, "scope"),
        ({"scope": "s", "subject": " ", "predicate": "p", "value": "v", "principal": "agent:x"}, "subject"),
        ({"scope": "s", "subject": "u", "predicate": "p", "value": "", "principal": "agent:x"}, "value"),
        ({"scope": "s", "subject": "u", "predicate": "p", "value": "v", "principal": "hermes"}, "principal"),
        ({"scope": "s", "subject": "u", "predicate": "p", "value": "v", "principal": "agent:x", "valid_from": "soon"}, "valid_from"),
        ({"scope": "s", "subject": "u", "predicate": "p", "value": "v", "principal": "agent:x", "cardinality": "few"}, "cardinality"),
    ],
)
def test_bad_explicit_writes_name_the_field_and_write_nothing(fresh_ledger, kwargs, field: str) -> None:
    with pytest.raises(ValidationError) as error:
        remember(fresh_ledger, **kwargs)
    assert error.value.field == field
    assert fresh_ledger.storage.one("SELECT COUNT(*) FROM transactions")[0] == 0


def test_an_erase_request_changes_nothing_and_waits_for_an_operator(fresh_ledger) -> None:
    from factledger.digest import accept, request_erase

    ledger = fresh_ledger
    remember(ledger, scope="s", subject="user", predicate="likes", value="opera", principal="agent:claude")
    before = ledger.version_count()
    asked = request_erase(ledger, scope="s", subject="user", predicate="likes", value="opera", principal="agent:claude",
                          reason="the user asked")
    assert asked.status == "held" and asked.tx is None and ledger.version_count() == before
    proposal = get_proposal(ledger, asked.proposal_id)
    assert proposal.status == "pending" and proposal.op == "retract" and proposal.all_valid_time
    assert proposal.reason.startswith("erase requested by agent:claude: the user asked")
    assert [c.value for c in ledger.current(["s"])] == ["opera"]
    with pytest.raises(NotFoundError, match="nothing to erase"):
        request_erase(ledger, scope="s", subject="user", predicate="likes", value="jazz", principal="agent:claude")
    # A person decides; accepting retracts it over all valid time (erase itself stays the CLI's).
    accept(ledger, asked.proposal_id, principal="operator:ann")
    assert ledger.current(["s"]) == [] and ledger.as_of(["s"], valid_at="2000-01-01") == []
