"""The claims' lexical rows are written behind a watermark (SQLite, migration 0027): many transactions
at once, the same rows as written per transaction, before anything reads them; a read-only reader finds
the pending tail without writing it; verify tells pending from missing; an erased value is never
indexed afterwards."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from factledger.ledger import Ledger
from factledger.ledger.sqlite_recorder import LANES_AT_ONCE, LANES_TAIL
from factledger.ledger.verify import verify_ledger
from factledger.recall import Recall, RecallConfig
from factledger.recall.recorder import recorder_for
from factledger.recall.verify import verify_recall

LEXICAL = RecallConfig(vector_weight=0.0)
VALUE = "Quillbrook"  # made up for this test: the bytes looked for after erase


def _raw(path, sql: str, params=()) -> list[tuple]:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def _lanes(path) -> tuple[list[tuple], list[tuple], list[tuple]]:
    return (
        _raw(path, "SELECT rowid, body, context FROM recall_fts ORDER BY rowid"),
        _raw(path, "SELECT rowid, body FROM recall_fts_trigram ORDER BY rowid"),
        _raw(path, "SELECT claim_id, change FROM recall_outbox ORDER BY seq"),
    )


def _watermark(path) -> tuple[int, int]:
    return _raw(path, "SELECT tx_id, (SELECT MAX(tx_id) FROM tx_chain) FROM recall_lanes_through")[0]


def _history(ledger: Ledger, eager: bool) -> None:
    """Transactions in two scopes, a supersede, text outside ASCII, a template change and an erase, with
    the lanes caught up after every transaction (`eager`: what per-transaction lanes wrote) or not."""

    def step() -> None:
        if eager:
            ledger.catch_up_lanes()

    with ledger.transaction(principal="operator:test") as tx:
        tx.define("lives_in", "one", template="{subject} lives in {value}")
        tx.add("s", "Ann", "lives_in", "Paris", valid_from="2024-01-01")
        tx.add("t", "Bob", "likes", "tea", valid_from="2024-01-01")
        tx.add("s", "Ann", "likes", "jazz", valid_from="2024-01-01")
    step()
    with ledger.transaction(principal="operator:test") as tx:
        tx.add("s", "Ann", "likes", VALUE, valid_from="2024-01-01")
        tx.add("s", "Ann", "likes", "東京の寿司", valid_from="2024-01-01")
        tx.add("s", "Ann", "likes", "folk", valid_from="2024-01-01")
        tx.supersede("s", "Ann", "lives_in", "Rome", valid_from="2024-06-01")
    step()
    with ledger.transaction(principal="operator:test") as tx:
        tx.add("s", "Cy", "lives_in", "Oslo", valid_from="2024-01-01")
        tx.add("s", "Cy", "likes", "chess", valid_from="2024-01-01")
    step()
    with ledger.transaction(principal="operator:test") as tx:  # a new template: the indexed sentences change
        tx.define("lives_in", "one", template="{subject} is based in {value}")
        tx.add("s", "Dee", "lives_in", "Lima", valid_from="2024-01-01")
    step()
    with ledger.transaction(principal="operator:test") as tx:
        tx.add("s", "Eve", "likes", "opera", valid_from="2024-01-01")
    step()
    ledger.erase(scope="s", subject="Ann", predicate="likes", value=VALUE, principal="operator:test", reason="asked")
    step()
    with ledger.transaction(principal="operator:test") as tx:
        tx.add("s", "Fay", "likes", "rain", valid_from="2024-01-01")


def test_caught_up_at_once_the_rows_are_those_written_per_transaction(tmp_path) -> None:
    eager, deferred = tmp_path / "eager.db", tmp_path / "deferred.db"
    for path, now in ((eager, True), (deferred, False)):
        ledger = Ledger.open(path)
        try:
            _history(ledger, now)
            if not now:
                assert ledger.recorder.lanes_tail() > 0  # written at close, below
        finally:
            ledger.close()
    assert _lanes(deferred) == _lanes(eager)
    fts, trigram, _ = _lanes(deferred)
    # the sentences are today's (a template change rewrote them; neighbours' contexts keep the old words)
    assert [row[:2] for row in fts] == _raw(deferred, "SELECT id, text FROM recall_claim_text ORDER BY id")
    assert any("is based in" in body for _, body, _ in fts) and any("lives in" in context for _, _, context in fts)
    assert not any(VALUE in body or VALUE in context for _, body, context in fts)
    assert [body for _, body in trigram] == ["Ann likes 東京の寿司"]
    watermark, head = _watermark(deferred)
    assert watermark == head


def test_a_commit_leaves_its_rows_pending_until_the_bound(ledger_path) -> None:
    ledger = Ledger.open(ledger_path)
    try:
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("s", "Ann", "likes", "jazz", valid_from="2024-01-01")
        assert _watermark(ledger_path) == (0, 1) and _lanes(ledger_path)[0] == []
        assert _lanes(ledger_path)[2] == [(1, "insert")]  # the vector outbox still commits with the claim
        for n in range(2, LANES_TAIL):
            with ledger.transaction(principal="operator:test") as tx:
                tx.add("s", "Ann", "likes", f"tune{n}", valid_from="2024-01-01")
        assert _watermark(ledger_path) == (0, LANES_TAIL - 1)
        with ledger.transaction(principal="operator:test") as tx:  # the tail reaches the bound: written in this commit
            tx.add("s", "Ann", "likes", "folk", valid_from="2024-01-01")
        assert _watermark(ledger_path) == (LANES_TAIL, LANES_TAIL)
        assert len(_lanes(ledger_path)[0]) == LANES_TAIL
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("t", "Bob", "likes", "tea", valid_from="2024-01-01")
        with ledger.transaction(principal="operator:test") as tx:  # a batch is written in its own commit
            for n in range(LANES_AT_ONCE):
                tx.add("t", "Bob", "likes", f"song{n}", valid_from="2024-01-01")
        assert _watermark(ledger_path) == (LANES_TAIL + 2, LANES_TAIL + 2)
    finally:
        ledger.close()


def test_a_search_on_a_writable_ledger_writes_the_tail_first(ledger_path, embedder) -> None:
    ledger = Ledger.open(ledger_path)
    try:
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("s", "Ann", "likes", "saxophone", valid_from="2024-01-01")
        assert _watermark(ledger_path) == (0, 1)
        engine = Recall(ledger, config=LEXICAL, embedder=embedder)
        assert [h.claim.value for h in engine.search("saxophone", "s")] == ["saxophone"]
        assert _watermark(ledger_path) == (1, 1)
    finally:
        ledger.close()


READER = textwrap.dedent(
    """
    import sys
    from factledger.ledger import Ledger
    from factledger.recall import Recall, RecallConfig
    with Ledger.open(sys.argv[1], read_only=True) as ledger:
        recall = Recall(ledger, config=RecallConfig(vector_weight=0.0))
        print("|".join(h.claim.value for h in recall.search(sys.argv[2], "s")))
        print("|".join(h.claim.value for h in recall.search(sys.argv[3], "s")))
    """
)


def test_another_process_reading_only_finds_a_claim_right_after_its_commit(ledger_path) -> None:
    writer = Ledger.open(ledger_path)
    try:
        with writer.transaction(principal="operator:test") as tx:
            tx.add("s", "Ann", "likes", "baroque music", valid_from="2024-01-01")
            tx.add("s", "Ann", "likes", "hiking", valid_from="2024-01-01")
        writer.catch_up_lanes()
        with writer.transaction(principal="operator:test") as tx:
            tx.add("s", "Ann", "likes", "marimba music", valid_from="2024-01-01")
            tx.add("s", "Ann", "likes", "東京の寿司", valid_from="2024-01-01")
        assert _watermark(ledger_path) == (1, 2)  # pending, and the writer still holds the file
        found = subprocess.run(
            [sys.executable, "-c", READER, str(ledger_path), "music", "寿司"], capture_output=True, text=True, check=True,
        ).stdout.splitlines()
        assert {"marimba music", "baroque music"} <= set(found[0].split("|"))
        assert found[1] == "東京の寿司"
        assert _watermark(ledger_path) == (1, 2)  # the reader wrote nothing
    finally:
        writer.close()
    assert _watermark(ledger_path) == (2, 2)  # written at close


def test_verify_tells_pending_from_missing_and_a_moved_watermark(ledger_path, embedder) -> None:
    ledger = Ledger.open(ledger_path)
    try:
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("s", "Ann", "likes", "jazz", valid_from="2024-01-01")
        ledger.catch_up_lanes()
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("s", "Ann", "likes", "folk", valid_from="2024-01-01")
        reader = Ledger.open(ledger_path, read_only=True)
        try:  # pending on a reader that cannot write them: not missing
            assert recorder_for(reader).lexical_faults() == [] and verify_ledger(reader).ok
            checks = {c.name: c for c in verify_recall(Recall(reader, config=LEXICAL, embedder=embedder))}
            assert checks["lexical_index"].ok
        finally:
            reader.close()
        assert _watermark(ledger_path) == (1, 2)
    finally:
        ledger.close()
    # A raw client cannot move the watermark back, past the chain, or away.
    for sql in ("UPDATE recall_lanes_through SET tx_id = 1", "UPDATE recall_lanes_through SET tx_id = 3",
                "DELETE FROM recall_lanes_through"):
        with pytest.raises(sqlite3.DatabaseError, match="watermark"):
            _raw(ledger_path, sql)
    # With the refusing trigger dropped, verify reports what the move left behind.
    _raw(ledger_path, "DROP TRIGGER recall_lanes_catch_up")
    _raw(ledger_path, "UPDATE recall_lanes_through SET tx_id = 1")
    assert _lexical_faults(ledger_path) == [(2, "ahead")]
    _raw(ledger_path, "DELETE FROM recall_fts WHERE rowid = 2")
    _raw(ledger_path, "UPDATE recall_lanes_through SET tx_id = 2")  # forward, over a version never indexed
    assert _lexical_faults(ledger_path) == [(2, "missing")]


def _lexical_faults(path) -> list[tuple[int, str]]:
    """(claim id, problem) of the lexical index, as a read-only reader's verify finds them."""
    reader = Ledger.open(path, read_only=True)
    try:
        return [(f.id, f.problem) for f in recorder_for(reader).lexical_faults()]
    finally:
        reader.close()


