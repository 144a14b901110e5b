"""The rules extractor: right on the facts it claims, silent otherwise."""

from __future__ import annotations

import dataclasses

import pytest

from factledger.digest import ExtractionRequest, JournalEntry, RulesExtractor
from factledger.ledger import ClaimVersion

SAID = "2026-03-14T10:00:00.000000Z"


def entry(text: str, role: str = "user") -> JournalEntry:
    return JournalEntry(id=1, scope="s", session=None, role=role, text=text, said_at=SAID)  # type: ignore[arg-type]


def held(predicate: str, value: str, cardinality: str = "one", valid_from: str = "2020-01-01T00:00:00.000000Z") -> ClaimVersion:
    return ClaimVersion(
        id=1, scope="s", subject="user", subject_key="user", predicate=predicate, cardinality=cardinality,  # type: ignore[arg-type]
        value=value, value_key=value.casefold(), valid_from=valid_from, valid_to=None, tx_from=valid_from,
        tx_to=None, opened_by=1, closed_by=None,
    )


def extract(text: str, current: list[ClaimVersion] = (), role: str = "user"):
    return RulesExtractor().extract(ExtractionRequest(entry=entry(text, role), current=list(current)))


def summary(text: str, current: list[ClaimVersion] = ()) -> list[tuple]:
    return [(d.op, d.predicate, d.value) for d in extract(text, current)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Paris.", [("add", "lives_in", "Paris")]),
        ("I'm based in Rio de Janeiro these days", [("add", "lives_in", "Rio de Janeiro")]),
        ("We just moved to New York City!", [("add", "lives_in", "New York City")]),
        ("I work at Acme Corp.", [("add", "works_at", "Acme Corp")]),
        ("I work as a nurse at St Mary's Hospital", [("add", "works_at", "St Mary's Hospital")]),
        ("I got a new job at Globex", [("add", "works_at", "Globex")]),
        ("My name is Ana Lopes.", [("add", "name", "Ana Lopes")]),
        ("Call me Sam", [("add", "name", "Sam")]),
        ("My birthday is on the 3rd of April", [("add", "birthday", "April 3")]),
        ("I was born on 1990-05-02", [("add", "birthday", "May 2, 1990")]),
        ("I love jazz.", [("add", "likes", "jazz")]),
        ("I really enjoy hiking in the mountains", [("add", "likes", "hiking in the mountains")]),
        ("I'm a big fan of Italian food", [("add", "likes", "Italian food")]),
        ("I have a black cat named Tom", [("add", "has", "black cat named Tom")]),
        ("We have two kids", [("add", "has", "two kids")]),
        ("I bought a new bike", [("add", "has", "bike")]),
        ("I've got a rabbit called Clover", [("add", "relation", "rabbit")]),  # Clover is the user's rabbit
        ("We've just adopted a kitten", [("add", "has", "kitten")]),
        ("These days I live in Cork", [("add", "lives_in", "Cork")]),
        ("Please remember that my sister's wedding is on June 5", [("add", "note", "my sister's wedding is on June 5")]),
        ("I no longer like jazz", [("retract", "likes", "jazz")]),
        ("I stopped liking horror movies", [("retract", "likes", "horror movies")]),
        ("I don't enjoy running anymore", [("retract", "likes", "running")]),
        ("I sold my car last week", [("retract", "has", "car")]),
        ("I gave away my piano when we moved", [("retract", "has", "piano")]),
        ("My name is Ana and I live in Porto", [("add", "name", "Ana"), ("add", "lives_in", "Porto")]),
    ],
)
def test_first_person_facts(text: str, expected: list[tuple]) -> None:
    assert summary(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Do you live in Paris?",
        "If I lived in Paris I would walk everywhere",
        "I'd like a coffee",
        "I might move to Berlin next year",
        "I will work at Google soon",
        "I'm thinking about moving to Lisbon",
        "I live in the countryside",
        "I work from home most days",
        "I like it",
        "I like to think so",
        "I have a question",
        "I have a meeting at noon",
        "I have no idea",
        "I used to live in Madrid",
        "I don't like mushrooms",  # news only if the ledger said they did
        "I hate Mondays",
        "Where do you work?",
        "I never lived in Oslo",
        "I'm from Portugal",
        "Do you remember that film we saw?",
        "I remember that day well",
    ],
)
def test_silent_on_what_it_does_not_claim(text: str) -> None:
    assert extract(text) == []


