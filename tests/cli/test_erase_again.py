"""Saying an erased value again brings back neither the claim nor the text: through the journal and the
digest, through the agent's `remember`, in the person's durable scope and in a scratch scope opened
after the erase. Another person's scopes are not affected."""

from __future__ import annotations

import json

from factledger.digest import Digester, Journal, RulesExtractor, Turn, remember
from factledger.hermes_plugin.scope import HermesIdentity, derive_scopes
from factledger.ledger import Ledger

from .test_erase_bytes import NEEDLES, USER, VALUE, hits, leftover, run_cli, seed

NEW_CHAT = derive_scopes(
    HermesIdentity.from_kwargs("s9", {"platform": "telegram", "user_id": "u42", "chat_id": "g8", "chat_type": "group"})
)
OTHER = derive_scopes(HermesIdentity.from_kwargs("s3", {"platform": "telegram", "user_id": "u43"}))


def mentions(ledger: Ledger, table: str) -> list[dict]:
    rows = [dict(r) for r in ledger.storage.query(f"SELECT * FROM {table}")]
    return [r for r in rows if VALUE.lower() in json.dumps(r, ensure_ascii=False).lower()]


def test_said_again_nothing_comes_back(ledger_path):
    facts = seed(ledger_path)
    result = run_cli(
        ledger_path, "erase", "--scope", USER.durable, "--subject", "user", "--predicate", "lives_in", "--value", VALUE, "--yes",
    )
    assert result.exit_code == 0, result.output
    with Ledger.open(ledger_path) as ledger:
        journal = Journal(ledger)
        again = journal.append(Turn(scope=USER.turns, text=f"I live in {VALUE} again", said_at="2025-04-01T10:00:00Z"))
        assert again.status == "redacted" and "erased" in again.reason
        assert journal.entry(again.entry_id).text == "I live in [erased] again"
        elsewhere = journal.append(Turn(scope=NEW_CHAT.turns, text=f"Moved back to {VALUE.upper()}!", said_at="2025-04-02T10:00:00Z"))
        assert elsewhere.status == "redacted"
        assert journal.append(Turn(scope=USER.turns, text=VALUE.lower(), said_at="2025-04-03T10:00:00Z")).status == "skipped"
        Digester(ledger, RulesExtractor()).run()
        for scope in (USER.durable, NEW_CHAT.scratch):
            outcome = remember(ledger, scope=scope, subject="user", predicate="lives_in", value=VALUE, principal="agent:default")
            assert outcome.status == "rejected", outcome
        assert [c for c in ledger.current([USER.durable, NEW_CHAT.scratch], predicate="lives_in") if c.value_key == "zuvrath"] == []
        for table in ("journal", "proposals", "claims", "rejections", "confirmations"):
            assert mentions(ledger, table) == [], table
    done = run_cli(ledger_path, "scrub")
    assert done.exit_code == 0, done.output
    assert leftover(hits(ledger_path, NEEDLES), ledger_path, facts["reasons"]) == {}

    # The guard is the person's: someone else may live there and say so.
    with Ledger.open(ledger_path) as ledger:
        stored = Journal(ledger).append(Turn(scope=OTHER.turns, text=f"I live in {VALUE}", said_at="2025-04-05T10:00:00Z"))
        assert stored.status == "stored"
        Digester(ledger, RulesExtractor()).run()
        assert [c.value for c in ledger.current([OTHER.durable], predicate="lives_in")] == [VALUE]
        assert remember(ledger, scope=OTHER.durable, subject="user", predicate="likes", value=VALUE, principal="agent:default").status == "applied"
