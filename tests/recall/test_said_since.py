"""The prompt block never hides what was said since: beside every fact it shows, the later turns in scope
that mention the fact's slot or value ("said since"), the user's words before the assistant's, and an
assistant line never alone; the excerpts prefer the user's turns; a question about something never said
stays empty when only a neighbouring thing was said; the block stays within its bound (issue 20, part 3)."""

from __future__ import annotations

import dataclasses

import pytest

from factledger.digest import Digester, Journal, RulesExtractor, Turn
from factledger.ledger.times import parse_time
from factledger.recall import CHANGED_HEADING, EPISODES_HEADING, FACTS_HEADING, Recall, RecallConfig

from .conftest import define

pytestmark = pytest.mark.both_engines  # every test on SQLite and on PostgreSQL

SCOPE = "user:ondrea"
INITECH = "Not at Globex anymore, I'm with Initech now."
SINCE_INITECH = '  said since, 2026-04-03, user: "Not at Globex anymore, I\'m with Initech now."'


def say(journal: Journal, clock, when: str, text: str, *, role: str = "user", session: str = "s1",
        scope: str = SCOPE) -> int:
    clock.now = parse_time(when)
    outcome = journal.append(Turn(scope=scope, text=text, role=role, session=session, said_at=when))
    assert outcome.entry_id is not None, outcome
    return outcome.entry_id


def hold(ledger, clock, when: str, subject: str, predicate: str, value: str, *, source: int | None = None,
         scope: str = SCOPE) -> None:
    """A fact written as the digest writes it: in its own transaction at `when`, citing its turn."""
    clock.now = parse_time(when)
    with ledger.transaction(principal="digest:test") as tx:
        tx.add(scope, subject, predicate, value, valid_from=when,
               source=[f"journal:{source}"] if source is not None else None)


@pytest.fixture
def journal(clocked_ledger):
    return Journal(clocked_ledger)


@pytest.fixture
def globex(clocked_ledger, clock, journal):
    """works_at = Globex, said and digested in January."""
    define(clocked_ledger, clock, "works_at", "one", "{subject} works at {value}")
    said = say(journal, clock, "2026-01-10T09:00:00Z", "I work at Globex.")
    say(journal, clock, "2026-01-10T09:00:30Z", "Noted, you work at Globex.", role="assistant")
    hold(clocked_ledger, clock, "2026-01-10T09:05:00Z", "user", "works_at", "Globex", source=said)
    return said


def fact_lines(block, heading: str = FACTS_HEADING) -> list[str]:
    """The lines of one section of facts: held true (`FACTS_HEADING`) or changed since (`CHANGED_HEADING`)."""
    lines = block.text.splitlines()
    start = lines.index(heading) + 1
    ends = [i for i, line in enumerate(lines) if i >= start and line in (CHANGED_HEADING, EPISODES_HEADING)]
    return lines[start : ends[0] if ends else len(lines)]


def test_a_later_turn_that_contradicts_a_fact_is_shown_beside_it(clocked_ledger, clock, journal, globex, recall):
    say(journal, clock, "2026-04-03T18:00:00Z", INITECH, session="s2")  # journaled, never digested
    clock.now = parse_time("2026-04-05")
    block = recall.prompt("Where do I work?", SCOPE)
    # the turn says the fact changed: it is shown as held before, not as held true, with the turn under it
    assert FACTS_HEADING not in block.text.splitlines() and not block.facts
    lines = fact_lines(block, CHANGED_HEADING)
    assert lines[0].startswith("- user works at Globex")
    assert lines[1] == SINCE_INITECH  # right under the fact it contradicts
    (fact,) = block.changed
    assert [h.text for h in block.said_since(fact)] == [INITECH]
    assert [h.kind for h in block.hits] == ["fact", "episode"]  # what the host is shown, in order
    assert INITECH not in "\n".join(block.text.splitlines()[block.text.splitlines().index(CHANGED_HEADING) + 3 :])


@pytest.mark.parametrize(("later", "changed"), [
    ("Not at Globex anymore, I'm with Initech now.", True),  # the value named as ended
    ("I started a new job at Initech today.", True),  # a word of change, the value unsaid
    ("My badge at Globex does not work yet.", False),  # the value named, not as ended
    ("Work at Globex is still hectic.", False),
    ("Still at the same job, work is fine.", False),  # a word of staying
])
def test_a_turn_saying_the_fact_changed_moves_it_out_of_what_is_held_true(clocked_ledger, clock, journal, globex,
                                                                           recall, later, changed):
    say(journal, clock, "2026-04-03T18:00:00Z", later, session="s2")
    clock.now = parse_time("2026-04-05")
    block = recall.prompt("Where do I work?", SCOPE)
    assert [h.claim.value for h in (block.changed if changed else block.facts)] == ["Globex"]
    assert not (block.facts if changed else block.changed)


def test_the_digest_leaving_the_fact_as_it_was_still_shows_the_turn(clocked_ledger, clock, journal, recall):
    say(journal, clock, "2026-01-10T09:00:00Z", "I work at Globex.")
    Digester(clocked_ledger, RulesExtractor()).run()
    assert [c.value for c in clocked_ledger.current([SCOPE])] == ["Globex"]
    say(journal, clock, "2026-04-03T18:00:00Z", INITECH, session="s2")
    Digester(clocked_ledger, RulesExtractor()).run()  # whatever the rules make of it
    clock.now = parse_time("2026-04-05")
    block = recall.prompt("Where do I work?", SCOPE)
    current = [c.value for c in clocked_ledger.current([SCOPE])]
    if current == ["Globex"]:  # the digest missed the change: the turn is beside the stale fact
        assert SINCE_INITECH in block.text.splitlines()
    else:  # it caught it: the new value is the fact, and nothing hides it
        assert "Initech" in block.text and "user works at Globex" not in block.text


