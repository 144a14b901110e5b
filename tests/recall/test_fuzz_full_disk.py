"""A full disk: search ends in a clear error (exit status 2), never a traceback, the ledger is not
half-written, and once space is freed search works again. Needs a tiny tmpfs (root with mount
rights); skipped elsewhere."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

FACTLEDGER = str(Path(sys.executable).with_name("factledger"))


@pytest.fixture
def tiny_disk():
    point = Path(tempfile.mkdtemp(prefix="factledger-full-"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(point)], capture_output=True)
    if mounted.returncode != 0:
        point.rmdir()
        pytest.skip("cannot mount a tmpfs here (needs root with mount rights)")
    yield point
    subprocess.run(["umount", str(point)], check=False)
    shutil.rmtree(point, ignore_errors=True)


def run(db: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([FACTLEDGER, "--db", str(db), *args], capture_output=True, text=True, input=stdin)


@pytest.mark.slow  # five CLI processes
def test_search_on_a_full_disk_is_a_clear_error_and_recovers(tiny_disk: Path) -> None:
    db = tiny_disk / "ledger.db"
    added = run(db, "apply", "-", stdin='{"op":"add","scope":"s","subject":"Ann","predicate":"likes","value":"jazz"}\n')
    assert added.returncode == 0, added.stderr
    filler = tiny_disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:  # fill the disk to the last block
        while os.write(fd, b"\0" * 1024):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    before = db.read_bytes()
    full = run(db, "search", "jazz", "--scope", "s", "--json")
    assert full.returncode == 2 and "Traceback" not in full.stderr and "error:" in full.stderr, full.stderr
    assert json.loads(run(db, "current", "--json").stdout)[0]["value"] == "jazz"  # reads still work
    assert db.read_bytes() == before
    filler.unlink()
    again = run(db, "search", "jazz", "--scope", "s", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)[0]["value"] == "jazz", again.stderr
