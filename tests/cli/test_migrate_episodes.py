"""`migrate` into SQLite copies the journal in chunks, each one episode batch (migration 0024): the copy's
episode lanes are the rows the source's per-row trigger wrote, across chunk boundaries too."""

from __future__ import annotations

import sqlite3

from factledger.digest import Journal, Turn
from factledger.ledger import Ledger
from factledger.ledger import migrate as migrate_module
from factledger.ledger.migrate import migrate


def _lanes(path) -> tuple[list[tuple], list[tuple], list[int]]:
    conn = sqlite3.connect(path)
    try:
        return (
            conn.execute("SELECT rowid, body, context FROM recall_episode_fts ORDER BY rowid").fetchall(),
            conn.execute("SELECT rowid, body FROM recall_episode_fts_trigram ORDER BY rowid").fetchall(),
            [r[0] for r in conn.execute("SELECT journal_id FROM recall_episode_outbox WHERE change = 'insert' ORDER BY seq")],
        )
    finally:
        conn.close()


def test_the_copy_indexes_its_turns_as_the_source_did(tmp_path, monkeypatch) -> None:
    source, target = tmp_path / "a.db", tmp_path / "b.db"
    with Ledger.open(source) as ledger:
        journal = Journal(ledger)
        for n in range(11):  # two sessions interleaved, one turn outside ASCII
            text = "ベルリンに住んでいます" if n == 4 else f"turn {n} about the garden"
            outcome = journal.append(Turn(scope="s", text=text, session=f"chat-{n % 2}", role="user" if n % 3 else "assistant",
                                          said_at=f"2024-03-01T10:00:{n:02d}Z"))
            assert outcome.entry_id is not None
    monkeypatch.setattr(migrate_module, "COPY_CHUNK", 4)  # chunks of 4, 4, 3: sessions span the boundaries
    report = migrate(source, target, pairs=10, seed=1)
    assert report.ok and report.copied["journal"] == 11
    fts, trigram, outbox = _lanes(target)
    assert (fts, trigram) == _lanes(source)[:2] and len(fts) == 11 and [r[0] for r in trigram] == [5]
    assert outbox == list(range(1, 12))