def test_what_was_said_before_the_fact_or_the_fact_itself_is_not_said_since(clocked_ledger, clock, journal, recall):
    define(clocked_ledger, clock, "works_at", "one", "{subject} works at {value}")
    say(journal, clock, "2026-01-02T09:00:00Z", "Globex called me for an interview.")
    said = say(journal, clock, "2026-01-10T09:00:00Z", "I work at Globex.")
    # digested a week later: a turn said between the source turn and the digest is still "since"
    between = say(journal, clock, "2026-01-12T09:00:00Z", "My badge at Globex does not work yet.")
    hold(clocked_ledger, clock, "2026-01-17T09:00:00Z", "user", "works_at", "Globex", source=said)
    clock.now = parse_time("2026-02-01")
    block = recall.prompt("Where do I work?", SCOPE)
    (fact,) = block.facts
    assert [h.episode.id for h in block.said_since(fact)] == [between]


def test_a_slot_mention_without_the_old_value_counts_for_a_one_slot(clocked_ledger, clock, journal, globex, recall):
    say(journal, clock, "2026-04-03T18:00:00Z", "I started a new job at Initech today.", session="s2")
    clock.now = parse_time("2026-04-05")
    block = recall.prompt("Where do I work?", SCOPE)
    assert '  said since, 2026-04-03, user: "I started a new job at Initech today."' in block.text.splitlines()


def test_a_many_slot_needs_its_value_mentioned(clocked_ledger, clock, journal, recall):
    said = say(journal, clock, "2026-01-10T09:00:00Z", "I like baking sourdough bread.")
    hold(clocked_ledger, clock, "2026-01-10T09:05:00Z", "user", "likes", "baking sourdough bread", source=said)
    say(journal, clock, "2026-02-01T09:00:00Z", "I bought bread at the market.")  # one word of three
    say(journal, clock, "2026-02-02T09:00:00Z", "I like cycling too.")  # the slot, not the value
    gave_up = say(journal, clock, "2026-03-01T09:00:00Z", "I gave up baking sourdough, no more starters.")
    clock.now = parse_time("2026-03-05")
    block = recall.prompt("sourdough", SCOPE)
    (fact,) = block.facts
    assert [h.episode.id for h in block.said_since(fact)] == [gave_up]


def test_the_current_sessions_turn_counts_before_any_digest(clocked_ledger, clock, journal, globex, recall):
    # the same Recall instance that answered before the turn was journaled (caches warmed)
    clock.now = parse_time("2026-04-03T17:59:00Z")
    assert "said since" not in recall.prompt("Where do I work?", SCOPE).text
    say(journal, clock, "2026-04-03T18:00:00Z", INITECH, session="s2")
    assert SINCE_INITECH in recall.prompt("Where do I work?", SCOPE).text.splitlines()


def test_as_of_sees_only_what_had_been_said_and_known_then(clocked_ledger, clock, journal, globex, recall):
    say(journal, clock, "2026-04-03T18:00:00Z", INITECH, session="s2")
    clock.now = parse_time("2026-04-05")
    assert "said since" not in recall.prompt("Where do I work?", SCOPE, valid_at="2026-03-01").text
    assert "said since" not in recall.prompt("Where do I work?", SCOPE, known_at="2026-03-01").text
    assert SINCE_INITECH in recall.prompt("Where do I work?", SCOPE, valid_at="2026-04-04").text.splitlines()


def test_another_scopes_turn_is_not_said_since(clocked_ledger, clock, journal, globex, recall):
    say(journal, clock, "2026-04-03T18:00:00Z", INITECH, scope="user:someone-else")
    clock.now = parse_time("2026-04-05")
    block = recall.prompt("Where do I work?", SCOPE)
    assert block.facts and "said since" not in block.text


def test_a_question_is_not_said_since(clocked_ledger, clock, journal, globex, recall):
    say(journal, clock, "2026-04-03T18:00:00Z", "Do you think Globex will promote me?", session="s2")
    clock.now = parse_time("2026-04-05")
    assert "said since" not in recall.prompt("Where do I work?", SCOPE).text


def test_an_assistant_restatement_is_never_shown_alone(clocked_ledger, clock, journal, globex, recall):
    say(journal, clock, "2026-04-03T18:00:00Z", "Let's plan the sprint.", session="s2")
    say(journal, clock, "2026-04-03T18:00:30Z", "Sure. Since you left Globex for Initech, which board do you use?",
        role="assistant", session="s2")
    clock.now = parse_time("2026-04-05")
    block = recall.prompt("Where do I work?", SCOPE)
    assert block.facts and "said since" not in block.text  # the assistant's words never stand in for the user's
    assert "Initech" not in block.text


def test_an_assistant_line_is_shown_only_after_the_user_turn_it_answers(clocked_ledger, clock, journal, globex, recall):
    say(journal, clock, "2026-04-03T18:00:00Z", INITECH, session="s2")
    say(journal, clock, "2026-04-03T18:00:30Z", "Congratulations on leaving Globex for Initech!", role="assistant",
        session="s2")
    clock.now = parse_time("2026-04-05")
    lines = fact_lines(recall.prompt("Where do I work?", SCOPE), CHANGED_HEADING)
    assert lines[1] == SINCE_INITECH
    assert lines[2] == '  said since, 2026-04-03, assistant: "Congratulations on leaving Globex for Initech!"'