def test_assistant_turns_are_not_the_users_word() -> None:
    assert extract("You live in Paris and work at Acme.", role="assistant") == []
    assert extract("I live in Paris.", role="assistant") == []


def test_time_words_set_valid_time_and_join_the_quote() -> None:
    (draft,) = extract("I moved to Lisbon last month, it's lovely")
    assert draft.valid_from == "2026-02-01T00:00:00.000000Z" and draft.valid_to is None
    assert draft.quote == "I moved to Lisbon last month"
    assert draft.time_phrase == "last month"


def test_lived_from_to_gives_a_closed_interval() -> None:
    (draft,) = extract("I lived in Paris from 2015 to 2019.")
    assert (draft.op, draft.value, draft.valid_from, draft.valid_to) == (
        "add", "Paris", "2015-01-01T00:00:00.000000Z", "2020-01-01T00:00:00.000000Z",
    )


def test_a_one_slot_holding_another_value_is_superseded() -> None:
    assert summary("I live in Porto", [held("lives_in", "Lisbon")]) == [("supersede", "lives_in", "Porto")]
    assert summary("I live in Lisbon", [held("lives_in", "Lisbon")]) == [("add", "lives_in", "Lisbon")]


def test_left_retracts_where_the_ledger_says_it_applies() -> None:
    assert summary("I left Acme Corp", [held("works_at", "Acme Corp")]) == [("retract", "works_at", "Acme Corp")]
    assert summary("I left Lisbon", [held("lives_in", "Lisbon")]) == [("retract", "lives_in", "Lisbon")]
    assert summary("I left Lisbon") == []  # unknown: leaving a party? silent
    assert summary("I quit my job at Initech") == [("retract", "works_at", "Initech")]


def test_dont_like_retracts_only_a_held_like() -> None:
    assert summary("I don't like jazz", [held("likes", "jazz", "many")]) == [("retract", "likes", "jazz")]


def test_lost_possession_names_the_held_value() -> None:
    assert summary("I sold my car", [held("has", "red car", "many")]) == [("retract", "has", "red car")]
    assert summary("My cat died last week", [held("has", "cat", "many")]) == [("retract", "has", "cat")]


@pytest.mark.parametrize(
    ("text", "current", "expected"),
    [
        ("Actually it was March 3, not April 3.", [held("birthday", "April 3")], ("birthday", "March 3")),
        ("Actually it was March, not April", [held("birthday", "April 3")], ("birthday", "March 3")),
        ("Sorry, it's Porto, not Lisbon", [held("lives_in", "Lisbon")], ("lives_in", "Porto")),
        ("Actually it's New York, not Boston", [held("lives_in", "Boston")], ("lives_in", "New York")),
        ("Wait, I meant Quebec City, not Montreal.", [held("lives_in", "Montreal")], ("lives_in", "Quebec City")),
        # a figure is corrected whole, with its separators
        ("Correction: 3:10, not 2:30", [held("appointment", "on May 14 at 2:30")], ("appointment", "on May 14 at 3:10")),
        ("sorry, 1,310, not 1,250", [held("rent", "1,250 a month")], ("rent", "1,310 a month")),
    ],
)
def test_corrections_replace_the_one_matching_value(text: str, current, expected) -> None:
    (draft,) = extract(text, current)
    assert (draft.op, draft.predicate, draft.value) == ("supersede", *expected)
    assert draft.valid_from == current[0].valid_from  # it was never the old value


