"""Erase reaches every copy the product made, and names every copy it cannot reach (issue 21).

- transaction reasons and sources written by apply/import/`sql --write` are redacted, and `verify` still
  passes (the chain hashes a salted hash of the text; erase drops the salt);
- the DuckDB analytics companion holds no byte of the value after erase;
- `backup` copies (even inside the ledger's folder) and `sql -o` files are recorded in the manifest and
  named with their path and command; the report says `complete: false` and erase exits 1;
- the Hermes host's state.db, .hermes_history and logs/agent.log are named with the command that reaches
  them (Hermes's own `hermes sessions delete … && hermes sessions optimize`), and left byte for byte.

Privacy is checked on bytes: every file of the store is scanned for the value after the erase, and each
scan first finds the value before it (so it can fail)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.ledger import Ledger
from factledger.ledger.verify import verify_ledger

VALUE = "Vexmoor"  # no other word of these stores starts with "vexm"
REASON = "Maya said she is treated at Vexmoor Clinic"
NEEDLES = [VALUE.encode(), VALUE.lower().encode(), VALUE.upper().encode(), VALUE.encode("utf-16-le")]
ERASE = ["erase", "--scope", "s", "--subject", "Maya", "--predicate", "treated_at", "--yes", "--json"]


def run_cli(location, *args: str):
    return CliRunner().invoke(cli, ["--db", str(location), "--principal", "operator:dpo", *args])


def seed(location, *, bob: bool = True) -> None:
    """Maya's clinic, written with a reason and a source naming it (as apply/import/sql --write do); with
    `bob`, another person's transaction naming the same clinic (outside Maya's scopes: it stays)."""
    with Ledger.open(location) as ledger:
        with ledger.transaction(principal="operator:nurse", reason=REASON, sources=["chat: Maya mentioned Vexmoor Clinic", "ticket:7"]) as tx:
            tx.add("s", "Maya", "treated_at", "Vexmoor Clinic", valid_from="2025-01-01")
        with ledger.transaction(principal="operator:nurse", reason="Maya's allergy, from the intake form") as tx:
            tx.add("s", "Maya", "allergic_to", "penicillin", valid_from="2025-01-01")
        if bob:
            with ledger.transaction(principal="operator:nurse", reason="Bob also goes to Vexmoor Clinic") as tx:
                tx.add("other", "Bob", "treated_at", "Vexmoor Clinic", valid_from="2025-01-01")


def store_files(ledger_path: Path) -> list[Path]:
    files = [p for p in ledger_path.parent.glob(ledger_path.name + "*") if p.is_file()]
    index = Path(str(ledger_path) + ".lance")
    return files + ([p for p in index.rglob("*") if p.is_file()] if index.exists() else [])


def hits(paths: list[Path]) -> dict[str, int]:
    found = {}
    for path in paths:
        count = sum(path.read_bytes().count(n) for n in NEEDLES)
        if count:
            found[path.name] = count
    return found


def ledger_verifies(location) -> bool:
    with Ledger.open(location, read_only=True) as ledger:
        return verify_ledger(ledger).ok


def reasons(location) -> dict[int, tuple[str, list[str]]]:
    with Ledger.open(location, read_only=True) as ledger:
        rows = ledger.storage.query("SELECT id, reason, sources FROM transactions ORDER BY id")
        return {r[0]: (r[1], json.loads(r[2])) for r in rows}


# -- reasons and sources ---------------------------------------------------------------------------


@pytest.mark.both_engines
def test_erase_redacts_the_reasons_and_sources_that_name_the_value_and_verify_passes(ledger_location):
    seed(ledger_location)
    before = reasons(ledger_location)
    assert before[1][0] == REASON and "Vexmoor" in before[1][1][0]

    result = run_cli(ledger_location, *ERASE)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["complete"] is True and report["remaining"] == []
    assert report["reasons_redacted"] == [1] and report["reasons_kept"] == []

    after = reasons(ledger_location)
    assert after[1] == ("Maya said she is treated at [erased]", ["chat: Maya mentioned [erased]", "ticket:7"])
    assert after[2] == before[2]  # says nothing of the value
    assert after[3] == before[3]  # another person's transaction: Bob's own words stay
    verified = run_cli(ledger_location, "verify", "--json")
    assert verified.exit_code == 0, verified.output


def test_no_byte_of_a_reason_is_left_in_the_sqlite_files(ledger_path):
    with Ledger.open(ledger_path) as ledger:
        with ledger.transaction(principal="operator:nurse", reason=REASON, sources=["chat: Vexmoor Clinic"]) as tx:
            tx.add("s", "Maya", "treated_at", "the clinic on the hill", valid_from="2025-01-01")
        with ledger.transaction(principal="operator:nurse", reason="Maya again") as tx:
            tx.add("s", "Maya", "treated_at", "Vexmoor Clinic", valid_from="2025-02-01")
    assert hits(store_files(ledger_path))
    result = run_cli(ledger_path, *ERASE, "--value", "Vexmoor Clinic")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["reasons_redacted"] == [1]
    assert hits(store_files(ledger_path)) == {}
    assert run_cli(ledger_path, "verify").exit_code == 0


def test_the_schema_lets_only_the_erase_rewrite_a_reason(ledger_path):
    """A raw client may not rewrite a reason, nor drop a reason's salt but as the latest transaction, an
    operator's; one that does so without the erase's chain row is found by `verify`."""
    import sqlite3

    seed(ledger_path, bob=False)
    with Ledger.open(ledger_path) as ledger:
        with ledger.transaction(principal="agent:model", reason="unrelated") as tx:
            tx.add("s", "Maya", "likes", "tea", valid_from="2025-01-01")
    raw = sqlite3.connect(ledger_path)
    try:
        for statement in ("UPDATE transactions SET reason = 'nothing' WHERE id = 1",
                          "UPDATE tx_chain SET text_salt = NULL, redacted_by = 3 WHERE tx_id = 1",  # the latest is an agent's
                          "UPDATE tx_chain SET text_salt = NULL, redacted_by = 2 WHERE tx_id = 1",  # not the latest
                          "UPDATE tx_chain SET text_hash = NULL WHERE tx_id = 1",
                          "UPDATE tx_chain SET text_salt = 'x' WHERE tx_id = 1"):
            with pytest.raises(sqlite3.IntegrityError, match="factledger"):
                raw.execute(statement)
    finally:
        raw.close()
    assert reasons(ledger_path)[1][0] == REASON
    assert ledger_verifies(ledger_path)

    # What the triggers allow a raw operator transaction is still evident: the chain row does not name it.
    with Ledger.open(ledger_path) as ledger:
        with ledger.transaction(principal="operator:raw", reason="") as tx:
            pass
    raw = sqlite3.connect(ledger_path)
    with raw:
        raw.execute("UPDATE tx_chain SET text_salt = NULL, redacted_by = 4 WHERE tx_id = 1")
        raw.execute("UPDATE transactions SET reason = 'nothing happened' WHERE id = 1")
    raw.close()
    with Ledger.open(ledger_path, read_only=True) as ledger:
        report = verify_ledger(ledger)
    assert not report.ok
    [chain] = [c for c in report.checks if c.name == "hash_chain"]
    assert not chain.ok and "tx_chain" in json.dumps(chain.to_dict())


# -- the analytics companion -----------------------------------------------------------------------


@pytest.mark.both_engines
def test_erase_leaves_no_copy_in_the_analytics_companion(ledger_location, ledger_engine, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    from factledger.ledger.analytics.companion import companion_files, default_path

    seed(ledger_location, bob=False)
    query = run_cli(ledger_location, "sql", "--companion", "SELECT count(*) AS n FROM claim_versions", "--json")
    assert query.exit_code == 0, query.output
    companion = default_path(str(ledger_location), ledger_engine)
    assert companion.exists() and hits([companion])  # the scan can fail: the companion holds the value

    result = run_cli(ledger_location, *ERASE)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["scrub"]["companion_removed"] is True
    assert hits([f for f in companion_files(companion) if f.exists()]) == {}

    again = run_cli(ledger_location, "sql", "--companion", "SELECT value FROM claim_versions ORDER BY id", "--json")
    assert again.exit_code == 0, again.output
    assert VALUE not in again.stdout and hits([companion]) == {}  # rebuilt from the ledger as it is now


def test_a_companion_held_by_another_session_is_named(ledger_path):
    from factledger.ledger.analytics import Analytics
    from factledger.ledger.analytics.companion import default_path

    seed(ledger_path)
    with Analytics(ledger_path, mode="companion") as session:
        session.run("SELECT count(*) FROM claim_versions")
        assert session.mode == "companion"
        result = run_cli(ledger_path, *ERASE)
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["complete"] is False
    [held] = [r for r in report["remaining"] if r["kind"] == "companion"]
    assert held["path"] == str(default_path(str(ledger_path), "sqlite")) and "factledger scrub" in held["command"]
    scrub = run_cli(ledger_path, "scrub", "--json")  # the session has ended: scrub finishes it
    assert scrub.exit_code == 0, scrub.output
    assert not default_path(str(ledger_path), "sqlite").exists()


# -- backups and sql -o outputs ----------------------------------------------------------------------


def test_backups_and_sql_outputs_are_named_with_their_commands(ledger_path, tmp_path):
    seed(ledger_path, bob=False)
    inside = ledger_path.parent / "ledger-copy.db"  # inside the ledger's folder
    assert run_cli(ledger_path, "backup", str(inside)).exit_code == 0
    out = tmp_path / "clinics.csv"
    written = run_cli(ledger_path, "sql", "SELECT subject, value FROM claims", "-o", str(out))
    assert written.exit_code == 0, written.output
    assert VALUE.encode() in inside.read_bytes() and VALUE in out.read_text()

    result = run_cli(ledger_path, *ERASE)
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["complete"] is False
    by_path = {r["path"]: r for r in report["remaining"]}
    assert set(by_path) == {str(inside.resolve()), str(out.resolve())}
    assert by_path[str(inside.resolve())]["kind"] == "backup"
    # The backup is keyed with this ledger's key and has none beside it (ledger/backup.py): the command names it.
    key = Path(f"{ledger_path}.chain-key").absolute()
    assert by_path[str(inside.resolve())]["command"].startswith(f"factledger --db {inside.resolve()} --chain-key {key} erase --scope s")
    assert by_path[str(out.resolve())] == {"kind": "sql output", "path": str(out.resolve()),
                                           "what": by_path[str(out.resolve())]["what"], "command": f"rm -- {out.resolve()}"}
    assert VALUE not in result.stdout  # the report names the value as $VALUE, never itself

    # Following the commands leaves nothing: the backup erased in place, the output deleted.
    follow = run_cli(inside, "--chain-key", str(key), "erase", "--scope", "s", "--subject", "Maya", "--predicate", "treated_at", "--yes")
    assert follow.exit_code == 0, follow.output
    out.unlink()
    assert hits(store_files(inside)) == {}


def test_a_backup_made_before_the_value_was_stored_is_not_named(ledger_path):
    with Ledger.open(ledger_path) as ledger:
        with ledger.transaction(principal="operator:nurse", reason="intake") as tx:
            tx.add("s", "Maya", "allergic_to", "penicillin", valid_from="2025-01-01")
    old = ledger_path.parent / "old.db"
    assert run_cli(ledger_path, "backup", str(old)).exit_code == 0
    seed(ledger_path)
    result = run_cli(ledger_path, *ERASE)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["remaining"] == []


# -- the Hermes host's own files ---------------------------------------------------------------------


def _hermes_home_holding_the_value(tmp_path: Path) -> tuple[Path, Path]:
    from hermes_state import SessionDB

    home = tmp_path / "hermes"
    ledger_path = home / "factledger" / "ledger.db"
    ledger_path.parent.mkdir(parents=True)
    (home / "config.yaml").write_text("memory:\n  provider: factledger\n")
    db = SessionDB(home / "state.db")
    db.create_session("s-clinic", source="cli")
    db.append_message("s-clinic", role="user", content="I am treated at Vexmoor Clinic")
    db.create_session("s-other", source="cli")
    db.append_message("s-other", role="user", content="nothing to see")
    db.close()
    (home / ".hermes_history").write_text("\n# 2025-01-05\n+I am treated at Vexmoor Clinic\n")
    (home / "logs").mkdir()
    (home / "logs" / "agent.log").write_text("INFO user said: I am treated at Vexmoor Clinic\n")
    (home / "logs" / "errors.log").write_text("nothing\n")
    seed(ledger_path)
    return home, ledger_path


def test_hermes_files_holding_the_value_are_named_and_left_untouched(tmp_path):
    home, ledger_path = _hermes_home_holding_the_value(tmp_path)
    host = [home / "state.db", home / ".hermes_history", home / "logs" / "agent.log", home / "logs" / "errors.log"]
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in host}

    result = run_cli(ledger_path, *ERASE)
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["complete"] is False
    named = {r["path"]: r for r in report["remaining"] if r["kind"] == "hermes"}
    assert set(named) == {str(home / "state.db"), str(home / ".hermes_history"), str(home / "logs" / "agent.log")}
    command = named[str(home / "state.db")]["command"]
    assert "sessions delete s-clinic --yes" in command and "s-other" not in command
    assert command.endswith("hermes sessions optimize")
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in host} == before  # not Hermes's to rewrite
    assert "complete: false" in result.stderr


def test_the_operator_can_have_the_sessions_that_mention_it_deleted_through_hermes(tmp_path):
    from hermes_state import SessionDB

    home, ledger_path = _hermes_home_holding_the_value(tmp_path)
    result = run_cli(ledger_path, *ERASE, "--hermes-sessions", "delete")
    assert result.exit_code == 1, result.output  # the history and the log are still named
    report = json.loads(result.stdout)
    assert report["hermes_sessions_deleted"] == ["s-clinic"]
    named = {r["path"] for r in report["remaining"] if r["kind"] == "hermes"}
    assert named == {str(home / ".hermes_history"), str(home / "logs" / "agent.log")}  # state.db holds it no more
    db = SessionDB(home / "state.db", read_only=True)
    try:
        assert db.get_session("s-clinic") is None and db.get_session("s-other") is not None
    finally:
        db.close()
    assert b"Vexmoor" not in b"".join(p.read_bytes() for p in home.glob("state.db*"))


# -- outputs refuse the ledger's own files and what is not a regular file ------------------------------


def _snapshot(paths: list[Path]) -> dict[str, str]:
    """The bytes of the ledger's lasting files (the -wal and -shm come and go with each connection)."""
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths
            if p.is_file() and not p.name.endswith(("-wal", "-shm"))}