def test_excerpts_prefer_the_users_words(clocked_ledger, clock, journal, recall):
    say(journal, clock, "2026-03-01T09:00:00Z", "The Ridge Loop trail was muddy after the storm.")
    say(journal, clock, "2026-03-01T09:00:30Z", "Sounds like a tough walk.", role="assistant")
    say(journal, clock, "2026-03-08T09:00:00Z", "What should I pack for Sunday?", session="s2")
    say(journal, clock, "2026-03-08T09:00:30Z", "For the Ridge Loop trail after a storm, pack gaiters and poles.",
        role="assistant", session="s2")
    clock.now = parse_time("2026-03-10")
    block = recall.prompt("what did I say about the Ridge Loop trail storm", SCOPE)
    roles = [h.episode.role for h in block.episodes]
    assert roles and roles[0] == "user"
    for i, hit in enumerate(block.episodes):  # an assistant line only right after the turn it answers
        if hit.episode.role == "assistant":
            assert i > 0 and block.episodes[i - 1].episode.role == "user"
            assert block.episodes[i - 1].episode.session == hit.episode.session


def test_an_assistant_excerpt_about_the_users_own_things_comes_with_the_user_statement_it_answers(clocked_ledger, clock, journal, recall):
    """A question of the user's own things: an assistant turn matched alone (no user turn matched) is
    shown only after the user turn it answers, and not at all when that turn only asked."""
    say(journal, clock, "2026-03-01T09:00:00Z", "quick context: builds run on Quarrywell CI")
    say(journal, clock, "2026-03-01T09:00:30Z", "Noted: your pipelines are on Quarrywell.", role="assistant")
    say(journal, clock, "2026-03-08T09:00:00Z", "how do I speed them up?", session="s2")
    say(journal, clock, "2026-03-08T09:00:30Z", "Cache the Gradle pipelines between builds.", role="assistant", session="s2")
    clock.now = parse_time("2026-03-10")
    block = recall.prompt("what runs my pipelines?", SCOPE)
    texts = [h.text for h in block.episodes]
    assert "Cache the Gradle pipelines between builds." not in texts  # it answered a question of the user's
    if "Noted: your pipelines are on Quarrywell." in texts:
        at = texts.index("Noted: your pipelines are on Quarrywell.")
        assert at > 0 and texts[at - 1] == "quick context: builds run on Quarrywell CI"
    assert not [h for h in block.episodes if h.episode.role == "assistant"] or any(h.episode.role == "user" for h in block.episodes)


def test_a_fact_answering_part_of_a_question_leaves_room_for_the_turns(clocked_ledger, clock, journal, globex, recall):
    """A present question a fact answers whole shows no excerpts (what was said before is noise); one
    asking more than the fact says ("days or nights") gets the turns that may say the rest."""
    say(journal, clock, "2026-02-01T09:00:00Z", "rota's changed, I'm on nights for the whole of spring")
    clock.now = parse_time("2026-02-05")
    whole = recall.prompt("Where do I work?", SCOPE)
    assert whole.facts and not whole.episodes
    part = recall.prompt("Am I working days or nights?", SCOPE)
    assert part.facts and any("nights" in h.text for h in part.episodes)


def test_a_later_turn_with_a_codes_next_value_is_shown_after_the_excerpt(clocked_ledger, clock, journal, recall, index_dir, embedder):
    """'salary band Q4' then 'I'm Q5 now': no name or unit ties the later turn to the excerpt, the code's
    next value does (the same letters, other digits; a version's same major, another minor)."""
    say(journal, clock, "2026-01-20T09:00:00Z", "budget help: I'm in salary band Q4 at work and our services run on tern 2.14")
    say(journal, clock, "2026-03-02T09:00:00Z", "promo went through, I'm Q5 now", session="s2")
    say(journal, clock, "2026-03-09T09:00:00Z", "still Q5, no change", session="s3")
    say(journal, clock, "2026-03-10T09:00:00Z", "unrelated: the Q word is quiet", session="s4")
    clock.now = parse_time("2026-04-01")
    texts = [h.text for h in recall.prompt("what salary band am I in?", SCOPE).episodes]
    at = texts.index("budget help: I'm in salary band Q4 at work and our services run on tern 2.14")
    assert texts[at + 1] == "still Q5, no change"  # the newest later turn with the code's next value
    assert "unrelated: the Q word is quiet" not in texts
    # only where the scopes' turns are few enough to read whole (`local_scan_items`): a code's next value
    # has no word to look it up by, and a large store's turns are not read on every prefetch for it
    few = Recall(clocked_ledger, index_dir, config=dataclasses.replace(RecallConfig(), local_scan_items=3), embedder=embedder)
    try:
        assert "still Q5, no change" not in [h.text for h in few.prompt("what salary band am I in?", SCOPE).episodes]
    finally:
        few.close()