@pytest.mark.parametrize(
    ("current", "why"),
    [
        ([], "the corrected words match no held value; exactly one is needed"),
        ([held("birthday", "April 3"), held("note", "dentist in April", "many")], "the corrected words match 2 held values"),
    ],
)
def test_ambiguous_or_unmatched_corrections_leave_a_receipt_not_a_guess(current, why) -> None:
    (receipt,) = extract("Actually it was March, not April", current)
    assert receipt.drop_reason.startswith("not proposed: ") and why in receipt.drop_reason
    assert receipt.quote == "it was March, not April"


def _held_at(predicate: str, value: str, at: str, subject: str = "user") -> ClaimVersion:
    return dataclasses.replace(held(predicate, value, valid_from=at), subject=subject, subject_key=subject.casefold())


@pytest.mark.parametrize(
    ("text", "current", "expected"),
    [
        # the old value unsaid: the held value of the new one's shape, written last, is the one corrected
        ("correction: it's October 23", [_held_at("wedding", "October 13", "2026-08-03T10:00:00.000000Z", "Rhosyn")],
         ("Rhosyn", "wedding", "October 23")),
        ("sorry, it's 3:10", [_held_at("appointment", "on May 14 at 2:30", "2026-05-01T10:00:00.000000Z"),
                              _held_at("flight", "at 7:45", "2026-02-01T10:00:00.000000Z")],
         ("user", "appointment", "on May 14 at 3:10")),
        ("oops, it's the 9th of June", [_held_at("birthday", "June 19", "2026-05-01T10:00:00.000000Z")],
         ("user", "birthday", "June 9")),
    ],
)
def test_a_correction_of_the_value_alone_finds_the_held_value_of_its_shape(text: str, current, expected) -> None:
    (draft,) = extract(text, current)
    assert (draft.op, draft.subject, draft.predicate, draft.value) == ("supersede", *expected)
    assert draft.valid_from == current[0].valid_from  # it was never the old value


@pytest.mark.parametrize(
    ("text", "current"),
    [
        ("correction: it's October 23", []),  # nothing held of the shape
        ("correction: it's October 23", [_held_at("wedding", "October 13", "2026-08-03T10:00:00.000000Z"),
                                         _held_at("exam", "October 2", "2026-08-03T10:00:00.000000Z")]),  # two from the last write
        ("it's October 23", [_held_at("wedding", "October 13", "2026-08-03T10:00:00.000000Z")]),  # no correction said
        ("correction: it's Quarrendon", [_held_at("wedding", "October 13", "2026-08-03T10:00:00.000000Z")]),  # no shape
    ],
)
def test_a_value_alone_with_no_held_value_of_its_shape_or_several_corrects_nothing(text: str, current) -> None:
    assert [d for d in extract(text, current) if d.op == "supersede" and not d.drop_reason] == []


@pytest.mark.parametrize(("text", "current", "expected"), [
    # nothing held of the old tool: the new one is what is used now (with what for, said right after it)
    ("switched from Vimbly to Zedra for coding", [], [("add", "uses", "Zedra for coding")]),
    ("I switched from Vimbly to Zedra last week", [], []),  # for nothing said: the slot is unknown
    # the old one held: it is replaced where it is held
    ("I switched from Vimbly to Zedra", [held("uses", "Vimbly for coding", "many")], [("supersede", "uses", "Zedra for coding")]),
])
def test_a_switch_from_one_tool_to_another(text: str, current, expected) -> None:
    assert summary(text, current) == expected


def test_every_quote_is_a_substring_of_the_turn() -> None:
    text = "Oh and I moved to Lisbon last month. I love jazz! My name is Ana and I work at Acme Corp since 2019."
    drafts = extract(text)
    assert len(drafts) == 4
    assert all(d.quote in text for d in drafts)


# -- widened patterns (issue 9) ---------------------------------------------------------------------


