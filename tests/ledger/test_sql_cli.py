"""`factledger sql` and `factledger export`: formats, files, errors with positions and exit status 2."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from factledger.cli.main import cli

from factledger.ledger import Ledger

from .sql_fixtures import file_digest


def rows_digest(path: Path, *, skip: str) -> str:
    """Every row of every table but `skip` (and its sequence counter): what a write elsewhere would change."""
    with Ledger.open(path) as ledger:
        names = [r[0] for r in ledger.storage.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        rows = {n: sorted(map(repr, map(tuple, ledger.storage.query(f'SELECT * FROM "{n}"')))) for n in names if n != skip}
        rows["sqlite_sequence"] = [r for r in rows.get("sqlite_sequence", []) if not r.startswith(f"('{skip}',")]
        return json.dumps(rows)


def invoke(path: Path, *args: str, stdin: str | None = None):
    return CliRunner().invoke(cli, ["--db", str(path), *args], input=stdin, catch_exceptions=False)


AS_OF = "SELECT subject, value, valid_from FROM claims FOR VALID_TIME AS OF '2024-03-01' FOR SYSTEM_TIME AS OF '2024-03-15' WHERE predicate = 'lives_in'"


def test_table_output(history_path: Path) -> None:
    result = invoke(history_path, "sql", AS_OF)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["subject", "value", "valid_from"]
    assert lines[2].split() == ["Ann", "Rome", "2024-02-01"]


def test_json_output(history_path: Path) -> None:
    for args in (["--format", "json"], ["--json"]):
        result = invoke(history_path, "sql", AS_OF, *args)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == [{"subject": "Ann", "value": "Rome", "valid_from": "2024-02-01T00:00:00.000000Z"}]


def test_snapshot_mode_gives_the_same_answer(history_path: Path) -> None:
    live = invoke(history_path, "sql", AS_OF, "--json")
    snap = invoke(history_path, "sql", AS_OF, "--json", "--snapshot")
    assert snap.exit_code == 0, snap.output
    assert json.loads(snap.stdout) == json.loads(live.stdout) != []


def test_csv_to_a_file(history_path: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    result = invoke(history_path, "sql", "SELECT id, source FROM claims FOR ALL SYSTEM_TIME FOR ALL VALID_TIME ORDER BY id", "--format", "csv", "--output", str(target))
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(target.read_text("utf-8"))))
    assert rows[0] == ["id", "source"] and len(rows) == 13
    assert rows[1] == ["1", '["turn:1"]']


def test_parquet_needs_a_file_and_writes_it(history_path: Path, tmp_path: Path) -> None:
    result = invoke(history_path, "sql", "SELECT * FROM claims", "--format", "parquet")
    assert result.exit_code == 2 and "--output" in result.stderr
    target = tmp_path / "current.parquet"
    result = invoke(history_path, "sql", "SELECT * FROM claims", "--format", "parquet", "-o", str(target))
    assert result.exit_code == 0, result.output
    table = pq.read_table(target)
    assert table.num_rows == 2 and "valid_from" in table.column_names


def test_query_from_standard_input(history_path: Path) -> None:
    result = invoke(history_path, "sql", "-", "--json", stdin="SELECT count(*) AS n FROM claim_versions")
    assert json.loads(result.stdout) == [{"n": 12}]


def test_show_sql_prints_the_rewrite(history_path: Path) -> None:
    result = invoke(history_path, "sql", "SELECT id FROM claims FOR VALID_TIME AS OF '2024-03-01T01:00:00+01:00'", "--show-sql")
    assert result.exit_code == 0
    assert "c.valid_from <= '2024-03-01T00:00:00.000000Z'" in result.stdout


def test_refused_query_points_at_the_offence(history_path: Path) -> None:
    before = file_digest(history_path)
    result = invoke(history_path, "sql", "SELECT 1;\n  DROP TABLE claims")
    assert result.exit_code == 2
    assert "error: query: line 2, column 3: one statement only" in result.stderr
    assert result.stderr.splitlines()[-1] == "    ^"
    assert file_digest(history_path) == before


def test_unknown_column_is_an_error_not_a_crash(history_path: Path) -> None:
    result = invoke(history_path, "sql", "SELECT nonsense FROM claims")
    assert result.exit_code == 2 and "nonsense" in result.stderr


def test_missing_ledger_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "absent" / "ledger.db"
    result = invoke(path, "sql", "SELECT 1")
    assert result.exit_code == 2 and "no ledger file" in result.stderr
    assert not path.parent.exists()


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_export_writes_every_table_consistently(history_path: Path, tmp_path: Path, fmt: str) -> None:
    before = rows_digest(history_path, skip="exports")
    out = tmp_path / "export"
    result = invoke(history_path, "export", "--format", fmt, str(out), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    counts = {t["name"]: t["rows"] for t in report["tables"]}
    assert counts == {
        "claims": 12,
        "transactions": 6,
        "predicates": 3,
        "schema_migrations": counts["schema_migrations"],
        "tombstones": 0,
        "claim_provenance": 0,
        # the hash chain (0006_integrity.sql): a hash per version, a link per transaction
        "version_hashes": 12,
        "tx_chain": 6,
        "chain_start": 1,
        "chain_keying": 1,  # the ledger's id and where its chain is keyed (0022); the key itself is not in the file
        # the digest's tables, empty in this history
        "journal": 0,
        "proposals": 0,
        "rejections": 0,
        "confirmations": 0,
        "episodes": 0,  # the journal's turns as episodes (0005)
        "digest_leases": 0,  # which digest run holds which journal entry (0009)
        "session_titles": 0,  # the host's title of each conversation (0017)
        "corrections": 4,  # each change of a slot as one row (a view, exported like episodes)
        # erase's tables (migration 0007); ledger_secret is never exported
        "erased_texts": 0,
        "exports": counts["exports"],  # earlier exports of this module's shared history
    }
    assert report["snapshot_tx_time"] == "2024-11-15T00:00:00.000000Z"
    assert json.loads((out / "manifest.json").read_text("utf-8"))["tables"] == report["tables"]
    if fmt == "parquet":
        claims = pq.read_table(out / "claims.parquet")
        assert claims.num_rows == 12 and str(claims.schema.field("tx_from").type).startswith("timestamp")
    else:
        assert (out / "claims.csv").read_text("utf-8").startswith("id,scope,subject")
    # The only write is the export's own line in the ledger's manifest of exports (for erase).
    assert rows_digest(history_path, skip="exports") == before
    with Ledger.open(history_path) as ledger:
        assert [r["directory"] for r in ledger.storage.query("SELECT directory FROM exports")][-1] == str(out.resolve())


def test_export_refuses_a_bad_format(history_path: Path, tmp_path: Path) -> None:
    result = invoke(history_path, "export", "--format", "xlsx", str(tmp_path / "x"))
    assert result.exit_code == 2


def test_views_lists_what_can_be_queried(history_path: Path) -> None:
    result = invoke(history_path, "sql", "--views", "--json")
    assert result.exit_code == 0, result.output
    names = [item["name"] for item in json.loads(result.stdout)]
    assert names[:2] == ["claims", "slots"] and "slot_history" in names
    assert invoke(history_path, "sql").exit_code == 2
