"""DESIGN §8 against a client that is not factledger: every forged write through a plain `sqlite3`
connection is refused by the schema (0006_integrity.sql), with the error it gets, and leaves every table
of the file exactly as it was. The last table does the same through factledger's own API for explicit
tx times (imports only, never ahead of the clock).

Each case is one raw SQLite transaction: its statements run in order and the last one must fail.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from tests.support.chain_keys import copy_chain_key
from factledger.ledger import Ledger, ValidationError

NOW = "strftime('%Y-%m-%dT%H:%M:%f', 'now') || '999Z'"  # SQLite's clock, in the ledger's form
LATEST = "(SELECT MAX(id) FROM transactions)"
LATEST_TIME = "(SELECT MAX(tx_time) FROM transactions)"
NEW_TX = f"INSERT INTO transactions (tx_time, principal, reason) VALUES ({NOW}, 'operator:mallory', 'raw')"
COLUMNS = "scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from, valid_to, tx_from, tx_to, opened_by, closed_by"


def claim(valid_from: str, valid_to: str = "NULL", tx_from: str = LATEST_TIME, tx_to: str = "NULL",
          opened_by: str = LATEST, closed_by: str = "NULL", value: str = "Oslo", **extra: str) -> str:
    """A raw INSERT of a lives_in version for Ann (SQL expressions, not values)."""
    names = COLUMNS + "".join(f", {k}" for k in extra)
    values = (f"'home', 'ann', 'Ann', 'lives_in', 'one', '{value}', lower('{value}'), {valid_from}, {valid_to},"
              f" {tx_from}, {tx_to}, {opened_by}, {closed_by}" + "".join(f", {v}" for v in extra.values()))
    return f"INSERT INTO claims ({names}) VALUES ({values})"


def ts(text: str) -> str:
    return f"'{text}'"


OLD_VALID = (ts("1990-01-01T00:00:00.000000Z"), ts("1991-01-01T00:00:00.000000Z"))  # overlaps nothing in the slot


# (what, statements, fragment of the error the last statement gets)
FORGERIES: list[tuple[str, list[str], str]] = [
    # -- the issue's own findings
    ("a closed version with a 2023 transaction interval (a forged past belief)",
     [claim(ts("2022-01-01T00:00:00.000000Z"), ts("2022-06-01T00:00:00.000000Z"), ts("2023-01-01T00:00:00.000000Z"),
            ts("2023-06-01T00:00:00.000000Z"), "1", "1")], "inserted open"),
    ("an open version with tx_from in 1999",
     [claim(*OLD_VALID, tx_from=ts("1999-01-01T00:00:00.000000Z"))], "opened by the latest transaction"),
    ("a transaction with tx_time 'zzzz'",
     ["INSERT INTO transactions (tx_time, principal) VALUES ('zzzz', 'operator:mallory')"], "transactions.tx_time must be"),
    ("the erase gate opened by a raw client, then claims deleted",
     ["INSERT INTO erase_gate (id, principal) VALUES (1, 'operator:mallory')"], "erase gate opens only"),
    ("an operator transaction, the gate, then claims deleted with no recorded erase",
     [NEW_TX, "INSERT INTO erase_gate (id, principal) VALUES (1, 'operator:mallory')", "DELETE FROM claims"],
     "never deleted outside a recorded erase"),
    ("an erase recorded for a non-operator's transaction",
     [f"UPDATE version_hashes SET erased_by = {LATEST}, salt = NULL WHERE claim_id = 1"], "changes only when"),
    ("deleting tombstones", ["DELETE FROM tombstones"], "tombstones are never deleted"),
    ("deleting predicates", ["DELETE FROM predicates WHERE name = 'likes'"], "predicates are never deleted"),
    # -- opening versions
    ("an open version by an earlier transaction",
     [NEW_TX, claim(*OLD_VALID, tx_from="(SELECT tx_time FROM transactions WHERE id = 1)", opened_by="1")],
     "opened by the latest transaction"),
    ("an open version by the latest transaction with another tx_from",
     [NEW_TX, claim(*OLD_VALID, tx_from=ts("2024-01-10T00:00:00.000000Z"))],
     "opened by the latest transaction"),
    ("an open version overlapping the slot's current one",
     [NEW_TX, claim(ts("2024-03-01T00:00:00.000000Z"), ts("2024-04-01T00:00:00.000000Z"))], "overlap"),
    ("a version that reuses an erased version's id",
     [NEW_TX, claim(ts("1990-01-01T00:00:00.000000Z"), ts("1991-01-01T00:00:00.000000Z"),
                    id="(SELECT MIN(claim_id) FROM version_hashes WHERE erased_by IS NOT NULL)")], "claim id must be larger"),
    ("a valid_from of 30 February",
     [NEW_TX, claim(ts("2024-02-30T00:00:00.000000Z"), ts("2024-03-30T00:00:00.000000Z"), value="Lima")],
     "claims.valid_from must be"),
    ("a valid_to without microseconds",
     [NEW_TX, claim(ts("1990-01-01T00:00:00.000000Z"), ts("1991-01-01T00:00:00Z"), value="Lima")], "claims.valid_to must be"),
    # -- closing versions
    ("closing a version by an earlier transaction",
     [NEW_TX, "UPDATE claims SET tx_to = (SELECT tx_time FROM transactions WHERE id = 2), closed_by = 2"
              " WHERE tx_to IS NULL AND predicate = 'likes'"], "closed by the latest transaction"),
    ("closing a version by the latest transaction with another tx_to",
     [NEW_TX, f"UPDATE claims SET tx_to = '2999-01-01T00:00:00.000000Z', closed_by = {LATEST}"
              " WHERE tx_to IS NULL AND predicate = 'likes'"], "closed by the latest transaction"),
    ("re-opening a closed version", ["UPDATE claims SET tx_to = NULL, closed_by = NULL WHERE tx_to IS NOT NULL"], "append-only"),
    ("editing a value in place", ["UPDATE claims SET value = 'Lyon', value_key = 'lyon' WHERE id = 1"], "append-only"),
    # -- transactions
    ("a transaction dated 2999", ["INSERT INTO transactions (tx_time, principal) VALUES ('2999-01-01T00:00:00.000000Z', 'import:x')"],
     "ahead of the clock"),
    ("a transaction earlier than the last",
     ["INSERT INTO transactions (tx_time, principal) VALUES ('2024-01-11T00:00:00.000000Z', 'import:x')"], "later than every"),
    ("a transaction of no known principal kind", [f"INSERT INTO transactions (tx_time, principal) VALUES ({NOW}, 'root:x')"],
     "principal must be"),
    ("a transaction id smaller than an earlier one",
     [f"INSERT INTO transactions (id, tx_time, principal) VALUES (0, {NOW}, 'import:x')"], "id must be larger"),
    ("deleting a transaction", ["DELETE FROM transactions WHERE id = 2"], "transactions are never deleted"),
    ("deleting a transaction with the gate open",
     [NEW_TX, "INSERT INTO erase_gate (id, principal) VALUES (1, 'operator:mallory')", "DELETE FROM transactions"],
     "transactions are never deleted"),
    ("editing a transaction's principal", ["UPDATE transactions SET principal = 'operator:mallory' WHERE id = 2"], "append-only"),
    # -- tombstones, predicates, provenance
    ("editing a tombstone", ["UPDATE tombstones SET reason = 'never mind'"], "tombstones are never edited"),
    ("a tombstone dated 'yesterday'",
     ["INSERT INTO tombstones (content_hash, erased_at, principal) VALUES ('x', 'yesterday', 'operator:mallory')"],
     "tombstones.erased_at must be"),
    ("changing a predicate's cardinality", ["UPDATE predicates SET cardinality = 'many' WHERE name = 'lives_in'"], "fixed"),
    ("renaming a predicate's display", ["UPDATE predicates SET display = 'resides in' WHERE name = 'lives_in'"], "fixed"),
    ("a predicate defined at '2024-13-01'",
     ["INSERT INTO predicates (name, display, cardinality, defined_at) VALUES ('owns', 'owns', 'many', '2024-13-01T00:00:00.000000Z')"],
     "predicates.defined_at must be"),
    ("deleting provenance with the gate open",
     [NEW_TX, "INSERT INTO erase_gate (id, principal) VALUES (1, 'operator:mallory')", "DELETE FROM claim_provenance"],
     "provenance is never deleted"),
    # -- the chain's own tables
    ("deleting a chain row", ["DELETE FROM tx_chain WHERE tx_id = 1"], "append-only"),
    ("rewriting a chain hash", [f"UPDATE tx_chain SET chain_hash = '{'0' * 64}' WHERE tx_id = 1"], "append-only"),
    ("a chain row for an earlier transaction", [NEW_TX, f"INSERT INTO tx_chain (tx_id, chain_hash) VALUES (1, '{'0' * 64}')"], "in order"),
    ("deleting a version hash", ["DELETE FROM version_hashes"], "never deleted"),
    ("rewriting a version's content hash", [f"UPDATE version_hashes SET content_hash = '{'1' * 64}' WHERE claim_id = 1"],
     "changes only when"),
    ("moving the chain start", ["UPDATE chain_start SET legacy_through = 1000"], "fixed"),
    # -- the digest's timestamps
    ("a journal turn said 'now'",
     ["INSERT INTO journal (scope, role, text, said_at, hash, appended_at)"
      f" VALUES ('home', 'user', 'hi', 'now', 'h1', {NOW})"], "journal.said_at must be"),
]


def build(path: Path) -> None:
    """Imports, agent and digest writes, an erase (a tombstone), provenance of a repeated write; each
    transaction a day after the last, in 2024."""
    days = iter(range(11, 31))
    ledger = Ledger.open(path, clock=lambda: f"2024-01-{next(days)}T00:00:00.000000Z")
    try:
        with ledger.transaction(principal="import:seed", tx_time="2024-01-10") as tx:
            tx.define("lives_in", "one")
            tx.define("likes", "many")
            tx.add("home", "Ann", "lives_in", "Paris", valid_from="2023-01-01")
            tx.add("home", "Ann", "likes", "jazz", valid_from="2023-01-01", source="journal:1")
        with ledger.transaction(principal="agent:hermes") as tx:
            tx.supersede("home", "Ann", "lives_in", "Rome", valid_from="2024-02-01")
        with ledger.transaction(principal="operator:alice") as tx:
            tx.add("home", "Ann", "phone", "555-0100")
        ledger.erase(scope="home", subject="Ann", predicate="phone", principal="operator:dpo", reason="asked")
        with ledger.transaction(principal="digest:rules") as tx:
            tx.add("home", "Ann", "likes", "jazz", valid_from="2023-06-01", source="journal:2")  # provenance only
    finally:
        ledger.close()


def file_contents(conn: sqlite3.Connection) -> str:
    """A digest of the schema and of every row of every table."""
    digest = hashlib.sha256()
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    for row in conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type, name"):
        digest.update(repr(row).encode())
    for name in names:
        for row in conn.execute(f'SELECT * FROM "{name}"'):
            digest.update(repr((name, row)).encode())
    return digest.hexdigest()


def contents_of(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return file_contents(conn)
    finally:
        conn.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tampering") / "ledger.db"
    build(path)
    return path


@pytest.fixture
def raw(built: Path, tmp_path: Path):
    copy = tmp_path / "ledger.db"
    source = sqlite3.connect(built)
    target = sqlite3.connect(copy)
    source.backup(target)
    source.close()
    target.isolation_level = None  # this test says where its transaction begins and ends
    yield target
    target.close()


def test_the_fixture_holds_what_the_forgeries_aim_at(raw: sqlite3.Connection) -> None:
    one = lambda sql: raw.execute(sql).fetchone()[0]  # noqa: E731
    assert one("SELECT COUNT(*) FROM tombstones") == 1
    assert one("SELECT COUNT(*) FROM claim_provenance") == 1
    assert one("SELECT COUNT(*) FROM claims WHERE tx_to IS NOT NULL") == 1
    assert one("SELECT COUNT(*) FROM version_hashes WHERE erased_by IS NOT NULL") == 1
    assert one(f"SELECT principal FROM transactions WHERE id = {LATEST}") == "digest:rules"


@pytest.mark.parametrize("what,statements,fragment", FORGERIES, ids=[f[0] for f in FORGERIES])
def test_a_raw_client_is_refused(raw: sqlite3.Connection, what: str, statements: list[str], fragment: str) -> None:
    before = file_contents(raw)
    raw.execute("BEGIN")
    try:
        for statement in statements[:-1]:
            raw.execute(statement)  # the steps before the forgery are allowed on their own
        with pytest.raises(sqlite3.IntegrityError) as refused:
            raw.execute(statements[-1])
    finally:
        raw.execute("ROLLBACK")
    assert fragment.lower() in str(refused.value).lower(), str(refused.value)
    assert file_contents(raw) == before


def test_the_allowed_raw_writes_still_work(raw: sqlite3.Connection) -> None:
    """The rules refuse forgeries, not the ledger's own moves: a new latest transaction may open and close
    versions at its time, and a predicate's template may change."""
    raw.execute("BEGIN")
    raw.execute(NEW_TX)
    raw.execute(f"UPDATE claims SET tx_to = {LATEST_TIME}, closed_by = {LATEST} WHERE tx_to IS NULL AND predicate = 'likes'")
    raw.execute(claim(*OLD_VALID, value="Lima"))
    raw.execute("UPDATE predicates SET template = '{subject} lives in {value}' WHERE name = 'lives_in'")
    raw.execute("COMMIT")
    closed = raw.execute(f"SELECT closed_by FROM version_hashes WHERE closed_by = {LATEST}").fetchall()
    assert len(closed) == 1  # the close is mirrored into the hash rows (the chain names it)