def test_a_raw_client_moving_the_watermark_forward_writes_the_rows(ledger_path) -> None:
    ledger = Ledger.open(ledger_path)
    try:
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("s", "Ann", "likes", "jazz", valid_from="2024-01-01")
            tx.add("s", "Ann", "likes", "folk", valid_from="2024-01-01")
    finally:
        ledger.storage.close()  # not Ledger.close: that would write them
    _raw(ledger_path, "UPDATE recall_lanes_through SET tx_id = (SELECT MAX(tx_id) FROM tx_chain)")
    assert [row[2] for row in _lanes(ledger_path)[0]] == ["Ann likes folk", "Ann likes jazz"]


def _store_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.iterdir() if p.name.startswith(path.name) and p.is_file())


def test_an_erased_pending_value_is_never_indexed(ledger_path) -> None:
    ledger = Ledger.open(ledger_path)
    try:
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("s", "Ann", "likes", "jazz", valid_from="2024-01-01")
        ledger.catch_up_lanes()
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("s", "Ann", "likes", VALUE, valid_from="2024-01-01")
            tx.add("s", "Ann", "likes", "folk", valid_from="2024-01-01")
        assert _watermark(ledger_path) == (1, 2)  # the value's lexical row is pending
        ledger.erase(scope="s", subject="Ann", predicate="likes", value=VALUE, principal="operator:test",
                     reason="asked to")
        ledger.catch_up_lanes()
        assert ledger.scrub().complete
        rows = ledger.storage.query("SELECT rowid, body, context FROM recall_fts ORDER BY rowid")
        assert [tuple(r) for r in rows] == [(1, "Ann likes jazz", ""), (3, "Ann likes folk", "")]
        assert VALUE.lower().encode() not in _store_bytes(ledger_path).lower()
    finally:
        ledger.close()
    assert VALUE.lower().encode() not in _store_bytes(ledger_path).lower()