def on(subject: str, predicate: str, value: str, cardinality: str = "one", valid_from: str = "2020-01-01T00:00:00.000000Z") -> ClaimVersion:
    return ClaimVersion(
        id=1, scope="s", subject=subject, subject_key=subject.casefold(), predicate=predicate, cardinality=cardinality,  # type: ignore[arg-type]
        value=value, value_key=value.casefold(), valid_from=valid_from, valid_to=None, tx_from=valid_from,
        tx_to=None, opened_by=1, closed_by=None,
    )


def full(text: str, current: list[ClaimVersion] = ()) -> list[tuple]:
    return [(d.op, d.subject, d.predicate, d.value, (d.valid_from or "")[:10] or None) for d in extract(text, current)]


# SAID is Saturday 14 March 2026.
@pytest.mark.parametrize(
    ("text", "current", "expected"),
    [
        ("I switched from Acme to Globex", [held("works_at", "Acme")], [("supersede", "user", "works_at", "Globex", None)]),
        ("I switched jobs to Globex", [], [("add", "user", "works_at", "Globex", None)]),
        ("I'm now at Initech", [held("works_at", "Acme")], [("supersede", "user", "works_at", "Initech", None)]),
        ("I'm now at Initech as a designer", [], [("add", "user", "works_at", "Initech", None)]),
        ("I started working at Hooli last month", [], [("add", "user", "works_at", "Hooli", "2026-02-01")]),
        ("I got a new job at Globex in January", [held("works_at", "Acme")], [("supersede", "user", "works_at", "Globex", "2026-01-01")]),
        ("I moved to Porto", [held("lives_in", "Lisbon")], [("supersede", "user", "lives_in", "Porto", None)]),
        ("I no longer live in Berlin", [held("lives_in", "Berlin")], [("retract", "user", "lives_in", "Berlin", None)]),
        ("I don't live in Berlin anymore", [], [("retract", "user", "lives_in", "Berlin", None)]),
        ("I went to the support group yesterday", [], [("add", "user", "did", "went to the support group on 13 March 2026", "2026-03-13")]),
        ("I went to a LGBTQ support group yesterday and it was so powerful.", [],
         [("add", "user", "did", "went to a LGBTQ support group on 13 March 2026", "2026-03-13")]),
        ("Last Saturday I ran a charity race", [], [("add", "user", "did", "ran a charity race on 7 March 2026", "2026-03-07")]),
        ("I ran a charity race last Saturday!", [], [("add", "user", "did", "ran a charity race on 7 March 2026", "2026-03-07")]),
        ("Yesterday, we went camping at the lake", [], [("add", "user", "did", "went camping at the lake on 13 March 2026", "2026-03-13")]),
        ("I went to Paris in 2019", [], [("add", "user", "did", "went to Paris in 2019", "2019-01-01")]),
        ("My sister's wedding is on June 3", [], [("add", "user", "has_event", "sister's wedding on 3 June 2026", "2026-03-14")]),
        ("I have a dentist appointment on Friday", [], [("add", "user", "has_event", "dentist appointment on 20 March 2026", "2026-03-14")]),
        ("I don't like coffee anymore, I prefer tea", [held("likes", "coffee", "many")],
         [("retract", "user", "likes", "coffee", None), ("add", "user", "likes", "tea", None)]),
        ("I prefer tea over coffee", [], [("add", "user", "likes", "tea", None)]),
        ("My sister Anna lives in Rome", [], [("add", "Anna", "relation", "sister", None), ("add", "Anna", "lives_in", "Rome", None)]),
        ("My sister lives in Rome", [], [("add", "user's sister", "lives_in", "Rome", None)]),
        ("My boss works at Initech", [], [("add", "user's boss", "works_at", "Initech", None)]),
        ("Anna moved to Milan", [on("Anna", "lives_in", "Rome")], [("supersede", "Anna", "lives_in", "Milan", None)]),
        ("My mom loves gardening and lives in Perth.", [],
         [("add", "user's mom", "likes", "gardening", None), ("add", "user's mom", "lives_in", "Perth", None)]),
        ("My sister got married last June", [], [("add", "user's sister", "did", "got married in June 2025", "2025-06-01")]),
        # a thing done on a day the clause names, with any past form, with or without its "I"
        ("we got the keys to the allotment shed yesterday!!", [], [("add", "user", "did", "got the keys to the allotment shed on 13 March 2026", "2026-03-13")]),
        ("submitted the grant form on Thursday", [], [("add", "user", "did", "submitted the grant form on 12 March 2026", "2026-03-12")]),
        ("collected our foster kitten a fortnight ago", [], [("add", "user", "did", "collected our foster kitten on 28 February 2026", "2026-02-28")]),
        # ... but not what was done in the chat ("I gave you the wrong date yesterday")
        ("wait I gave you the wrong date yesterday", [], []),
        ("I sent you the wrong file on Monday, sorry", [], []),
        ("Elspeth passed her driving test yesterday", [on("Elspeth", "relation", "sister")],
         [("add", "Elspeth", "did", "passed her driving test on 13 March 2026", "2026-03-13")]),
        ("got promoted to buyer II the day before yesterday", [],
         [("add", "user", "job_title", "buyer II", "2026-03-12"), ("add", "user", "did", "got promoted to buyer II on 12 March 2026", "2026-03-12")]),
        ("first day at Dunnock & Velmar was yesterday", [], [("add", "user", "works_at", "Dunnock & Velmar", "2026-03-13")]),
        # a spaced dash before a new subject ends a clause; "so if …" ends a name; a lead-in may hold a digit
        ("Ondrea is our PM, not my manager — my manager is Bo Larkin", [held("manager", "Ondrea")],
         [("add", "user", "pm", "Ondrea", None), ("supersede", "user", "manager", "Bo Larkin", None)]),
        ("my manager is Ondrea so if I mention her, that's who", [], [("add", "user", "manager", "Ondrea", None)]),
        ("rough-ish plan: 2 nights at Hotel Varnholm", [], [("add", "user", "stays_at", "Hotel Varnholm", "2026-03-14")]),  # a lead-in, no hedge
        ("correction x2: standup's 10:20 not 10:05", [held("standup", "10:05")], [("supersede", "user", "standup", "10:20", "2020-01-01")]),
        ("my gf Wenna's bday is on the 17th", [], [("add", "Wenna", "relation", "girlfriend", None), ("add", "Wenna", "birthday", "the 17th", None)]),
        # "she" after someone's thing is that person; "her X is Y" is the one person holding X (never the user's)
        ("my gf Wenna's bday is on the 17th, she's vegetarian", [],
         [("add", "Wenna", "relation", "girlfriend", None), ("add", "Wenna", "birthday", "the 17th", None), ("add", "Wenna", "diet", "vegetarian", None)]),
        ("i got it wrong, her bday is the 19th not the 17th", [on("Wenna", "birthday", "the 17th"), on("Wenna", "relation", "girlfriend", "many")],
         [("supersede", "Wenna", "birthday", "the 19th", "2020-01-01")]),
        ("his school is Tarn Academy now", [on("Corvinel", "school", "Wenlock Primary"), on("Bo", "school", "Elm High")], []),
        ("correction on Seluna: her birthday is 9 July, not 2 July", [on("Seluna", "relation", "niece", "many")],
         [("add", "Seluna", "birthday", "9 July", None)]),  # the person the lead-in names
        # a person's name corrected: all they hold (who they are too) is the corrected name's, over the same time
        ("and it's Tobren not Tobran, my typo", [on("Tobran", "relation", "partner", "many"), on("Tobran", "diet", "vegan")],
         [("retract", "Tobran", "relation", "partner", "2020-01-01"), ("add", "Tobren", "relation", "partner", "2020-01-01"),
          ("retract", "Tobran", "diet", "vegan", "2020-01-01"), ("add", "Tobren", "diet", "vegan", "2020-01-01")]),
        ("Three weeks ago today I started as a courier at Orrinsby", [],
         [("add", "user", "works_at", "Orrinsby", "2026-02-21"), ("add", "user", "job_title", "courier", "2026-02-21")]),
    ],
)
def test_widened_patterns(text: str, current: list[ClaimVersion], expected: list[tuple]) -> None:
    assert full(text, current) == expected
    assert all(d.quote and d.quote in text for d in extract(text, current))


