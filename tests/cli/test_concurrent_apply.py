"""Concurrent `factledger apply` processes on one ledger: all land, or a run that gives up says which lines
are in and how to resume, and the resume completes without duplicates."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.ledger import Ledger
from factledger.ledger.verify import verify_ledger

FACTLEDGER = str(Path(sys.executable).with_name("factledger"))


def _ops_file(path: Path, writer: int, count: int) -> Path:
    lines = [
        json.dumps({"op": "add", "scope": "c", "subject": f"writer {writer} item {j}", "predicate": "note",
                    "value": f"entry {j}", "reason": f"w{writer}-t{j}"})
        for j in range(count)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _apply(db: Path, ops: Path, *apply_args: str, busy_timeout: float | None = None) -> subprocess.Popen:
    wait = [] if busy_timeout is None else ["--busy-timeout", str(busy_timeout)]
    return subprocess.Popen(
        [FACTLEDGER, "--db", str(db), "--principal", "agent:test", *wait, "apply", str(ops), *apply_args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _tags(db: Path) -> dict[str, int]:
    with Ledger.open(db, read_only=True) as ledger:
        rows = ledger.storage.query("SELECT reason, COUNT(*) FROM transactions WHERE reason LIKE 'w%-t%' GROUP BY reason")
    return {r[0]: r[1] for r in rows}


def _prepare(db: Path) -> None:
    with Ledger.open(db) as ledger, ledger.transaction(principal="operator:test") as tx:
        tx.define("note", "many")


def test_four_processes_of_fifty_transactions_all_land(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    _prepare(db)
    procs = [_apply(db, _ops_file(tmp_path / f"w{i}.jsonl", i, 50)) for i in range(4)]
    outputs = [p.communicate() for p in procs]
    for proc, (out, err) in zip(procs, outputs):
        assert proc.returncode == 0, err
        assert len(out.splitlines()) == 50
    tags = _tags(db)
    assert len(tags) == 200 and set(tags.values()) == {1}  # nothing lost, nothing twice
    # The ledger's invariants and hash chain hold under interleaved writers (the vector companion, which
    # apply leaves to `index repair`, is the kill tests' business).
    with Ledger.open(db, read_only=True) as ledger:
        report = verify_ledger(ledger)
    assert report.ok, [c.to_dict() for c in report.checks if not c.ok]
    assert report.transactions == 201


def test_a_run_that_gives_up_says_where_to_resume_and_the_resume_completes(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    _prepare(db)
    ops = _ops_file(tmp_path / "w0.jsonl", 0, 400)
    holder = Ledger.open(db)
    proc = _apply(db, ops, busy_timeout=0.5)
    printed = [proc.stdout.readline(), proc.stdout.readline()]  # the run is under way
    release = threading.Event()
    held = threading.Event()

    def hold() -> None:  # takes its turn in the queue like any writer, then keeps it
        with holder.transaction(principal="agent:holder") as tx:
            tx.add("other", "x", "note", "held")
            held.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert held.wait(10)
        out = proc.stdout.read()  # (not communicate: it would skip what readline has buffered)
        err = proc.stderr.read()
        proc.wait(timeout=20)
    finally:
        release.set()
        thread.join()
        holder.close()
    printed += out.splitlines(keepends=True)
    printed = [line for line in printed if line.strip()]
    assert proc.returncode == 2
    assert "busy" in err and "nothing of this transaction was written" in err
    found = re.search(r"resume with `factledger apply (\S+) --from-line (\d+)`", err)
    assert found and found.group(1) == str(ops), err
    resume_line = int(found.group(2))
    assert f"every transaction before line {resume_line} is applied" in err
    assert 2 < resume_line <= 400
    assert len(printed) == resume_line - 1  # one printed line per applied transaction (one line each)
    assert set(_tags(db)) == {f"w0-t{j}" for j in range(resume_line - 1)}
    rest = _apply(db, ops, "--from-line", str(resume_line))
    out, err = rest.communicate(timeout=60)
    assert rest.returncode == 0, err
    assert len(out.splitlines()) == 400 - (resume_line - 1)
    tags = _tags(db)
    assert len(tags) == 400 and set(tags.values()) == {1}


def _apply_here(db: Path, ops: Path, *apply_args: str, busy_timeout: float | None = None):
    """The command in this process (no process start): for the cases that need no second writer process."""
    wait = [] if busy_timeout is None else ["--busy-timeout", str(busy_timeout)]
    return CliRunner().invoke(cli, ["--db", str(db), "--principal", "agent:test", *wait, "apply", str(ops), *apply_args])


def test_a_raw_client_holding_the_lock_gets_the_same_resumable_exit(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    _prepare(db)
    ops = _ops_file(tmp_path / "w0.jsonl", 0, 3)
    raw = sqlite3.connect(db, isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")  # ignores the writers' queue: SQLite's lock is what it meets
    try:
        result = _apply_here(db, ops, busy_timeout=0.3)
    finally:
        raw.execute("ROLLBACK")
        raw.close()
    assert result.exit_code == 2 and result.stdout == ""
    assert "this run applied nothing" in result.stderr and f"factledger apply {ops} --from-line 1`" in result.stderr
    assert _tags(db) == {}


def test_from_line_inside_a_transaction_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    _prepare(db)
    ops = tmp_path / "grouped.jsonl"
    ops.write_text(
        "\n".join(
            json.dumps({"op": "add", "tx": "t1", "scope": "c", "subject": "a", "predicate": "note", "value": f"v{i}"})
            for i in range(3)
        ) + "\n"
    )
    result = _apply_here(db, ops, "--from-line", "2")
    assert result.exit_code == 2 and result.stdout == ""
    assert "line 2 is inside transaction 't1', which starts on line 1" in result.stderr
    with Ledger.open(db, read_only=True) as ledger:
        assert ledger.current(["c"]) == []
    result = _apply_here(db, ops, "--from-line", "1")
    assert result.exit_code == 0 and result.stdout.count("\n") == 1  # the whole transaction, once
