"""Digest fixtures: a clocked ledger with a journal, and a helper that says turns and digests them."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from factledger.digest import DigestReport, Digester, Journal, RulesExtractor, Turn
from factledger.ledger import Ledger, parse_time


@dataclass
class Conversation:
    """Say turns at given times (the ledger clock follows the turn), then digest with the rules extractor."""

    ledger: Ledger
    clock: object
    scope: str = "chat"
    policy: str = "auto"

    def say(self, text: str, at: str, *, role: str = "user", session: str | None = "s1") -> int | None:
        self.clock.now = parse_time(at)  # type: ignore[attr-defined]
        return Journal(self.ledger).append(Turn(scope=self.scope, text=text, role=role, session=session, said_at=at)).entry_id

    def digest(self, at: str | None = None, extractor=None) -> DigestReport:
        if at is not None:
            self.clock.now = parse_time(at)  # type: ignore[attr-defined]
        return Digester(self.ledger, extractor or RulesExtractor(), policy=self.policy).run()

    def current(self, predicate: str | None = None) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for c in self.ledger.current([self.scope], predicate=predicate):
            out.setdefault(c.predicate, []).append(c.value)
        return out


@pytest.fixture
def talk(clocked_ledger, clock) -> Conversation:
    return Conversation(clocked_ledger, clock)
