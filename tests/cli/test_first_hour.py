"""A newcomer's first hour at the command line: nothing surprising happens to a mistyped ledger path."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli

READS = [
    ["review", "list"],
    ["current"],
    ["as-of", "--valid-at", "2024-01-01"],
    ["history", "--subject", "user", "--predicate", "lives_in"],
    ["predicates"],
    ["search", "Berlin", "--scope", "s"],
    ["recall", "Berlin", "--scope", "s"],
    ["memories", "--scope", "s"],
    ["journal", "list"],
    ["digest"],
]


@pytest.mark.parametrize("args", READS, ids=lambda a: " ".join(a[:2]))
def test_reads_and_reviews_refuse_a_missing_ledger_and_create_nothing(tmp_path, args):
    typo = tmp_path / "typo" / "ledger.db"
    for invocation in (dict(args=["--db", str(typo), *args]), dict(args=args, env={"FACTLEDGER_DB": str(typo)})):
        result = CliRunner().invoke(cli, **invocation)
        assert result.exit_code == 2, result.output
        assert f"error: no ledger at {typo}" in result.stderr
        assert not typo.parent.exists()


def test_commands_that_create_a_ledger_say_so_once(tmp_path):
    db = tmp_path / "new" / "ledger.db"
    line = '{"op":"add","scope":"s","subject":"user","predicate":"likes","value":"tea"}\n'
    first = CliRunner().invoke(cli, ["--db", str(db), "apply", "-"], input=line)
    assert first.exit_code == 0 and f"created a new ledger at {db}" in first.stderr
    assert json.loads(first.stdout)["opened"][0]["value"] == "tea"  # stdout stays clean JSON
    again = CliRunner().invoke(cli, ["--db", str(db), "apply", "-"], input=line)
    assert again.exit_code == 0 and "created" not in again.stderr
    turn = '{"scope":"s","text":"I moved to Lisbon last month"}\n'
    journal = CliRunner().invoke(cli, ["--db", str(tmp_path / "j.db"), "journal", "add", "-"], input=turn)
    assert journal.exit_code == 0 and "created a new ledger at" in journal.stderr


def _apply(db, text, *options):
    return CliRunner().invoke(cli, ["--db", str(db), *options, "apply", "-"], input=text)


def test_an_undeclared_predicate_is_warned_about_and_strict_predicates_refuse_it(tmp_path):
    db = tmp_path / "ledger.db"
    defined = '{"op":"define","predicate":"lives_in","cardinality":"one"}\n'
    assert _apply(db, defined).exit_code == 0
    line = '{"op":"add","scope":"s","subject":"user","predicate":"lives","value":"Paris"}\n'
    strict = _apply(db, line, "--strict-predicates")
    assert strict.exit_code == 2
    assert "predicate: no predicate 'lives'; did you mean lives_in?" in strict.stderr
    env = CliRunner().invoke(cli, ["--db", str(db), "apply", "-"], input=line, env={"FACTLEDGER_STRICT_PREDICATES": "1"})
    assert env.exit_code == 2
    assert [p["name"] for p in json.loads(CliRunner().invoke(cli, ["--db", str(db), "predicates", "--json"]).stdout)] == ["lives_in"]
    loose = _apply(db, line)
    assert loose.exit_code == 0
    assert "warning: predicate 'lives' was never defined: registered as 'many'" in loose.stderr
    assert json.loads(loose.stdout)["undeclared_predicates"] == ["lives"]
    again = _apply(db, line.replace("Paris", "Rome"))
    assert "warning" not in again.stderr and json.loads(again.stdout)["undeclared_predicates"] == []


def test_empty_reads_name_what_the_ledger_does_not_know(tmp_path):
    db = tmp_path / "ledger.db"
    seed = ('{"op":"define","predicate":"lives_in","cardinality":"one"}\n'
            '{"op":"add","scope":"s","subject":"user","predicate":"lives_in","value":"Paris"}\n')
    assert _apply(db, seed).exit_code == 0
    for args in (["current", "--predicate", "lives"], ["as-of", "--predicate", "lives"],
                 ["history", "--subject", "user", "--predicate", "lives"]):
        result = CliRunner().invoke(cli, ["--db", str(db), *args, "--json"])
        assert result.exit_code == 0 and json.loads(result.stdout) == []
        assert "no predicate 'lives'; did you mean lives_in?" in result.stderr
    result = CliRunner().invoke(cli, ["--db", str(db), "current", "--subject", "usr"])
    assert "no subject 'usr' in any scope" in result.stderr
    known = CliRunner().invoke(cli, ["--db", str(db), "current", "--subject", "user", "--predicate", "lives_in"])
    assert known.stderr == "" and "Paris" in known.stdout


def test_recall_json_gives_the_block_and_the_hits_it_shows(tmp_path):
    db = tmp_path / "ledger.db"
    seed = ('{"op":"define","predicate":"lives_in","cardinality":"one","template":"{subject} lives in {value}"}\n'
            '{"op":"add","scope":"s","subject":"user","predicate":"lives_in","value":"Berlin","valid_from":"2024-06-01"}\n')
    assert _apply(db, seed).exit_code == 0
    shown = json.loads(CliRunner().invoke(cli, ["--db", str(db), "recall", "where does the user live", "--scope", "s", "--json"]).stdout)
    assert "user lives in Berlin (since 2024-06-01)" in shown["text"]
    assert [h["value"] for h in shown["facts"]] == ["Berlin"] and shown["episodes"] == []
    nothing = json.loads(CliRunner().invoke(cli, ["--db", str(db), "recall", "asdfghjkl", "--scope", "s", "--json"]).stdout)
    assert nothing == {"text": "", "facts": [], "changed": [], "episodes": [], "unknown": []}


@pytest.mark.parametrize("args", [[], ["demoo"], ["--help"]])
def test_dev_prints_its_usage_before_creating_anything(tmp_path, args):
    import shutil
    import subprocess
    from pathlib import Path

    script = tmp_path / "dev"
    shutil.copy(Path(__file__).resolve().parents[2] / "dev", script)
    result = subprocess.run(["bash", str(script), *args], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and result.stderr.startswith("usage: ./dev demo")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dev"]  # no .venv


def test_the_package_configuration_lists_every_data_folder():
    """setuptools prints a 40-line warning for each folder of package data that `packages` does not list (it
    was the first screen of `./dev demo`): every such folder is listed, its files named relative to it."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    mapping, listed = config["package-dir"], set(config["packages"])

    def folder(package: str) -> Path:
        parent = max((p for p in mapping if package == p or package.startswith(p + ".")), key=len)
        return root / mapping[parent] / package[len(parent) + 1:].replace(".", "/")

    for package, patterns in config["package-data"].items():
        assert package in listed, package
        for pattern in patterns:
            for found in folder(package).glob(pattern):
                inner = found.parent.relative_to(folder(package)).parts
                # A data file in a subfolder whose name could be a package: that subfolder must be listed.
                assert not (inner and all(part.isidentifier() for part in inner)), (package, found)