@pytest.mark.parametrize(
    "text",
    [
        "lol no, I don't live in Paris, that was a joke",  # a denial, not news
        "I'm now at the hospital",  # not a name, not work
        "I'm now at Heathrow",  # a name, but nothing says it is work
        "I switched to Linux",  # what slot? silent
        "I switched from Acme to Globex",  # nothing held named Acme
        "I went to the gym",  # no time words: not a dated event
        "I might go to the support group tomorrow",
        "Will you go to the concert next week?",
        "I went to the support group since 2019",  # a range is not one event
        "I have a question on Friday",  # not an event noun
        "Anna moved to Milan",  # Anna is no one the ledger knows
        "If my sister moves to Rome I'll visit",
        "I needed a break yesterday",  # wanting, thinking, saying: no thing done
        "thought about it all weekend yesterday",
        "had to cancel the plumber yesterday",  # a helper verb
        "finished yesterday",  # what was finished is not said
        "I walked the dog tomorrow",  # not past
        "started the new routine since January",  # a range is not one event
        "moved into the Tarn Lodge care home last week",  # a change of how things are: the state patterns' to read
    ],
)
def test_widened_patterns_stay_silent(text: str) -> None:
    assert extract(text) == []


def test_a_relation_named_is_that_person() -> None:
    assert full("My sister is called Anna", []) == [("add", "Anna", "relation", "sister", None)]


