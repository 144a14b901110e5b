"""A close's outbox row is queued once per transaction (SQLite, migration 0026: from the transaction's chain
row, over the versions it closed), with the rows the per-row trigger queued: one `close` per closed
version, in id order, before the transaction's inserts; a migrated copy queues the same; a ledger from
before the migration is upgraded and verifies. The raw-client refusals of a close and of a malformed
tx_from or tx_to are in tests/ledger/test_raw_tampering.py and below."""

from __future__ import annotations

import sqlite3

import pytest

from factledger.ledger import Ledger
from factledger.ledger.migrate import migrate
from factledger.ledger.verify import verify_ledger
from factledger.schema import migrations

# recall_claims_close as 0003 wrote it: one outbox row per closed row, as the row is closed.
PER_ROW_CLOSE = """
CREATE TRIGGER recall_claims_close
AFTER UPDATE OF tx_to ON claims
BEGIN
    INSERT INTO recall_outbox (claim_id, change) VALUES (NEW.id, 'close');
END;
"""


def _write(path) -> None:
    ledger = Ledger.open(path)
    try:
        with ledger.transaction(principal="operator:test") as tx:
            tx.define("lives_in", "one")
            tx.add("s", "Ann", "lives_in", "Paris", valid_from="2024-01-01")
            tx.add("s", "Ann", "likes", "jazz", valid_from="2024-01-01")
            tx.add("t", "Bob", "lives_in", "Oslo", valid_from="2024-01-01")
        with ledger.transaction(principal="operator:test") as tx:  # closes 3 and 1, opens 4-7 (remainders too)
            tx.supersede("t", "Bob", "lives_in", "Lima", valid_from="2024-03-01")
            tx.supersede("s", "Ann", "lives_in", "Rome", valid_from="2024-06-01")
        with ledger.transaction(principal="operator:test") as tx:  # closes 2 only
            tx.retract("s", "Ann", "likes", "jazz", all_valid_time=True)
        with ledger.transaction(principal="operator:test") as tx:  # opens 8 only
            tx.add("s", "Cy", "likes", "folk", valid_from="2024-01-01")
    finally:
        ledger.close()


