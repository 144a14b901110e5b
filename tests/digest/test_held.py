"""The held facts a model is shown for a window (digest/held.py): words, matching, ranking (pure, table
style), then the retrieval from a ledger on both engines, at 10,000 facts in one scope."""

from __future__ import annotations

import pytest

from factledger.digest.held import (
    CORE_LIMIT, HELD_LIMIT, held_for_window, like_patterns, matches, rank, relevance, stem, terms, window_texts, words,
)
from factledger.digest.model import JournalEntry
from factledger.ledger import ClaimVersion

SAID = "2026-09-21T10:30:00.000000Z"


def version(id: int, subject: str, predicate: str, value: str, *, cardinality: str = "one", valid_to: str | None = None,
            tx_from: str = "2026-01-01T00:00:00.000000Z") -> ClaimVersion:
    return ClaimVersion(
        id=id, scope="s", subject=subject, subject_key=subject.casefold(), predicate=predicate, cardinality=cardinality,  # type: ignore[arg-type]
        value=value, value_key=value.casefold(), valid_from="2025-01-01T00:00:00.000000Z", valid_to=valid_to,
        tx_from=tx_from, tx_to=None, opened_by=1, closed_by=None,
    )


def entry(id: int, text: str, role: str = "user") -> JournalEntry:
    return JournalEntry(id=id, scope="s", session="s1", role=role, text=text, said_at=SAID)  # type: ignore[arg-type]


# -- words ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("lives", "liv"), ("lived", "liv"), ("living", "liv"), ("live", "liv"),
        ("works", "work"), ("working", "work"), ("worked", "work"),
        ("running", "run"), ("runs", "run"),
        ("city", "citi"), ("cities", "citi"),
        ("boxes", "box"), ("class", "class"),
        ("manager", "manag"), ("managed", "manag"),
        ("postgres", "postgr"), ("postgresql", "postgresql"),
        ("user", "user"), ("kg", "kg"), ("14", "14"),
    ],
)
def test_stem(word: str, expected: str) -> None:
    assert stem(word) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm a backend engineer at Fernhill Analytics", ["backend", "engin", "fernhill", "analytic"]),
        ("Weighed in at 76 kg this morning.", ["weigh", "76", "kg", "morn"]),
        ("my sister moved to Oslo", ["sist", "mov", "oslo"]),
        ("Dr. Patel", ["patel"]),  # two letters name nothing unless they are a unit
        ("user's sister", ["user", "sist"]),
        ("ok thanks, got it!", []),
        ("Tomasz Wójcik", ["tomasz", "wójcik"]),
    ],
)
def test_words(text: str, expected: list[str]) -> None:
    assert words(text) == expected


def test_terms_put_names_and_numbers_first_and_stay_bounded() -> None:
    assert terms(["the billing service is on CockroachDB now, since Friday 12"]) == ("cockroachdb", "fridai", "12", "bill", "servic")
    assert len(terms([f"word{n}" for n in range(200)], limit=48)) == 48


def test_window_texts_read_user_turns_first_then_the_assistant_then_context() -> None:
    window = [entry(1, "Understood.", "assistant"), entry(2, "I moved to Porto.")]
    recent = [entry(0, "older"), entry(-1, "newest context")]
    assert window_texts(window, recent) == ["I moved to Porto.", "Understood.", "newest context", "older"]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("liv", "liv", True),
        ("postgr", "postgresql", True),  # "Postgres" in the turn, "PostgreSQL 14" held
        ("weigh", "weight", True),
        ("cockroach", "cockroachdb", True),
        ("art", "artist", False),  # short stems must be equal
        ("lab", "labrador", False),
        ("kestrel", "fernhill", False),
        ("gadget4", "gadget42", False),  # a number is a name: equal or nothing
    ],
)
def test_matches(a: str, b: str, same: bool) -> None:
    assert matches(a, b) is same and matches(b, a) is same


@pytest.mark.parametrize(
    ("term", "patterns"),
    [("liv", ("liv",)), ("citi", ("cit",)), ("kestrel", ("kestre", "kestr")), ("gadget42", ("gadget4", "gadge")), ("kg", ("kg",))],
)
def test_like_patterns_are_prefixes_of_every_word_with_that_stem(term: str, patterns: tuple[str, ...]) -> None:
    assert like_patterns(term) == patterns


# -- relevance and rank ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "fact", "subject", "predicate", "value"),
    [
        ("I left Fernhill and joined Kestrel Labs", ("user", "works_at", "Fernhill Analytics"), (), (), ("fernhill",)),
        ("where do I work these days?", ("user", "works_at", "Fernhill Analytics"), (), ("work",), ()),
        ("Ingrid got a job at Equinor", ("Ingrid", "lives_in", "Bergen"), ("ingrid",), (), ()),
        ("billing moved from Postgres", ("billing service", "uses_database", "PostgreSQL 14"), ("bill",), (), ("postgr",)),
        ("I moved to Porto", ("user", "lives_in", "Lisbon"), (), (), ()),  # nothing named: only as a core slot
        ("the user said so", ("user", "likes", "jazz"), (), (), ()),  # the speaker's own name is no match
    ],
)
def test_relevance(text: str, fact: tuple[str, str, str], subject: tuple, predicate: tuple, value: tuple) -> None:
    r = relevance(version(1, *fact), terms([text]))
    assert (r.subject, r.predicate, r.value) == (subject, predicate, value)
    assert r.matched is bool(subject or predicate or value)


