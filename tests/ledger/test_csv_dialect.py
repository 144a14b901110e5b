"""One CSV dialect (ledger/analytics/output.py): `sql --format csv` and `export --format csv` write the
same bytes for the same rows — header, quoting, lists as JSON text, times in the ledger's UTC form."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.ledger import Ledger

from .sql_fixtures import build_history

AWKWARD = 'a "quoted", value'  # (the ledger folds line breaks in a value to spaces)


def _ledger(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    build_history(path)
    with Ledger.open(path) as ledger:
        with ledger.transaction(principal="operator:alice", reason="awkward") as tx:
            tx.add("home", "Ann", "likes", AWKWARD, valid_from="2024-01-01", source=["turn:8", "turn:9"])
    return path


def _run(path: Path, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--db", str(path), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_sql_and_export_write_the_same_bytes(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    out = tmp_path / "export"
    _run(path, "export", str(out), "--format", "csv")
    for table, query in [("claims", "SELECT * FROM claim_versions ORDER BY id"), ("predicates", "SELECT * FROM predicates")]:
        from_sql = _run(path, "sql", query, "--format", "csv", "--max-rows", "0").encode("utf-8")
        to_file = tmp_path / f"{table}.csv"
        _run(path, "sql", query, "--format", "csv", "--max-rows", "0", "-o", str(to_file))
        exported = (out / f"{table}.csv").read_bytes()
        assert from_sql == exported == to_file.read_bytes(), table


def test_the_dialect(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    text = _run(path, "sql", "SELECT id, value, source, valid_from, valid_to FROM claim_versions ORDER BY id", "--format", "csv", "--max-rows", "0")
    assert text.startswith("id,value,source,valid_from,valid_to\n")
    assert '"a ""quoted"", value"' in text  # quoted only because it must be
    rows = list(csv.reader(io.StringIO(text)))
    awkward = next(r for r in rows if r[1] == AWKWARD)
    assert awkward[2] == '["turn:8","turn:9"]'  # a list as its JSON text
    assert awkward[3] == "2024-01-01T00:00:00.000000Z" and awkward[4] == ""  # the ledger's time form; NULL empty
    assert "\r" not in text
