"""Fuzzing `factledger journal add`: every case ends in a result or a clear error (exit status 2),
never a traceback; a refused file changes no byte of the ledger. Longer: FACTLEDGER_HYPOTHESIS=thorough."""

from __future__ import annotations

import json

from hypothesis import given

from factledger.digest import Journal, Turn
from factledger.ledger import Ledger
from tests.fuzz_strategies import fuzz_settings, invoke_cli, journal_inputs


@fuzz_settings(40)
@given(data=journal_inputs())
def test_journal_add_never_ends_in_a_traceback(tmp_path_factory, data: bytes) -> None:
    db = tmp_path_factory.mktemp("journal") / "ledger.db"
    Ledger.open(db).close()
    path = db.parent / "turns.jsonl"
    path.write_bytes(data)
    invoke_cli(["--db", str(db), "journal", "add", str(path)], db=db)


def test_a_turn_keeps_its_lines_and_loses_control_and_invisible_characters(fresh_ledger) -> None:
    outcome = Journal(fresh_ledger).append(Turn(scope="s", text="I moved\r\nto Lis\u200bbon\x1b[0m \ud800 last month"))
    stored = Journal(fresh_ledger).entry(outcome.entry_id).text
    assert stored == "I moved\nto Lisbon[0m \ufffd last month"


def test_an_overlong_turn_is_refused_with_its_reason(fresh_ledger) -> None:
    outcome = Journal(fresh_ledger).append(Turn(scope="s", text="I work at Acme. " * 2000))
    assert outcome.status == "refused" and "at most 20000" in outcome.reason


def test_a_session_with_a_line_break_is_a_clear_error(tmp_path) -> None:
    db = tmp_path / "ledger.db"
    path = tmp_path / "turns.jsonl"
    path.write_text(json.dumps({"scope": "s", "session": "a\nb", "text": "I live in Paris"}) + "\n")
    result = invoke_cli(["--db", str(db), "journal", "add", str(path)])
    assert result.exit_code == 2 and "session" in result.output