def _outbox(path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT claim_id, change FROM recall_outbox ORDER BY seq").fetchall()
    finally:
        conn.close()


def _as_before_0026(path) -> None:
    """The file as migration 0025 left it (the per-row outbox trigger, 0006's form checks)."""
    form_0006 = next(m.sql for m in migrations("sqlite") if m.version == 6)
    form_triggers = [
        block.split(";\n", 1)[0] + ";\nEND;"
        for block in form_0006.split("CREATE TRIGGER ")[1:]
        if block.startswith(("claims_tx_from_form_insert", "claims_tx_to_form_update"))
    ]
    assert len(form_triggers) == 2
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.executescript(
            "BEGIN; DROP TRIGGER recall_claims_close; DROP TRIGGER claims_tx_from_form_insert;"
            " DROP TRIGGER claims_tx_to_form_update;" + PER_ROW_CLOSE
            + "".join(f"\nCREATE TRIGGER {t}" for t in form_triggers)
            + "\nDELETE FROM schema_migrations WHERE version >= 26; COMMIT;"
        )
    finally:
        conn.close()


def test_closes_are_queued_per_transaction_before_its_inserts(ledger_path) -> None:
    _write(ledger_path)
    assert _outbox(ledger_path) == [
        (1, "insert"), (2, "insert"), (3, "insert"),
        (1, "close"), (3, "close"), (4, "insert"), (5, "insert"), (6, "insert"), (7, "insert"),
        (2, "close"),
        (8, "insert"),
    ]


def test_the_same_rows_as_the_per_row_trigger(tmp_path) -> None:
    new, old = tmp_path / "new.db", tmp_path / "old.db"
    _write(new)
    Ledger.open(old).close()
    _as_before_0026(old)
    conn = sqlite3.connect(old)
    # 0026 and every later migration marked applied: the old triggers stay while the same writes run (a later
    # migration run again would recreate `recall_claims_close` over the per-row one, 0027 does)
    conn.executemany("INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01T00:00:00.000000Z')",
                     [(m.version, m.name) for m in migrations("sqlite") if m.version >= 26])
    conn.commit()
    conn.close()
    _write(old)
    conn = sqlite3.connect(old)
    try:  # the comparison is with the per-row trigger, not the per-transaction one again
        (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'recall_claims_close'").fetchone()
    finally:
        conn.close()
    assert "AFTER UPDATE OF tx_to ON claims" in sql
    assert _outbox(new) == _outbox(old)


def test_a_migrated_copy_queues_the_same_closes(tmp_path) -> None:
    source, target = tmp_path / "source.db", tmp_path / "target.db"
    _write(source)
    assert migrate(source, target, pairs=5, seed=1).ok
    assert _outbox(target) == _outbox(source)


def test_a_ledger_from_before_the_migration_is_upgraded(ledger_path) -> None:
    Ledger.open(ledger_path).close()
    _as_before_0026(ledger_path)
    _write(ledger_path)  # opened for writing: migrated first
    conn = sqlite3.connect(ledger_path)
    try:
        assert conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] >= 26
    finally:
        conn.close()
    assert _outbox(ledger_path)[3:5] == [(1, "close"), (3, "close")]
    ledger = Ledger.open(ledger_path, read_only=True)
    try:
        report = verify_ledger(ledger)  # the upgraded schema is the one a fresh ledger gets
        assert report.ok, [c for c in report.failed]
    finally:
        ledger.close()


LATEST = "(SELECT MAX(id) FROM transactions)"
LATEST_TIME = "(SELECT MAX(tx_time) FROM transactions)"
NEW_TX = "INSERT INTO transactions (tx_time, principal) VALUES (strftime('%Y-%m-%dT%H:%M:%f000Z', 'now'), 'operator:raw')"
OPEN = (
    "INSERT INTO claims (scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from,"
    " tx_from, opened_by) VALUES ('s', 'dee', 'Dee', 'likes', 'many', 'tea', 'tea', '2024-01-01T00:00:00.000000Z',"
    " {tx_from}, " + LATEST + ")"
)
CLOSE = "UPDATE claims SET tx_to = {tx_to}, closed_by = " + LATEST + " WHERE id = 8"


@pytest.mark.parametrize(
    "statement,fragment",
    [
        (OPEN.format(tx_from=LATEST_TIME), None),
        (OPEN.format(tx_from="'2024-13-01T00:00:00.000000Z'"), "claims.tx_from must be a UTC timestamp"),
        (OPEN.format(tx_from="'2024-02-30T00:00:00.000000Z'"), "claims.tx_from must be a UTC timestamp"),
        (OPEN.format(tx_from="'2024-01-01 00:00:00'"), "claims.tx_from must be a UTC timestamp"),
        (OPEN.format(tx_from="'2024-01-01T00:00:00.000000Z'"), "opened by the latest transaction"),
        (CLOSE.format(tx_to=LATEST_TIME), None),
        (CLOSE.format(tx_to="'2024-01-01T24:00:00.000000Z'"), "claims.tx_to must be a UTC timestamp"),
        (CLOSE.format(tx_to="lower(" + LATEST_TIME + ")"), "claims.tx_to must be a UTC timestamp"),
        (CLOSE.format(tx_to="'2999-01-01T00:00:00.000000Z'"), "closed by the latest transaction"),
    ],
)
def test_transaction_times_of_claims_keep_their_refusals(ledger_path, statement: str, fragment: str | None) -> None:
    """A time equal to the latest transaction's is taken without the form check; any other is checked
    first, so a malformed one is still refused as malformed."""
    _write(ledger_path)
    raw = sqlite3.connect(ledger_path, isolation_level=None)
    try:
        raw.execute("BEGIN")
        raw.execute(NEW_TX)
        if fragment is None:
            raw.execute(statement)
        else:
            with pytest.raises(sqlite3.IntegrityError, match=fragment):
                raw.execute(statement)
        raw.execute("ROLLBACK")
    finally:
        raw.close()
