"""Recall's recorder on both engines: the same rows give the same lexical hits in the same order (BM25 on
both), the same windows, outboxes, visibility and index state.

SQLite rows are written through the Ledger and the Journal; PostgreSQL rows through raw SQL that keeps the
schema's rules (the latest transaction opens each version), in the same order, so ids agree.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pytest

from factledger.ledger import Ledger
from factledger.ledger.keys import normalise
from factledger.ledger.times import END_OF_TIME, parse_time
from factledger.recall.lanes import lexical_lane
from factledger.recall.model import EPISODE, FACT, Terms, Visibility
from factledger.recall.recorder import RECORDERS
from factledger.recall.text import lexical_query
from factledger.schema import visibility_predicate

from factledger.ledger.keys import normalise as key_normalise

from .test_lexical_lane import CASES, FACTS, SCOPE

TEMPLATES = {"lives_in": ("one", "{subject} lives in {value}")}
VALID_FROM = "2024-01-01T00:00:00.000000Z"
TURNS = [  # (session, role, speaker, text)
    ("s1", "user", "Alice", "what should I bring to the reunion?"),
    ("s2", "user", "Alice", "unrelated chatter about tomatoes"),
    ("s1", "assistant", None, "bring the old photo albums"),
    ("s1", "user", "Alice", "my neighbour Trevor plays the bagpipes"),
]


@dataclass
class Side:
    """One engine's ledger rows and recall's recorder over them."""

    engine: str
    storage: object
    recorder: object
    ledger: Ledger | None = None
    clock: object = None

    def write(self, when: str, claims: list[tuple[str, str, str, str]]) -> None:
        """One transaction at `when` adding (scope, subject, predicate, value) claims, valid from 2024."""
        if self.ledger is not None:
            self.clock.now = parse_time(when)
            with self.ledger.transaction(principal="operator:test") as tx:
                for scope, subject, predicate, value in claims:
                    if predicate in TEMPLATES and predicate not in {p.name for p in self.ledger.predicates()}:
                        tx.define(predicate, TEMPLATES[predicate][0], template=TEMPLATES[predicate][1])
                    tx.add(scope, subject, predicate, value, valid_from=VALID_FROM)
            return
        s = self.storage
        with s.atomic():
            tx = s.one("INSERT INTO transactions (tx_time, principal) VALUES (%s::timestamptz, 'operator:test') RETURNING id",
                       (when,))[0]
            for scope, subject, predicate, value in claims:
                cardinality, template = TEMPLATES.get(predicate, ("many", "{subject} {predicate} {value}"))
                s.execute(
                    "INSERT INTO predicates (name, display, cardinality, template, defined_at)"
                    " VALUES (%s, %s, %s, %s, %s::timestamptz) ON CONFLICT (name) DO NOTHING",
                    (predicate, predicate, cardinality, template, when),
                )
                s.execute(
                    "INSERT INTO claims (scope, subject_key, subject, predicate, cardinality, value, value_key,"
                    " valid_from, tx_from, opened_by) VALUES (%s, %s, %s, %s, %s, %s, %s, %s::timestamptz, %s::timestamptz, %s)",
                    (scope, normalise(subject), subject, predicate, cardinality, value, normalise(value), VALID_FROM, when, tx),
                )

    def close(self, when: str, item: int) -> None:
        """Retract one version (closing it) in a transaction at `when`."""
        if self.ledger is not None:
            self.clock.now = parse_time(when)
            (claim,) = [c for c in self.ledger.as_of(known_at=END_OF_TIME) if c.id == item]
            with self.ledger.transaction(principal="operator:test") as tx:
                tx.retract(claim.scope, claim.subject, claim.predicate, claim.value, all_valid_time=True)
            return
        with self.storage.atomic():
            tx = self.storage.one(
                "INSERT INTO transactions (tx_time, principal) VALUES (%s::timestamptz, 'operator:test') RETURNING id", (when,)
            )[0]
            self.storage.execute("UPDATE claims SET tx_to = %s::timestamptz, closed_by = %s WHERE id = %s", (when, tx, item))

    def say(self, when: str, session: str, role: str, speaker: str | None, text: str, scope: str = SCOPE) -> None:
        if self.ledger is not None:
            from factledger.digest import Journal, Turn

            self.clock.now = parse_time(when)
            Journal(self.ledger).append(Turn(scope=scope, text=text, role=role, session=session, said_at=when, speaker=speaker))
            return
        digest = hashlib.sha256(f"{scope}|{session}|{role}|{when}|{text}".encode()).hexdigest()
        with self.storage.atomic():
            self.storage.execute(
                "INSERT INTO journal (scope, session, role, speaker, text, said_at, hash, appended_at)"
                " VALUES (%s, %s, %s, %s, %s, %s::timestamptz, %s, %s::timestamptz)",
                (scope, session, role, speaker, text, when, digest, when),
            )


def _sqlite_side(tmp_path) -> Side:
    from tests.conftest import StepClock

    clock = StepClock()
    ledger = Ledger.open(tmp_path / "ledger.db", clock=clock)
    return Side("sqlite", ledger.storage, RECORDERS["sqlite"](ledger.storage, ledger.visible_sql()), ledger, clock)


def _postgres_side(url: str) -> Side:
    from factledger.ledger.pg_storage import PostgresStorage

    storage = PostgresStorage(url)
    return Side("postgres", storage, RECORDERS["postgres"](storage, visibility_predicate("postgres")))


@pytest.fixture
def sqlite_side(tmp_path):
    side = _sqlite_side(tmp_path)
    yield side
    side.storage.close()


@pytest.fixture
def postgres_side(postgres_url):
    side = _postgres_side(postgres_url)
    yield side
    side.storage.close()


@pytest.fixture(params=["sqlite", "postgres"])
def side(request):
    return request.getfixturevalue(f"{request.param}_side")


def _typed(side: Side) -> Side:
    side.write("2025-01-02T00:00:00.000000Z", [(SCOPE, s, p, v) for s, p, v in FACTS])
    return side


NOW = Visibility((SCOPE,), "2025-02-01T00:00:00.000000Z", END_OF_TIME)


def _lexical(side: Side, query: str, kind: str = FACT, seen: Visibility = NOW):
    return lexical_lane(side.recorder, lexical_query(query), seen, depth=60, body_weight=1.0, context_weight=0.5, kind=kind)


def _value_of(side: Side, item: int) -> str:
    return {f.claim.id: f.claim.value for f in side.recorder.read_facts([item], NOW)}[item]


@pytest.mark.parametrize("query,want", [c for c in CASES if c[0] != "where does the user live?"])
def test_the_lexical_lane_finds_what_users_type(side, query, want):
    _typed(side)
    hits = _lexical(side, query)
    assert hits and _value_of(side, hits[0].id) == want


def test_both_engines_rank_alike(sqlite_side, postgres_side):
    """Same rows, same hits, same order, and the same BM25 scores (to rounding) for every query of the
    lexical lane tests, and for the episode lane over sessions."""
    for side in (sqlite_side, postgres_side):
        _typed(side)
        side.write("2025-01-03T00:00:00.000000Z", [
            (SCOPE, "user", "likes", "dogs and long runs by the river"),
            (SCOPE, "Anna", "has_pet", "a dog called Rex"),
        ])
        for i, (session, role, speaker, text) in enumerate(TURNS):
            side.say(f"2024-01-10T10:0{i}:00.000000Z", session, role, speaker, text)
    queries = [q for q, _ in CASES] + ["dogs running", "Rex dog river", "hospital pixel", "the reunion photo albums"]
    for kind in (FACT, EPISODE):
        for query in queries:
            mine, theirs = _lexical(sqlite_side, query, kind), _lexical(postgres_side, query, kind)
            assert [h.id for h in mine] == [h.id for h in theirs], (kind, query)
            assert [h.own for h in mine] == [h.own for h in theirs], (kind, query)
            assert [h.score for h in theirs] == pytest.approx([h.score for h in mine], rel=1e-9), (kind, query)


def test_document_frequencies_count_rows_by_stem(side):
    _typed(side)
    side.write("2025-01-03T00:00:00.000000Z", [(SCOPE, "Anna", "has_pet", "a dog called Rex")])
    counts = side.recorder.document_frequencies(FACT, ["dogs", "rex", "zebra"])
    assert counts == {"dogs": 3, "rex": 3, "zebra": 0}  # a row counts when its window holds the word too


def test_an_episode_carries_its_session_neighbours_words(side):
    for i, (session, role, speaker, text) in enumerate(TURNS):
        side.say(f"2024-01-10T1{i}:00:00.000000Z", session, role, speaker, text)
    first, second, answer, last = 1, 2, 3, 4
    body, context = side.recorder.lexical_row(EPISODE, answer)
    assert body == "assistant: bring the old photo albums"
    assert "reunion" in context and "bagpipes" in context and "tomatoes" not in context
    hits = _lexical(side, "reunion", EPISODE)
    assert [h.id for h in hits] == [first, answer] and [h.own for h in hits] == [True, False]
    (record,) = side.recorder.read_episodes([answer], Visibility((SCOPE,), "2025-01-01T00:00:00.000000Z", END_OF_TIME))
    assert (record.before, record.after, record.episode.speaker) == (first, last, "assistant")
    assert side.recorder.lexical_row(EPISODE, second)[1] == ""  # alone in its session


def test_visibility_decides_every_read(side):
    _typed(side)
    side.close("2025-01-05T00:00:00.000000Z", 6)  # lives_in Berlin, retracted
    side.say("2024-06-01T00:00:00.000000Z", "s1", "user", None, "Berlin was grey today", scope="other")
    # the closed version's own row is gone from what is visible; its neighbours hold its words as context
    assert sorted((h.id, h.own) for h in _lexical(side, "Berlin")) == [(5, False), (7, False)]
    before = Visibility((SCOPE,), "2025-02-01T00:00:00.000000Z", "2025-01-04T00:00:00.000000Z")
    assert [(h.id, h.own) for h in _lexical(side, "Berlin", seen=before)][0] == (6, True)
    assert [f.claim.id for f in side.recorder.read_facts([1, 6], NOW)] == [1]
    assert {c.value for c, _ in side.recorder.memories(NOW)} == {v for _, _, v in FACTS} - {"Berlin"}
    assert side.recorder.slot_claims("user", "lives_in", before, 11) == [6]
    assert side.recorder.slot_claims("user", "lives_in", NOW, 11) == []
    # many subjects' slots in one statement: each subject's as slot_claims reads it
    assert side.recorder.slots_claims(["user", "nobody"], "lives_in", before, 11) == [6]
    assert side.recorder.slots_claims([], "lives_in", before, 11) == []
    for predicate in {p for _, p, _ in FACTS}:
        subjects = sorted({key_normalise(s) for s, _, _ in FACTS})
        each = [i for subject in subjects for i in side.recorder.slot_claims(subject, predicate, before, 1)]
        assert sorted(side.recorder.slots_claims(subjects, predicate, before, 1)) == sorted(each), predicate
    other = Visibility(("other",), "2025-01-01T00:00:00.000000Z", END_OF_TIME)
    assert _lexical(side, "Berlin", EPISODE) == [] and [h.id for h in _lexical(side, "Berlin", EPISODE, other)] == [1]
    assert side.recorder.episodes(Visibility(("other",), "2024-05-01T00:00:00.000000Z", END_OF_TIME), session=None, limit=None) == []
    assert [e.text for e in side.recorder.episodes(other, session="s1", limit=5)] == ["Berlin was grey today"]


def test_cjk_runs_and_trigrams(side):
    _typed(side)
    (hit,) = side.recorder.trigram_hits(FACT, ["北京烤", "京烤鸭"], NOW, 10)
    assert _value_of(side, hit.id) == "北京烤鸭" and hit.score > 0
    assert side.recorder.substring_hits(FACT, "烤鸭", NOW, 10) == [hit.id]
    assert side.recorder.trigram_hits(FACT, ["上海菜"], NOW, 10) == []


def test_outboxes_queue_every_change_until_drained(side):
    _typed(side)
    side.close("2025-01-05T00:00:00.000000Z", 2)
    side.say("2024-06-01T00:00:00.000000Z", "s1", "user", None, "hello there friend")
    entries = side.recorder.outbox_entries()
    assert [(e.kind, e.item, e.change) for e in entries] == (
        [(FACT, i, "insert") for i in range(1, 8)] + [(FACT, 2, "close"), (EPISODE, 1, "insert")]
    )
    assert side.recorder.outbox_pending() and side.recorder.outbox_count() == 9
    batch = side.recorder.outbox_batch(FACT, 5)
    assert [item for _, item in batch] == [1, 2, 3, 4, 5]
    side.recorder.outbox_drop_through(FACT, batch[-1][0])
    assert side.recorder.outbox_waiting(FACT, [1, 2, 6, 40]) == {2, 6}
    marks = side.recorder.outbox_marks()
    side.recorder.outbox_drop_through(FACT, marks[FACT])
    side.recorder.outbox_drop_through(EPISODE, marks[EPISODE])
    assert not side.recorder.outbox_pending() and side.recorder.outbox_entries() == []


def test_vector_sources_and_counts(side):
    _typed(side)
    side.close("2025-01-05T00:00:00.000000Z", 2)
    side.say("2024-06-01T00:00:00.000000Z", "s1", "user", "Ada", "hello there friend")
    (source,) = side.recorder.vector_sources(FACT, [2])
    assert (source.scope, source.valid_from, source.tx_to) == (SCOPE, VALID_FROM, "2025-01-05T00:00:00.000000Z")
    assert source.text == "Dr. Müller works at St. Mary's Hospital"
    assert [s.id for s in side.recorder.all_vector_sources(FACT, 3)] == list(range(1, 8))
    (turn,) = side.recorder.all_vector_sources(EPISODE, 3)
    assert (turn.text, turn.valid_from, turn.valid_to, turn.tx_to) == ("Ada: hello there friend", "2024-06-01T00:00:00.000000Z", None, None)
    assert side.recorder.item_counts() == {FACT: 7, EPISODE: 1}
    assert side.recorder.items_tx_to(FACT)[2] == "2025-01-05T00:00:00.000000Z"
    assert side.recorder.texts(EPISODE, [1, 9]) == {1: "Ada: hello there friend"}


def test_the_vector_prefilter_is_the_bound_predicate(sqlite_side, postgres_side):
    seen = Visibility(("user:o'brien", "team"), "2025-02-01T00:00:00.000000Z", END_OF_TIME)
    rendered = {side.engine: side.recorder.vector_prefilter(seen) for side in (sqlite_side, postgres_side)}
    want = (
        "scope IN ('user:o''brien', 'team') AND valid_from <= '2025-02-01T00:00:00.000000Z'"
        " AND (valid_to IS NULL OR valid_to > '2025-02-01T00:00:00.000000Z')"
        f" AND tx_from <= '{END_OF_TIME}' AND (tx_to IS NULL OR tx_to > '{END_OF_TIME}')"
    )
    assert rendered == {"sqlite": want, "postgres": want}


def test_index_state_round_trips(side):
    state = side.recorder.index_state()
    assert (state.needs_repair, state.reason, state.folder) == (False, "", None)
    side.recorder.set_repair(True, "vector rows disagree", "2025-01-01T00:00:00.000000Z")
    side.recorder.record_folder("/srv/vectors.lance")
    assert side.recorder.index_state() == type(state)(True, "vector rows disagree", "/srv/vectors.lance")
    side.recorder.set_repair(False, "", None)
    assert not side.recorder.index_state().needs_repair


def test_lexical_faults_name_rows_out_of_step(side):
    _typed(side)
    side.say("2024-06-01T00:00:00.000000Z", "s1", "user", None, "hello there friend")
    assert side.recorder.lexical_faults() == []
    sql = "DELETE FROM recall_fts WHERE rowid = 3" if side.engine == "sqlite" else "DELETE FROM recall_fts WHERE id = 3"
    side.storage.execute(sql)
    assert [(f.kind, f.id, f.problem) for f in side.recorder.lexical_faults()] == [(FACT, 3, "missing")]


def test_about_topic_splits_own_words_from_the_window(side):
    side.write("2025-01-02T00:00:00.000000Z", [(SCOPE, "user", "likes", "kayaking"), (SCOPE, "user", "owns", "a red canoe")])
    anywhere, own = side.recorder.about_topic(FACT, [1, 2], ["canoe"])
    assert (anywhere, own) == ({1, 2}, {2})  # 1 holds the word only through its neighbour
    assert side.recorder.ranked_hits(FACT, Terms(("canoe",), body_only=True), NOW, depth=5, body_weight=1.0,
                                     context_weight=0.5, newest=True)[0].id == 2


def test_lookups_among_a_small_visible_set_rank_as_the_full_search(side):
    """A user's few items among many other scopes' rows sharing the same words: `among` (the visible
    ids) returns the same hits with the same scores as the search over the whole index, whether the
    user's matches lie together or far apart in id order (SQLite ranks those in separate passes)."""
    mine = "user-a"
    for batch in range(6):
        rows = [(f"other-{batch}-{n}", "user", "likes", f"sailing boats number {n}") for n in range(12)]
        if batch in (0, 5):  # the user's facts: some at the start, some at the end of the id range
            rows += [(mine, "user", "likes", f"sailing {batch}"), (mine, "user", "likes", f"sailing in autumn storms {batch}")]
        if batch == 2:
            rows += [(mine, "user", "owns", "a boat named Storm")]
        side.write(f"2025-01-0{batch + 2}T00:00:00.000000Z", rows)
    seen = Visibility((mine,), "2025-02-01T00:00:00.000000Z", END_OF_TIME)
    visible = side.recorder.visible_texts(FACT, seen, 10)
    assert sorted(visible.values()) == sorted(
        [f"user likes sailing {b}" for b in (0, 5)] + [f"user likes sailing in autumn storms {b}" for b in (0, 5)]
        + ["user owns a boat named Storm"]
    )
    assert side.recorder.visible_texts(FACT, seen, 4) is None  # more than the limit: the indexes answer
    for terms in (Terms(("sail",)), Terms(("sail", "storm")), Terms(("storm",), body_only=True), Terms(("absent",))):
        for newest in (False, True):
            full = side.recorder.ranked_hits(FACT, terms, seen, depth=60, body_weight=1.0, context_weight=0.5, newest=newest)
            among = side.recorder.ranked_hits(FACT, terms, seen, depth=60, body_weight=1.0, context_weight=0.5,
                                              newest=newest, among=sorted(visible))
            key = (lambda h: h.id) if newest else (lambda h: (-round(h.score, 9), h.id))
            assert [(h.id, round(h.score, 9), h.own) for h in sorted(among, key=key)] == \
                   [(h.id, round(h.score, 9), h.own) for h in sorted(full, key=key)], (terms, newest)
            assert bool(full) == (terms.words != ("absent",))
    nothing = Visibility(("nobody",), "2025-02-01T00:00:00.000000Z", END_OF_TIME)
    assert side.recorder.visible_texts(FACT, nothing, 10) == {}