def test_a_corrected_event_date_replaces_the_event_at_its_new_date() -> None:
    october = on("user", "did", "went to the support group in October 2025", "many", "2025-10-01T00:00:00.000000Z")
    retract, add = extract("Actually it was in September, not October", [october])
    assert (retract.op, retract.value, retract.all_valid_time) == ("retract", october.value, True)
    assert (add.op, add.value, add.valid_from) == ("add", "went to the support group in September 2025", "2025-09-01T00:00:00.000000Z")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # she is the person just named in a role, not someone named before
        ("my old landlord was Quentor Ashby. my actual landlord is Sefa Marrock, she lives in Tarnmouth",
         ("Sefa Marrock", "lives_in", "Tarnmouth")),
        ("my dentist is Dr Ombery, he lives in Tarnmouth", ("Dr Ombery", "lives_in", "Tarnmouth")),
    ],
)
def test_a_pronoun_after_a_person_named_in_a_role(text: str, expected: tuple) -> None:
    found = [(d.subject, d.predicate, d.value) for d in extract(text) if d.predicate == "lives_in"]
    assert found == [expected], found


def test_a_pronoun_after_a_role_held_by_no_name_is_nobody_named() -> None:
    """'my bank is Monzo, she …': one capitalised word of a bank is no person the pronoun stands for."""
    assert [d for d in extract("my bank is Quellbank, she lives in Tarnmouth") if d.subject == "Quellbank"] == []


def test_a_note_that_says_its_change_ahead_replaces_the_held_note_from_then() -> None:
    """'bins go out wednesday night', then (in March) 'bin day's moving, thursday nights from april': the held
    note holds until April, the new one from April (plurals name the same things: bins/bin, night/nights)."""
    drafts = extract("for the record: council's moving bin day, thursday nights from april",
                     [held("note", "bins go out wednesday night", cardinality="many")])
    assert [(d.op, d.replaces, d.valid_from[:10]) for d in drafts] == [("supersede", "bins go out wednesday night", "2026-04-01")]