HISTORY = "".join(json.dumps(line) + "\n" for line in [
    {"op": "define", "predicate": "lives_in", "cardinality": "one"},
    # Lines out of tx-time order: the import orders the transactions by tx_time.
    {"op": "supersede", "scope": "s", "subject": "user", "predicate": "lives_in", "value": "Berlin",
     "valid_from": "2024-06-01", "tx_time": "2024-06-02T09:00:00Z"},
    {"op": "add", "scope": "s", "subject": "user", "predicate": "lives_in", "value": "Paris",
     "valid_from": "2024-01-01", "tx_time": "2024-01-05T09:00:00Z", "tx": "first"},
    {"op": "add", "scope": "s", "subject": "user", "predicate": "likes", "value": "jazz", "tx": "first"},
])


def test_import_orders_a_history_by_tx_time_into_a_fresh_ledger(tmp_path):
    db = tmp_path / "imported.db"
    result = CliRunner().invoke(cli, ["--db", str(db), "import", "-", "--source", "crm"], input=HISTORY)
    assert result.exit_code == 0, result.output
    assert "created a new ledger" in result.stderr and "warning: predicate 'likes'" in result.stderr
    txs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [t["tx_time"][:10] for t in txs] == ["2024-01-05", "2024-01-05", "2024-06-02"]  # definitions first
    assert {t["principal"] for t in txs} == {"import:crm"}
    known = CliRunner().invoke(cli, ["--db", str(db), "as-of", "--valid-at", "2024-07-01", "--known-at", "2024-03-01", "--json"])
    assert sorted(v["value"] for v in json.loads(known.stdout)) == ["Paris", "jazz"]  # before Berlin was known
    summary = CliRunner().invoke(cli, ["--db", str(tmp_path / "s.db"), "import", "--summary", "-"], input=HISTORY)
    assert json.loads(summary.stdout) == {"transactions": 3, "opened": 4, "closed": 1, "noops": 0,
                                          "undeclared_predicates": ["likes"]}


def test_import_refuses_what_it_cannot_order_and_writes_nothing(tmp_path):
    db = tmp_path / "l.db"
    untimed = HISTORY + json.dumps({"op": "add", "scope": "s", "subject": "user", "predicate": "likes", "value": "tea"}) + "\n"
    result = CliRunner().invoke(cli, ["--db", str(db), "import", "-"], input=untimed)
    assert result.exit_code == 2 and "line 5: tx_time: required on each transaction's first line" in result.stderr
    assert not db.exists()
    # A ledger written "now" refuses an older history, and says what to do.
    assert _apply(db, '{"op":"define","predicate":"likes"}\n').exit_code == 0
    late = CliRunner().invoke(cli, ["--db", str(db), "import", "-"], input=HISTORY)
    assert late.exit_code == 2 and "import it into a fresh ledger" in late.stderr
    assert json.loads(CliRunner().invoke(cli, ["--db", str(db), "current", "--json"]).stdout) == []


def test_apply_summary_is_one_line(tmp_path):
    lines = "".join(json.dumps({"op": "add", "scope": "s", "subject": "user", "predicate": "likes", "value": v}) + "\n"
                    for v in ("tea", "jazz", "tea"))
    result = _apply(tmp_path / "l.db", lines, )
    summary = CliRunner().invoke(cli, ["--db", str(tmp_path / "m.db"), "apply", "--summary", "-"], input=lines)
    assert len(result.stdout.splitlines()) == 3
    assert json.loads(summary.stdout) == {"transactions": 3, "opened": 2, "closed": 0, "noops": 1,
                                          "undeclared_predicates": ["likes"]}


@pytest.mark.slow  # a fresh clone, a venv and an editable install: a minute or two
def test_a_fresh_clones_dev_demo_output_starts_with_the_demo(tmp_path):
    """What a newcomer sees first: the demo, not pip's or setuptools' notices (they go to .venv/setup.log)."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    if subprocess.run(["git", "-C", str(root), "rev-parse"], capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(root), str(clone)], check=True)
    # The committed ./dev (the clone) with this checkout's uncommitted one, so the test checks the script under test.
    (clone / "dev").write_bytes((root / "dev").read_bytes())
    result = subprocess.run(["./dev", "demo"], cwd=clone, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr == ""
    assert result.stdout.startswith("Replayed 5 transactions about Maya"), result.stdout[:500]
    assert (clone / ".venv" / "setup.log").is_file()
