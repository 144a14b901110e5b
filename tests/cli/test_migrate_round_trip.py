"""`factledger migrate` between the engines: SQLite → PostgreSQL → SQLite gives byte-identical tables for a
ledger that uses every part (an erased one included), and each copy is proved and verifies."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.cli.migrate_cmds import compare_recall
from factledger.digest import Journal, Turn
from factledger.ledger import Ledger
from factledger.ledger.chain_key import ChainKey
from factledger.ledger.store import DEFAULT_KEY
from factledger.ledger.migrate import MigrationRefused, migrate
from factledger.recall import Recall
from factledger.recall.config import PRESETS
from tests.cli.migrate_fixtures import build_full_ledger, canonical_dump


@pytest.fixture(scope="module")
def full_ledger(tmp_path_factory):
    path = tmp_path_factory.mktemp("full") / "full.db"
    build_full_ledger(path)
    return path


def _migrate(source, target, *options):
    result = CliRunner().invoke(cli, [*options, "migrate", "--from", str(source), "--to", str(target), "--pairs", "60",
                                      "--seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_sqlite_to_postgres_to_sqlite_is_byte_identical(full_ledger, postgres_url, tmp_path):
    there = _migrate(full_ledger, postgres_url)
    assert there["ok"] and there["agreed"] == there["pairs"] == 60
    assert there["checks"] == {"recall": True, "verify": True}
    assert all(t["ok"] for t in there["tables"].values())
    back = tmp_path / "back.db"
    # A PostgreSQL ledger has no key file beside it: the source's key is named (the copy's links are keyed with it).
    assert "writers need that key" in there["chain_key"]
    again = _migrate(postgres_url, back, "--chain-key", f"{full_ledger}.chain-key")
    assert again["ok"] and again["source_chain_head"] == there["source_chain_head"]
    original, copied, middle = canonical_dump(full_ledger), canonical_dump(back), canonical_dump(postgres_url)
    assert copied == original
    assert middle == original  # the PostgreSQL copy holds the same rows, column for column
    # what the fixture promised is there to be compared
    assert {t for t, rows in original.items() if rows} >= {
        "transactions", "claims", "claim_provenance", "version_hashes", "tx_chain", "predicates", "journal",
        "proposals", "rejections", "confirmations", "tombstones", "erased_texts", "exports", "ledger_secret",
    }
    assert any(row for row in original["version_hashes"] if row[3] is not None)  # a hole (erased_by set)


def test_recall_is_compared_on_real_hits(full_ledger, postgres_url):
    assert migrate(full_ledger, postgres_url, pairs=5, seed=1).ok
    agreed, asked = compare_recall(str(full_ledger), postgres_url)
    assert agreed and len(asked) >= 3
    with Ledger.open(postgres_url, read_only=True) as ledger, Recall(ledger, config=PRESETS["lexical"]) as recall:
        found = [h.claim.value for q in asked for h in recall.search(q, ledger.scopes(), kinds="fact")]
    assert set(asked) <= set(found)


@pytest.mark.parametrize("engine", ["sqlite", "postgres"])
def test_the_copy_keeps_working(engine, full_ledger, request, tmp_path):
    """Keyed rows verify with the copied secret (the erased value stays out), and ids continue after the
    source's, erased ones included."""
    target = tmp_path / "copy.db" if engine == "sqlite" else request.getfixturevalue("postgres_url")
    assert migrate(full_ledger, target, pairs=20, seed=1).ok
    with Ledger.open(full_ledger, read_only=True) as source:
        last_claim = max(r[0] for r in source.storage.query("SELECT claim_id FROM version_hashes"))
    key = ChainKey.from_file(f"{full_ledger}.chain-key")  # the copy's links are keyed with the source's key
    with Ledger.open(target, chain_key=key if engine == "postgres" else DEFAULT_KEY) as ledger:
        assert ledger.is_erased("s", "user", "lives_in", "Lisbon")
        outcome = Journal(ledger).append(Turn(scope="s", text="I live in Lisbon again", said_at="2025-03-01T10:00:00Z"))
        assert outcome.status == "redacted"  # the erased-text rule, keyed with the copied secret
        with ledger.transaction(principal="operator:t") as tx:
            tx.add("home", "Cy", "likes", "tea")
        assert max(v.id for v in ledger.current(["home"], predicate="likes")) == last_claim + 1


def test_a_held_digest_lease_is_refused(tmp_path, postgres_url):
    source = tmp_path / "a.db"
    with Ledger.open(source) as ledger:
        Journal(ledger).append(Turn(scope="s", text="I like tea", said_at="2025-01-05T10:00:00Z"))
        ledger.storage.execute("INSERT INTO digest_leases (entry_id, holder, until) VALUES (1, 'host:1', '2999-01-01T00:00:00.000000Z')")
    with pytest.raises(MigrationRefused, match="digest lease"):
        migrate(source, postgres_url)
    # an expired lease is copied as it stands
    assert migrate(source, tmp_path / "b.db", now="2999-01-02T00:00:00.000000Z").ok
    assert canonical_dump(tmp_path / "b.db")["digest_leases"] == canonical_dump(source)["digest_leases"]