def test_a_never_said_neighbour_stays_empty(clocked_ledger, clock, journal, globex, recall):
    say(journal, clock, "2026-02-01T09:00:00Z", "The staging DB host is db-staging.internal, port 5433.")
    say(journal, clock, "2026-02-01T09:00:30Z", "Got it: staging database host db-staging.internal.", role="assistant")
    clock.now = parse_time("2026-02-05")
    assert recall.prompt_block("What is the production DB host?", SCOPE) == ""
    assert recall.prompt_block("production database host", SCOPE) == ""
    assert recall.prompt_block("Where does my wife work?", SCOPE) == ""  # no wife was ever mentioned
    # positive controls in the same store: what was said is found
    assert "db-staging.internal" in recall.prompt_block("What is the staging DB host?", SCOPE)
    assert "user works at Globex" in recall.prompt_block("Where do I work?", SCOPE)
    assert "user works at Globex" in recall.prompt_block("What's my current job?", SCOPE)


def test_a_relative_never_mentioned_is_nobody_here(clocked_ledger, clock, journal, recall):
    define(clocked_ledger, clock, "lives_in", "one", "{subject} lives in {value}")
    said = say(journal, clock, "2026-01-20T19:00:00Z", "My sister Anja lives in Turku.")
    hold(clocked_ledger, clock, "2026-01-20T19:05:00Z", "Anja", "lives_in", "Turku", source=said)
    hold(clocked_ledger, clock, "2026-01-20T19:05:01Z", "Anja", "relation", "sister", source=said)
    clock.now = parse_time("2026-02-05")
    assert recall.prompt_block("Where does my brother live?", SCOPE) == ""
    assert recall.search("Where does my brother live?", SCOPE, kinds="fact") == []  # the agent's search too
    assert "Turku" in recall.prompt_block("Where does my sister live?", SCOPE)  # the one who was mentioned
    assert [h.claim.value for h in recall.search("Where does my sister live?", SCOPE, kinds="fact")][:1] == ["Turku"]


def test_a_thing_never_said_of_someone_only_mentioned_is_nothing(clocked_ledger, clock, journal, recall):
    """"Tamsin's phone number" when only "I report to Tamsin" was said: neither the block nor the search answers
    with the manager fact; a thing that was said of the person still is."""
    define(clocked_ledger, clock, "manager", "one", "{subject}'s manager is {value}")
    said = say(journal, clock, "2026-03-02T09:00:00Z", "I report to Tamsin Adeyi now, she runs the platform group.")
    hold(clocked_ledger, clock, "2026-03-02T09:05:00Z", "user", "manager", "Tamsin Adeyi", source=said)
    clock.now = parse_time("2026-03-10")
    for question in ("What's Tamsin's phone number?", "what is Tamsin's home address"):
        assert recall.prompt_block(question, SCOPE) == "", question
        assert recall.search(question, SCOPE, kinds="fact") == [], question  # no fact answers it
    assert "Tamsin Adeyi" in recall.prompt_block("Who is my manager?", SCOPE)
    assert "Tamsin Adeyi" in recall.prompt_block("What does Tamsin's group run?", SCOPE)  # "group" was said


def test_the_search_drops_a_neighbour_never_said_like_the_block(clocked_ledger, clock, journal, recall):
    define(clocked_ledger, clock, "weekly_sync", "one", "{subject}'s weekly sync is {value}")
    said = say(journal, clock, "2026-02-24T09:00:00Z", "My weekly sync with the design team is on Tuesdays at 10.")
    hold(clocked_ledger, clock, "2026-02-24T09:05:00Z", "user", "weekly_sync", "with the design team on Tuesdays at 10",
         source=said)
    clock.now = parse_time("2026-03-01")
    assert recall.search("When is my marketing sync?", SCOPE, kinds="fact") == []
    assert recall.prompt_block("When is my marketing sync?", SCOPE) == ""
    assert recall.search("When is my design sync?", SCOPE, kinds="fact")  # the one that was said


def test_the_block_stays_bounded_and_never_shows_a_fact_without_its_since(clocked_ledger, clock, journal, recall,
                                                                             index_dir, embedder):
    for i in range(8):
        said = say(journal, clock, f"2026-01-{10 + i:02d}T09:00:00Z", f"I keep a kite called Gale{i}.")
        hold(clocked_ledger, clock, f"2026-01-{10 + i:02d}T09:05:00Z", "user", "has_kite", f"a kite called Gale{i}",
             source=said)
    for i in range(8):
        for n in range(3):
            say(journal, clock, f"2026-03-{1 + i:02d}T09:0{n}:00Z",
                f"The kite Gale{i} tore again on the beach, attempt {n}; " + "the wind was strong " * 12)
    clock.now = parse_time("2026-04-01")
    for config in (recall.config, recall.config.but(prompt_chars=500), recall.config.but(prompt_chars=300)):
        engine = Recall(clocked_ledger, index_dir, config=config, embedder=embedder)
        block = engine.prompt("kite called Gale", SCOPE)
        assert 0 < len(block.text) <= config.prompt_chars
        assert block.facts
        for fact in block.facts:  # each fact shown with its newest evidence, within the per-fact bound
            later = block.said_since(fact)
            assert 1 <= len(later) <= config.prompt_since_items
        lines = block.text.splitlines()
        assert sum(line.startswith("  said since, ") for line in lines) == sum(len(s) for s in block.since)
    # too small for a fact and its evidence: no fact at all rather than one hiding what was said since
    tiny = Recall(clocked_ledger, index_dir, config=recall.config.but(prompt_chars=200), embedder=embedder)
    assert not tiny.prompt("kite called Gale", SCOPE).facts


