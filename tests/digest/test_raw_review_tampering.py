"""SQLite refuses what PostgreSQL refuses (issue 21; tests/postgres/test_digest_refusals.py is the
PostgreSQL half): the journal, the rejection and confirmation memory and the manifest of exports against a
plain `sqlite3` client, no factledger code. Each refused case runs statements that succeed, then the one
the schema must refuse (schema/sqlite/0018_review_memory_kept.sql, 0013), in one raw transaction, and
leaves every table as it was. The moves the digest, review, retention and erase make still work; a ledger
made before the migration gets the rules when it is next opened."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.support.chain_keys import copy_chain_key
from factledger.ledger import Ledger

T1 = "2025-01-01T00:00:00.000000Z"
T2 = "2025-01-02T00:00:00.000000Z"
HASH_A = "a" * 64
HASH_B = "b" * 64

BASE = [
    f"INSERT INTO transactions (tx_time, principal) VALUES ('{T1}', 'operator:alice')",
    "INSERT INTO journal (id, scope, session, role, text, said_at, hash, appended_at)"
    f" VALUES (1, 's', 's1', 'user', 'I work at Initech', '{T1}', '{HASH_A}', '{T1}')",
    "INSERT INTO journal (id, scope, session, role, text, said_at, hash, appended_at, digested_at, extractor)"
    f" VALUES (2, 's', 's1', 'user', 'I like tea', '{T1}', '{HASH_B}', '{T1}', '{T1}', 'rules')",
    "INSERT INTO proposals (id, scope, entry_id, sources, extractor, op, subject, subject_key, predicate, value,"
    f" value_key, quote, status, decision, created_at, decided_at, decided_by) VALUES (1, 's', 1, '[\"journal:1\"]',"
    f" 'rules', 'add', 'User', 'user', 'works_at', 'Initech', 'initech', 'I work at Initech', 'rejected', 'hold',"
    f" '{T1}', '{T1}', 'operator:alice')",
    "INSERT INTO proposals (id, scope, extractor, op, subject, subject_key, predicate, value, value_key, status,"
    f" decision, created_at) VALUES (2, 's', 'rules', 'add', 'User', 'user', 'likes', 'Tea', 'tea', 'pending', 'hold', '{T1}')",
    "INSERT INTO rejections (id, content_hash, scope, subject_key, predicate, value_key, value, proposal_id,"
    f" rejected_by, rejected_at) VALUES (1, '{HASH_A}', 's', 'user', 'works_at', 'initech', 'Initech', 1,"
    f" 'operator:alice', '{T1}')",
    "INSERT INTO confirmations (id, content_hash, scope, subject_key, predicate, value_key, value, claim_id,"
    f" confirmed_by, confirmed_at) VALUES (1, '{HASH_B}', 's', 'user', 'likes', 'tea', 'Tea', 7, 'operator:alice', '{T1}')",
    "INSERT INTO exports (id, directory, format, snapshot_tx_time, exported_at, tables)"
    f" VALUES (1, '/tmp/export', 'parquet', '{T1}', '{T1}', '[\"claims\"]')",
]

LIFT = f"UPDATE rejections SET lifted_at = '{T2}', lifted_by = 'operator:bob' WHERE id = 1"

# (what, statements: all succeed but the last, which must be refused with this fragment)
REFUSALS: list[tuple[str, list[str], str]] = [
    # -- the findings
    ("a rejection deleted (the value said again would become current)", ["DELETE FROM rejections"],
     "rejections are never deleted"),
    ("one rejection deleted", ["DELETE FROM rejections WHERE id = 1"], "rejections are never deleted"),
    ("a turn's words rewritten", ["UPDATE journal SET text = 'I work at Globex' WHERE id = 1"], "never edited"),
    ("the manifest of exports emptied", ["DELETE FROM exports"], "append-only"),
    ("an export's entry edited", ["UPDATE exports SET directory = '/elsewhere'"], "append-only"),
    # -- the journal: words and times as said; the digest's marks only
    ("a turn moved in time", [f"UPDATE journal SET said_at = '{T2}' WHERE id = 1"], "never edited"),
    ("a turn given to another speaker", ["UPDATE journal SET role = 'assistant' WHERE id = 1"], "never edited"),
    ("a turn's hash rewritten", [f"UPDATE journal SET hash = '{'c' * 64}' WHERE id = 1"], "never edited"),
    ("a turn moved to another scope", ["UPDATE journal SET scope = 'other' WHERE id = 1"], "never edited"),
    ("a turn's redactions forgotten", ["UPDATE journal SET redactions = '[\"x\"]' WHERE id = 1"], "never edited"),
    ("digested twice", [f"UPDATE journal SET digested_at = '{T2}', extractor = 'llm:x' WHERE id = 2"], "digested once"),
    ("undigested", ["UPDATE journal SET digested_at = NULL, extractor = NULL WHERE id = 2"], "digested once"),
    ("failed attempts counted down", ["UPDATE journal SET attempts = 2 WHERE id = 1",
                                       "UPDATE journal SET attempts = 1 WHERE id = 1"], "only count up"),
    # -- review memory: never edited, lifted once
    ("a rejection moved to another value", [f"UPDATE rejections SET content_hash = '{HASH_B}'"], "never edited"),
    ("a rejection moved to another scope", ["UPDATE rejections SET scope = 'other'"], "never edited"),
    ("a rejection by someone else", ["UPDATE rejections SET rejected_by = 'operator:mallory'"], "never edited"),
    ("a rejection backdated", [f"UPDATE rejections SET rejected_at = '{T2}'"], "never edited"),
    ("a rejection re-pointed", ["UPDATE rejections SET proposal_id = 2"], "keeps the proposal"),
    ("a lift undone", [LIFT, "UPDATE rejections SET lifted_at = NULL, lifted_by = NULL"], "lifted once"),
    ("a lift rewritten", [LIFT, "UPDATE rejections SET lifted_by = 'operator:mallory'"], "lifted once"),
    ("a confirmation moved to another version", ["UPDATE confirmations SET claim_id = 8"], "never edited"),
    ("a confirmation moved to another value", [f"UPDATE confirmations SET content_hash = '{HASH_A}'"], "never edited"),
    ("a confirmation lifted twice", [f"UPDATE confirmations SET lifted_at = '{T1}', lifted_by = 'operator:bob'",
                                     f"UPDATE confirmations SET lifted_at = '{T2}', lifted_by = 'operator:bob'"], "lifted once"),
]

# What the digest, review, retention, undo and erase do: each allowed.
ALLOWED: list[tuple[str, list[str]]] = [
    ("the digest marks a turn", [f"UPDATE journal SET digested_at = '{T2}', extractor = 'rules', last_error = '' WHERE id = 1"]),
    ("a failed attempt is counted", ["UPDATE journal SET attempts = attempts + 1, last_error = 'boom' WHERE id = 1"]),
    ("retention (or undo, or erase) deletes a turn", ["DELETE FROM journal WHERE id = 2"]),
    ("erase re-inserts a turn redacted", ["DELETE FROM journal WHERE id = 1",
     "INSERT INTO journal (id, scope, session, role, text, said_at, hash, redactions, appended_at)"
     f" VALUES (1, 's', 's1', 'user', 'I work at [erased]', '{T1}', '{'d' * 64}', '[\"erased\"]', '{T1}')"]),
    ("an operator lifts a rejection", [LIFT]),
    ("erase redacts a rejection's texts", ["UPDATE rejections SET value = '[erased]', value_key = '[erased]', reason = ''"]),
    ("erase deletes the proposal a rejection points to", ["DELETE FROM proposals WHERE id = 1"]),
    ("erase deletes a confirmation", ["DELETE FROM confirmations WHERE id = 1"]),
    ("an operator withdraws a confirmation", [f"UPDATE confirmations SET lifted_at = '{T2}', lifted_by = 'operator:bob'"]),
    ("a new export is recorded", ["INSERT INTO exports (directory, format, exported_at) VALUES ('/tmp/b', 'csv', "
                                  f"'{T2}')"]),
]

TABLES = ("journal", "proposals", "rejections", "confirmations", "exports")


@pytest.fixture(scope="module")
def base_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("review-raw") / "ledger.db"
    Ledger.open(path).close()  # every migration, through factledger
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("BEGIN")
        for statement in BASE:
            conn.execute(statement)
        conn.execute("COMMIT")
    finally:
        conn.close()
    return path


def _contents(conn: sqlite3.Connection) -> list[list[tuple]]:
    return [conn.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in TABLES]


@pytest.fixture
def raw(base_file: Path, tmp_path: Path):
    path = tmp_path / "ledger.db"
    path.write_bytes(base_file.read_bytes())
    copy_chain_key(base_file, path)  # a copy of the file needs its chain key to be written
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    yield conn
    conn.close()


@pytest.mark.parametrize(("what", "statements", "message"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_a_raw_client_is_refused(raw: sqlite3.Connection, what: str, statements: list[str], message: str) -> None:
    before = _contents(raw)
    raw.execute("BEGIN")
    for statement in statements[:-1]:
        raw.execute(statement)
    with pytest.raises(sqlite3.IntegrityError) as refused:
        raw.execute(statements[-1])
    raw.execute("ROLLBACK")
    assert str(refused.value).startswith("factledger:") and message in str(refused.value), str(refused.value)
    assert _contents(raw) == before


@pytest.mark.parametrize(("what", "statements"), ALLOWED, ids=[a[0] for a in ALLOWED])
def test_what_the_product_does_is_allowed(raw: sqlite3.Connection, what: str, statements: list[str]) -> None:
    raw.execute("BEGIN")
    for statement in statements:
        raw.execute(statement)
    raw.execute("COMMIT")


def test_a_ledger_made_before_the_rules_gets_them_when_opened(base_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    path.write_bytes(base_file.read_bytes())
    copy_chain_key(base_file, path)  # a copy of the file needs its chain key to be written
    conn = sqlite3.connect(path, isolation_level=None)
    try:  # as a ledger written before migration 18: its triggers gone, its version unrecorded
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%lifted once%'"
                                    " OR name IN ('rejections_no_delete', 'journal_marks_only', 'journal_digested_once',"
                                    " 'journal_attempts_count_up', 'rejections_keep_the_proposal')").fetchall():
            conn.execute(f"DROP TRIGGER {name}")
        conn.execute("DELETE FROM schema_migrations WHERE version = 18")
        conn.execute("BEGIN")
        conn.execute("DELETE FROM rejections")
        conn.execute("ROLLBACK")  # allowed before the migration
    finally:
        conn.close()
    Ledger.open(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="rejections are never deleted"):
            conn.execute("DELETE FROM rejections")
    finally:
        conn.close()
