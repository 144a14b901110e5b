"""The database itself refuses bad writes: raw SQL that bypasses the Python code is refused."""

from __future__ import annotations

import sqlite3

import pytest

T0 = "2025-01-01T00:00:00.000000Z"


@pytest.fixture
def seeded(fresh_ledger, ledger_path):
    with fresh_ledger.transaction(principal="operator:test") as tx:
        tx.define("lives_in", "one")
        tx.define("likes", "many")
        tx.add("s", "user", "lives_in", "Paris", valid_from="2024-01-01")
        tx.add("s", "user", "likes", "jazz", valid_from="2024-01-01")
    conn = sqlite3.connect(ledger_path)
    yield conn
    conn.close()


def _insert(conn, **overrides):
    """A version as the latest transaction (1) would open it, so only the named fault is refused."""
    (tx_time,) = conn.execute("SELECT tx_time FROM transactions WHERE id = 1").fetchone()
    row = dict(
        scope="s", subject_key="user", subject="user", predicate="lives_in", cardinality="one",
        value="Rome", value_key="rome", valid_from="2030-01-01T00:00:00.000000Z", valid_to=None,
        tx_from=tx_time, tx_to=None, opened_by=1, closed_by=None,
    )
    row.update(overrides)
    cols = ", ".join(row)
    conn.execute(f"INSERT INTO claims ({cols}) VALUES ({', '.join('?' for _ in row)})", list(row.values()))


REFUSALS = [
    # (what, statement or callable, expected message fragment)
    ("second open version of a one slot", lambda c: _insert(c), "overlap"),
    ("overlapping closed-valid version of a one slot",
     lambda c: _insert(c, valid_from="2023-06-01T00:00:00.000000Z", valid_to="2024-06-01T00:00:00.000000Z"), "overlap"),
    ("duplicate open (slot, value) in a many slot",
     lambda c: _insert(c, predicate="likes", cardinality="many", value="jazz", value_key="jazz"), "overlap"),
    ("cardinality differing from the predicate", lambda c: _insert(c, cardinality="many", value_key="x"), "cardinality"),
    ("valid_from not before valid_to",
     lambda c: _insert(c, subject_key="other", valid_from="2031-01-01T00:00:00.000000Z",
                       valid_to="2030-01-01T00:00:00.000000Z"), "CHECK"),
    # Inserted closed at all (so tx_from < tx_to, a CHECK, cannot even be reached by an insert).
    ("a version inserted closed",
     lambda c: _insert(c, valid_from="1990-01-01T00:00:00.000000Z", valid_to="1991-01-01T00:00:00.000000Z",
                       tx_to="2029-01-01T00:00:00.000000Z", closed_by=1), "inserted open"),
    ("changing a value in place", "UPDATE claims SET value = 'Rome' WHERE id = 1", "append-only"),
    ("changing valid time in place", "UPDATE claims SET valid_to = '2024-02-01T00:00:00.000000Z' WHERE id = 1", "append-only"),
    ("re-opening a closed version", "UPDATE claims SET tx_to = NULL, closed_by = NULL WHERE id = 1", "append-only"),
    ("deleting a claim", "DELETE FROM claims WHERE id = 1", "never deleted"),
    ("deleting a transaction", "DELETE FROM transactions", "never deleted"),
    ("editing a transaction", "UPDATE transactions SET principal = 'agent:x'", "append-only"),
    ("a transaction earlier than the last",
     "INSERT INTO transactions (tx_time, principal) VALUES ('2000-01-01T00:00:00.000000Z', 'operator:x')", "later"),
    ("a principal of no known form",
     "INSERT INTO transactions (tx_time, principal) VALUES (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '999Z', 'nobody')",
     "principal"),
    ("changing a used predicate's cardinality", "UPDATE predicates SET cardinality = 'many' WHERE name = 'lives_in'", "cardinality"),
]


@pytest.mark.parametrize("what,statement,fragment", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_database_refuses(seeded, what, statement, fragment):
    before = seeded.execute("SELECT COUNT(*), MAX(id) FROM claims").fetchone()
    with pytest.raises(sqlite3.IntegrityError) as info:
        if callable(statement):
            statement(seeded)
        else:
            seeded.execute(statement)
    assert fragment.lower() in str(info.value).lower()
    seeded.rollback()
    assert seeded.execute("SELECT COUNT(*), MAX(id) FROM claims").fetchone() == before


def test_closing_tx_to_once_is_the_one_allowed_update(seeded):
    seeded.execute("INSERT INTO transactions (tx_time, principal) VALUES (strftime('%Y-%m-%dT%H:%M:%f', 'now') || '999Z', 'operator:x')")
    (later,) = seeded.execute("SELECT tx_time FROM transactions WHERE id = 2").fetchone()
    seeded.execute("UPDATE claims SET tx_to = ?, closed_by = 2 WHERE id = 1", (later,))
    with pytest.raises(sqlite3.IntegrityError):
        seeded.execute("UPDATE claims SET tx_to = '2999-06-01T00:00:00.000000Z' WHERE id = 1")


def test_erase_is_the_one_door_for_delete(fresh_ledger):
    with fresh_ledger.transaction(principal="operator:test") as tx:
        tx.add("s", "user", "phone", "555-0100")
    result = fresh_ledger.erase(scope="s", subject="user", predicate="phone", principal="operator:dpo", reason="GDPR")
    assert len(result.erased) == 1
    assert fresh_ledger.history(["s"], subject="user", predicate="phone") == []
    assert fresh_ledger.storage.one("SELECT COUNT(*) FROM erase_gate")[0] == 0
