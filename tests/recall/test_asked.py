"""What a question asks for, and the rule that keeps a question about an unsaid part of a said thing
empty ("my flight number" when only the flight was said). Tables first (pure functions), then the
rule through recall on both engines."""

from __future__ import annotations

import pytest

from factledger.digest import Journal, Turn
from factledger.ledger.times import parse_time
from factledger.recall.asked import NAME, AskedFor, asked_for, asks_unsaid_part, names_beside

from .conftest import define

# question -> (head, qualifiers, anchors), or None when the shape names no thing
SHAPES = [
    ("what's my javelin PB?", ("pb", ("javelin",), ())),
    ("what's my flight number?", ("number", ("flight",), ())),
    ("who's my manager at Quenby?", (NAME, ("manager",), ("quenby",))),
    ("what's my GP's name?", (NAME, ("gp",), ())),
    ("what's my swimming coach called?", (NAME, ("swimming", "coach"), ())),
    ("what are my cats called?", (NAME, ("cats",), ())),
    ("who's my daughter's orthodontist?", (NAME, ("daughter", "orthodontist"), ())),
    ("what interest rate is our mortgage?", None),  # "which/what X is": X is the answer's kind
    ("what size is my bike frame?", ("frame", ("bike",), ())),
    ("do I have any food allergies?", ("allergies", ("food",), ())),
    ("how much does my tutor charge?", ("charge", ("tutor",), ())),
    ("what was my job in March 2024?", ("job", (), ())),
    # shapes that name no thing to check
    ("which database is the billing service on?", None),
    ("which airline am I flying with?", None),
    ("who was my car insured with in February?", None),
    ("what was my last name last October?", None),
    ("where do I work?", None),
    ("who does Esi report to?", None),
    ("I moved to Lyon", None),
]


@pytest.mark.parametrize(("query", "want"), SHAPES)
def test_the_thing_a_question_asks_for(query, want):
    found = asked_for(query)
    if want is None:
        assert found is None
    else:
        head, qualifiers, anchors = want
        assert found == AskedFor(head, qualifiers, anchors)


# (question, what the searched texts say, words never said there, whether nothing here answers it)
RULE = [
    ("what's my flight number?", ["the airline moved my outbound flight to March 28"], {"number"}, True),
    ("what's my flight number?", ["my flight is KL2207 on the 28th"], {"number"}, False),  # a code answers
    ("what's my passport number?", ["passport number is 503112984"], set(), False),  # the head was said
    ("what's my javelin PB?", ["training for the 10K, running 4 times a week"], {"javelin", "pb"}, False),
    ("what's my javelin PB?", ["ran the javelin set in 1:52"], {"pb"}, False),  # a time answers
    ("what's my blood pressure?", ["bloods came back fine"], {"pressure"}, True),
    ("what's my GP's name?", ["the card from my old GP was a mix-up"], set(), True),
    ("what's my GP's name?", ["my GP is Dr. Zwanenburg"], set(), False),
    ("who is my physio?", ["been doing physio since last Monday, twice a week"], set(), True),
    ("who is my physio?", ["physio with Ottilie twice a week"], set(), False),
    ("what's my gym routine?", ["at the gym I do legs on Mondays"], {"routine"}, False),  # a summary head
    ("who is my landlord?", ["rent is due on the 1st"], {"landlord"}, False),  # never mentioned: another rule
    ("what's my swimming coach called?", ["started swimming again. 40 lengths"], {"coach", "trainer", "instructor"}, True),
    ("who was my piano teacher?", ["piano lessons with Mrs. Halden, Mondays"], {"teacher"}, False),
]


@pytest.mark.parametrize(("query", "texts", "unsaid", "empty"), RULE)
def test_an_unsaid_part_of_a_said_thing(query, texts, unsaid, empty):
    asked = asked_for(query)
    assert asked is not None
    never = frozenset(unsaid)
    if asked.head != NAME and asked.head in unsaid:
        never |= asked.alternatives()  # the index said none of the head's other words either
    assert asks_unsaid_part(asked, never, texts) is empty


def test_a_held_slot_asked_by_the_head_answers():
    asked = asked_for("what's my job?")
    assert asked is not None
    assert not asks_unsaid_part(asked, frozenset({"job", "role", "position", "work"}), ["I started at Initech"], {"job"})


@pytest.mark.parametrize(("text", "role", "named"), [
    ("my daughter has an orthodontist appointment on Feb 11 with Dr. Achterberg", "orthodontist", True),
    ("I have two cats, Pepper and Tofu, plus a dog", "cats", True),
    ("been doing physio since last Monday, twice a week", "physio", False),  # a weekday names nobody
    ("the clinic says I'm O negative, the letter from my old GP was wrong", "gp", False),
    ("Physio says 4-6 weeks", "physio", False),  # the sentence's first word is no name
    ("Good for her. Teodor is your billing contact then.", "contact", True),  # unless the sentence is about it
])
def test_a_name_beside_a_role(text, role, named):
    assert names_beside(text, role) is named


SCOPE = "user:ines"


def say(journal: Journal, clock, when: str, text: str, role: str = "user") -> None:
    clock.now = parse_time(when)
    assert journal.append(Turn(scope=SCOPE, text=text, role=role, session="s1", said_at=when)).entry_id is not None


@pytest.mark.both_engines
def test_recall_keeps_an_unsaid_part_empty_and_answers_a_said_one(clocked_ledger, clock, recall):
    define(clocked_ledger, clock, "works_at", "one", "{subject} works at {value}")
    journal = Journal(clocked_ledger)
    say(journal, clock, "2026-03-02T09:00:00Z", "the airline moved my outbound flight to March 28, annoying")
    say(journal, clock, "2026-03-03T09:00:00Z", "started physio last Monday for the knee")
    say(journal, clock, "2026-03-04T09:00:00Z", "my locker code at the gym is 4471")
    clock.now = parse_time("2026-03-10")
    for question in ("what's my flight number?", "who is my physio?"):
        assert recall.prompt(question, SCOPE).text == "", question
        assert recall.search(question, SCOPE, kinds="fact") == []
    assert "March 28" in recall.prompt("when is my flight?", SCOPE).text  # the flight itself was said
    assert "4471" in recall.prompt("what's my locker code?", SCOPE).text
