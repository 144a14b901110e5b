"""The journal: cheap appends, duplicates skipped, bad turns named, erase follows provenance."""

from __future__ import annotations

import pytest

from factledger.digest import Journal, Turn, erase_journal, journal_ids
from factledger.ledger import ValidationError

from tests.digest.conftest import sql_one

# The contract suite: SQLite and PostgreSQL (tests/conftest.py); see erase_guard_on_engine (conftest).
pytestmark = [pytest.mark.both_engines, pytest.mark.usefixtures("erase_guard_on_engine")]


def test_append_stores_a_turn_with_its_time(fresh_ledger) -> None:
    journal = Journal(fresh_ledger)
    outcome = journal.append(Turn(scope="s", text="I moved to Lisbon", session="x", said_at="2026-03-14T10:00:00+01:00"))
    assert outcome.status == "stored"
    entry = journal.entry(outcome.entry_id)
    assert entry.said_at == "2026-03-14T09:00:00.000000Z"
    assert (entry.scope, entry.session, entry.role, entry.digested_at) == ("s", "x", "user", None)


def test_said_at_defaults_to_the_ledger_clock(clocked_ledger, clock) -> None:
    clock.now = "2026-05-01T12:00:00.000000Z"
    outcome = Journal(clocked_ledger).append(Turn(scope="s", text="I live in Oslo"))
    assert Journal(clocked_ledger).entry(outcome.entry_id).said_at == clock.now


def test_the_same_turn_twice_is_stored_once(fresh_ledger) -> None:
    journal = Journal(fresh_ledger)
    turn = Turn(scope="s", text="I live in Oslo", said_at="2026-01-01")
    first, second = journal.append(turn), journal.append(turn)
    assert second.status == "skipped" and second.entry_id == first.entry_id
    assert "duplicate" in second.reason
    assert journal.backlog_size() == 1


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"text": "hi there friend"}, "scope"),
        ({"scope": "s"}, "text"),
        ({"scope": "s", "text": "x y", "role": "system"}, "role"),
        ({"scope": "s", "text": "x y", "said_at": "yesterday"}, "said_at"),
        ({"scope": "s", "text": "x y", "said_at": "2026-01-01T10:00:00 CET"}, "said_at"),
        ({"scope": "s", "text": "x y", "mood": "happy"}, "mood"),
        ({"scope": "s", "text": 42}, "text"),
        (["not", "an", "object"], "line"),
    ],
)
def test_bad_turns_name_the_field(data, field: str) -> None:
    with pytest.raises(ValidationError) as error:
        Turn.from_dict(data)
    assert error.value.field == field


def test_backlog_is_oldest_first_and_scoped(fresh_ledger) -> None:
    journal = Journal(fresh_ledger)
    for scope, text in [("a", "I live in Oslo"), ("b", "I live in Rome"), ("a", "I like jazz")]:
        journal.append(Turn(scope=scope, text=text, said_at="2026-01-01"))
    assert [e.text for e in journal.backlog(scopes=["a"])] == ["I live in Oslo", "I like jazz"]
    assert [e.text for e in journal.backlog(limit=1)] == ["I live in Oslo"]


def test_erase_journal_follows_journal_refs(talk) -> None:
    entry = talk.say("I live in Oslo", "2026-01-01T10:00:00Z")
    other = talk.say("I like jazz", "2026-01-01T10:01:00Z")
    talk.digest()
    assert sql_one(talk.ledger, "SELECT COUNT(*) FROM proposals WHERE entry_id = ?", (entry,))[0] == 1
    erased = talk.ledger.erase(scope="chat", subject="user", predicate="lives_in", principal="operator:ann")
    assert erased.sources == [f"journal:{entry}"]
    assert erase_journal(talk.ledger, erased.sources + ["import:x"]) == 1
    journal = Journal(talk.ledger)
    assert journal.entry(entry) is None and journal.entry(other) is not None
    assert sql_one(talk.ledger, "SELECT COUNT(*) FROM proposals WHERE entry_id = ?", (entry,))[0] == 0
    assert erase_journal(talk.ledger, erased.sources) == 0  # already gone


def test_journal_ids_ignores_other_refs() -> None:
    assert journal_ids(["journal:3", "import:x", "journal:3", "journal:12"]) == [3, 12]


def test_erase_keeps_rejection_memory_but_forgets_the_proposal(talk) -> None:
    from factledger.digest import list_proposals, list_rejections, reject

    talk.policy = "strict"
    entry = talk.say("I live in Oslo", "2026-01-01T10:00:00Z")
    talk.digest()
    reject(talk.ledger, list_proposals(talk.ledger)[0].id, principal="operator:ann")
    assert erase_journal(talk.ledger, [f"journal:{entry}"]) == 1
    (memo,) = list_rejections(talk.ledger)
    assert memo.proposal_id is None and memo.value == "Oslo"
    assert list_proposals(talk.ledger, status=None) == []