def test_a_backup_and_a_migrated_copy_hold_the_rows_written(tmp_path) -> None:
    from factledger.ledger.backup import backup
    from factledger.ledger.migrate import migrate

    source = tmp_path / "source.db"
    ledger = Ledger.open(source)
    try:
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("s", "Ann", "likes", "jazz", valid_from="2024-01-01")
            tx.add("s", "Ann", "likes", "folk", valid_from="2024-01-01")
        assert _watermark(source) == (0, 1)
        assert backup(ledger, tmp_path / "copy.db").ok
    finally:
        ledger.storage.close()  # not Ledger.close: the pending rows stay pending in the source
    assert _watermark(source) == (1, 1)  # the backup wrote them first
    copy = tmp_path / "copy.db"
    assert _watermark(copy) == (1, 1) and _lanes(copy)[0] == _lanes(source)[0]
    ledger = Ledger.open(source)
    try:
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("s", "Bob", "likes", "tea", valid_from="2024-01-01")
    finally:
        ledger.storage.close()
    assert _watermark(source) == (1, 2)
    target = tmp_path / "target.db"
    assert migrate(source, target, pairs=3, seed=1).ok
    assert _watermark(target) == (2, 2)  # written in the copy's transaction
    ledger = Ledger.open(source)
    ledger.close()
    assert _lanes(target)[0] == _lanes(source)[0] and len(_lanes(target)[0]) == 3


