"""Fuzzing the ledger's input surfaces through the CLI: `factledger apply` (JSON Lines) and
`factledger sql`. Every case ends in a result or a clear error (exit status 2), never a traceback, and a
refused write changes no byte of the ledger. Longer: FACTLEDGER_HYPOTHESIS=thorough; figures for
thousands of cases: evals/fuzz_inputs.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given

from tests.fuzz_strategies import apply_inputs, fuzz_settings, invoke_cli, sql_queries

SEED = [
    {"op": "define", "predicate": "lives_in", "cardinality": "one", "tx": "d"},
    {"op": "add", "scope": "s", "subject": "Ann", "predicate": "lives_in", "value": "Paris", "valid_from": "2024-01-01"},
]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("fuzz") / "ledger.db"
    seed = db.parent / "seed.jsonl"
    seed.write_text("".join(json.dumps(line) + "\n" for line in SEED))
    invoke_cli(["--db", str(db), "--principal", "operator:fuzz", "apply", str(seed)])
    return db


@fuzz_settings(40)
@given(data=apply_inputs())
def test_apply_never_ends_in_a_traceback(seeded: Path, data: bytes) -> None:
    path = seeded.parent / "ops.jsonl"
    path.write_bytes(data)
    invoke_cli(["--db", str(seeded), "--principal", "operator:fuzz", "apply", str(path), "--all-or-nothing"], db=seeded)


@fuzz_settings(40)
@given(query=sql_queries())
def test_sql_never_ends_in_a_traceback(seeded: Path, query: str) -> None:
    invoke_cli(["--db", str(seeded), "sql", query, "--json", "--timeout", "20"], db=seeded)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"\xff\xfe{}\n", "not valid UTF-8"),
        (b"[" * 50_000 + b"]" * 50_000 + b"\n", "nested deeper"),
        (b'{"op": "add", "value": ' + b"[" * 40 + b"]" * 40 + b"}\n", "nested deeper"),
        (b'{"op": "add", "valid_from": ' + b"7" * 5000 + b"}\n", "not valid JSON"),
        (b'{"op": "add", "value": NaN}\n', "NaN is not a JSON number"),
        (b'{"op":"add","scope":"s","subject":"Ann","predicate":"likes","value":"a\\ud800b"}\n', "lone surrogate"),
        (b'{"op":"add","scope":"s","subject":"Ann","predicate":"likes","value":"a\\u0007b"}\n', "control character"),
        (b'{"op":"add","scope":"s\\nx","subject":"Ann","predicate":"likes","value":"jazz"}\n', "scope"),
    ],
)
def test_each_kind_of_bad_line_is_a_clear_error_naming_it(seeded: Path, data: bytes, says: str) -> None:
    path = seeded.parent / "bad.jsonl"
    path.write_bytes(data)
    result = invoke_cli(["--db", str(seeded), "--principal", "operator:fuzz", "apply", str(path)], db=seeded)
    assert result.exit_code == 2 and says in result.output and "line 1" in result.output


def test_a_json_line_may_hold_unicode_line_separators(tmp_path: Path) -> None:
    # Splitting on U+2028 (str.splitlines) cut such a line in two; JSON Lines are split on LF only.
    # Its own ledger: the module's seeded one also receives whatever the fuzz tests above applied.
    db = tmp_path / "ledger.db"
    path = tmp_path / "sep.jsonl"
    line = {"op": "add", "scope": "s", "subject": "Ann", "predicate": "likes", "value": "jazz\u2028and blues"}
    path.write_text(json.dumps(line, ensure_ascii=False) + "\n", "utf-8")
    invoke_cli(["--db", str(db), "--principal", "operator:fuzz", "apply", str(path)])
    result = invoke_cli(["--db", str(db), "current", "--predicate", "likes", "--json"])
    assert [v["value"] for v in json.loads(result.output)] == ["jazz and blues"]


def test_deep_sql_nesting_is_refused_where_it_goes_too_deep(seeded: Path) -> None:
    result = invoke_cli(["--db", str(seeded), "sql", "SELECT " + "(" * 5000 + "1" + ")" * 5000])
    assert result.exit_code == 2 and "nested deeper than 64 levels" in result.output
    long_chain = invoke_cli(["--db", str(seeded), "sql", "SELECT " + " + ".join(["1"] * 3000)])
    assert long_chain.exit_code in (0, 2)
