"""`factledger erase` follows provenance: claims, journal turns, proposals, FTS rows and vectors go;
a tombstone keeps the value from coming back through the digest or an explicit write."""

from __future__ import annotations

import json

from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.digest import Digester, Journal, RulesExtractor, Turn, remember
from factledger.ledger import Ledger
from factledger.recall import Recall


def _run(ledger_path, *args, principal="operator:dpo"):
    return CliRunner().invoke(cli, ["--db", str(ledger_path), "--principal", principal, *args])


def _seed(ledger_path):
    with Ledger.open(ledger_path) as ledger:
        journal = Journal(ledger)
        journal.append(Turn(scope="s", text="I live in Lisbon", said_at="2025-01-05T10:00:00Z"))
        journal.append(Turn(scope="s", text="I work at Acme Robotics", said_at="2025-01-05T10:01:00Z"))
        Digester(ledger, RulesExtractor()).run()
        recall = Recall(ledger)
        recall.sync()
        assert [h.claim.value for h in recall.search("where do I live", ["s"], kinds="fact")][:1] == ["Lisbon"]
        recall.close()


def test_erase_reaches_journal_search_and_vectors(ledger_path):
    _seed(ledger_path)
    result = _run(ledger_path, "erase", "--scope", "s", "--subject", "user", "--predicate", "lives_in", "--yes", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["erased"] and report["journal_entries"] == 1 and len(report["tombstones"]) == 1

    with Ledger.open(ledger_path) as ledger:
        texts = [r["text"] for r in ledger.storage.query("SELECT text FROM journal")]
        assert texts == ["I work at Acme Robotics"]  # the other turn stays
        assert ledger.storage.query("SELECT * FROM claims WHERE value_key = 'lisbon'") == []
        recall = Recall(ledger)
        try:
            assert all(h.claim.value != "Lisbon" for h in recall.search("Lisbon", ["s"], kinds="fact"))
            status = recall.status()
            assert status.pending == 0 and status.rows == status.claim_versions + status.episodes
        finally:
            recall.close()
        # said again: neither the digest nor an explicit write brings it back
        Journal(ledger).append(Turn(scope="s", text="I live in Lisbon", said_at="2025-02-01T10:00:00Z"))
        Digester(ledger, RulesExtractor()).run()
        assert ledger.current(["s"], predicate="lives_in") == []
        outcome = remember(
            ledger, scope="s", subject="user", predicate="lives_in", value="Lisbon", principal="agent:hermes"
        )
        assert outcome.status != "applied"
        assert ledger.current(["s"], predicate="lives_in") == []


def test_only_an_operator_may_erase(ledger_path):
    _seed(ledger_path)
    result = _run(
        ledger_path, "erase", "--scope", "s", "--subject", "user", "--predicate", "lives_in", "--yes",
        principal="agent:hermes",
    )
    assert result.exit_code == 2 and "operator" in result.stderr
    with Ledger.open(ledger_path) as ledger:
        assert [v.value for v in ledger.current(["s"], predicate="lives_in")] == ["Lisbon"]
        assert ledger.storage.one("SELECT COUNT(*) FROM journal")[0] == 2


def test_erase_removes_turns_that_only_repeated_the_value(ledger_path):
    with Ledger.open(ledger_path) as ledger:
        journal = Journal(ledger)
        journal.append(Turn(scope="s", text="I live in Lisbon", said_at="2025-01-05T10:00:00Z"))
        Digester(ledger, RulesExtractor()).run()
        journal.append(Turn(scope="s", text="As I said, I live in Lisbon", said_at="2025-03-05T10:00:00Z"))
        Digester(ledger, RulesExtractor()).run()
        assert ledger.storage.one("SELECT COUNT(*) FROM claims")[0] == 1  # the repeat wrote no version
    result = _run(ledger_path, "erase", "--scope", "s", "--subject", "user", "--predicate", "lives_in", "--yes", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["journal_entries"] == 2
    with Ledger.open(ledger_path) as ledger:
        assert ledger.storage.one("SELECT COUNT(*) FROM journal")[0] == 0