def test_a_read_only_reader_scores_the_tail_as_the_index_will(ledger_path) -> None:
    """The tail's hits get the BM25 score FTS5 gives them once written, so one ranking holds both."""
    from factledger.recall.model import Terms, Visibility

    seen = Visibility(("s",), "2025-06-01T00:00:00.000000Z", "9999-12-31T23:59:59.999999Z")
    ledger = Ledger.open(ledger_path)
    try:
        with ledger.transaction(principal="operator:test") as tx:
            for n, value in enumerate(["jazz", "jazz records", "folk music", "music of the jazz age", "tea",
                                       "chess", "running", "jazz and folk music festivals"]):
                tx.add("s", f"P{n}", "likes", value, valid_from="2024-01-01")
        with ledger.transaction(principal="operator:test") as tx:  # an index of some size: three rows more
            for n in range(300):                                   # barely move its statistics
                tx.add("u", f"Q{n}", "likes", f"thing {n}", valid_from="2024-01-01")
        ledger.catch_up_lanes()
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("s", "Ann", "likes", "cool jazz music", valid_from="2024-01-01")
            tx.add("s", "Bob", "likes", "music", valid_from="2024-01-01")
            tx.add("t", "Cy", "likes", "jazz", valid_from="2024-01-01")  # another scope: not visible
        asked = [
            dict(terms=Terms(("jazz", "music")), newest=False, among=None),
            dict(terms=Terms(("jazz", "music"), body_only=True), newest=False, among=None),
            dict(terms=Terms(("jazz", "musical")), newest=True, among=None),
            dict(terms=Terms(("jazz", "music")), newest=False, among=[1, 4, 309, 310]),
        ]

        def ranked(each) -> list[list[tuple[int, float, bool]]]:
            reader = Ledger.open(ledger_path, read_only=True)
            try:
                recorder = recorder_for(reader)
                return [
                    [(h.id, h.score, h.own) for h in recorder.ranked_hits(
                        "fact", a["terms"], seen, depth=20, body_weight=1.0, context_weight=0.5, newest=a["newest"],
                        among=a["among"])]
                    for a in each
                ]
            finally:
                reader.close()

        before = ranked(asked)
        assert _watermark(ledger_path) == (2, 3)
        ledger.catch_up_lanes()
        after = ranked(asked)
    finally:
        ledger.close()
    for was, now, a in zip(before, after, asked):
        assert sorted((i, own) for i, _, own in was) == sorted((i, own) for i, _, own in now)
        written = {i: score for i, score, _ in now}
        for item, score, _ in was:
            if item >= 309:  # the tail's: scored with the statistics the index has once they are written
                assert score == pytest.approx(written[item], rel=1e-9)
        # one ranking (the index's hits keep the index's own scores until the tail is written, as FTS5
        # gives them: its statistics without the three rows)
        assert [i for i, _, _ in was] == [i for i, _, _ in sorted(was, key=lambda h: -h[0] if a["newest"] else (-h[1], h[0]))]
    assert {309, 310} <= {i for i, _, _ in before[0]} and 311 not in {i for i, _, _ in before[0]}


def test_a_ledger_from_before_the_migration_starts_its_watermark_at_its_last_transaction(ledger_path) -> None:
    from factledger.schema import migrations

    ledger = Ledger.open(ledger_path)
    try:
        for value in ("jazz", "folk"):
            with ledger.transaction(principal="operator:test") as tx:
                tx.add("s", "Ann", "likes", value, valid_from="2024-01-01")
    finally:
        ledger.close()
    # The file as 0026 left it: the lanes written by the chain row's trigger, no watermark.
    old = {m.version: m.sql for m in migrations("sqlite")}
    insert_tx = "CREATE TRIGGER recall_claims_insert_tx" + old[25].split("CREATE TRIGGER recall_claims_insert_tx", 1)[1]
    close = "CREATE TRIGGER recall_claims_close" + old[26].split("CREATE TRIGGER recall_claims_close", 1)[1].split("END;", 1)[0] + "END;"
    conn = sqlite3.connect(ledger_path, isolation_level=None)
    try:
        conn.executescript(
            "BEGIN; DROP TRIGGER recall_lanes_catch_up; DROP TRIGGER recall_lanes_through_kept;"
            " DROP VIEW recall_claim_lanes_pending; DROP VIEW recall_claim_trigram_pending; DROP TABLE recall_lanes_through;"
            " DROP TRIGGER recall_claims_insert_tx; DROP TRIGGER recall_claims_close;\n"
            + insert_tx + "\n" + close + "\nDELETE FROM schema_migrations WHERE version = 27; COMMIT;"
        )
        conn.execute("BEGIN")
        assert conn.execute("SELECT COUNT(*) FROM recall_fts").fetchone()[0] == 2
        conn.execute("ROLLBACK")
    finally:
        conn.close()
    ledger = Ledger.open(ledger_path)  # migrated: everything indexed so far is below the watermark
    try:
        assert _watermark(ledger_path) == (2, 2)
        with ledger.transaction(principal="operator:test") as tx:
            tx.add("s", "Ann", "likes", "tea", valid_from="2024-01-01")
        assert _watermark(ledger_path) == (2, 3) and recorder_for(ledger).lexical_faults() == []
    finally:
        ledger.close()
    fts, _, outbox = _lanes(ledger_path)
    assert [row[1] for row in fts] == ["Ann likes jazz", "Ann likes folk", "Ann likes tea"]
    assert outbox == [(1, "insert"), (2, "insert"), (3, "insert")]