def test_one_statement_finds_every_facts_turns(clocked_ledger, clock, journal, globex, recall, monkeypatch):
    define(clocked_ledger, clock, "lives_in", "one", "{subject} lives in {value}")
    said = say(journal, clock, "2026-01-11T09:00:00Z", "I live in Lyon.")
    hold(clocked_ledger, clock, "2026-01-11T09:05:00Z", "user", "lives_in", "Lyon", source=said)
    say(journal, clock, "2026-04-03T18:00:00Z", INITECH, session="s2")
    say(journal, clock, "2026-04-04T18:00:00Z", "We left Lyon last week.", session="s2")
    clock.now = parse_time("2026-04-05")
    calls = []
    original = recall.recorder.said_since
    monkeypatch.setattr(recall.recorder, "said_since", lambda *a, **k: calls.append(1) or original(*a, **k))
    block = recall.prompt("where do I work and where do I live", SCOPE)
    assert len(block.changed) == 2 and len(calls) == 1  # both turns say their fact changed
    assert all(block.said_since(f) for f in block.changed)


def test_a_present_question_shows_the_newest_turn_about_it(clocked_ledger, clock, journal, recall):
    """No fact holds the gym; the best-matching excerpts are the older turns ("gym" said more densely
    there), but what the user said since about it is in the block too, and it is the newest line."""
    for day, text in (("01-05", "My gym is Boulder One. Gym nights: Tuesday."), ("01-12", "Gym again, gym was busy."),
                      ("01-19", "The gym had new gym routes."), ("02-05", "Boulder One gym packed, gym needs walls.")):
        say(journal, clock, f"2026-{day}T09:00:00Z", text)
    say(journal, clock, "2026-04-02T18:00:00Z", "I cancelled that membership; my gym these days is Klimmhal Noord, "
        "closer to the office and open late on weekdays.", session="s2")
    clock.now = parse_time("2026-04-10")
    block = recall.prompt("which gym do I go to?", SCOPE)
    said = [h.text for h in block.episodes]
    assert any("Klimmhal Noord" in text for text in said), block.text
    newest = max(block.episodes, key=lambda h: h.episode.said_at)
    assert "Klimmhal Noord" in newest.text
    # a question about then is answered from then: the turn said since is not added to it
    past = recall.prompt("which gym did I go to in January?", SCOPE, valid_at="2026-01-31")
    assert "Klimmhal Noord" not in past.text


def test_a_relatives_name_never_said_is_not_answered(clocked_ledger, clock, journal, recall):
    say(journal, clock, "2026-03-01T09:00:00Z", "My wife starts at the clinic on Monday, so I do the school run.")
    clock.now = parse_time("2026-03-05")
    assert recall.prompt_block("What's my wife's name?", SCOPE) == ""  # mentioned, never named
    assert "clinic" in recall.prompt_block("Where does my wife work?", SCOPE)  # what was said of her still is
    say(journal, clock, "2026-03-06T09:00:00Z", "My wife Liesel loved the new clinic.")
    clock.now = parse_time("2026-03-07")
    assert "Liesel" in recall.prompt_block("What's my wife's name?", SCOPE)


def test_a_thing_of_two_words_never_said_stays_empty(clocked_ledger, clock, journal, recall):
    say(journal, clock, "2026-03-01T09:00:00Z", "New maxes this week: squat max 140 kg, bench max 100 kg.")
    say(journal, clock, "2026-03-02T09:00:00Z", "The mortgage is with Rabo, 25 years, we signed in May.")
    clock.now = parse_time("2026-03-05")
    assert recall.prompt_block("What's my overhead press max?", SCOPE) == ""  # only squat and bench were said
    assert recall.prompt_block("What is my leg press max?", SCOPE) == ""
    assert "140 kg" in recall.prompt_block("What's my squat max?", SCOPE)
    assert "Rabo" in recall.prompt_block("Who is our mortgage with?", SCOPE)


@pytest.mark.parametrize(("query", "text", "never_said", "elsewhere"), [
    # a word judging the thing is not another one of its kind
    ("what is the backup warehouse address?", "it went to the wrong warehouse in Leeds", {"backup"}, False),
    ("what is the backup warehouse address?", "the old warehouse is at 5 Mill Rd", {"backup"}, False),
    # a word telling it apart is
    ("what is the south warehouse address?", "the north warehouse is at 5 Mill Rd", {"south"}, True),
    # a word of when is no kind of the month it dates
    ("where am I travelling in early October?", "I shall attend the forum in Lisgarth from 5 to 7 October", {"early", "travelling"}, False),
])
def test_what_qualifies_a_thing_elsewhere(query, text, never_said, elsewhere):
    from factledger.recall.text import qualified_elsewhere
    assert qualified_elsewhere(query, text, frozenset(never_said)) is elsewhere


@pytest.mark.parametrize(("query", "text", "never_said", "elsewhere"), [
    # the thing asked of a place never said, given at another place
    ("what's the alarm code at the studio?", "note: alarm code at the lockup is 7702", {"studio"}, True),
    ("what's the door code in the annexe?", "the door code in the basement is 2231", {"annexe"}, True),
    # ... the place said: that turn may answer
    ("what's the alarm code at the studio?", "note: alarm code at the studio is 7702", set(), False),
    # ... or given with no place: it may be the one asked of
    ("what's the alarm code at the studio?", "new alarm code 7702", {"studio"}, False),
])
def test_a_thing_asked_of_a_place_given_at_another(query, text, never_said, elsewhere):
    from factledger.recall.text import placed_elsewhere
    assert placed_elsewhere(query, text, frozenset(never_said)) is elsewhere


