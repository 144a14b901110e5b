"""The ledger commands through click's CliRunner: apply (transactions, --all-or-nothing, stdin), the
error cases (exit status 2, the field and line named, nothing written), the --json shapes of the reads,
and FACTLEDGER_DB."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.ledger import Ledger

DEFINES = [
    {"op": "define", "predicate": "lives_in", "cardinality": "one", "template": "{subject} lives in {value}"},
    {"op": "define", "predicate": "likes", "cardinality": "many"},
]
PARIS = {"op": "add", "scope": "s", "subject": "Ann", "predicate": "lives_in", "value": "Paris", "valid_from": "2024-01-01"}
JAZZ = {"op": "add", "scope": "s", "subject": "Ann", "predicate": "likes", "value": "jazz", "valid_from": "2024-01-01"}
SEED = [dict(d, tx="setup") for d in DEFINES] + [PARIS, JAZZ]


def jsonl(lines: list[dict]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def run(runner: CliRunner, ledger_path: Path):
    """Invoke `factledger --db <ledger_path> ARGS...` (with optional stdin)."""

    def invoke(*args: str, input: str | None = None):
        return runner.invoke(cli, ["--db", str(ledger_path), "--principal", "operator:tester", *args], input=input)

    return invoke


@pytest.fixture
def seeded(run, tmp_path: Path):
    path = tmp_path / "seed.jsonl"
    path.write_text(jsonl(SEED))
    result = run("apply", str(path))
    assert result.exit_code == 0, result.output
    return run


def fingerprint(ledger_path: Path) -> str:
    """A hash of every row the ledger holds: equal before and after means nothing was written."""
    with Ledger.open(ledger_path) as ledger:
        rows = []
        for table in ("predicates", "transactions", "claims", "tombstones"):
            rows.append((table, [tuple(r) for r in ledger.storage.query(f"SELECT * FROM {table} ORDER BY 1")]))
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def output_objects(result) -> list[dict]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


# -- apply: happy paths ----------------------------------------------------------------------------


def test_apply_prints_one_object_per_transaction(run, tmp_path):
    path = tmp_path / "ops.jsonl"
    path.write_text(jsonl(SEED))
    result = run("apply", str(path))
    assert result.exit_code == 0, result.output
    objects = output_objects(result)
    assert len(objects) == 3  # the labelled defines are one transaction; each unlabelled line is its own
    assert objects[0]["defined"] == ["lives_in", "likes"] and objects[0]["opened"] == []
    assert [o["opened"][0]["value"] for o in objects[1:]] == ["Paris", "jazz"]
    for obj in objects:
        assert set(obj) == {"tx", "tx_time", "principal", "reason", "opened", "closed", "defined", "noops", "undeclared_predicates"}
        assert obj["principal"] == "operator:tester"
    assert [o["tx"] for o in objects] == sorted(o["tx"] for o in objects)
    assert [o["tx_time"] for o in objects] == sorted(o["tx_time"] for o in objects)


def _soon() -> str:
    """An explicit tx_time the ledger accepts after `seeded`'s writes: later than them, and within the
    five minutes an import may run ahead of the clock (DESIGN §8)."""
    return (datetime.now(timezone.utc) + timedelta(minutes=2)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")


def test_consecutive_lines_with_one_tx_label_are_one_transaction(seeded):
    soon = _soon()
    lines = [
        {"op": "supersede", "scope": "s", "subject": "Ann", "predicate": "lives_in", "value": "Berlin",
         "valid_from": "2024-06-01", "tx": "move", "tx_time": soon[:19] + "Z", "reason": "moved",
         "principal": "import:crm", "source": "crm:17"},
        {"op": "supersede", "scope": "s", "subject": "Ann", "predicate": "likes", "value": "blues",
         "replaces": "jazz", "valid_from": "2024-06-01", "tx": "move"},
        {"op": "retract", "scope": "s", "subject": "Ann", "predicate": "likes", "value": "blues",
         "all_valid_time": True, "tx": "later"},
    ]
    result = seeded("apply", "-", input=jsonl(lines))
    assert result.exit_code == 0, result.output
    move, later = output_objects(result)
    assert move["tx_time"] == soon
    assert (move["principal"], move["reason"]) == ("import:crm", "moved")
    assert sorted((v["value"], v["valid_from"][:10], v["valid_to"] and v["valid_to"][:10]) for v in move["opened"]) == [
        ("Berlin", "2024-06-01", None), ("Paris", "2024-01-01", "2024-06-01"),
        ("blues", "2024-06-01", None), ("jazz", "2024-01-01", "2024-06-01"),
    ]
    assert [v["source"] for v in move["opened"] if v["value"] == "Berlin"] == [["crm:17"]]
    assert len(move["closed"]) == 2
    assert later["opened"] == [] and len(later["closed"]) == 1
    assert later["tx_time"] > move["tx_time"]


def test_later_lines_of_a_transaction_may_repeat_its_fields(seeded):
    soon = _soon()
    lines = [dict(JAZZ, value="folk", tx="t", tx_time=soon, reason="r", principal="import:x"),
             dict(JAZZ, value="rock", tx="t", tx_time=soon[:19] + "Z", reason="r")]
    result = seeded("apply", "-", input=jsonl(lines))
    assert result.exit_code == 0, result.output
    (obj,) = output_objects(result)
    assert obj["reason"] == "r" and len(obj["opened"]) == 2


def test_a_no_op_add_commits_and_is_counted(seeded):
    result = seeded("apply", "-", input=jsonl([dict(PARIS, valid_from="2024-03-01")]))
    assert result.exit_code == 0, result.output
    (obj,) = output_objects(result)
    assert (obj["opened"], obj["closed"], obj["noops"]) == ([], [], 1)


def test_all_or_nothing_makes_the_file_one_transaction(run, ledger_path):
    result = run("apply", "--all-or-nothing", "-", input=jsonl(SEED))
    assert result.exit_code == 0, result.output
    (obj,) = output_objects(result)
    assert len(obj["opened"]) == 2 and obj["defined"] == ["lives_in", "likes"]


def test_all_or_nothing_writes_nothing_when_a_later_line_fails(run, ledger_path, tmp_path):
    run("current")  # creates the empty ledger
    before = fingerprint(ledger_path)
    bad = SEED + [dict(PARIS, value="Rome", valid_from="2024-02-01")]  # line 5 conflicts with line 3
    result = run("apply", "--all-or-nothing", "-", input=jsonl(bad))
    assert result.exit_code == 2
    assert "line 5" in result.stderr and "value" in result.stderr
    assert fingerprint(ledger_path) == before


def test_without_all_or_nothing_earlier_transactions_stay(run, ledger_path):
    bad = SEED + [dict(PARIS, value="Rome", valid_from="2024-02-01"), dict(JAZZ, value="folk")]
    result = run("apply", "-", input=jsonl(bad))
    assert result.exit_code == 2
    assert len(output_objects(result)) == 3  # the three transactions before the bad line
    with Ledger.open(ledger_path) as ledger:
        assert sorted(v.value for v in ledger.current()) == ["Paris", "jazz"]


def test_blank_and_comment_lines_are_skipped_and_numbering_counts_them(seeded):
    text = "# a comment\n\n" + jsonl([{"op": "delete", "scope": "s"}])
    result = seeded("apply", "-", input=text)
    assert result.exit_code == 2
    assert "line 3" in result.stderr


# -- apply: the error cases ------------------------------------------------------------------------

ERRORS = [
    # (case, lines after the seed, the line number and field the message must name)
    ("malformed valid_from", [dict(PARIS, valid_from="2024-13-01")], 1, "valid_from"),
    ("valid_from with a zone name, not an offset", [dict(PARIS, valid_from="2024-06-01T10:00:00 CEST")], 1, "valid_from"),
    ("words for a time", [dict(JAZZ, valid_from="yesterday")], 1, "valid_from"),
    ("malformed valid_to", [dict(JAZZ, value="folk", valid_to="soon")], 1, "valid_to"),
    ("valid_to before valid_from", [dict(JAZZ, value="folk", valid_from="2024-05-01", valid_to="2024-04-01")], 1, "valid_to"),
    ("malformed tx_time", [dict(JAZZ, value="folk", tx_time="2024-02-30")], 1, "tx_time"),
    ("tx_time not increasing", [dict(JAZZ, value="folk", tx_time="2000-01-01")], 1, "tx_time"),
    ("unknown op", [{"op": "delete", "scope": "s", "subject": "Ann", "predicate": "likes"}], 1, "op"),
    ("missing op", [{"scope": "s", "subject": "Ann", "predicate": "likes"}], 1, "op"),
    ("unknown field", [dict(JAZZ, colour="red")], 1, "colour"),
    ("missing value", [{k: v for k, v in JAZZ.items() if k != "value"}], 1, "value"),
    ("not JSON", ["{not json"], 1, "line"),
    ("conflicting add", [dict(PARIS, value="Rome", valid_from="2024-03-01")], 1, "value"),
    ("conflicting add in the second line of a transaction",
     [dict(JAZZ, value="folk", tx="t"), dict(PARIS, value="Rome", valid_from="2024-03-01", tx="t")], 2, "value"),
    ("supersede of nothing",
     [{"op": "supersede", "scope": "s", "subject": "Bob", "predicate": "lives_in", "value": "Oslo"}], 1, "valid_from"),
    ("supersede of a value not held",
     [{"op": "supersede", "scope": "s", "subject": "Ann", "predicate": "likes", "value": "folk", "replaces": "rock"}],
     1, "replaces"),
    ("many supersede without replaces",
     [{"op": "supersede", "scope": "s", "subject": "Ann", "predicate": "likes", "value": "folk"}], 1, "replaces"),
    ("retract of nothing",
     [{"op": "retract", "scope": "s", "subject": "Ann", "predicate": "likes", "value": "folk", "all_valid_time": True}],
     1, "value"),
    ("a different tx_time on a later line of a transaction",
     [dict(JAZZ, value="folk", tx="t", tx_time="2030-01-01"), dict(JAZZ, value="rock", tx="t", tx_time="2030-02-01")],
     2, "tx_time"),
    ("a different principal on a later line of a transaction",
     [dict(JAZZ, value="folk", tx="t"), dict(JAZZ, value="rock", tx="t", principal="agent:x")], 2, "principal"),
    ("bad cardinality", [{"op": "define", "predicate": "works_at", "cardinality": "some"}], 1, "cardinality"),
    ("bad principal", [dict(JAZZ, value="folk", principal="root")], 1, "principal"),
]


@pytest.mark.parametrize("case,lines,line_number,field", ERRORS, ids=[e[0] for e in ERRORS])
def test_apply_error(seeded, ledger_path, tmp_path, case, lines, line_number, field):
    before = fingerprint(ledger_path)
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    result = seeded("apply", str(path))
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert message.startswith("error: "), message
    assert f"line {line_number}: {field}:" in message, message
    assert "Traceback" not in result.output
    assert fingerprint(ledger_path) == before, "a refused line wrote something"


def test_a_malformed_line_is_found_before_anything_is_written(seeded, ledger_path):
    good = [dict(JAZZ, value="folk"), dict(JAZZ, value="rock")]
    bad = {"op": "delete", "scope": "s", "subject": "Ann", "predicate": "likes"}
    before = fingerprint(ledger_path)
    result = seeded("apply", "-", input=jsonl(good + [bad, dict(JAZZ, value="soul")]))
    assert result.exit_code == 2
    assert "line 3: op:" in result.stderr
    assert output_objects(result) == []
    assert fingerprint(ledger_path) == before


def test_a_refused_line_stops_the_run_there_and_earlier_transactions_stay(seeded, ledger_path):
    good = [dict(JAZZ, value="folk"), dict(JAZZ, value="rock")]
    refused = {"op": "supersede", "scope": "s", "subject": "Ann", "predicate": "likes", "value": "pop"}
    result = seeded("apply", "-", input=jsonl(good + [refused, dict(JAZZ, value="soul")]))
    assert result.exit_code == 2
    assert "line 3: replaces:" in result.stderr
    assert [o["opened"][0]["value"] for o in output_objects(result)] == ["folk", "rock"]
    with Ledger.open(ledger_path) as ledger:
        assert sorted(v.value for v in ledger.current(predicate="likes")) == ["folk", "jazz", "rock"]


def test_a_missing_file_is_a_clear_error(run, tmp_path):
    result = run("apply", str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 2
    assert "cannot read" in result.stderr


# -- reads -----------------------------------------------------------------------------------------

VERSION_KEYS = {
    "id", "scope", "subject", "subject_key", "predicate", "cardinality", "value", "value_key",
    "valid_from", "valid_to", "tx_from", "tx_to", "opened_by", "closed_by", "source",
}


def test_current_json_shape(seeded):
    result = seeded("current", "--json")
    assert result.exit_code == 0, result.output
    versions = json.loads(result.stdout)
    assert sorted(v["value"] for v in versions) == ["Paris", "jazz"]
    for v in versions:
        assert set(v) == VERSION_KEYS
        assert v["tx_to"] is None and v["valid_to"] is None and v["source"] == []
        assert v["valid_from"] == "2024-01-01T00:00:00.000000Z"


def test_current_filters_by_scope_subject_predicate(seeded):
    seeded("apply", "-", input=jsonl([dict(PARIS, scope="other", value="Rome")]))
    assert {v["scope"] for v in json.loads(seeded("current", "--json").stdout)} == {"s", "other"}
    only = json.loads(seeded("current", "--json", "--scope", "other").stdout)
    assert [(v["scope"], v["value"]) for v in only] == [("other", "Rome")]
    both = json.loads(seeded("current", "--json", "--scope", "s", "--scope", "other", "--predicate", "lives in").stdout)
    assert sorted(v["value"] for v in both) == ["Paris", "Rome"]
    assert json.loads(seeded("current", "--json", "--subject", "nobody").stdout) == []


def test_as_of_json_answers_what_was_believed(seeded):
    first = json.loads(seeded("current", "--json").stdout)
    believed_at = max(v["tx_from"] for v in first)
    seeded("apply", "-", input=jsonl([
        {"op": "supersede", "scope": "s", "subject": "Ann", "predicate": "lives_in", "value": "Berlin", "valid_from": "2024-06-01"},
    ]))
    then = json.loads(seeded("as-of", "--json", "--valid-at", "2024-07-01", "--known-at", believed_at, "--predicate", "lives_in").stdout)
    now = json.loads(seeded("as-of", "--json", "--valid-at", "2024-07-01", "--predicate", "lives_in").stdout)
    before_move = json.loads(seeded("as-of", "--json", "--valid-at", "2024-05-31T23:59:59+00:00", "--predicate", "lives_in").stdout)
    assert [v["value"] for v in then] == ["Paris"] and then[0]["tx_to"] is not None
    assert [v["value"] for v in now] == ["Berlin"]
    assert [v["value"] for v in before_move] == ["Paris"]
    assert all(set(v) == VERSION_KEYS for v in then + now)
    empty = json.loads(seeded("as-of", "--json", "--valid-at", "2023-01-01").stdout)
    assert empty == []


@pytest.mark.parametrize("option,field", [("--valid-at", "valid_at"), ("--known-at", "known_at")])
def test_as_of_refuses_a_bad_time(seeded, option, field):
    result = seeded("as-of", option, "last tuesday")
    assert result.exit_code == 2
    assert f"{field}:" in result.stderr


def test_history_json_shape(seeded):
    seeded("apply", "-", input=jsonl([
        {"op": "supersede", "scope": "s", "subject": "Ann", "predicate": "lives_in", "value": "Berlin",
         "valid_from": "2024-06-01", "reason": "moved", "source": "journal:7"},
    ]))
    result = seeded("history", "--json", "--subject", "ann", "--predicate", "lives_in")
    assert result.exit_code == 0, result.output
    entries = json.loads(result.stdout)
    assert [(e["value"], e["tx_to"] is None) for e in entries] == [("Paris", False), ("Paris", True), ("Berlin", True)]
    for e in entries:
        assert set(e) == VERSION_KEYS | {"opened", "closed"}
        assert set(e["opened"]) == {"id", "tx_time", "principal", "reason", "sources"}
    closed = entries[0]["closed"]
    assert closed["reason"] == "moved" and closed["tx_time"] == entries[0]["tx_to"]
    assert entries[2]["source"] == ["journal:7"] and entries[2]["closed"] is None


def test_history_requires_its_slot(seeded):
    result = seeded("history", "--subject", "Ann")
    assert result.exit_code == 2
    assert "--predicate" in result.stderr


def test_tables_without_json(seeded):
    for args in (("current",), ("as-of", "--valid-at", "2024-02-01"), ("history", "--subject", "Ann", "--predicate", "likes"), ("predicates",)):
        result = seeded(*args)
        assert result.exit_code == 0, result.output
        assert "jazz" in result.stdout or "likes" in result.stdout


def test_predicates_json(seeded):
    preds = json.loads(seeded("predicates", "--json").stdout)
    assert {p["name"]: p["cardinality"] for p in preds} == {"lives_in": "one", "likes": "many"}


# -- the ledger file ---------------------------------------------------------------------------------


def test_factledger_db_environment_variable(runner, tmp_path):
    db = tmp_path / "from-env" / "ledger.db"
    result = runner.invoke(cli, ["apply", "-"], input=jsonl(SEED), env={"FACTLEDGER_DB": str(db), "FACTLEDGER_PRINCIPAL": "import:env"})
    assert result.exit_code == 0, result.output
    assert db.exists()
    assert {o["principal"] for o in output_objects(result)} == {"import:env"}
    listed = runner.invoke(cli, ["current", "--json"], env={"FACTLEDGER_DB": str(db)})
    assert sorted(v["value"] for v in json.loads(listed.stdout)) == ["Paris", "jazz"]
    # --db wins over the environment.
    other = tmp_path / "other.db"
    refused = runner.invoke(cli, ["--db", str(other), "current"], env={"FACTLEDGER_DB": str(db)})
    assert refused.exit_code == 2 and f"no ledger at {other}" in refused.stderr
    assert not other.exists()


# -- erase -----------------------------------------------------------------------------------------


def test_erase_json_and_its_refusals(seeded, runner, ledger_path):
    before = fingerprint(ledger_path)
    as_agent = runner.invoke(
        cli, ["--db", str(ledger_path), "--principal", "agent:hermes", "erase", "--scope", "s", "--subject", "Ann",
              "--predicate", "likes", "--value", "jazz", "--yes"],
    )
    assert as_agent.exit_code == 2 and "principal:" in as_agent.stderr
    declined = seeded("erase", "--scope", "s", "--subject", "Ann", "--predicate", "likes", "--value", "jazz", input="n\n")
    assert declined.exit_code == 2 and "not erased" in declined.stderr
    assert fingerprint(ledger_path) == before
    result = seeded("erase", "--scope", "s", "--subject", "Ann", "--predicate", "likes", "--value", "jazz", "--yes", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report) == {
        "tx", "erased", "scopes", "tombstones", "sources", "journal_entries", "vector_changes", "digest", "scrub",
        "exports_holding_value", "remaining", "complete", "reasons_redacted", "reasons_kept",
        "hermes_sessions_deleted",
    }
    assert report["complete"] is True and report["remaining"] == []
    assert len(report["erased"]) == 1
    again = seeded("apply", "-", input=jsonl([dict(JAZZ, valid_from="2025-01-01")]))
    assert again.exit_code == 2 and "line 1: value:" in again.stderr and "erased" in again.stderr
