"""Ledger transaction reasons name what caused them by id only: never a value, a quote or a person's words
(transactions are append-only, so erase could not remove them)."""

from __future__ import annotations

import re

from factledger.digest import accept, list_proposals, remember
from factledger.digest.proposals import transaction_reason

VALUES = ("Lisbon", "Porto", "Acme", "Globex", "jazz", "support group", "she told me", "user said so")
BY_ID = re.compile(r"^(?:digest (?:auto|strict)|review accept|explicit write): proposal #\d+(?: from journal:\d+(?:, journal:\d+)*)?$")


def reasons(ledger) -> list[str]:
    return [row["reason"] for row in ledger.storage.query("SELECT reason FROM transactions ORDER BY id")]


def test_digest_review_and_explicit_reasons_carry_ids_only(talk) -> None:
    talk.say("I live in Lisbon and I work at Acme.", "2026-01-05T10:00:00Z")
    talk.say("I love jazz.", "2026-01-05T10:01:00Z")
    talk.say("I went to the support group yesterday.", "2026-01-05T10:02:00Z")
    talk.digest("2026-01-05T10:05:00Z")
    talk.policy = "strict"
    talk.say("I moved to Porto last week.", "2026-02-10T10:00:00Z", session="s2")
    talk.digest("2026-02-10T10:05:00Z")
    (held,) = list_proposals(talk.ledger, status="pending")
    accept(talk.ledger, held.id, principal="operator:ann", reason="she told me so herself, Porto")
    remember(talk.ledger, scope="chat", subject="user", predicate="works_at", value="Globex", principal="agent:hermes",
             valid_from="2026-03-01", reason="user said so: Globex")
    written = reasons(talk.ledger)
    assert len(written) >= 6
    for reason in written:
        assert BY_ID.match(reason), reason
        assert not any(value.casefold() in reason.casefold() for value in VALUES), reason
    # The words are kept where erase reaches them: on the proposal rows.
    assert any(p.review_reason.startswith("she told me") for p in list_proposals(talk.ledger, status="applied"))


def test_the_reason_builder_takes_ids_only() -> None:
    assert transaction_reason("digest auto", 12, "journal:40") == "digest auto: proposal #12 from journal:40"
    assert transaction_reason("review accept", 3) == "review accept: proposal #3"