@pytest.mark.parametrize("target", ["ledger.db", "ledger.db-wal", "ledger.db.analytics.duckdb", "ledger.db.lance/x.csv",
                                    "/dev/null", "link.csv"])
def test_sql_output_refuses_the_ledger_s_files_and_what_is_not_a_regular_file(ledger_path, target):
    seed(ledger_path)
    assert run_cli(ledger_path, "sql", "--companion", "SELECT 1").exit_code == 0  # the companion exists
    (ledger_path.parent / "link.csv").symlink_to(ledger_path)  # judged by what it points at: the ledger
    path = Path(target) if target.startswith("/") else ledger_path.parent / target
    before = _snapshot(store_files(ledger_path))
    result = run_cli(ledger_path, "sql", "SELECT * FROM claims", "-o", str(path), "--format", "csv")
    assert result.exit_code == 2, result.output
    assert str(path) in result.stderr and "error: output:" in result.stderr
    assert _snapshot(store_files(ledger_path)) == before
    assert not (ledger_path.parent / "ledger.db.lance" / "x.csv").exists()
    assert not path.is_file() or not path.read_bytes().startswith(b"id,")  # no CSV written there


@pytest.mark.parametrize("target", ["ledger.db.chain-key", "ledger.db.heads", "elsewhere.key"])
def test_sql_output_refuses_the_chain_key_and_the_heads_file(ledger_path, target):
    """The chain key (beside the ledger, or the --chain-key file given) and the heads file are the ledger's
    own too: an output over the key would leave the keyed ledger unwritable and unverifiable, over the
    heads the kept heads gone."""
    seed(ledger_path)
    elsewhere = ledger_path.parent / "elsewhere.key"
    elsewhere.write_bytes(Path(f"{ledger_path}.chain-key").read_bytes())
    elsewhere.chmod(0o600)
    assert run_cli(ledger_path, "head", "--record").exit_code == 0
    path = ledger_path.parent / target
    before = path.read_bytes()
    result = run_cli(ledger_path, "--chain-key", str(elsewhere), "sql", "SELECT * FROM claims", "-o", str(path), "--format", "csv")
    assert result.exit_code == 2, result.output
    assert str(path) in result.stderr and ("key file" in result.stderr or "heads file" in result.stderr)
    assert path.read_bytes() == before


