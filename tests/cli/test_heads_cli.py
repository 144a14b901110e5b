"""`factledger head`, `verify --against` and the heads `backup` records: a rollback to a pre-erase backup
and another ledger put in the ledger's place fail verify (exit 1, naming what differs); bad input exits 2.
On main there was no head to keep: both passed `verify`."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli

OPS = "\n".join(json.dumps(op) for op in [
    {"op": "define", "predicate": "lives_in", "cardinality": "one"},
    {"op": "add", "scope": "s", "subject": "Ann", "predicate": "lives_in", "value": "Berlin", "valid_from": "2024-06-01"},
    {"op": "add", "scope": "s", "subject": "Ann", "predicate": "treated_at", "value": "Vexmoor Clinic"},
])


def run(db: Path, *args: str, env: dict | None = None):
    return CliRunner().invoke(cli, ["--db", str(db), *args], env=env)


def make(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    ops = path.with_suffix(".jsonl")
    ops.write_text(OPS + "\n")
    assert run(path, "apply", str(ops)).exit_code == 0
    return path


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return make(tmp_path / "ledger.db")


def checks(result) -> dict[str, dict]:
    return {c["name"]: c for c in json.loads(result.stdout)["checks"]}


def verify(db: Path, *args: str):
    """verify --json; with no vector index built, only the outbox check fails besides what the test does."""
    return run(db, "verify", "--json", *args)


def test_head_prints_a_signed_head(db: Path) -> None:
    text = run(db, "head")
    assert text.exit_code == 0, text.output
    line = text.stdout.strip()
    assert line.startswith("factledger-head-v1 ledger=") and " tx=3 " in line and " mac=" in line
    data = json.loads(run(db, "head", "--json").stdout)
    assert data["tx"] == 3 and len(data["chain_hash"]) == 64 and len(data["mac"]) == 64 and data["key_id"]
    assert data["chain_hash"] == json.loads(verify(db).stdout)["chain_head"]
    assert checks(verify(db, "--against", line))["against_head"]["ok"]
    assert not os.stat(f"{db}.chain-key").st_mode & 0o077  # the key beside the ledger is private


def test_verify_against_a_pre_erase_backup_restored(db: Path, tmp_path: Path) -> None:
    """The rollback: a backup taken before an erase is put back. The head recorded after the erase (by
    the next backup) makes verify fail, naming the missing transactions."""
    before = tmp_path / "before-erase.db"
    assert run(db, "backup", str(before)).exit_code == 0
    erased = run(db, "erase", "--scope", "s", "--subject", "Ann", "--predicate", "treated_at", "--reason", "asked", "--yes")
    assert erased.exit_code in (0, 1) and "erase" in erased.output.lower(), erased.output  # 1: a copy it cannot reach (the backup)
    after = run(db, "backup", str(tmp_path / "after-erase.db"), "--json")
    assert after.exit_code == 0 and json.loads(after.stdout)["heads_file"] == f"{db}.heads"
    assert checks(verify(db))["against_head"]["ok"]  # against the last recorded head: the ledger extends it
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(before, db)  # the restore
    result = verify(db)
    assert result.exit_code == 1
    (finding,) = checks(result)["against_head"]["rows"]
    assert finding["table"] == "transactions" and finding["row"] == 4 and "ends at transaction 3" in finding["problem"]
    assert "last head recorded in" in json.loads(result.stdout)["against"]
    text = run(db, "verify")
    assert "against_head" in text.output and "rolled back" in text.output
    # What verify proves without a kept head: nothing of this (the restored file is a consistent ledger).
    alone = checks(verify(db, "--no-recorded-head"))
    assert "against_head" not in alone and all(c["ok"] for n, c in alone.items() if n not in ("outbox_drained", "vector_index"))


def test_verify_against_another_ledger_in_its_place(db: Path, tmp_path: Path) -> None:
    """The swap: another ledger folder (its file and its own key) put where this one was."""
    kept = run(db, "head").stdout.strip()
    other = make(tmp_path / "other" / "ledger.db")
    shutil.copyfile(other, db)
    shutil.copyfile(f"{other}.chain-key", f"{db}.chain-key")
    result = verify(db, "--against", kept)
    assert result.exit_code == 1
    assert "another ledger" in checks(result)["against_head"]["rows"][0]["problem"]


def test_a_heads_file_and_its_last_head(db: Path, tmp_path: Path) -> None:
    heads = tmp_path / "kept" / "heads.jsonl"
    heads.parent.mkdir()
    recorded = run(db, "head", "--record", "--heads", str(heads))
    assert recorded.exit_code == 0 and heads.read_text().count("\n") == 1
    assert checks(verify(db, "--against", str(heads)))["against_head"]["ok"]
    assert json.loads(verify(db, "--against", str(heads)).stdout)["against"] == f"the last head in {heads}"


@pytest.mark.parametrize("against,message", [
    ("factledger-head-v1 ledger=zz", "a head has the fields"),
    ("not-a-head-or-file", "neither a head"),
    ('{"format": "factledger-head-v1", "tx": -1}', "tx must be"),
])
def test_a_bad_head_is_a_clear_error(db: Path, against: str, message: str) -> None:
    result = verify(db, "--against", against)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_the_chain_key_by_file_or_by_named_variable(db: Path, tmp_path: Path) -> None:
    key = Path(f"{db}.chain-key").read_text().strip()
    env = {"MY_CHAIN_KEY": key}
    assert run(db, "--chain-key-env", "MY_CHAIN_KEY", "head", env=env).exit_code == 0
    missing = run(db, "--chain-key-env", "NOT_SET", "head")
    assert missing.exit_code == 2 and "NOT_SET" in missing.output
    loose = tmp_path / "loose.key"
    loose.write_text(key)
    loose.chmod(0o644)
    refused = run(db, "--chain-key", str(loose), "head")
    assert refused.exit_code == 2 and "chmod 600" in refused.output
    wrong = tmp_path / "wrong.key"
    wrong.write_text("ab" * 32)
    wrong.chmod(0o600)
    other = run(db, "--chain-key", str(wrong), "apply", str(db.with_suffix(".jsonl")))
    assert other.exit_code == 2 and "keyed with key" in other.output
    assert verify(db, "--chain-key", str(wrong)).exit_code == 2  # a group option: given before the command
    result = run(db, "--chain-key", str(wrong), "verify", "--json", "--index-dir", str(tmp_path / "none"))
    assert result.exit_code == 1 and not checks(result)["chain_key"]["ok"]


def test_a_backup_never_replaces_the_key_or_the_heads(db: Path) -> None:
    assert run(db, "head", "--record").exit_code == 0
    for name in (f"{db}.chain-key", f"{db}.heads"):
        before = Path(name).read_bytes()
        result = run(db, "backup", name, "--force")
        assert result.exit_code == 2 and "chain key or heads file" in result.output
        assert Path(name).read_bytes() == before
