"""The manifest of known exports: an erase names the exports made while the value was held (they are
the operator's to delete) and not those made before it was stored."""

from __future__ import annotations

import json

from factledger.digest import Digester, Journal, RulesExtractor, Turn
from factledger.ledger import Ledger

from .test_erase_bytes import run_cli


def test_erase_lists_the_exports_that_hold_the_value(ledger_path, tmp_path):
    with Ledger.open(ledger_path) as ledger:
        Journal(ledger).append(Turn(scope="s", text="I work at Acme Robotics", said_at="2025-01-04T10:00:00Z"))
        Digester(ledger, RulesExtractor()).run()
    before = run_cli(ledger_path, "export", str(tmp_path / "before"), "--format", "csv", "--json")
    assert before.exit_code == 0, before.output
    with Ledger.open(ledger_path) as ledger:
        Journal(ledger).append(Turn(scope="s", text="I live in Zuvrath", said_at="2025-01-05T10:00:00Z"))
        Digester(ledger, RulesExtractor()).run()
    held = run_cli(ledger_path, "export", str(tmp_path / "held"), "--format", "csv", "--json")
    assert held.exit_code == 0, held.output
    assert "Zuvrath" in (tmp_path / "held" / "claims.csv").read_text()

    result = run_cli(ledger_path, "erase", "--scope", "s", "--subject", "user", "--predicate", "lives_in", "--yes", "--json")
    assert result.exit_code == 1, result.output  # a copy remains: not complete
    report = json.loads(result.stdout)
    assert report["complete"] is False
    assert [r["path"] for r in report["remaining"]] == [str((tmp_path / "held").resolve())]
    listed = report["exports_holding_value"]
    assert [e["directory"] for e in listed] == [str((tmp_path / "held").resolve())]
    assert listed[0]["present"] and listed[0]["format"] == "csv"
    assert "yours to delete" in result.stderr

    plain = run_cli(ledger_path, "erase", "--scope", "s", "--subject", "user", "--predicate", "works_at", "--yes")
    assert plain.exit_code == 1, plain.output
    assert str((tmp_path / "before").resolve()) in plain.stdout and "yours to delete" in plain.stderr
