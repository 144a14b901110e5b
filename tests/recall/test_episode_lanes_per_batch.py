"""A batch of turns gets its episode lanes once (SQLite: migration 0024, the episode batch row), with the
same rows the per-row trigger writes for the same turns appended one by one: one lexical row per turn
with its speaker and words and its session neighbours' words as context, a trigram row for text outside
ASCII, one outbox row per turn in id order."""

from __future__ import annotations

import sqlite3

import pytest

from factledger.digest import Journal, Turn
from factledger.ledger import Ledger, ValidationError
from factledger.ledger.storage import Storage
from factledger.ledger.verify import verify_ledger
from factledger.recall.recorder import recorder_for
from factledger.schema import migrations

SCOPE = "user:ann"

EARLIER = [Turn(scope=SCOPE, text="I started pottery classes", session="s1", said_at="2024-03-01T10:00:00Z")]
BATCH = [
    Turn(scope=SCOPE, text="The teacher is called Mira", session="s1", said_at="2024-03-02T10:00:00Z"),
    Turn(scope=SCOPE, text="Lovely, how is the studio?", role="assistant", session="s1", said_at="2024-03-02T10:00:01Z"),
    Turn(scope=SCOPE, text="We met in Kyoto at 東京駅 once", session="s2", said_at="2024-03-02T11:00:00Z", speaker="Ann"),
    Turn(scope="user:bob", text="Bob plays the cello on Sundays", session="s1", said_at="2024-03-02T12:00:00Z"),
    Turn(scope=SCOPE, text="The studio smells of clay and tea", session="s1", said_at="2024-03-02T10:00:02Z"),
    Turn(scope=SCOPE, text="No session for this remark about kilns", said_at="2024-03-02T13:00:00Z"),
]