# -- through factledger: explicit tx times ----------------------------------------------------------

EXPLICIT: list[tuple[str, str, str, str]] = [
    # (what, principal, tx_time, fragment of the ValidationError naming tx_time)
    ("from an agent", "agent:hermes", "2999-01-01", "only for imports"),
    ("from the digest", "digest:rules", "2999-01-01", "only for imports"),
    ("from an operator", "operator:alice", "2025-01-01", "only for imports"),
    ("an import far ahead of the clock", "import:crm", "2999-01-01", "ahead of the clock"),
    ("an import six minutes ahead of the clock", "import:crm", "2025-06-01T00:06:00Z", "ahead of the clock"),
    ("an import not later than the last transaction", "import:crm", "2024-01-10", "not later than the last"),
]


@pytest.mark.parametrize("what,principal,tx_time,fragment", EXPLICIT, ids=[e[0] for e in EXPLICIT])
def test_explicit_tx_times_are_for_imports_within_the_skew(built: Path, tmp_path: Path, what, principal, tx_time, fragment):
    path = tmp_path / "ledger.db"
    path.write_bytes(built.read_bytes())
    copy_chain_key(built, path)  # a copy of the file needs its chain key to be written
    ledger = Ledger.open(path, clock=lambda: "2025-06-01T00:00:00.000000Z")
    try:
        before = contents_of(path)
        with pytest.raises(ValidationError) as refused:
            with ledger.transaction(principal=principal, tx_time=tx_time) as tx:
                tx.add("home", "Ann", "likes", "tea")
        assert refused.value.field == "tx_time" and fragment in refused.value.message
        assert contents_of(path) == before
        # Within the skew an import is accepted, and a default-dated write after it is still current.
        with ledger.transaction(principal="import:crm", tx_time="2025-06-01T00:04:00Z") as tx:
            tx.add("home", "Ann", "likes", "tea", valid_from="2025-01-01")
        with ledger.transaction(principal="agent:hermes") as tx:
            tx.add("home", "Ann", "likes", "chess", valid_from="2025-01-01")
        assert {"tea", "chess"} <= {v.value for v in ledger.current(predicate="likes")}
    finally:
        ledger.close()
