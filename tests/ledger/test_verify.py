"""verify finds what a raw client wrote after dropping the triggers that would have refused it, and names
the row; a ledger written only by factledger (erases included) verifies clean; a ledger from before the
chain is hashed once on open; a backup taken while a writer runs verifies."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from factledger.ledger import Ledger, ValidationError
from factledger.ledger.backup import backup
from factledger.ledger.verify import VerifyReport, verify_ledger
from factledger.schema import migrations

from .test_raw_tampering import LATEST, NEW_TX, build, claim, ts


def verify(path: Path) -> VerifyReport:
    ledger = Ledger.open(path, read_only=True)
    try:
        return verify_ledger(ledger)
    finally:
        ledger.close()


def findings(report: VerifyReport) -> dict[str, set[tuple[str, object]]]:
    """check name -> {(table, row)} of every failed check."""
    return {c.name: {(f.table, f.row) for f in c.rows} for c in report.checks if not c.ok}


@pytest.fixture
def built(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    build(path)
    return path


def raw(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN")
        for statement in statements:
            conn.execute(statement)
        conn.execute("COMMIT")
    finally:
        conn.close()


def drop(*triggers: str) -> list[str]:
    return [f"DROP TRIGGER {t}" for t in triggers]


# (what, raw statements with the guarding triggers dropped, check -> a (table, row) it must name)
TAMPERING = [
    ("a forged past belief: a closed version with a 2023 transaction interval",
     drop("claims_insert_open", "claims_opened_by_latest")
     + [claim(ts("2022-01-01T00:00:00.000000Z"), ts("2022-06-01T00:00:00.000000Z"), ts("2023-01-01T00:00:00.000000Z"),
              ts("2023-06-01T00:00:00.000000Z"), "1", "1", value="Lima")],
     {"intervals": ("claims", 6), "hash_chain": ("claims", 6), "schema": ("sqlite_master", "claims_insert_open")}),
    ("a value edited in place",
     drop("claims_close_only") + ["UPDATE claims SET value = 'Lyon', value_key = 'lyon' WHERE id = 1"],
     {"hash_chain": ("claims", 1), "schema": ("sqlite_master", "claims_close_only")}),
    ("a claim deleted",
     drop("claims_no_delete") + ["DELETE FROM claims WHERE id = 2"],
     {"hash_chain": ("claims", 2)}),
    ("a transaction dated 'zzzz'",
     drop("transactions_tx_time_form_insert", "transactions_not_ahead")
     + ["INSERT INTO transactions (tx_time, principal) VALUES ('zzzz', 'operator:mallory')"],
     {"timestamps": ("transactions", 6), "hash_chain": ("transactions", 6)}),
    ("a transaction's reason rewritten",
     drop("transactions_no_update") + ["UPDATE transactions SET reason = 'nothing to see' WHERE id = 2"],
     {"hash_chain": ("tx_chain", 2)}),
    ("a forged erase: an operator transaction, the version marked erased, the gate, the delete",
     [NEW_TX, f"UPDATE version_hashes SET erased_by = {LATEST}, salt = NULL WHERE claim_id = 1",
      "INSERT INTO erase_gate (id, principal) VALUES (1, 'operator:mallory')",
      "DELETE FROM claims WHERE id = 1", "DELETE FROM erase_gate"],
     {"hash_chain": ("transactions", 6)}),
    ("a tombstone deleted (the value could come back)",
     drop("tombstones_no_delete") + ["DELETE FROM tombstones"],
     {"erase": ("transactions", 4)}),
    ("the erase gate left open",
     drop("erase_gate_by_latest") + ["INSERT INTO erase_gate (id, principal) VALUES (1, 'operator:mallory')"],
     {"erase": ("erase_gate", 1)}),
    ("a chain hash rewritten",
     drop("tx_chain_no_update") + [f"UPDATE tx_chain SET chain_hash = '{'0' * 64}' WHERE tx_id = 3"],
     {"hash_chain": ("tx_chain", 3)}),
    ("an overlapping current version, index and trigger dropped",
     ["DROP INDEX claims_one_open"] + drop("claims_no_overlap")
     + [NEW_TX, claim(ts("2024-03-01T00:00:00.000000Z"), value="Lima")],
     {"no_overlap": ("claims", 6), "schema": ("sqlite_master", "claims_one_open")}),
    ("a trigger weakened: the same name, a body that refuses nothing",
     drop("claims_no_delete")
     + ["CREATE TRIGGER claims_no_delete BEFORE DELETE ON claims WHEN 0 BEGIN SELECT RAISE(ABORT, 'no'); END"],
     {"schema": ("sqlite_master", "claims_no_delete")}),
    ("a trigger of a raw client's own",
     ["CREATE TRIGGER sneaky AFTER INSERT ON claims BEGIN SELECT 1; END"],
     {"schema": ("sqlite_master", "sneaky")}),
    ("a used predicate deleted",
     drop("predicates_no_delete") + ["PRAGMA foreign_keys = OFF", "DELETE FROM predicates WHERE name = 'likes'"],
     {"foreign_keys": ("claims", 2), "intervals": ("claims", 2)}),
    ("a version closed by an earlier transaction",
     drop("claims_closed_by_latest", "version_hashes_update")
     + [NEW_TX, "UPDATE claims SET tx_to = (SELECT tx_time FROM transactions WHERE id = 2), closed_by = 2 WHERE id = 2"],
     {"hash_chain": ("tx_chain", 2)}),
]


def test_the_built_ledger_verifies_clean(built: Path) -> None:
    report = verify(built)
    assert report.ok, report.to_dict()
    assert report.transactions == 5 and len(report.chain_head) == 64


@pytest.mark.parametrize("what,statements,expected", TAMPERING, ids=[t[0] for t in TAMPERING])
def test_verify_names_the_row_a_raw_client_forged(built: Path, what: str, statements: list[str], expected: dict) -> None:
    before = verify(built)
    raw(built, *statements)
    report = verify(built)
    assert not report.ok
    found = findings(report)
    for check, row in expected.items():
        assert row in found.get(check, set()), (check, row, found)
    # Untouched transactions still verify: the chain head before the tampering is still the stored head
    # whenever the last transaction was not touched.
    assert report.transactions >= before.transactions


def test_an_erase_keeps_the_chain_and_drops_the_salt(built: Path) -> None:
    ledger = Ledger.open(built)
    try:
        with ledger.transaction(principal="agent:hermes") as tx:
            tx.add("home", "Ann", "likes", "opera", source="journal:9")
        result = ledger.erase(scope="home", subject="Ann", predicate="likes", value="opera", principal="operator:dpo")
        (erased,) = result.erased
        row = ledger.storage.one("SELECT erased_by, salt, content_hash FROM version_hashes WHERE claim_id = ?", (erased.id,))
        assert row["erased_by"] == result.tx and row["salt"] is None and len(row["content_hash"]) == 64
    finally:
        ledger.close()
    report = verify(built)
    assert report.ok, report.to_dict()


def test_a_ledger_from_before_the_chain_is_hashed_once_on_open(tmp_path: Path) -> None:
    """Migrations 1-4 only, written the old way (a closed version inserted directly), then opened."""
    path = tmp_path / "legacy.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    for m in migrations("sqlite"):
        if m.version < 5:
            conn.executescript(m.sql)
            conn.execute("INSERT INTO schema_migrations VALUES (?, ?, '2024-01-01T00:00:00.000000Z')", (m.version, m.name))
    conn.executescript(
        "INSERT INTO predicates (name, display, cardinality, defined_at) VALUES ('lives_in', 'lives_in', 'one', '2024-01-01T00:00:00.000000Z');"
        "INSERT INTO transactions (tx_time, principal) VALUES ('2024-01-01T00:00:00.000000Z', 'import:old');"
        "INSERT INTO transactions (tx_time, principal) VALUES ('2024-02-01T00:00:00.000000Z', 'import:old');"
        "INSERT INTO claims (scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from, valid_to,"
        " tx_from, tx_to, opened_by, closed_by) VALUES ('s', 'ann', 'Ann', 'lives_in', 'one', 'Paris', 'paris',"
        " '2020-01-01T00:00:00.000000Z', NULL, '2024-01-01T00:00:00.000000Z', '2024-02-01T00:00:00.000000Z', 1, 2);"
        "INSERT INTO claims (scope, subject_key, subject, predicate, cardinality, value, value_key, valid_from, valid_to,"
        " tx_from, tx_to, opened_by, closed_by) VALUES ('s', 'ann', 'Ann', 'lives_in', 'one', 'Rome', 'rome',"
        " '2020-01-01T00:00:00.000000Z', NULL, '2024-02-01T00:00:00.000000Z', NULL, 2, NULL);"
    )
    conn.close()
    ledger = Ledger.open(path)  # applies 0006 (and later), then hashes the two old transactions
    try:
        assert ledger.storage.one("SELECT COUNT(*) FROM tx_chain")[0] == 2
        with ledger.transaction(principal="agent:hermes") as tx:
            tx.supersede("s", "Ann", "lives_in", "Oslo", valid_from="2024-06-01")
    finally:
        ledger.close()
    assert verify(path).ok
    Ledger.open(path).close()  # opening again hashes nothing twice
    report = verify(path)
    assert report.ok and report.transactions == 3, report.to_dict()


# -- backup -------------------------------------------------------------------------------------------


def test_backup_while_a_writer_runs_verifies(built: Path, tmp_path: Path) -> None:
    stop = threading.Event()
    written: list[int] = []
    errors: list[BaseException] = []

    def writer() -> None:
        ledger = Ledger.open(built)  # its own connection, as another process would have
        try:
            n = 0
            while not stop.is_set() or n < 20:
                with ledger.transaction(principal="agent:writer") as tx:
                    tx.add("home", f"person {n}", "likes", f"thing {n}")
                written.append(tx.id)
                n += 1
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            ledger.close()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        while len(written) < 5:
            threading.Event().wait(0.01)
        source = Ledger.open(built)
        try:
            report = backup(source, tmp_path / "copy.db")
        finally:
            source.close()
    finally:
        stop.set()
        thread.join()
    assert not errors, errors
    assert report.ok, report.to_dict()
    copied = report.verification.transactions
    assert 5 + 5 <= copied <= 5 + len(written)
    # The copy is a prefix of the source's history: its head is the source's chain row at that transaction.
    source = Ledger.open(built, read_only=True)
    try:
        head = source.storage.one("SELECT chain_hash FROM tx_chain WHERE tx_id = ?", (copied,))[0]
    finally:
        source.close()
    assert report.verification.chain_head == head
    assert verify(built).ok


def test_backup_refuses_an_existing_file_unless_forced(built: Path, tmp_path: Path) -> None:
    dest = tmp_path / "copy.db"
    dest.write_bytes(b"precious")
    ledger = Ledger.open(built)
    try:
        with pytest.raises(ValidationError) as refused:
            backup(ledger, dest)
        assert refused.value.field == "dest" and dest.read_bytes() == b"precious"
        with pytest.raises(ValidationError):
            backup(ledger, built, force=True)  # never onto the ledger itself
        report = backup(ledger, dest, force=True)
        assert report.ok and dest.read_bytes()[:15] == b"SQLite format 3"
    finally:
        ledger.close()
    assert [p.name for p in tmp_path.iterdir() if "partial" in p.name] == []


def test_the_integrity_benchmark_runs_at_toy_size(capsys) -> None:
    """evals/bench_integrity.py end to end (figures are not checked: this is not a timed test)."""
    import importlib.util

    bench_path = Path(__file__).resolve().parents[2] / "evals" / "bench_integrity.py"
    spec = importlib.util.spec_from_file_location("bench_integrity", bench_path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    figures = bench.main(["--versions", "300", "--one-op", "10", "--rounds", "1", "--json"])
    assert figures["verify_ok"] and figures["claim_versions"] == 320  # each supersede: a remainder and the new value
    assert figures["batch_ops_per_s"] > 0 and figures["baseline_one_op_tx_per_s"] > 0


def test_a_malformed_tx_time_a_raw_client_left_is_a_clear_error(built: Path) -> None:
    """Before 0006 a 'zzzz' transaction made every later write crash with a raw ValueError."""
    raw(built, *drop("transactions_tx_time_form_insert", "transactions_not_ahead"),
        "INSERT INTO transactions (tx_time, principal) VALUES ('zzzz', 'operator:mallory')")
    ledger = Ledger.open(built)
    try:
        with pytest.raises(ValidationError) as refused:
            with ledger.transaction(principal="agent:hermes") as tx:
                tx.add("home", "Ann", "likes", "tea")
        assert refused.value.field == "tx_time" and "verify" in refused.value.message
    finally:
        ledger.close()
