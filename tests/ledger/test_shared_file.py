"""Several Ledger instances may share one file (the CLI, the Hermes plugin, a digest worker): a predicate
another instance registered after this one cached the registry is still honoured."""

from __future__ import annotations

from factledger.ledger import Ledger


def test_a_predicate_defined_by_another_instance_is_used_as_registered(ledger_path):
    with Ledger.open(ledger_path) as first, Ledger.open(ledger_path) as second:
        assert second.predicates() == []  # the second instance has cached an empty registry
        with first.transaction(principal="operator:a") as tx:
            tx.define("lives_in", "one", template="{subject} lives in {value}", description="home city")
        with second.transaction(principal="agent:b") as tx:
            tx.add("s", "Ann", "lives_in", "Paris", valid_from="2024-01-01")
        (version,) = second.current(["s"])
        assert version.cardinality == "one"
        registered = first.predicate("lives_in")
        assert (registered.cardinality, registered.template, registered.description) == (
            "one", "{subject} lives in {value}", "home city"
        )
        assert second.predicate("lives_in") == registered


# == A process that ran SQL keeps its writes (issue 21) ================================================
# DuckDB's sqlite scanner is a second SQLite library. Opening and closing the ledger through it inside a
# process that holds a Python sqlite3 connection released that process's POSIX locks (SQLite's "How To
# Corrupt", 2.2); the next CLI process to exit then took itself for the last connection, checkpointed and
# deleted the WAL: the holder's later writes went to an unlinked file (invisible to everyone else), and a
# CLI transaction acknowledged meanwhile was gone once the holder closed. Real processes, real files.

import json
import subprocess
import sys
from pathlib import Path

import pytest

FACTLEDGER = str(Path(sys.executable).with_name("factledger"))

# The holder: factledger.open() (the front door), SQL once, then writes on request; every write it
# acknowledges prints "ok <value>".
HOLDER = r"""
import sys, factledger
from factledger.ledger.analytics import Analytics
path, how = sys.argv[1], sys.argv[2]
db = factledger.open(path, principal="operator:holder")
db.add("s", "holder", "note", "h0")
print("ok h0", flush=True)
if how == "front-door":
    assert db.sql("SELECT count(*) FROM claims").rows == [(2,)]
else:  # an Analytics session of its own, in the given mode, kept open while the writes go on
    analytics = Analytics(path, mode=how)
    assert analytics.mode == how, analytics.mode_note
    assert analytics.fetch("SELECT count(*) FROM claims")[1] == [(2,)]
    assert analytics.fetch("SELECT count(*) FROM journal")[1] == [(0,)]
print("ready", flush=True)
for line in sys.stdin:
    value = line.strip()
    if value == "close":
        break
    db.add("s", "holder", "note", value)
    if how != "front-door":
        analytics.fetch("SELECT count(*) FROM claims")
    print("ok " + value, flush=True)
if how != "front-door":
    analytics.close()
db.close()
print("closed", flush=True)
"""


def _cli(db: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([FACTLEDGER, "--db", str(db), "--principal", "operator:cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def _cli_add(db: Path, value: str) -> str:
    line = json.dumps({"op": "add", "scope": "s", "subject": "cli", "predicate": "note", "value": value})
    done = _cli(db, "apply", "-", stdin=line + "\n")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["opened"][0]["value"] == value  # acknowledged
    return value


def _values(db: Path) -> set[str]:
    done = _cli(db, "current", "--json")
    assert done.returncode == 0, done.stderr
    return {row["value"] for row in json.loads(done.stdout)}


@pytest.mark.slow  # a holder process and CLI processes per case
@pytest.mark.parametrize("how", ["front-door", "live", "companion"])
def test_a_process_that_ran_sql_loses_no_acknowledged_write(tmp_path: Path, how: str) -> None:
    db = tmp_path / "ledger.db"
    acknowledged = {_cli_add(db, "c0")}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), how], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        def holder_line() -> str:
            line = holder.stdout.readline().strip()
            assert line, holder.stderr.read()
            return line

        assert holder_line() == "ok h0"
        acknowledged.add("h0")
        assert holder_line() == "ready"
        for n in range(1, 4):
            # A CLI process writes and exits (the last connection it knows of), then the holder writes.
            acknowledged.add(_cli_add(db, f"c{n}"))
            holder.stdin.write(f"h{n}\n")
            holder.stdin.flush()
            assert holder_line() == f"ok h{n}"
            acknowledged.add(f"h{n}")
            # Every acknowledged write is visible to another process while the holder is still open.
            assert acknowledged <= _values(db), sorted(acknowledged - _values(db))
        holder.stdin.write("close\n")
        holder.stdin.flush()
        assert holder_line() == "closed"
        assert holder.wait(timeout=60) == 0
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    assert acknowledged <= _values(db), sorted(acknowledged - _values(db))
    assert _cli(db, "index", "rebuild").returncode == 0
    verified = _cli(db, "verify", "--json")
    assert verified.returncode == 0, verified.stdout