def test_rank_orders_by_match_then_current_then_newest_and_bounds_the_list() -> None:
    window = terms(["Heads up: the billing service is on CockroachDB now, we finished the cutover from Postgres"])
    past = version(1, "billing service", "uses_database", "PostgreSQL 14", valid_to="2026-05-08T00:00:00.000000Z")
    now = version(2, "billing service", "uses_database", "Django", tx_from="2026-02-01T00:00:00.000000Z")
    other = version(3, "user", "likes", "billing dashboards", cardinality="many")
    noise = [version(10 + n, "user", "note", f"note {n}", cardinality="many") for n in range(100)]
    assert [v.id for v in rank([other, now, past, *noise], window)] == [1, 2, 3]
    many = [version(100 + n, "user", "likes", f"billing report {n}", cardinality="many", tx_from=f"2026-01-{1 + n % 28:02d}T00:00:00.000000Z")
            for n in range(80)]
    shown = rank(many, window, limit=5)
    assert len(shown) == 5 and shown == sorted(shown, key=lambda v: (v.tx_from, v.id), reverse=True)


def test_rank_adds_a_named_persons_other_facts_then_the_users_core_slots() -> None:
    window = terms(["my sister moved to Oslo last month, she got a job at Equinor."])
    relation = version(1, "Ingrid", "relation", "sister", cardinality="many")
    lives = version(2, "Ingrid", "lives_in", "Bergen")
    stranger = version(3, "Bob", "lives_in", "Rome")  # not named: not shown through `related`
    home = version(4, "user", "lives_in", "Lisbon")
    work = version(5, "user", "works_at", "Acme")
    shown = rank([relation], window, related=[lives, stranger], core=[home, work, lives])
    assert [v.id for v in shown] == [1, 2, 4, 5]
    assert len(rank([relation], window, related=[lives], core=[home, work], limit=2)) == 2
    assert [v.id for v in rank([], window, core=[home, work], core_limit=1)] == [4]


# -- retrieval from the ledger (both engines) -----------------------------------------------------

def _fill(ledger, scope: str = "chat", notes: int = 10_000) -> None:
    with ledger.transaction(principal="import:test") as tx:
        for name in ("lives_in", "works_at", "manager"):
            tx.define(name, "one")
        tx.add(scope, "user", "works_at", "Fernhill Analytics", valid_from="2025-01-01")
        tx.add(scope, "user", "lives_in", "Lisbon", valid_from="2025-01-01")
        tx.add(scope, "user", "manager", "Priya Raman", valid_from="2025-01-01")
        tx.add(scope, "Ingrid", "relation", "sister", valid_from="2025-01-01")
        tx.add(scope, "Ingrid", "lives_in", "Bergen", valid_from="2025-01-01")
        tx.add(scope, "billing service", "uses_database", "PostgreSQL 14", valid_from="2025-01-01")
        for n in range(notes):  # written after the facts above: newer, so a "newest N" view shows only these
            tx.add(scope, f"ticket {n}", "note", f"reminder {n} about gadget{n}", valid_from="2025-01-01")
        tx.add("elsewhere", "user", "works_at", "Fernhill Analytics", valid_from="2025-01-01")


@pytest.mark.slow  # ten thousand facts written first
@pytest.mark.both_engines
def test_a_window_gets_the_facts_it_talks_about_among_ten_thousand(fresh_ledger) -> None:
    _fill(fresh_ledger)
    window = [entry(1, "New chapter: I left Fernhill and joined Kestrel Labs as a staff engineer last week."),
              entry(2, "Congratulations on the new role!", "assistant"),
              entry(3, "Also my sister moved to Oslo, and billing is on CockroachDB now, no more Postgres.")]
    held = held_for_window(fresh_ledger, "chat", window)
    shown = [(v.subject, v.predicate, v.value) for v in held]
    assert ("user", "works_at", "Fernhill Analytics") in shown[:3]  # named by its value
    for fact in [("user", "works_at", "Fernhill Analytics"), ("Ingrid", "relation", "sister"), ("Ingrid", "lives_in", "Bergen"),
                 ("billing service", "uses_database", "PostgreSQL 14"), ("user", "lives_in", "Lisbon"),
                 ("user", "manager", "Priya Raman")]:
        assert fact in shown
    assert all(v.scope == "chat" for v in held) and len(held) <= HELD_LIMIT
    assert not any(v.predicate == "note" for v in held)  # ten thousand newer facts the window never names
    assert {v.subject for v in held} <= {"user", "Ingrid", "billing service"}


@pytest.mark.both_engines
def test_a_named_note_is_found_and_closed_versions_are_not(fresh_ledger) -> None:
    _fill(fresh_ledger, notes=300)
    with fresh_ledger.transaction(principal="import:test") as tx:
        tx.supersede("chat", "user", "manager", "Tomasz Wójcik", valid_from="2026-04-06")
    held = held_for_window(fresh_ledger, "chat", [entry(1, "Where did I put the gadget42 reminder? Tomasz asked.")])
    values = [v.value for v in held]
    # Three hundred notes match "reminder"; the one named by "gadget42" and the manager named by "Tomasz"
    # are not crowded out, and come first.
    assert set(values[:2]) == {"reminder 42 about gadget42", "Tomasz Wójcik"}
    # The supersede closed Priya's open version (never shown again) and wrote her past one anew.
    assert all(v.tx_to is None for v in held) and len(held) == HELD_LIMIT
    assert values.count("Priya Raman") <= 1


@pytest.mark.both_engines
def test_an_empty_scope_and_a_wordless_window_give_little(fresh_ledger) -> None:
    assert held_for_window(fresh_ledger, "chat", [entry(1, "I moved to Porto.")]) == []
    _fill(fresh_ledger, notes=10)
    held = held_for_window(fresh_ledger, "chat", [entry(1, "ok thanks!")])
    assert {v.predicate for v in held} <= {"lives_in", "works_at", "manager"} and len(held) <= CORE_LIMIT
    assert held_for_window(fresh_ledger, "chat", [entry(1, "Fernhill")], limit=0) == []
