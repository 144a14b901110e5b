"""Reads work on a ledger this process may not write (a chmod 444 file, a read-only folder); a write
says why it cannot, and changes nothing. As root (where permissions do not bind) the CLI runs as
`nobody` through setpriv."""

from __future__ import annotations

import json
import os
import shutil
import stat
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


def closed_to_others(path: Path) -> Path | None:
    """The first folder on the way to `path` that another user cannot enter (no o+x), if any: a hint for
    the skip's reason (the probe below decides: ACLs and mounts may grant what the mode does not)."""
    for folder in [*reversed(path.resolve().parents)]:
        if not folder.stat().st_mode & stat.S_IXOTH:
            return folder
    return None


def as_other_user() -> list[str]:
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: file permissions would not bind")
    command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    # `nobody` runs this checkout's own interpreter and sources: a clone inside a private (0700) folder
    # cannot be run so, and copying the checkout and its environment elsewhere is not this test's to do.
    probe = subprocess.run([*command, FACTLEDGER, "--version"], capture_output=True, text=True, cwd="/")
    if probe.returncode != 0:
        closed = closed_to_others(Path(FACTLEDGER).parent)
        where = f" ({closed} is mode {stat.S_IMODE(closed.stat().st_mode):04o}, no o+x)" if closed else ""
        reason = (probe.stderr.strip().splitlines() or [f"exit status {probe.returncode}"])[-1]
        pytest.skip(f"the checkout cannot be run as nobody{where}: {reason}; clone outside a private folder to run this test")
    return command


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
