"""`import factledger` / `factledger.open(path)`: the Python front door and how the package is laid out."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import factledger
from factledger.ledger import ConflictError, NotFoundError, ValidationError
from factledger.ledger.times import _CANONICAL

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def db(tmp_path):
    with factledger.open(tmp_path / "ledger.db", principal="operator:test") as database:
        database.define("lives_in", "one", template="{subject} lives in {value}")
        yield database


def test_writes_and_the_three_reads(db):
    db.add("s", "user", "lives_in", "Paris", valid_from="2024-01-01", reason="said so")
    moved = db.supersede("s", "user", "lives_in", "Berlin", valid_from="2024-06-01")
    assert [v.value for v in moved.opened] == ["Paris", "Berlin"]  # Paris cut to [2024-01-01, 2024-06-01)
    assert [v.value for v in db.current("s")] == ["Berlin"]
    assert [v.value for v in db.as_of("s", valid_at="2024-03-01")] == ["Paris"]
    history = db.history("user", "lives_in")
    assert [e.version.value for e in history] == ["Paris", "Paris", "Berlin"]
    assert history[0].opened.reason == "said so" and history[0].opened.principal == "operator:test"
    db.retract("s", "user", "lives_in", valid_from="2024-09-01")
    assert db.current("s") == []
    with pytest.raises(ConflictError):
        db.add("s", "user", "lives_in", "Rome", valid_from="2024-02-01")


def test_one_transaction_for_several_operations_or_none(db):
    with pytest.warns(factledger.UndeclaredPredicateWarning, match="'works_at'") as caught:
        with db.transaction(reason="moved and started") as tx:
            tx.add("s", "user", "lives_in", "Lisbon", valid_from="2024-01-01")
            tx.add("s", "user", "works_at", "Acme")
    assert caught[0].filename == __file__
    assert tx.result is not None and len(tx.result.opened) == 2
    with pytest.raises(ConflictError):
        with db.transaction() as tx:
            tx.add("s", "user", "likes", "jazz")
            tx.add("s", "user", "lives_in", "Oslo", valid_from="2024-02-01")  # conflicts: nothing written
    assert sorted(v.value for v in db.current("s")) == ["Acme", "Lisbon"]


def test_one_time_type_canonical_strings_out_aware_datetimes_accepted_in(db):
    berlin = timezone(timedelta(hours=2))
    result = db.add("s", "user", "lives_in", "Paris", valid_from=datetime(2024, 1, 1, 2, 0, tzinfo=berlin))
    version = result.opened[0]
    assert version.valid_from == "2024-01-01T00:00:00.000000Z"
    assert all(_CANONICAL.match(t) for t in (version.tx_from, result.tx_time))
    assert [v.value for v in db.as_of("s", valid_at=datetime(2024, 3, 1, tzinfo=timezone.utc))] == ["Paris"]
    with pytest.raises(ValidationError) as refused:
        db.as_of("s", valid_at=datetime(2024, 3, 1))  # no offset: refused, never guessed
    assert refused.value.field == "valid_at"
    rows = db.sql("SELECT value, valid_from FROM claims").rows
    assert rows == [("Paris", "2024-01-01T00:00:00.000000Z")]  # DuckDB's TIMESTAMP, as the same string
    outcome = db.journal("s", "I moved to Lisbon last month", said_at=datetime(2026, 3, 14, 10, tzinfo=timezone.utc))
    assert db.episodes("s")[0].said_at == "2026-03-14T10:00:00.000000Z" and outcome.status == "stored"


def test_journal_digest_search_and_prompt_block(db):
    assert db.journal("s", "I moved to Lisbon last month", said_at="2026-03-14T10:00:00Z").status == "stored"
    report = db.digest()
    assert report.complete and report.proposals.get("applied") == 1
    assert [v.value for v in db.current("s", predicate="lives_in")] == ["Lisbon"]
    hits = db.search("where does the user live", "s")
    assert hits[0].kind == "fact" and hits[0].claim.value == "Lisbon"
    assert [h.kind for h in db.search("Lisbon", "s", kinds="episode")] == ["episode"]
    block = db.prompt_block("where does the user live", "s")
    assert "user lives in Lisbon" in block.text and block.facts
    assert db.prompt_block("zxqv wobble", "s").text == ""
    many = db.journal_many([{"scope": "s", "text": "My sister Ana lives in Porto"}, {"scope": "s", "text": "ok"}])
    assert [o.status for o in many] == ["stored", "skipped"]


def test_open_refuses_a_missing_file_when_asked_not_to_create(tmp_path):
    missing = tmp_path / "typo" / "ledger.db"
    for kwargs in ({"create": False}, {"read_only": True}):
        with pytest.raises(NotFoundError) as refused:
            factledger.open(missing, **kwargs)
        assert refused.value.field == "path"
    assert not missing.parent.exists()
    with factledger.open(missing) as created:
        assert created.created and created.current() == []
    with factledger.open(missing, read_only=True) as again:
        assert not again.created
        with pytest.raises(Exception, match="read-only|read only"):
            again.add("s", "user", "likes", "tea")


def test_in_memory_ledger_has_everything_but_sql():
    with factledger.open(":memory:") as db:
        db.define("likes")
        db.add("s", "user", "likes", "tea")
        assert [v.value for v in db.current()] == ["tea"]
        with pytest.raises(ValidationError):
            db.sql("SELECT 1")


def test_importing_factledger_does_not_load_the_parts():
    code = "import sys, factledger; print(any(m.startswith('factledger.') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_the_package_maps_every_part_under_factledger_and_ships_py_typed(tmp_path):
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    assert config["package-dir"]["factledger"] == "api"
    assert all(name == "factledger" or name.startswith("factledger.") for name in config["packages"])
    assert "py.typed" in config["package-data"]["factledger"] and (ROOT / "api" / "py.typed").is_file()
    assert Path(factledger.__file__).parent == ROOT / "api"
    assert Path(importlib.util.find_spec("factledger.ledger").origin).parent == ROOT / "ledger"
    # The installed package (outside this checkout, which pytest puts on sys.path) exposes no bare names.
    code = (
        "import importlib.util as u, factledger, factledger.ledger; print(callable(factledger.open), "
        "[b for b in ('api', 'ledger', 'recall', 'digest', 'schema', 'database') if u.find_spec(b)])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.strip() == "True []"


def test_undeclared_predicates_are_listed_or_refused(tmp_path):
    with factledger.open(tmp_path / "loose.db") as loose:
        with pytest.warns(factledger.UndeclaredPredicateWarning, match="predicate 'likes' was never defined") as caught:
            result = loose.add("s", "user", "likes", "tea")
        assert caught[0].filename == __file__  # pointed at the caller's line
        assert result.undeclared == ["likes"] and result.to_dict()["undeclared_predicates"] == ["likes"]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert loose.add("s", "user", "likes", "jazz").undeclared == []
    with factledger.open(tmp_path / "strict.db", strict_predicates=True) as strict:
        strict.define("likes", "many")
        with pytest.raises(ValidationError, match="no predicate 'like'; did you mean likes?") as refused:
            strict.add("s", "user", "like", "tea")
        assert refused.value.field == "predicate"
        assert [p.name for p in strict.predicates()] == ["likes"] and strict.current() == []