def test_a_note_a_later_turn_changes_is_held_before(clocked_ledger, clock, journal, recall):
    said = say(journal, clock, "2026-01-05T09:00:00Z", "remember: dentist Dr. Ode, appt 9 Feb 10:40")
    hold(clocked_ledger, clock, "2026-01-05T09:05:00Z", "user", "note", "dentist Dr. Ode, appt 9 Feb 10:40", source=said)
    say(journal, clock, "2026-02-01T09:00:00Z", "dentist moved to 16 Feb, same time")
    say(journal, clock, "2026-02-02T09:00:00Z", "the 9 Feb parking is sorted")  # names no note word: no change to it
    clock.now = parse_time("2026-02-05")
    block = recall.prompt("when's my dentist appointment?", SCOPE)
    assert [h.claim.value for h in block.changed] == ["dentist Dr. Ode, appt 9 Feb 10:40"] and not block.facts
    assert '  said since, 2026-02-01, user: "dentist moved to 16 Feb, same time"' in block.text.splitlines()


def test_a_question_finds_a_turn_that_says_its_thing_otherwise(clocked_ledger, clock, journal, recall):
    say(journal, clock, "2026-01-05T09:00:00Z", "we're getting married!!! aiming for 6 June, shortlist is two barns")
    say(journal, clock, "2026-01-06T09:00:00Z", "flights booked, Leeds to Faro on 14 May")
    clock.now = parse_time("2026-02-05")
    assert "6 June" in recall.prompt("when's the wedding?", SCOPE).text
    assert "14 May" in recall.prompt("when do I fly out?", SCOPE).text
    assert recall.prompt("who's doing our flowers?", SCOPE).text == ""  # nothing said otherwise either


@pytest.mark.parametrize(("later", "changed"), [
    ("Glenmorie cancelled on me!! rebooked with another firm, pickup is still on the 3rd", True),  # a name of it, ended
    ("Glenmorie emailed the pickup details, still on the 3rd", False),  # a name of it, not ended
])
def test_a_turn_ending_something_a_value_names_moves_it_out(clocked_ledger, clock, journal, recall, later, changed):
    """A many-valued fact ("booked a rental car with Glenmorie Car Hire, …") changes when a later turn of
    the user's ends something it names ("Glenmorie cancelled on me"), though it never repeats the whole value."""
    define(clocked_ledger, clock, "booked", "many", "{subject} booked {value}")
    said = say(journal, clock, "2026-03-03T09:00:00Z", "I've booked a rental car with Glenmorie Car Hire, pickup in Dunvarra on the 3rd")
    hold(clocked_ledger, clock, "2026-03-03T09:05:00Z", "user", "booked", "a rental car with Glenmorie Car Hire, pickup in Dunvarra on the 3rd", source=said)
    say(journal, clock, "2026-04-22T18:00:00Z", later, session="s2")
    clock.now = parse_time("2026-04-25")
    block = recall.prompt("who's my rental car with?", SCOPE)
    assert [h.claim.value for h in (block.changed if changed else block.facts)] == ["a rental car with Glenmorie Car Hire, pickup in Dunvarra on the 3rd"]


def test_a_facts_own_turn_is_shown_when_it_says_more_than_the_fact(clocked_ledger, clock, journal, recall):
    """'rebooked the car with Fasach Rentals, and pickup is 14 Sept now' became the fact 'booked the car with
    Fasach Rentals': the turn still says what the fact does not, so a question about it shows the turn."""
    define(clocked_ledger, clock, "booked", "many", "{subject} booked {value}")
    # older turns that match the question better crowd the excerpts (three of them)
    say(journal, clock, "2026-03-03T09:00:00Z", "Planning a road trip, I've booked a rental car, car pickup day is 13 Sept.")
    say(journal, clock, "2026-03-03T09:01:00Z", "What day is best to pick up a car, do I pick up the car early?")
    say(journal, clock, "2026-03-03T09:02:00Z", "The car pickup day matters, pick up the car at the depot, day one.")
    say(journal, clock, "2026-03-03T09:03:00Z", "Pick up the car on day one of the trip, the pickup day is set.")
    said = say(journal, clock, "2026-04-22T09:00:00Z", "Rebooked the car with Fasach Rentals, and pickup is 14 Sept now.", session="s2")
    hold(clocked_ledger, clock, "2026-04-22T09:05:00Z", "user", "booked", "the car with Fasach Rentals", source=said)
    clock.now = parse_time("2026-05-01")
    block = recall.prompt("what day do I pick up the car?", SCOPE)
    assert "14 Sept" in block.text



def test_a_city_lived_in_is_no_address(clocked_ledger, clock, journal, recall):
    """'what's my address in Tarrowby?' when only the city was said: the city is no answer to it (an
    address is a street's), so nothing here answers."""
    define(clocked_ledger, clock, "lives_in", "one", "{subject} lives in {value}")
    said = say(journal, clock, "2026-01-10T09:00:00Z", "I moved to Tarrowby last Saturday.")
    hold(clocked_ledger, clock, "2026-01-10T09:05:00Z", "user", "lives_in", "Tarrowby", source=said)
    clock.now = parse_time("2026-02-01")
    assert recall.prompt("what's my address in Tarrowby?", SCOPE).text == ""
    assert "Tarrowby" in recall.prompt("where do I live?", SCOPE).text


