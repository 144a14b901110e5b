"""The title a host gives a conversation: sanitised, one line, the latest kept, redacted by erase."""

from __future__ import annotations

import pytest

from factledger.digest import Journal, erase_mentions
from factledger.digest.journal import MAX_TITLE_CHARS
from factledger.ledger import ValidationError

from .conftest import sql_one

pytestmark = [pytest.mark.both_engines, pytest.mark.usefixtures("erase_guard_on_engine")]


def titles(ledger) -> int:
    return sql_one(ledger, "SELECT COUNT(*) FROM session_titles")[0]


def test_a_title_is_kept_on_one_line_without_secrets(talk):
    journal = Journal(talk.ledger)
    key = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    stored = journal.name_session("chat", "s1", f"Moving\nplans\x07 </memory-context> {key}")
    assert stored is not None and "\n" not in stored and "\x07" not in stored and key not in stored
    assert stored.startswith("Moving plans")
    assert journal.session_titles(["s1", "s2", None]) == {"s1": stored}


def test_the_latest_title_is_kept_and_an_unchanged_one_writes_nothing(talk):
    journal = Journal(talk.ledger)
    journal.name_session("chat", "s1", "Trip")
    talk.clock.now = "2026-02-01T00:00:00.000000Z"
    journal.name_session("chat", "s1", "Trip to Lisbon")
    assert journal.session_titles(["s1"]) == {"s1": "Trip to Lisbon"} and titles(talk.ledger) == 1
    before = sql_one(talk.ledger, "SELECT titled_at FROM session_titles")[0]
    talk.clock.now = "2026-03-01T00:00:00.000000Z"
    journal.name_session("chat", "s1", "Trip to Lisbon")
    assert sql_one(talk.ledger, "SELECT titled_at FROM session_titles")[0] == before
    assert journal.recent_session_titles(1) == [("s1", "Trip to Lisbon")]


def test_a_long_title_is_cut_and_a_trivial_one_kept(talk):
    journal = Journal(talk.ledger)
    assert len(journal.name_session("chat", "s1", "word " * 100)) == MAX_TITLE_CHARS
    assert journal.name_session("chat", "s2", "Thanks") == "Thanks"


def test_bad_input_is_refused_by_field_and_changes_nothing(talk):
    journal = Journal(talk.ledger)
    for scope, session, title, field in (("", "s1", "x", "scope"), ("chat", "s\n1", "x", "session"), ("chat", "s1", 3, "title")):
        with pytest.raises(ValidationError) as error:
            journal.name_session(scope, session, title)
        assert error.value.field == field
    assert journal.name_session("chat", "s1", "   ") is None
    assert titles(talk.ledger) == 0


def test_erase_redacts_the_value_in_titles(talk):
    talk.say("I live in Oslo", "2026-01-01T10:00:00Z")
    talk.digest()
    journal = Journal(talk.ledger)
    journal.name_session("chat", "s1", "Flat hunting in Oslo")
    with talk.ledger.storage.atomic():
        erased = talk.ledger.erase(scope="chat", subject="user", predicate="lives_in", principal="operator:ann")
        report = erase_mentions(talk.ledger, erased)
    assert report.titles_redacted == 1
    (title,) = journal.session_titles(["s1"]).values()
    assert "Oslo" not in title and title.startswith("Flat hunting in")
    assert "Oslo" not in journal.name_session("chat", "s2", "Back to Oslo")  # erased: never written back
