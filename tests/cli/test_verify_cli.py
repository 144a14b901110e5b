"""`factledger verify` and `factledger backup`: exit 0 when clean, 1 with the offending rows when not,
2 for usage errors; recall's indexes are checked beside the ledger."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.ledger import Ledger
from factledger.recall import Recall

OPS = "\n".join(json.dumps(op) for op in [
    {"op": "define", "predicate": "lives_in", "cardinality": "one", "template": "{subject} lives in {value}"},
    {"op": "add", "scope": "s", "subject": "Ann", "predicate": "lives_in", "value": "Berlin", "valid_from": "2024-06-01"},
    {"op": "supersede", "scope": "s", "subject": "Ann", "predicate": "lives_in", "value": "Rome", "valid_from": "2024-09-01"},
])


def run(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args])


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    ops = tmp_path / "ops.jsonl"
    ops.write_text(OPS + "\n")
    assert run(path, "apply", str(ops)).exit_code == 0
    assert run(path, "index", "rebuild").exit_code == 0  # the vector companion, in step
    return path


def checks(result) -> dict[str, dict]:
    return {c["name"]: c for c in json.loads(result.stdout)["checks"]}


def test_a_clean_ledger_verifies(db: Path) -> None:
    result = run(db, "verify", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ok"] and report["transactions"] == 3 and len(report["chain_head"]) == 64
    assert {"integrity_check", "schema", "intervals", "hash_chain", "outbox_drained", "lexical_index", "vector_index"} <= set(checks(result))
    text = run(db, "verify")
    assert text.exit_code == 0 and "ok: 3 transactions" in text.output


def test_verify_reads_only(db: Path) -> None:
    before = db.read_bytes()
    assert run(db, "verify").exit_code == 0
    assert db.read_bytes() == before


def raw(db: Path, *statements: str) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        for statement in statements:
            conn.execute(statement)
    finally:
        conn.close()


# (what, how the file is tampered with, the failing check, the row it must name)
OUT_OF_STEP = [
    ("a lexical row deleted", lambda db: raw(db, "DELETE FROM recall_fts WHERE rowid = 2"), "lexical_index", 2),
    ("a lexical row rewritten", lambda db: raw(db, "UPDATE recall_fts SET body = 'Ann lives in Oslo' WHERE rowid = 3"),
     "lexical_index", 3),
    ("a change waiting in the outbox", lambda db: raw(db, "INSERT INTO recall_outbox (claim_id, change) VALUES (3, 'close')"),
     "outbox_drained", None),  # the row is the outbox's own seq; the problem names claim 3
    ("a claim edited in place, its trigger dropped",
     lambda db: raw(db, "DROP TRIGGER claims_close_only", "UPDATE claims SET value = 'Oslo' WHERE id = 3"), "hash_chain", 3),
]


def _drop_vector_row(db: Path) -> None:
    ledger = Ledger.open(db)
    try:
        Recall(ledger).index.delete("fact", [2])
    finally:
        ledger.close()


OUT_OF_STEP.append(("a vector row lost", _drop_vector_row, "vector_index", 2))


@pytest.mark.parametrize("what,tamper,check,row", OUT_OF_STEP, ids=[o[0] for o in OUT_OF_STEP])
def test_verify_fails_with_the_row(db: Path, what: str, tamper, check: str, row: int) -> None:
    tamper(db)
    result = run(db, "verify", "--json")
    assert result.exit_code == 1, result.output
    failed = checks(result)[check]
    assert not failed["ok"], failed
    if row is None:
        assert failed["count"] == 1 and "claim version 3" in failed["rows"][0]["problem"]
    else:
        assert row in [r["row"] for r in failed["rows"]], failed
    text = run(db, "verify")
    assert text.exit_code == 1 and "FAIL" in text.output and check in text.output


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run(tmp_path / "absent.db", "verify").exit_code == 2
    assert not (tmp_path / "absent.db").exists()
    assert run(tmp_path / "absent.db", "verify", "--bogus").exit_code == 2
    assert run(tmp_path / "absent.db", "backup", str(tmp_path / "b.db")).exit_code == 2


def test_backup_copies_verifies_and_refuses_to_overwrite(db: Path, tmp_path: Path) -> None:
    dest = tmp_path / "backup.db"
    result = run(db, "backup", str(dest), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ok"] and report["path"] == str(dest) and report["transactions"] == 3
    assert report["chain_head"] == json.loads(run(db, "verify", "--json").stdout)["chain_head"]
    again = run(db, "backup", str(dest))
    assert again.exit_code == 2 and "--force" in again.output
    assert run(db, "backup", str(dest), "--force").exit_code == 0
    # The copy verifies on its own, given the chain key (which a backup does not copy) ...
    key = f"{db}.chain-key"
    assert run(dest, "--chain-key", key, "verify", "--index-dir", str(tmp_path / "none")).exit_code == 0
    # ... and without it says it cannot check the keyed part.
    alone = run(dest, "verify", "--json", "--index-dir", str(tmp_path / "none"))
    assert alone.exit_code == 1 and "no chain key was given" in checks(alone)["chain_key"]["details"]


def test_backup_of_a_tampered_ledger_says_so(db: Path, tmp_path: Path) -> None:
    raw(db, "DROP TRIGGER transactions_no_update", "UPDATE transactions SET reason = 'rewritten' WHERE id = 2")
    result = run(db, "backup", str(tmp_path / "backup.db"))
    assert result.exit_code == 1 and "FAILED verification" in result.output and "tx_chain" in result.output
