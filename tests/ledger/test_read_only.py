"""Reads work on a ledger this process may not write (a chmod 444 file, a read-only folder); a write
says why it cannot, and changes nothing. As root (where permissions do not bind) the CLI runs as
`nobody` through setpriv."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from factledger.ledger import Ledger

FACTLEDGER = str(Path(sys.executable).with_name("factledger"))
READS = [
    ["current", "--json"],
    ["as-of", "--known-at", "2099-01-01", "--json"],
    ["history", "--subject", "Ann", "--predicate", "likes", "--json"],
    ["search", "jazz", "--scope", "s", "--json", "--config", "lexical"],
    ["sql", "SELECT count(*) AS n FROM claims", "--json"],
    ["review", "list", "--json"],
]


def as_other_user() -> list[str]:
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: file permissions would not bind")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.fixture
def ledger_dir():
    # Not under pytest's tmp_path: its parents are private to the test's user (mode 700).
    base = Path(tempfile.mkdtemp(prefix="factledger-ro-"))
    base.chmod(0o755)
    folder = base / "ro"
    folder.mkdir()
    db = folder / "ledger.db"
    with Ledger.open(db) as ledger, ledger.transaction(principal="operator:t") as tx:
        tx.add("s", "Ann", "likes", "jazz")
    subprocess.run([FACTLEDGER, "--db", str(db), "search", "jazz", "--scope", "s", "--config", "lexical"], check=True,
                   capture_output=True)  # drains recall's outbox while writable
    yield folder
    folder.chmod(0o755)
    db.chmod(0o644)
    shutil.rmtree(base, ignore_errors=True)


def run(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*as_other_user(), FACTLEDGER, "--db", str(db), *args], capture_output=True, text=True,
                          input='{"op":"add","scope":"s","subject":"Ann","predicate":"likes","value":"blues"}\n')


@pytest.mark.slow  # seven CLI processes per case
@pytest.mark.parametrize("folder_read_only", [False, True], ids=["file-444", "folder-555"])
def test_reads_work_and_writes_say_why_not(ledger_dir: Path, folder_read_only: bool) -> None:
    db = ledger_dir / "ledger.db"
    db.chmod(0o444)
    if folder_read_only:
        ledger_dir.chmod(0o555)
    before = db.read_bytes()
    for args in READS:
        done = run(db, *args)
        assert done.returncode == 0, (args, done.stderr)
        json.loads(done.stdout)
    assert json.loads(run(db, "current", "--json").stdout)[0]["value"] == "jazz"
    refused = run(db, "apply", "-")
    assert refused.returncode == 2 and "read-only" in refused.stderr and "Traceback" not in refused.stderr
    assert db.read_bytes() == before