@pytest.mark.parametrize("target", ["ledger.db-wal", "ledger.db-shm", "ledger.db.analytics.duckdb", "fifo"])
def test_backup_refuses_them_even_with_force(ledger_path, target):
    """The issue's `backup --force /dev/null` replaced the device with a regular file. A FIFO stands in for
    it here: the same refusal (it exists and is not a regular file), and a test run against code without
    the refusal replaces a FIFO of its own folder rather than the machine's /dev/null."""
    import os
    import stat

    seed(ledger_path)
    assert run_cli(ledger_path, "sql", "--companion", "SELECT 1").exit_code == 0
    os.mkfifo(ledger_path.parent / "fifo")
    path = ledger_path.parent / target
    before = _snapshot(store_files(ledger_path))
    result = run_cli(ledger_path, "backup", str(path), "--force")
    assert result.exit_code == 2, result.output
    assert str(path) in result.stderr
    assert _snapshot(store_files(ledger_path)) == before
    if target == "fifo":
        assert stat.S_ISFIFO(os.stat(path).st_mode)  # still the FIFO, not a regular file in its place
    assert not list(ledger_path.parent.glob(".*partial*"))


def test_export_refuses_the_vector_folder_and_a_device_in_its_place(ledger_path):
    seed(ledger_path)
    lance = ledger_path.parent / "ledger.db.lance"
    lance.mkdir(exist_ok=True)
    into_index = run_cli(ledger_path, "export", str(lance), "--format", "csv")
    assert into_index.exit_code == 2 and str(lance) in into_index.stderr
    assert list(lance.iterdir()) == []
    out = ledger_path.parent / "out"
    out.mkdir()
    (out / "claims.csv").symlink_to("/dev/null")
    onto_device = run_cli(ledger_path, "export", str(out), "--format", "csv")
    assert onto_device.exit_code == 2 and str(out / "claims.csv") in onto_device.stderr
    assert sorted(p.name for p in out.iterdir()) == ["claims.csv"]  # nothing written
