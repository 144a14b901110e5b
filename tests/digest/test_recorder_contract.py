"""The digest recorder's contract (digest/recorder.py), the same cases on every engine.

Each case drives recorder methods only and checks the digest's own records that come back; the engines
must answer identically. The ledger rows a proposal or a believed version needs (predicates, one
transaction, two claim versions) are written through the Ledger.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import replace

import pytest

from factledger.digest.model import NewProposal, StatusChange, Turn
from factledger.digest.pg_recorder import PostgresDigestRecorder
from factledger.digest.recorder import RECORDERS, recorder_for
from factledger.digest.sqlite_recorder import SqliteDigestRecorder
from factledger.ledger import IntegrityError, Ledger, ScopeFamily, ValidationError

T0 = "2025-01-01T00:00:00.000000Z"
T1 = "2025-01-02T00:00:00.000000Z"
T2 = "2025-01-03T00:00:00.000000Z"
T3 = "2025-01-04T00:00:00.000000Z"
EARLY = "2020-01-01T00:00:00.000000Z"
ALICE = "operator:alice"

pytestmark = pytest.mark.both_engines  # the contract suite: SQLite and PostgreSQL (tests/conftest.py)


def h(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class World:
    """A recorder over a fresh database of one engine, with the ledger rows the cases refer to: transaction
    `tx` (at T0) opened versions Bob lives_in Paris (`one`, from EARLY) and Bob likes Tea (`many`)."""

    def __init__(self, storage, tx: int):
        self.storage = storage
        self.recorder = recorder_for(storage)
        self.tx = tx

    def turn(self, text: str, *, scope: str = "s", session: str | None = "s1", said_at: str = T0,
             role: str = "user", speaker: str | None = None, appended_at: str = T0) -> int:
        entry_id = self.recorder.append_turn(
            Turn(scope=scope, text=text, role=role, session=session, said_at=said_at, speaker=speaker),  # type: ignore[arg-type]
            hash=h(f"{scope}|{session}|{text}|{said_at}"), redactions=[], appended_at=appended_at,
        )
        assert entry_id is not None
        return entry_id

    def proposal(self, **fields) -> int:
        return self.recorder.insert_proposal(replace(proposal_row(), **fields))


def proposal_row() -> NewProposal:
    return NewProposal(
        scope="s", entry_id=None, ordinal=0, sources=("journal:1", "note: ünï"), extractor="rules", op="add",
        subject="Bob", subject_key="bob", predicate="lives_in", cardinality="one", template="{subject} lives in {value}",
        value="Rome", value_key="rome", replaces=None, valid_from=T1, valid_to=None, all_valid_time=False,
        time_phrase="since Tuesday", quote="I moved to Rome", status="pending", decision="hold", policy="auto",
        reason="held", rejection_id=None, created_at=T1, decided_at=None, decided_by=None,
    )


@pytest.fixture
def world(ledger_location):
    ledger = Ledger.open(ledger_location, clock=lambda: T0)
    with ledger.transaction(principal=ALICE, reason="seed") as tx:
        tx.define("lives_in", "one")
        tx.define("likes", "many")
        tx.add("s", "Bob", "lives_in", "Paris", valid_from=EARLY)
        tx.add("s", "Bob", "likes", "Tea", valid_from=EARLY)
    assert tx.result is not None
    yield World(ledger.storage, tx.result.id)
    ledger.close()


# == selection ====================================================================================


def test_the_engine_picks_the_recorder(world):
    expected = {"sqlite": SqliteDigestRecorder, "postgres": PostgresDigestRecorder}[world.storage.engine]
    assert type(world.recorder) is expected
    assert RECORDERS == {"sqlite": SqliteDigestRecorder, "postgres": PostgresDigestRecorder}


def test_an_unknown_engine_is_refused_by_name():
    class Other:
        engine = "oracle"

    with pytest.raises(ValidationError) as err:
        recorder_for(Other())
    assert err.value.field == "engine" and "oracle" in str(err.value)


# == journal ======================================================================================


def test_append_reads_back_every_field_and_a_duplicate_hash_is_none(world):
    r = world.recorder
    first = r.append_turn(Turn(scope="s", text="hello", role="assistant", session=None, said_at=T1, speaker="Ann"),
                          hash=h("a"), redactions=["email", "token"], appended_at=T2)
    assert first is not None
    again = r.append_turn(Turn(scope="s", text="other", said_at=T1), hash=h("a"), redactions=[], appended_at=T2)
    assert again is None
    assert r.entry_with_hash(h("a")) == first and r.entry_with_hash(h("b")) is None
    entry = r.entry(first)
    assert (entry.scope, entry.session, entry.role, entry.text, entry.said_at, entry.speaker) == (
        "s", None, "assistant", "hello", T1, "Ann")
    assert (entry.digested_at, entry.extractor, entry.attempts, entry.last_error) == (None, None, 0, "")
    assert r.entry(first + 100) is None
    (row,) = r.text_rows("journal", ScopeFamily.of("s"))
    assert (row.written_at, row.redactions) == (T2, ("email", "token"))


@pytest.mark.parametrize(
    "scopes, limit, expected",
    [
        (None, None, ["a1", "b1", "a2"]),
        (["a"], None, ["a1", "a2"]),
        (["a", "b"], 2, ["a1", "b1"]),
        (["c"], None, []),
        (None, 0, []),
    ],
)
def test_backlog_is_undigested_oldest_first(world, scopes, limit, expected):
    ids = {name: world.turn(name, scope=name[0]) for name in ["a1", "b1", "a2", "a3"]}
    world.recorder.mark_digested(ids["a3"], at=T1, extractor="rules")
    assert [e.text for e in world.recorder.backlog(scopes=scopes, limit=limit)] == expected
    assert world.recorder.backlog_size(scopes=scopes) == len(world.recorder.backlog(scopes=scopes, limit=None))


def test_recent_is_the_same_scope_and_session_before_the_entry_oldest_first(world):
    t = world.turn
    a, b = t("a", session=None), t("b", session="x")
    c, d = t("c", session=None), t("d", session=None, scope="other")
    e = t("e", session=None)
    newest = world.recorder.entry(e)
    assert [x.id for x in world.recorder.recent(newest, 5)] == [a, c]
    assert [x.id for x in world.recorder.recent(newest, 1)] == [c]
    assert [x.id for x in world.recorder.recent(world.recorder.entry(b), 5)] == []
    assert d


def test_entries_are_newest_first_by_scope_and_limit(world):
    ids = [world.turn(f"t{i}", scope="a" if i % 2 else "b") for i in range(5)]
    assert [e.id for e in world.recorder.entries(scope=None, limit=3)] == ids[::-1][:3]
    assert [e.id for e in world.recorder.entries(scope="a", limit=10)] == [ids[3], ids[1]]


def test_marks_digested_once_and_failures_only_while_undigested(world):
    r = world.recorder
    entry = world.turn("x")
    assert r.undigested(entry) and not r.undigested(entry + 100)
    r.record_failure(entry, "model down")
    r.record_failure(entry, "model still down")
    assert (r.entry(entry).attempts, r.entry(entry).last_error) == (2, "model still down")
    r.mark_digested(entry, at=T2, extractor="rules")
    r.record_failure(entry, "late")
    got = r.entry(entry)
    assert (got.digested_at, got.extractor, got.attempts, got.last_error) == (T2, "rules", 2, "")
    assert not r.undigested(entry)


def test_prune_removes_digested_turns_said_before_in_the_scopes(world):
    r = world.recorder
    old_done, old_open = world.turn("a", said_at=T0), world.turn("b", said_at=T0)
    new_done, other = world.turn("c", said_at=T2), world.turn("d", said_at=T0, scope="o")
    for entry in (old_done, new_done, other):
        r.mark_digested(entry, at=T2, extractor="rules")
    assert r.prune_digested(said_before=T1, scopes=["s"]) == 1
    assert r.entry(old_done) is None and r.entry(old_open) and r.entry(new_done) and r.entry(other)
    assert r.prune_digested(said_before=T1, scopes=None) == 1
    assert r.entry(other) is None


def test_first_appended(world):
    a = world.turn("a", appended_at=T2)
    b = world.turn("b", appended_at=T1)
    assert world.recorder.first_appended([a, b]) == T1
    assert world.recorder.first_appended([a]) == T2
    assert world.recorder.first_appended([b + 100]) is None


def test_delete_entry_and_the_proposals_derived_from_it(world):
    r = world.recorder
    entry, kept = world.turn("a"), world.turn("b")
    by_entry = world.proposal(entry_id=entry, sources=())
    by_source = world.proposal(sources=("doc:1", f"journal:{entry}"))
    other = world.proposal(sources=(f"journal:{entry}0", f"journal:{kept}"))
    assert r.delete_derived_proposals(entry) == 2
    assert r.proposal(by_entry) is None and r.proposal(by_source) is None and r.proposal(other) is not None
    assert r.delete_entry(entry) == 1 and r.delete_entry(entry) == 0
    assert r.entry(entry) is None and r.entry(kept) is not None


def test_replace_entry_keeps_the_id_with_new_text_hash_and_redactions(world):
    r = world.recorder
    a = world.turn("I live in Paris", session="x", speaker="Ann")
    b = world.turn("plain")
    r.record_failure(a, "Paris failed")
    r.replace_entry(a, texts={"text": "I live in [erased]", "last_error": "[erased] failed"}, hash=h("new"),
                    redactions=["erased"])
    got = r.entry(a)
    assert (got.id, got.text, got.last_error, got.session, got.speaker, got.attempts) == (
        a, "I live in [erased]", "[erased] failed", "x", "Ann", 1)
    assert r.entry_with_hash(h("new")) == a
    assert [t.redactions for t in r.text_rows("journal", ScopeFamily.of("s")) if t.id == a] == [("erased",)]
    # A redacted copy identical to a turn already stored is not inserted twice: the other stands for it.
    r.replace_entry(a, texts={"text": "plain"}, hash=h(f"s|s1|plain|{T0}"), redactions=["erased"])
    assert r.entry(a) is None and r.entry(b) is not None
    with pytest.raises(ValueError):
        r.replace_entry(b, texts={"hash": "x"}, hash=h("z"), redactions=[])


# == leases =======================================================================================


def test_leases_go_to_one_holder_until_released_or_expired(world):
    r = world.recorder
    a, b, done = world.turn("a"), world.turn("b"), world.turn("c")
    r.mark_digested(done, at=T0, extractor="rules")
    assert r.lease([a, b, done], holder="run1", now=T0, until=T2) == {a, b}
    assert r.lease([a, b], holder="run2", now=T1, until=T3) == set()
    r.release([a], holder="run2")  # not run2's: nothing ends
    assert r.lease([a], holder="run2", now=T1, until=T3) == set()
    r.release([a], holder="run1")
    assert r.lease([a, b], holder="run2", now=T1, until=T3) == {a}
    assert r.lease([b], holder="run2", now=T2, until=T3) == {b}  # run1's lease on b ended at T2
    assert r.lease([a, b], holder="run1", now=T2, until=T3) == set()


# == proposals ====================================================================================


def test_a_proposal_reads_back_as_written(world):
    entry = world.turn("I moved to Rome")
    row = replace(proposal_row(), entry_id=entry, ordinal=2, all_valid_time=True, valid_to=T3, replaces="Paris")
    proposal = world.recorder.proposal(world.recorder.insert_proposal(row))
    assert proposal.sources == ("journal:1", "note: ünï") and proposal.all_valid_time is True
    for name in ("scope", "entry_id", "extractor", "op", "subject", "predicate", "cardinality", "template", "value",
                 "replaces", "valid_from", "valid_to", "time_phrase", "quote", "status", "decision", "policy",
                 "reason", "rejection_id", "created_at", "decided_at", "decided_by"):
        assert getattr(proposal, name) == getattr(row, name), name
    assert (proposal.tx, proposal.review_reason) == (None, "")
    assert world.recorder.proposal(proposal.id + 100) is None


@pytest.mark.parametrize(
    "change, expected",
    [
        (StatusChange("dropped", T2, reason="dropped: invalid", decision="drop"),
         {"status": "dropped", "decided_at": T2, "reason": "dropped: invalid", "decision": "drop", "decided_by": None}),
        (StatusChange("pending", None, reason="held again"),
         {"status": "pending", "decided_at": None, "reason": "held again", "decision": "hold"}),
        (StatusChange("rejected", T2, decided_by=ALICE, review_reason="no"),
         {"status": "rejected", "decided_by": ALICE, "review_reason": "no", "reason": "held", "tx": None}),
    ],
)
def test_set_status_sets_what_is_given(world, change, expected):
    pid = world.proposal()
    world.recorder.set_status(pid, change)
    got = world.recorder.proposal(pid)
    assert {k: getattr(got, k) for k in expected} == expected


def test_applied_names_its_transaction(world):
    pid = world.proposal()
    world.recorder.set_status(pid, StatusChange("applied", T2, tx=world.tx, decided_by="digest:rules"))
    assert [p.id for p in world.recorder.proposals_of_transaction(world.tx)] == [pid]
    assert world.recorder.proposals_of_transaction(world.tx + 1) == []


@pytest.mark.parametrize(
    "statuses, scope, limit, expected",
    [
        (None, None, 10, ["p4", "p3", "p2", "p1"]),
        (("pending",), None, 10, ["p3", "p1"]),
        (("pending", "dropped"), "s", 10, ["p2", "p1"]),
        ((), None, 10, []),
        (None, None, 2, ["p4", "p3"]),
    ],
)
def test_proposals_are_listed_newest_first(world, statuses, scope, limit, expected):
    names = {}
    for name, status, where in [("p1", "pending", "s"), ("p2", "dropped", "s"), ("p3", "pending", "o"),
                                ("p4", "rejected_again", "s")]:
        names[world.proposal(scope=where, status=status, decided_at=None if status == "pending" else T1, reason=name)] = name
    listed = world.recorder.proposals(statuses=statuses, scope=scope, limit=limit)
    assert [names[p.id] for p in listed] == expected


def test_slot_session_and_rejected_again_proposals(world):
    r = world.recorder
    said = world.turn("in session x", session="x")
    elsewhere = world.turn("in session y", session="y")
    mine = world.proposal(entry_id=said)
    rival = world.proposal(entry_id=elsewhere, value="Oslo", value_key="oslo")
    back = world.proposal(status="rejected_again", decided_at=T1, rejection_id=7, entry_id=said, ordinal=1)
    world.proposal(subject_key="ann")
    world.proposal(status="dropped", decided_at=T1)
    slot = r.slot_proposals(scope="s", subject_key="bob", predicate="lives_in", statuses=("pending", "rejected_again"),
                            exclude=mine)
    assert [p.id for p in slot] == [rival, back]
    bounded = dict(scope="s", subject_key="bob", predicate="lives_in", statuses=("pending", "rejected_again"), exclude=mine)
    assert [p.id for p in r.slot_proposals(**bounded, limit=1)] == [rival] and r.slot_proposal_count(**bounded) == 2
    assert [p.id for p in r.session_proposals(session="x", statuses=("pending", "rejected_again"), scope=None)] == [mine, back]
    assert r.session_proposals(session="x", statuses=("pending",), scope="o") == []
    assert [p.id for p in r.rejected_again_by(7)] == [back] and r.rejected_again_by(8) == []


# == review memory ================================================================================


def test_rejections_one_in_force_per_hash_and_lifted(world):
    r = world.recorder
    fields = dict(scope="s", subject_key="bob", predicate="lives_in", value_key="rome", value="Rome", proposal_id=None,
                  rejected_by=ALICE, rejected_at=T1, reason="wrong")
    first = r.insert_rejection(content_hash=h("rome"), **fields)
    assert (first.value, first.rejected_at, first.lifted_at) == ("Rome", T1, None)
    assert r.active_rejection(h("rome")) == first and r.active_rejection(h("oslo")) is None
    with pytest.raises(IntegrityError):
        with world.storage.atomic():
            r.insert_rejection(content_hash=h("rome"), **fields)
    r.lift("rejections", first.id, at=T2, by="operator:bob")
    assert r.active_rejection(h("rome")) is None
    assert (r.rejection(first.id).lifted_at, r.rejection(first.id).lifted_by) == (T2, "operator:bob")
    second = r.insert_rejection(content_hash=h("rome"), **{**fields, "scope": "o"})
    assert [x.id for x in r.rejections(include_lifted=True, scope=None)] == [second.id, first.id]
    assert [x.id for x in r.rejections(include_lifted=False, scope=None)] == [second.id]
    assert r.rejections(include_lifted=True, scope="s") == [r.rejection(first.id)]
    assert r.rejection(second.id + 100) is None


def test_confirmations_by_slot_and_withdrawn(world):
    r = world.recorder
    fields = dict(scope="s", subject_key="bob", predicate="likes", claim_id=2, confirmed_by=ALICE, confirmed_at=T1, reason="")
    tea = r.insert_confirmation(content_hash=h("tea"), value_key="tea", value="Tea", **fields)
    jam = r.insert_confirmation(content_hash=h("jam"), value_key="jam", value="Jam", **fields)
    other = r.insert_confirmation(content_hash=h("o"), value_key="tea", value="Tea", **{**fields, "scope": "o"})
    assert r.active_confirmation(h("tea")) == tea and r.confirmation(jam.id) == jam
    assert sorted(c.id for c in r.slot_confirmations(scope="s", subject_key="bob", predicate="likes")) == [tea.id, jam.id]
    r.lift("confirmations", jam.id, at=T2, by=ALICE)
    assert [c.id for c in r.slot_confirmations(scope="s", subject_key="bob", predicate="likes")] == [tea.id]
    assert [c.id for c in r.confirmations(scope=None)] == [other.id, tea.id]
    assert [c.id for c in r.confirmations(scope="o")] == [other.id]
    assert r.active_confirmation(h("jam")) is None
    with pytest.raises(ValueError):
        r.lift("proposals", tea.id, at=T2, by=ALICE)  # type: ignore[arg-type]


def test_believed_versions_of_a_slot_and_a_scope(world):
    (paris,) = world.recorder.believed_versions(scope="s", subject_key="bob", predicate="lives_in")
    assert (paris.value, paris.valid_from, paris.valid_to, paris.tx_from, paris.opened_by) == ("Paris", EARLY, None, T0, world.tx)
    assert [v.value for v in world.recorder.believed_claims(scope="s", limit=10)] == ["Tea", "Paris"]
    assert [v.value for v in world.recorder.believed_claims(scope="s", limit=1)] == ["Tea"]
    assert world.recorder.believed_versions(scope="o", subject_key="bob", predicate="lives_in") == []


# == erase's reach ================================================================================


def test_text_rows_of_a_family_redacted_and_deleted(world):
    r = world.recorder
    mine, under, other = world.turn("Rome a", scope="u:1"), world.turn("Rome b", scope="u:1:x"), world.turn("Rome", scope="v")
    family = ScopeFamily(exact=("u:1",), prefixes=("u:1:",))
    assert [t.id for t in r.text_rows("journal", family)] == [mine, under]
    assert [t.id for t in r.text_rows("journal", ScopeFamily(exact=(), prefixes=("v",)))] == [other]
    pid = world.proposal(scope="u:1", quote="to Rome", replaces=None, template=None)
    (row,) = r.text_rows("proposals", family)
    assert row.id == pid and row.written_at == T1
    assert row.texts == {"subject": "Bob", "subject_key": "bob", "value": "Rome", "value_key": "rome",
                         "time_phrase": "since Tuesday", "quote": "to Rome", "reason": "held"}
    r.redact_row("proposals", pid, {"quote": "to [erased]", "value": "[erased]"})
    assert (r.proposal(pid).quote, r.proposal(pid).value) == ("to [erased]", "[erased]")
    r.delete_row("proposals", pid)
    assert r.proposal(pid) is None
    rejection = r.insert_rejection(content_hash=h("r"), scope="u:1", subject_key="bob", predicate="lives_in",
                                   value_key="rome", value="Rome", proposal_id=None, rejected_by=ALICE, rejected_at=T1,
                                   reason="not Rome")
    r.redact_row("rejections", rejection.id, {"value": "", "value_key": "", "reason": "not [erased]"})
    assert (r.rejection(rejection.id).value, r.rejection(rejection.id).reason) == ("", "not [erased]")
    (row,) = r.text_rows("rejections", family)
    assert row.texts == {"subject_key": "bob", "reason": "not [erased]"} and row.written_at is None
    for bad in [("proposals", {"status": "applied"}), ("claims", {"value": "x"}), ("journal", {"hash": "x"})]:
        with pytest.raises(ValueError):
            r.redact_row(bad[0], pid, bad[1])  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        r.delete_row("rejections", rejection.id)  # type: ignore[arg-type]


def test_a_second_commit_of_an_entry_waits_and_then_finds_it_digested(world, ledger_location):
    """Two runs committing one entry (a lease ran out under a slow model): the second waits for the
    first's transaction, then sees the entry digested, so the entry's proposals are written once."""
    entry = world.turn("x")
    other = Ledger.open(ledger_location, clock=lambda: T0)
    answers: list[bool] = []
    try:
        with world.storage.atomic():
            assert world.recorder.undigested(entry)
            second = threading.Thread(target=lambda: _commit_check(other, entry, answers))
            second.start()
            if world.storage.engine == "postgres":
                _until_a_lock_is_awaited(ledger_location)
            world.recorder.mark_digested(entry, at=T1, extractor="rules")
        second.join(timeout=30)
    finally:
        other.close()
    assert answers == [False]


def _commit_check(ledger: Ledger, entry: int, answers: list[bool]) -> None:
    with ledger.storage.atomic():
        answers.append(recorder_for(ledger.storage).undigested(entry))


def _until_a_lock_is_awaited(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as watcher:
        for _ in range(3000):
            if watcher.execute("SELECT count(*) FROM pg_locks WHERE NOT granted").fetchone()[0]:
                return
            threading.Event().wait(0.01)
    pytest.fail("the second commit never waited for the first")
