"""schema/postgres/0002 and 0005 (the digest's tables) against a second client: raw SQL through psycopg,
no factledger code. Each refused case runs statements that succeed, then the one PostgreSQL must
refuse, and pins the SQLSTATE and message; nothing of the case is left behind. The moves the digest,
review and erase make must still work."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install -e '.[postgres]')")

T1 = "2025-01-01T00:00:00.000000Z"
T2 = "2025-01-02T00:00:00.000000Z"
HASH_A = "a" * 64
HASH_B = "b" * 64

# Every case starts from: one transaction; journal entry 1 (undigested); proposals 1 (pending, from
# entry 1), 2 (applied by transaction 1), 3 (rejected_again by rejection 1); rejection 1 (in force) of
# proposal 1's value; confirmation 1 (in force).
BASE = [
    f"INSERT INTO transactions (id, tx_time, principal) VALUES (1, '{T1}', 'operator:alice')",
    "INSERT INTO journal (id, scope, session, role, text, said_at, hash, appended_at)"
    f" VALUES (1, 's', 's1', 'user', 'I live in Rome', '{T1}', '{HASH_A}', '{T1}')",
    "INSERT INTO proposals (id, scope, entry_id, sources, extractor, op, subject, subject_key, predicate, value,"
    f" value_key, quote, status, decision, created_at) VALUES (1, 's', 1, '[\"journal:1\"]', 'rules', 'add', 'Bob',"
    f" 'bob', 'lives_in', 'Rome', 'rome', 'I live in Rome', 'pending', 'hold', '{T1}')",
    "INSERT INTO proposals (id, scope, extractor, op, subject, subject_key, predicate, value, value_key, status,"
    f" decision, tx, created_at, decided_at, decided_by) VALUES (2, 's', 'agent:hermes', 'add', 'Bob', 'bob', 'likes',"
    f" 'Tea', 'tea', 'applied', 'apply', 1, '{T1}', '{T1}', 'agent:hermes')",
    "INSERT INTO rejections (id, content_hash, scope, subject_key, predicate, value_key, value, proposal_id,"
    f" rejected_by, rejected_at) VALUES (1, '{HASH_A}', 's', 'bob', 'lives_in', 'oslo', 'Oslo', 1, 'operator:alice', '{T1}')",
    "INSERT INTO proposals (id, scope, extractor, op, subject, subject_key, predicate, value, value_key, status,"
    f" decision, rejection_id, created_at, decided_at) VALUES (3, 's', 'rules', 'add', 'Bob', 'bob', 'lives_in',"
    f" 'Oslo', 'oslo', 'rejected_again', 'reject', 1, '{T1}', '{T1}')",
    "INSERT INTO confirmations (id, content_hash, scope, subject_key, predicate, value_key, value, claim_id,"
    f" confirmed_by, confirmed_at) VALUES (1, '{HASH_B}', 's', 'bob', 'likes', 'tea', 'Tea', 7, 'operator:alice', '{T1}')",
]


@dataclass(frozen=True)
class Refusal:
    name: str
    statements: list[str]   # all succeed but the last, in one transaction
    sqlstate: str
    message: str            # a fragment of the error PostgreSQL reports


INTEGRITY, CHECK, UNIQUE = "23000", "23514", "23505"


def _proposal(pid: int, **columns: str) -> str:
    base = {"scope": "'s'", "extractor": "'rules'", "op": "'add'", "subject": "'Bob'", "subject_key": "'bob'",
            "predicate": "'lives_in'", "value": "'Rome'", "status": "'pending'", "decision": "'hold'",
            "created_at": f"'{T1}'"}
    base.update(columns)
    return f"INSERT INTO proposals (id, {', '.join(base)}) VALUES ({pid}, {', '.join(base.values())})"


REFUSALS = [
    # -- the journal: words and times as said; the digest's marks only
    Refusal("editing a turn's text", ["UPDATE journal SET text = 'I live in Oslo'"], INTEGRITY, "a journal entry is never edited"),
    Refusal("moving a turn's said_at", [f"UPDATE journal SET said_at = '{T2}'"], INTEGRITY, "never edited"),
    Refusal("a turn's hash rewritten", [f"UPDATE journal SET hash = '{HASH_B}'"], INTEGRITY, "never edited"),
    Refusal("digesting twice", [f"UPDATE journal SET digested_at = '{T1}', extractor = 'rules'",
                                f"UPDATE journal SET digested_at = '{T2}', extractor = 'llm:x'"], INTEGRITY, "digested once"),
    Refusal("undigesting", [f"UPDATE journal SET digested_at = '{T1}', extractor = 'rules'",
                            "UPDATE journal SET digested_at = NULL, extractor = NULL"], INTEGRITY, "digested once"),
    Refusal("attempts counted down", ["UPDATE journal SET attempts = 2", "UPDATE journal SET attempts = 1"],
            INTEGRITY, "only count up"),
    Refusal("a malformed turn hash", ["INSERT INTO journal (scope, role, text, said_at, hash, appended_at)"
            f" VALUES ('s', 'user', 'x', '{T1}', 'not-a-hash', '{T1}')"], CHECK, "journal_hash_form"),
    Refusal("the same turn twice", ["INSERT INTO journal (id, scope, role, text, said_at, hash, appended_at)"
            f" VALUES (9, 's', 'user', 'x', '{T1}', '{HASH_A}', '{T1}')"], UNIQUE, "journal_hash_key"),
    Refusal("truncating the journal", ["TRUNCATE journal CASCADE"], INTEGRITY, "never truncated"),
    # -- proposals: written once, decided forward
    Refusal("editing what was proposed", ["UPDATE proposals SET op = 'retract' WHERE id = 1"], INTEGRITY,
            "a proposal is never edited"),
    Refusal("backdating a proposal", [f"UPDATE proposals SET created_at = '{T2}' WHERE id = 1"], INTEGRITY, "never edited"),
    Refusal("moving a proposal's sources", ["UPDATE proposals SET sources = '[]' WHERE id = 1"], INTEGRITY, "never edited"),
    Refusal("applied back to pending", ["UPDATE proposals SET status = 'pending', decided_at = NULL WHERE id = 2"],
            INTEGRITY, "does not move from applied to pending"),
    Refusal("pending to rejected_again", [f"UPDATE proposals SET status = 'rejected_again', decided_at = '{T2}' WHERE id = 1"],
            INTEGRITY, "does not move from pending to rejected_again"),
    Refusal("a dropped proposal revived", [f"UPDATE proposals SET status = 'dropped', decided_at = '{T2}' WHERE id = 1",
            f"UPDATE proposals SET status = 'applied', tx = 1 WHERE id = 1"], INTEGRITY, "does not move from dropped"),
    Refusal("an applied proposal's decision rewritten", [f"UPDATE proposals SET decided_by = 'operator:mallory' WHERE id = 2"],
            INTEGRITY, "applied proposal's decision is final"),
    Refusal("applied without a transaction", [f"UPDATE proposals SET status = 'applied', decided_at = '{T2}' WHERE id = 1"],
            CHECK, "proposals_applied_by_tx"),
    Refusal("decided but pending", [_proposal(9, decided_at=f"'{T1}'")], CHECK, "proposals_decided_unless_pending"),
    Refusal("rejected with no decision time", [_proposal(9, status="'rejected'")], CHECK, "proposals_decided_unless_pending"),
    Refusal("an unknown status", [_proposal(9, status="'maybe'", decided_at=f"'{T1}'")], CHECK, "proposals_status_check"),
    Refusal("an add with no value", [_proposal(9, value="NULL")], CHECK, "proposals_value_unless_retract"),
    Refusal("two proposals in one place of an entry", [_proposal(9, entry_id="1")], UNIQUE, "proposals_per_entry"),
    Refusal("sources that are no list", [_proposal(9, sources="'{\"a\": 1}'")], CHECK, "proposals_sources_check"),
    Refusal("a proposal applied by no transaction", [_proposal(9, status="'applied'", decided_at=f"'{T1}'", tx="99")],
            "23503", "proposals_tx_fkey"),
    Refusal("truncating proposals", ["TRUNCATE proposals CASCADE"], INTEGRITY, "never truncated"),
    # -- review memory: one in force per value, lifted once, rejections kept
    Refusal("a second rejection in force", ["INSERT INTO rejections (id, content_hash, scope, subject_key, predicate,"
            f" value_key, value, rejected_by, rejected_at) VALUES (9, '{HASH_A}', 's', 'bob', 'lives_in', 'oslo', 'Oslo',"
            f" 'operator:bob', '{T2}')"], UNIQUE, "rejections_active"),
    Refusal("a rejection by no operator", ["INSERT INTO rejections (content_hash, scope, subject_key, predicate,"
            f" value_key, value, rejected_by, rejected_at) VALUES ('{HASH_B}', 's', 'bob', 'lives_in', 'oslo', 'Oslo',"
            f" 'digest:rules', '{T2}')"], CHECK, "rejections_rejected_by_check"),
    Refusal("an unkeyed rejection hash", ["INSERT INTO rejections (content_hash, scope, subject_key, predicate,"
            f" value_key, value, rejected_by, rejected_at) VALUES ('oslo', 's', 'bob', 'lives_in', 'oslo', 'Oslo',"
            f" 'operator:bob', '{T2}')"], CHECK, "rejections_content_hash_check"),
    Refusal("a rejection moved to another value", [f"UPDATE rejections SET content_hash = '{HASH_B}'"], INTEGRITY,
            "rejections are never edited"),
    Refusal("a rejection re-pointed", ["UPDATE rejections SET proposal_id = 2"], INTEGRITY, "keeps the proposal"),
    Refusal("lifted without who", [f"UPDATE rejections SET lifted_at = '{T2}'"], CHECK, "rejections_lifted_together"),
    Refusal("a lift undone", [f"UPDATE rejections SET lifted_at = '{T2}', lifted_by = 'operator:bob'",
                              "UPDATE rejections SET lifted_at = NULL, lifted_by = NULL"], INTEGRITY, "lifted once"),
    Refusal("a rejection deleted", ["DELETE FROM rejections"], INTEGRITY, "rejections are never deleted"),
    Refusal("truncating rejections", ["TRUNCATE rejections"], INTEGRITY, "rejections are never deleted"),
    Refusal("a confirmation moved to another version", ["UPDATE confirmations SET claim_id = 8"], INTEGRITY,
            "confirmations are never edited"),
    Refusal("a confirmation lifted twice", [f"UPDATE confirmations SET lifted_at = '{T1}', lifted_by = 'operator:bob'",
            f"UPDATE confirmations SET lifted_at = '{T2}', lifted_by = 'operator:bob'"], INTEGRITY, "lifted once"),
    Refusal("a confirmation by no operator", ["UPDATE confirmations SET lifted_at = NULL, lifted_by = NULL",
            "INSERT INTO confirmations (content_hash, scope, subject_key, predicate, value_key, value, confirmed_by,"
            f" confirmed_at) VALUES ('{'c' * 64}', 's', 'bob', 'likes', 'jam', 'Jam', 'agent:hermes', '{T1}')"],
            CHECK, "confirmations_confirmed_by_check"),
    Refusal("truncating confirmations", ["TRUNCATE confirmations"], INTEGRITY, "never truncated"),
    # -- leases
    Refusal("a lease held by no one", [f"INSERT INTO digest_leases (entry_id, holder, until) VALUES (1, '', '{T1}')"],
            CHECK, "digest_leases_holder_check"),
    Refusal("a lease forever", ["INSERT INTO digest_leases (entry_id, holder, until) VALUES (1, 'run', 'infinity')"],
            CHECK, "digest_leases_until_check"),
    Refusal("an entry leased twice", [f"INSERT INTO digest_leases (entry_id, holder, until) VALUES (1, 'a', '{T1}')",
            f"INSERT INTO digest_leases (entry_id, holder, until) VALUES (1, 'b', '{T1}')"], UNIQUE, "digest_leases_pkey"),
]


def _tables(conn) -> list:
    tables = ("journal", "proposals", "rejections", "confirmations", "digest_leases")
    return [conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in tables]


def _database(dsn: str):
    conn = psycopg.connect(dsn)
    with conn.transaction():
        for statement in BASE:
            conn.execute(statement)
    return conn


@pytest.mark.parametrize("case", REFUSALS, ids=[c.name for c in REFUSALS])
def test_postgres_refuses(postgres_dsn, case: Refusal):
    conn = _database(postgres_dsn)
    try:
        before = _tables(conn)
        conn.commit()
        *allowed, refused = case.statements
        for statement in allowed:
            conn.execute(statement)
        with pytest.raises(psycopg.Error) as caught:
            conn.execute(refused)
        assert caught.value.sqlstate == case.sqlstate, caught.value
        assert case.message in str(caught.value)
        conn.rollback()
        assert _tables(conn) == before
    finally:
        conn.close()


def test_the_moves_the_digest_review_and_erase_make(postgres_dsn):
    conn = _database(postgres_dsn)
    try:
        with conn.transaction():  # the digest: a failed attempt, then digested; proposal 1 held, then applied
            conn.execute("UPDATE journal SET attempts = attempts + 1, last_error = 'model down' WHERE id = 1")
            conn.execute(f"UPDATE journal SET digested_at = '{T2}', extractor = 'rules', last_error = '' WHERE id = 1")
            conn.execute("UPDATE proposals SET status = 'pending', decided_at = NULL, decision = 'hold', reason = 'held' WHERE id = 1")
            conn.execute(f"UPDATE proposals SET status = 'applied', decided_at = '{T2}', tx = 1, decided_by = 'operator:bob' WHERE id = 1")
        with conn.transaction():  # review: a lift sends the rejected_again proposal back; it is then rejected
            conn.execute(f"UPDATE rejections SET lifted_at = '{T2}', lifted_by = 'operator:bob' WHERE id = 1")
            conn.execute("UPDATE proposals SET status = 'pending', decided_at = NULL, decision = 'hold' WHERE id = 3")
            conn.execute(f"UPDATE proposals SET status = 'rejected', decided_at = '{T2}', decided_by = 'operator:bob' WHERE id = 3")
            conn.execute(f"UPDATE confirmations SET lifted_at = '{T2}', lifted_by = 'operator:bob' WHERE id = 1")
        with conn.transaction():  # erase: text redacted in place, a turn re-inserted redacted, rows deleted
            conn.execute("UPDATE proposals SET quote = 'I live in [erased]', value = '[erased]', value_key = '[erased]',"
                         " subject = 'Bob', reason = '[erased]' WHERE id = 1")
            conn.execute("UPDATE rejections SET value = '', value_key = '', reason = '[erased]' WHERE id = 1")
            conn.execute("UPDATE confirmations SET value = '[erased]', reason = '' WHERE id = 1")
            conn.execute("DELETE FROM journal WHERE id = 1")
            conn.execute("INSERT INTO journal (id, scope, session, role, text, said_at, hash, redactions, appended_at,"
                         f" digested_at, extractor) VALUES (1, 's', 's1', 'user', 'I live in [erased]', '{T1}', '{HASH_B}',"
                         f" '[\"erased\"]', '{T1}', '{T2}', 'rules')")
            conn.execute("DELETE FROM proposals WHERE id = 1")
            conn.execute("DELETE FROM confirmations WHERE id = 1")
        assert conn.execute("SELECT proposal_id, value FROM rejections").fetchall() == [(None, "")]
        assert conn.execute("SELECT id, status FROM proposals ORDER BY id").fetchall() == [(2, "applied"), (3, "rejected")]
        assert conn.execute("SELECT text FROM journal").fetchall() == [("I live in [erased]",)]
        with conn.transaction():  # retention deletes digested turns; a lease comes and goes
            conn.execute(f"INSERT INTO digest_leases (entry_id, holder, until) VALUES (1, 'run', '{T2}')")
            conn.execute("DELETE FROM digest_leases")
            conn.execute("DELETE FROM journal WHERE digested_at IS NOT NULL")
        assert conn.execute("SELECT count(*) FROM journal").fetchone() == (0,)
    finally:
        conn.close()