def test_a_relative_never_mentioned_by_any_word_is_nobody_here(clocked_ledger, clock, journal, recall):
    """After 'my grandma lives in Tarrowby', 'my grandad' was never mentioned by any of his words, so
    nothing here is about him."""
    say(journal, clock, "2026-01-10T09:00:00Z", "My grandma lives in Tarrowby, in a flat by the harbour.")
    clock.now = parse_time("2026-02-01")
    assert "Tarrowby" in recall.prompt("where does my grandma live?", SCOPE).text
    assert recall.prompt("where does my grandad live?", SCOPE).text == ""
    assert recall.prompt("where does my grandfather live?", SCOPE).text == ""


def test_an_excerpts_relative_day_words_carry_their_day(clocked_ledger, clock, journal, recall):
    """A turn said in March that says "yesterday" is shown with the day it meant, not left for a reader
    in June to take as the day before they read it."""
    say(journal, clock, "2026-03-12T18:00:00Z", "Got my allotment keys yesterday, plot 14 by the shed!")
    clock.now = parse_time("2026-06-01")
    block = recall.prompt("when did I get my allotment keys?", SCOPE)
    assert '2026-03-12, user: "Got my allotment keys yesterday [2026-03-11], plot 14 by the shed!"' in block.text


def test_a_things_amount_changed_by_its_word_alone_is_held_before(clocked_ledger, clock, journal, recall):
    """"sertavex 50 mg" is named by "sertavex": a later turn changing its amount without the unit
    beside the number ("100mg") is said since, and moves it out of what is held true."""
    define(clocked_ledger, clock, "takes", "many", "{subject} takes {value}")
    said = say(journal, clock, "2026-01-05T09:00:00Z", "the GP started me on sertavex 50 mg in the mornings")
    hold(clocked_ledger, clock, "2026-01-05T09:05:00Z", "user", "takes", "sertavex 50 mg", source=said)
    say(journal, clock, "2026-02-01T09:00:00Z", "review went fine, she's bumping the sertavex to 100mg")
    clock.now = parse_time("2026-02-05")
    block = recall.prompt("what dose of sertavex am I on?", SCOPE)
    assert [h.claim.value for h in block.changed] == ["sertavex 50 mg"] and not block.facts
    assert '  said since, 2026-02-01, user: "review went fine, she\'s bumping the sertavex to 100mg"' in block.text.splitlines()


def test_a_notes_topic_said_in_another_form_is_said_since(clocked_ledger, clock, journal, recall):
    said = say(journal, clock, "2026-01-05T09:00:00Z", "note to self: bins go out tuesday night")
    hold(clocked_ledger, clock, "2026-01-05T09:05:00Z", "user", "note", "bins go out tuesday night", source=said)
    say(journal, clock, "2026-02-01T09:00:00Z", "council moved bin day to weds from next week")
    clock.now = parse_time("2026-02-05")
    block = recall.prompt("what day do the bins go out?", SCOPE)
    assert [h.claim.value for h in block.changed] == ["bins go out tuesday night"] and not block.facts
    assert '  said since, 2026-02-01, user: "council moved bin day to weds from next week"' in block.text.splitlines()


def test_where_someone_lives_never_said_stays_empty(clocked_ledger, clock, journal, recall):
    say(journal, clock, "2026-01-05T09:00:00Z", "my boyfriend Tregarron and I are adopting a cat next week!!")
    say(journal, clock, "2026-03-02T09:00:00Z", "Tregarron retired from the railway and moved to Treswell.", session="s2")
    say(journal, clock, "2026-03-03T09:00:00Z", "Ysella got a job at Velloran", session="s3")
    clock.now = parse_time("2026-03-10")
    assert recall.prompt("where does Ysella live?", SCOPE).text == ""  # named, never said where
    assert "Treswell" in recall.prompt("where does Tregarron live?", SCOPE).text


def test_an_older_excerpt_never_hides_a_newer_turn_naming_what_it_names(clocked_ledger, clock, journal, recall, index_dir,
                                                                       embedder):
    """No fact holds the app; the excerpt that matches is the older turn, and the turn that replaced what
    it names shares none of the question's words. It is shown right after the excerpt (the user's newest
    such turn; an assistant's line or a question never), and not in a block as of before it was said."""
    say(journal, clock, "2026-01-05T09:00:00Z", "I've been learning Welsh since March, mostly Tallyho, 20 minutes a day.")
    say(journal, clock, "2026-02-01T09:00:00Z", "Tallyho streak at 30 days!", session="s2")
    say(journal, clock, "2026-03-02T09:00:00Z", "ditched Tallyho last week, I'm on Corvex now", session="s3")
    say(journal, clock, "2026-03-02T09:00:30Z", "Tallyho or Corvex, both fine.", role="assistant", session="s3")
    say(journal, clock, "2026-03-03T09:00:00Z", "is Tallyho any good for grammar?", session="s4")
    clock.now = parse_time("2026-03-10")
    block = recall.prompt("which app do I use for Welsh?", SCOPE)
    said = [h.text for h in block.episodes]
    assert said[:2] == ["I've been learning Welsh since March, mostly Tallyho, 20 minutes a day.",
                        "ditched Tallyho last week, I'm on Corvex now"], block.text
    assert not any("both fine" in text or "grammar" in text for text in said), block.text
    off = Recall(clocked_ledger, index_dir, config=recall.config.but(prompt_since_items=0), embedder=embedder)
    assert "Corvex" not in off.prompt("which app do I use for Welsh?", SCOPE).text  # what the step adds
    off.close()
    before = recall.prompt("which app do I use for Welsh?", SCOPE, valid_at="2026-02-15", known_at="2026-02-15")
    assert "Corvex" not in before.text and "Tallyho" in before.text, before.text