def _lanes(path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        return {
            "fts": conn.execute("SELECT rowid, body, context FROM recall_episode_fts ORDER BY rowid").fetchall(),
            "expected": conn.execute(
                "SELECT t.id, t.text, c.context FROM recall_episode_text t JOIN recall_episode_context c ON c.id = t.id ORDER BY t.id"
            ).fetchall(),
            "trigram": conn.execute("SELECT rowid, body FROM recall_episode_fts_trigram ORDER BY rowid").fetchall(),
            "outbox": conn.execute("SELECT journal_id, change FROM recall_episode_outbox ORDER BY seq").fetchall(),
            "batch": conn.execute("SELECT * FROM recall_episode_batch").fetchall(),
        }
    finally:
        conn.close()


def _append(path, turns: list[Turn], *, one_by_one: bool) -> list:
    ledger = Ledger.open(path)
    try:
        journal = Journal(ledger)
        if one_by_one:
            return [journal.append(t) for t in turns]
        return journal.append_many(turns)
    finally:
        ledger.close()


def test_a_batch_writes_the_lanes_one_by_one_appends_write(tmp_path) -> None:
    batched, single = tmp_path / "batched.db", tmp_path / "single.db"
    for path in (batched, single):
        _append(path, EARLIER, one_by_one=True)
    outcomes = _append(batched, BATCH, one_by_one=False)
    assert [o.status for o in outcomes] == ["stored"] * len(BATCH)
    _append(single, BATCH, one_by_one=True)
    got, want = _lanes(batched), _lanes(single)
    assert got == want
    assert got["fts"] == got["expected"] and len(got["fts"]) == 1 + len(BATCH)
    assert got["batch"] == []
    by_id = {row[0]: row for row in got["fts"]}
    # The turn said before the batch now has the batch's first turn of its session as context.
    assert by_id[1][2] == by_id[2][1]
    # Session s1 of Ann: 1, 2, 3, 6 (by id, whatever the said-at order); s2 and Bob's have no neighbour.
    assert by_id[3][2] == f"{by_id[2][1]} {by_id[6][1]}"
    assert by_id[4][2] == "" and by_id[5][2] == ""
    assert [row[0] for row in got["trigram"]] == [4]
    assert got["outbox"] == [(n, "insert") for n in range(1, 2 + len(BATCH))]
    ledger = Ledger.open(batched, read_only=True)
    try:
        assert recorder_for(ledger).lexical_faults() == []
    finally:
        ledger.close()


def test_duplicates_in_and_before_the_batch_are_reported_with_their_ids(tmp_path) -> None:
    path = tmp_path / "l.db"
    _append(path, EARLIER, one_by_one=True)
    outcomes = _append(path, [EARLIER[0], BATCH[0], BATCH[0], BATCH[1]], one_by_one=False)
    assert [o.status for o in outcomes] == ["skipped", "stored", "skipped", "stored"]
    first, again = outcomes[1].entry_id, outcomes[3].entry_id
    assert outcomes[0].entry_id == 1 and outcomes[2].entry_id == first
    assert outcomes[0].reason == "duplicate of journal entry 1"
    lanes = _lanes(path)
    assert lanes["fts"] == lanes["expected"] and [row[0] for row in lanes["fts"]] == [1, first, again]


def test_a_bad_turn_in_a_batch_writes_nothing(tmp_path) -> None:
    path = tmp_path / "l.db"
    _append(path, EARLIER, one_by_one=True)
    bad = Turn(scope=SCOPE, text="said on no real day", session="s1", said_at="2024-02-30T10:00:00Z")
    with pytest.raises(ValidationError) as raised:
        _append(path, [BATCH[0], bad], one_by_one=False)
    assert raised.value.field == "said_at"
    lanes = _lanes(path)
    assert [row[0] for row in lanes["fts"]] == [1] and lanes["outbox"] == [(1, "insert")] and lanes["batch"] == []


def test_a_raw_client_meets_the_batch_rules(tmp_path) -> None:
    """What a client outside factledger meets: a turn inserted without a batch is indexed by the per-row
    trigger as before; a batch row that does not start at the next id is refused; turns inserted while
    a batch row is left in place are unindexed, and verify's lexical check names them."""
    path = tmp_path / "l.db"
    _append(path, EARLIER, one_by_one=True)
    conn = sqlite3.connect(path, isolation_level=None)
    insert = (
        "INSERT INTO journal (scope, session, role, text, said_at, hash, appended_at)"
        " VALUES ('user:ann', 's1', 'user', ?, '2024-03-03T10:00:00.000000Z', ?, '2024-03-03T10:00:00.000000Z')"
    )
    try:
        conn.execute(insert, ("a raw turn about glazes", "h-raw-1"))
        with pytest.raises(sqlite3.IntegrityError, match="an episode batch starts at the next journal id"):
            conn.execute("INSERT INTO recall_episode_batch (id, first_id) VALUES (1, 99)")
        conn.execute("INSERT INTO recall_episode_batch (id, first_id) VALUES (1, 3)")
        with pytest.raises(sqlite3.IntegrityError, match="opened and closed, never changed"):
            conn.execute("UPDATE recall_episode_batch SET first_id = 4")
        conn.execute(insert, ("a raw turn left unindexed", "h-raw-2"))
    finally:
        conn.close()
    lanes = _lanes(path)
    assert [row[0] for row in lanes["fts"]] == [1, 2]
    ledger = Ledger.open(path, read_only=True)
    try:
        assert [(f.kind, f.id, f.problem) for f in recorder_for(ledger).lexical_faults()] == [("episode", 3, "missing")]
    finally:
        ledger.close()


OLD_INSERT_TRIGGER = """
CREATE TRIGGER recall_journal_insert
AFTER INSERT ON journal
BEGIN
    INSERT INTO recall_episode_fts (rowid, body, context)
    SELECT NEW.id, t.text, c.context
      FROM recall_episode_text t JOIN recall_episode_context c ON c.id = t.id WHERE t.id = NEW.id;
    UPDATE recall_episode_fts
       SET context = (SELECT context FROM recall_episode_context WHERE id = recall_episode_fts.rowid)
     WHERE rowid IN (SELECT MAX(p.id) FROM journal p
                      WHERE p.scope = NEW.scope AND p.session IS NEW.session AND p.id < NEW.id
                     UNION
                     SELECT MIN(n.id) FROM journal n
                      WHERE n.scope = NEW.scope AND n.session IS NEW.session AND n.id > NEW.id);
    INSERT INTO recall_episode_fts_trigram (rowid, body)
    SELECT NEW.id, t.text FROM recall_episode_text t WHERE t.id = NEW.id AND t.text GLOB '*[^ -~]*';
    INSERT INTO recall_episode_outbox (journal_id, change) VALUES (NEW.id, 'insert');
END;
"""


def _migration_sql(version: int) -> str:
    return next(m.sql for m in migrations("sqlite") if m.version == version)


def test_a_ledger_from_before_the_migration_is_upgraded(tmp_path) -> None:
    path = tmp_path / "l.db"
    _append(path, EARLIER, one_by_one=True)
    conn = sqlite3.connect(path, isolation_level=None)
    try:  # the file as migration 0023 left it
        conn.executescript(
            "BEGIN; DROP TRIGGER recall_journal_insert; DROP TRIGGER recall_episode_batch_close;"
            " DROP TRIGGER recall_episode_batch_starts_next; DROP TRIGGER recall_episode_batch_fixed;"
            " DROP TABLE recall_episode_batch;" + OLD_INSERT_TRIGGER
            # and the claim lanes' trigger as 0023 wrote it (0025 rewrote its lookups)
            + " DROP TRIGGER recall_claims_insert_tx;" + _migration_sql(23).split("DROP TRIGGER recall_claims_insert;", 1)[1]
            + " DELETE FROM schema_migrations WHERE version >= 24; COMMIT;"
        )
        assert conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == 23
    finally:
        conn.close()
    storage = Storage(path)  # opened for writing: migrated
    try:
        assert storage.schema_version >= 24
    finally:
        storage.close()
    _append(path, BATCH, one_by_one=False)
    lanes = _lanes(path)
    assert lanes["fts"] == lanes["expected"] and len(lanes["fts"]) == 1 + len(BATCH)
    assert lanes["outbox"] == [(n, "insert") for n in range(1, 2 + len(BATCH))]
    ledger = Ledger.open(path, read_only=True)
    try:
        report = verify_ledger(ledger)  # the upgraded schema is the one a fresh ledger gets
        assert report.ok, [c for c in report.failed]
    finally:
        ledger.close()


@pytest.mark.both_engines
def test_a_batch_and_the_same_turns_one_by_one_index_alike(fresh_ledger) -> None:
    """On either engine: the same turns in two scopes, one appended turn by turn, the other as a batch,
    get the same lexical rows (body and context), and each its outbox row."""
    journal = Journal(fresh_ledger)

    def scoped(turns: list[Turn], scope: str) -> list[Turn]:
        return [Turn(scope=scope, text=t.text, role=t.role, session=t.session, said_at=t.said_at, speaker=t.speaker)
                for t in turns if t.scope == SCOPE]

    singles = [journal.append(t).entry_id for t in scoped(EARLIER + BATCH, "user:one")]
    batched = [journal.append(t).entry_id for t in scoped(EARLIER, "user:many")]
    batched += [o.entry_id for o in journal.append_many(scoped(BATCH, "user:many"))]
    recorder = recorder_for(fresh_ledger)
    rows = [(recorder.lexical_row("episode", a), recorder.lexical_row("episode", b)) for a, b in zip(singles, batched)]
    assert len(rows) == 6 and all(a == b and a is not None for a, b in rows)
    assert rows[0][0][1] == rows[1][0][0]  # the turn before the batch has the batch's first turn as context
    assert recorder.lexical_faults() == []
    queued = sorted(e.item for e in recorder.outbox_entries() if e.kind == "episode")
    assert queued == sorted(singles + batched)
