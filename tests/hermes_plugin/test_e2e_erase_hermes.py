"""Erase reaches Hermes's own copies, through Hermes's own CLI and tools: a value said in a real `hermes
chat` is in Hermes's session store (its `session_search` tool finds it), and after `hermes factledger
erase … --hermes-sessions delete` neither factledger's ledger nor `session_search` has it, and the
copies no Hermes command can edit are named with their paths."""

from __future__ import annotations

import json

import pytest

from factledger.hermes_plugin.scripted_model import ModelReply
from factledger.ledger import Ledger

from .test_exit_hand_over import BIN, digested_after_exit, handed_over, installed_home, run

pytestmark = pytest.mark.slow  # `hermes` processes


def session_search(home, query: str) -> dict:
    """Hermes's own session_search tool over the home's state.db."""
    from hermes_state import SessionDB
    from tools.session_search_tool import session_search as tool

    db = SessionDB(home / "state.db")
    try:
        return json.loads(tool(query=query, db=db))
    finally:
        db.close()


def test_erase_reaches_hermes_session_store_and_names_what_remains(hermes_runtime, tmp_path, model_server):
    home = installed_home(tmp_path, model_server.base_url)
    model_server.push(ModelReply.say("Noted, Munich."))
    chat = run([str(BIN / "hermes"), "chat", "-Q", "-q", "I moved to Munich in May."], home)
    assert chat.returncode == 0, chat.stderr
    digested_after_exit(home, handed_over(home)[1])
    with Ledger.open(home / "factledger" / "ledger.db", read_only=True) as ledger:
        assert [(c.predicate, c.value) for c in ledger.current()] == [("lives_in", "Munich")]
    found = session_search(home, "Munich")
    assert found.get("results") and "Munich" in json.dumps(found)  # the control: Hermes's copy is there

    erase = run([str(BIN / "hermes"), "factledger", "erase", "--user", "local", "--subject", "user",
                 "--predicate", "lives_in", "--value", "Munich", "--hermes-sessions", "delete", "--yes", "--json"], home)
    assert erase.returncode == 1, erase.stdout + erase.stderr  # 1: files no command can edit are named
    report = json.loads(erase.stdout)
    assert report["hermes_sessions_deleted"]
    named = {r["path"] for r in report["remaining"] if r["kind"] == "hermes"}
    assert str(home / "state.db") not in named  # Hermes's session store holds it no more
    assert named and all(path.startswith(str(home)) for path in named)  # .hermes_history / logs/, by path

    after = session_search(home, "Munich")
    assert after["results"] == [] and after["count"] == 0
    with Ledger.open(home / "factledger" / "ledger.db", read_only=True) as ledger:
        assert ledger.current() == []
    assert b"Munich" not in b"".join(p.read_bytes() for p in (home / "factledger").glob("ledger.db*") if p.is_file())