def test_a_turn_shown_for_what_was_said_since_is_followed_in_turn(clocked_ledger, clock, journal, recall):
    """"mostly Tallyho" → "ditched Tallyho, on Corvex now" → "corvex got too pricey, Wendlit now": each
    later turn names what the one before it named, and the newest is shown too, in order."""
    say(journal, clock, "2026-01-05T09:00:00Z", "I've been learning Welsh since March, mostly Tallyho, 20 minutes a day.")
    say(journal, clock, "2026-03-02T09:00:00Z", "ditched tallyho last week, I'm on Corvex now", session="s2")
    say(journal, clock, "2026-05-02T09:00:00Z", "corvex got too pricey so it's Wendlit these days", session="s3")
    clock.now = parse_time("2026-05-10")
    said = [h.text for h in recall.prompt("which app do I use for Welsh?", SCOPE).episodes]
    assert said[:3] == ["I've been learning Welsh since March, mostly Tallyho, 20 minutes a day.",
                        "ditched tallyho last week, I'm on Corvex now", "corvex got too pricey so it's Wendlit these days"], said


def test_a_person_asked_of_then_is_also_the_relative_said_before_their_name(clocked_ledger, clock, journal, recall):
    """"my brother-in-law started as a welder" (January), then "Fennor, my brother-in-law, …" (March):
    asked about February by name, the January turn is his, as the ledger knows him now; a question
    about the present is not widened so ("when is Fennor's birthday?" was never said)."""
    define(clocked_ledger, clock, "relation", "many", "{subject} is the user's {value}")
    say(journal, clock, "2026-01-12T09:00:00Z", "My brother-in-law just started as a welder in Brannel.")
    named = say(journal, clock, "2026-03-02T09:00:00Z", "Fennor, my brother-in-law, got engaged!", session="s2")
    hold(clocked_ledger, clock, "2026-03-02T09:05:00Z", "Fennor", "relation", "brother-in-law", source=named)
    clock.now = parse_time("2026-03-10")
    then = recall.prompt("what was Fennor's job in February?", SCOPE, valid_at="2026-02-15")
    assert "welder" in then.text, then.text
    assert recall.prompt("when is Fennor's birthday?", SCOPE).text == ""


def test_a_later_turn_with_an_excerpts_unit_is_shown_after_it(clocked_ledger, clock, journal, recall):
    """"started quelvarin 50 mcg" then "the endocrinologist bumped me up to 75 mcg": the new amount is said
    without the thing's name, but in its unit."""
    say(journal, clock, "2026-01-05T09:00:00Z", "Health note: I started quelvarin 50 mcg every morning.")
    say(journal, clock, "2026-03-02T09:00:00Z", "Bloods came back. The endocrinologist bumped me up to 75 mcg.", session="s2")
    clock.now = parse_time("2026-03-10")
    said = [h.text for h in recall.prompt("what dose of quelvarin am I taking?", SCOPE).episodes]
    assert said == ["Health note: I started quelvarin 50 mcg every morning.",
                    "Bloods came back. The endocrinologist bumped me up to 75 mcg."], said


def test_someone_quitting_is_said_since_their_job(clocked_ledger, clock, journal, recall):
    define(clocked_ledger, clock, "works_at", "one", "{subject} works at {value}")
    said = say(journal, clock, "2026-01-10T09:00:00Z", "my friend Tamhas works at Corrowby Bakes")
    hold(clocked_ledger, clock, "2026-01-10T09:05:00Z", "Tamhas", "works_at", "Corrowby Bakes", source=said)
    # no word of work and no old value: "quit" beside the name says the job changed
    quit_ = say(journal, clock, "2026-03-01T09:00:00Z", "tamhas quit!!! she's opening her own place, Wenlow Deli")
    say(journal, clock, "2026-03-02T09:00:00Z", "I quit sugar this week")  # the user's, not Tamhas's
    clock.now = parse_time("2026-03-05")
    block = recall.prompt("where does Tamhas work?", SCOPE)
    (fact,) = block.changed  # and "quit" says it changed
    assert [h.episode.id for h in block.said_since(fact)] == [quit_]


def test_a_later_turn_about_the_same_person_and_thing_follows_the_excerpt(clocked_ledger, clock, journal, recall):
    """'what after-school club does Orrel do?': the excerpt that matches says swimming; the turn that replaced
    it names Orrel and swimming but none of the question's words. It is shown right after the excerpt."""
    said = say(journal, clock, "2026-01-05T09:00:00Z", "my daughter Orrel started year 2 today! she has gymnastics on thursdays after school")
    hold(clocked_ledger, clock, "2026-01-05T09:05:00Z", "Orrel", "relation", "daughter", source=said)
    say(journal, clock, "2026-02-01T09:00:00Z", "orrel gave up gymnastics, she's doing archery on sundays now", session="s2")
    say(journal, clock, "2026-02-02T09:00:00Z", "orrel loved the museum trip", session="s3")  # about her, nothing the excerpt said
    clock.now = parse_time("2026-03-10")
    block = recall.prompt("what after-school club does Orrel do?", SCOPE)
    said_lines = [h.text for h in block.episodes]
    at = said_lines.index("my daughter Orrel started year 2 today! she has gymnastics on thursdays after school")
    assert said_lines[at + 1] == "orrel gave up gymnastics, she's doing archery on sundays now", block.text
    assert not any("museum" in text for text in said_lines), block.text
