"""The batched LLM extractor: one model call per window of turns, each proposal grounded in its own
turn, per-entry commits; against a real OpenAI-speaking server on 127.0.0.1."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from factledger.digest import DigestConfig, Digester, Journal, Turn, list_proposals
from factledger.digest.digester import plan_windows
from factledger.digest.llm import LLMExtractor
from factledger.digest.model import JournalEntry
from factledger.ledger import ValidationError
from tests.support.fake_openai import FakeOpenAI, tool_call

START = datetime(2026, 3, 14, 10, 0, tzinfo=timezone.utc)


def extraction(*claims: dict):
    return tool_call("Extraction", {"claims": list(claims)})


def fact(turn: int, quote: str, **fields) -> dict:
    base = {"turn": turn, "op": "add", "subject": "user", "predicate": "likes", "value": "jazz", "quote": quote}
    base.update(fields)
    return base


def extractor(server: FakeOpenAI, **overrides) -> LLMExtractor:
    values = dict(base_url=server.base_url, model="fake-model", api_key="sk-fake", timeout=5.0,
                  transient_retries=0, validation_retries=0, retry_backoff=0.0)
    values.update(overrides)
    return LLMExtractor(DigestConfig(**values), sleep=lambda s: None)


def say(ledger, texts: list[str], *, session: str = "s1", scope: str = "chat", start: datetime = START) -> list[int]:
    """Alternate user / assistant turns, a few seconds apart."""
    journal = Journal(ledger)
    ids = []
    for n, text in enumerate(texts):
        at = (start + timedelta(seconds=7 * n)).strftime("%Y-%m-%dT%H:%M:%SZ")
        outcome = journal.append(Turn(scope=scope, session=session, role="user" if n % 2 == 0 else "assistant", text=text, said_at=at))
        assert outcome.entry_id is not None
        ids.append(outcome.entry_id)
    return ids


def chatter(n: int, tag: str) -> list[str]:
    return [f"turn {i} of {tag}: the weather was {'nice' if i % 3 else 'grey'} and we talked about it at length" for i in range(n)]


def test_one_model_call_per_window_within_the_bound(fresh_ledger) -> None:
    # Two sessions: 23 and 12 eligible turns; windows of 10 turns cut at the session boundary.
    say(fresh_ledger, chatter(23, "a"), session="a")
    say(fresh_ledger, chatter(12, "b"), session="b", start=START + timedelta(days=3))
    with FakeOpenAI([extraction()] * 10) as server:
        report = Digester(fresh_ledger, extractor(server)).run()
        calls = len(server.chat_requests)
    eligible = 35
    assert report.entries_digested == eligible and report.complete
    assert calls == 5  # ceil(23/10) + ceil(12/10)
    assert calls * 5 <= eligible  # the bound: at most one call per five eligible turns
    assert Journal(fresh_ledger).backlog_size() == 0


def test_each_proposal_lands_on_its_own_turn_with_its_own_said_at(fresh_ledger) -> None:
    texts = [
        "I adore jazz.",                                   # T1 user
        "Lovely.",                                         # T2 assistant
        "I moved to Porto last month.",                    # T3 user
        "Porto is great.",                                 # T4 assistant
        "I went to the support group yesterday.",          # T5 user
    ]
    ids = say(fresh_ledger, texts, start=datetime(2026, 4, 1, 23, 59, 50, tzinfo=timezone.utc))
    script = [extraction(
        fact(1, "I adore jazz"),
        fact(3, "I moved to Porto last month", predicate="lives_in", cardinality="one", template="{subject} lives in {value}",
             value="Porto", when="last month"),
        fact(5, "I went to the support group yesterday", predicate="did", value="went to the support group", when="yesterday"),
    )]
    with FakeOpenAI(script) as server:
        report = Digester(fresh_ledger, extractor(server)).run()
        assert len(server.chat_requests) == 1
    assert report.to_dict()["proposals"]["applied"] == 3
    by_pred = {c.predicate: c for c in fresh_ledger.current(["chat"])}
    assert by_pred["likes"].source == (f"journal:{ids[0]}",)
    assert by_pred["lives_in"].source == (f"journal:{ids[2]}",) and by_pred["lives_in"].valid_from.startswith("2026-03-01")
    # T5 was said at 00:00:18 on 2 April (past midnight): "yesterday" is 1 April, from T5's own said_at.
    event = by_pred["did"]
    assert event.source == (f"journal:{ids[4]}",)
    assert (event.value, event.valid_from[:10]) == ("went to the support group on 1 April 2026", "2026-04-01")
    assert fresh_ledger.predicate("did").template == "{subject} {value}"


def test_a_quote_from_a_neighbouring_turn_is_dropped_with_a_receipt(fresh_ledger) -> None:
    ids = say(fresh_ledger, ["I adore jazz.", "That sounds lovely.", "We talked for hours."])
    with FakeOpenAI([extraction(fact(3, "I adore jazz"))]) as server:  # tagged T3, quoting T1
        report = Digester(fresh_ledger, extractor(server)).run()
    assert report.to_dict()["proposals"] == {"applied": 0, "pending": 0, "rejected_again": 0, "dropped": 1}
    (dropped,) = list_proposals(fresh_ledger, status="dropped")
    assert dropped.entry_id == ids[2] and f"is not in journal:{ids[2]}" in dropped.reason
    assert fresh_ledger.current(["chat"]) == []


@pytest.mark.parametrize(("turn", "why"), [(2, "turn T2 is an assistant turn"), (9, "turn T9 is not in this window")])
def test_a_fact_tagged_with_a_turn_that_cannot_be_its_source_is_a_receipt(fresh_ledger, turn: int, why: str) -> None:
    ids = say(fresh_ledger, ["Hi there, how are things?", "I adore jazz."])
    with FakeOpenAI([extraction(fact(turn, "I adore jazz"))]) as server:
        Digester(fresh_ledger, extractor(server)).run()
    (dropped,) = list_proposals(fresh_ledger, status="dropped")
    assert dropped.entry_id == ids[0] and why in dropped.reason
    assert fresh_ledger.current(["chat"]) == []


def test_an_upcoming_event_resolves_forward(fresh_ledger) -> None:
    say(fresh_ledger, ["My sister's wedding is on June 3."], start=datetime(2026, 5, 8, 12, tzinfo=timezone.utc))
    claim = fact(1, "My sister's wedding is on June 3", predicate="has_event", value="sister's wedding", when="on June 3", upcoming=True)
    with FakeOpenAI([extraction(claim)]) as server:
        Digester(fresh_ledger, extractor(server)).run()
    (event,) = fresh_ledger.current(["chat"])
    assert (event.predicate, event.value, event.valid_from[:10]) == ("has_event", "sister's wedding on 3 June 2026", "2026-05-08")


def test_a_crash_inside_a_window_keeps_the_committed_entries_and_resumes(fresh_ledger) -> None:
    ids = say(fresh_ledger, ["I adore jazz.", "That sounds lovely.", "I adore fado.", "What a fine taste.", "I adore tango."])
    script = [extraction(fact(1, "I adore jazz"), fact(3, "I adore fado", value="fado"), fact(5, "I adore tango", value="tango"))]

    class CrashAfterTwo(Digester):
        commits = 0

        def _commit(self, entry, drafts, report):
            if self.commits == 2:
                raise KeyboardInterrupt("the process died")
            self.commits += 1
            return super()._commit(entry, drafts, report)

    with FakeOpenAI(script) as server, pytest.raises(KeyboardInterrupt):
        CrashAfterTwo(fresh_ledger, extractor(server)).run()
    assert [c.value for c in fresh_ledger.current(["chat"])] == ["jazz"]
    assert [e.id for e in Journal(fresh_ledger).backlog()] == ids[2:]
    # The rerun reads a window of what is left (the digested turns are context only) and commits it.
    with FakeOpenAI([extraction(fact(1, "I adore fado", value="fado"), fact(3, "I adore tango", value="tango"))]) as server:
        report = Digester(fresh_ledger, extractor(server)).run()
        prompt = server.chat_requests[0]["messages"][-1]["content"]
    assert "Earlier turns (context only):\n[user at" in prompt and "] I adore jazz." in prompt
    assert report.entries_digested == 3
    assert sorted(c.value for c in fresh_ledger.current(["chat"])) == ["fado", "jazz", "tango"]


def entry(i: int, scope: str = "a", session: str | None = "s", text: str = "x" * 10) -> JournalEntry:
    return JournalEntry(id=i, scope=scope, session=session, role="user", text=text, said_at="2026-01-01T00:00:00.000000Z")


def test_windows_cut_at_size_session_and_characters_and_keep_each_scope_in_order() -> None:
    entries = [entry(1), entry(2), entry(3, scope="b"), entry(4), entry(5, session="t"), entry(6, session="t", text="y" * 95), entry(7, session="t")]
    windows = plan_windows(entries, max_turns=3, max_chars=100)
    assert [[e.id for e in w] for w in windows] == [[1, 2, 4], [3], [5], [6], [7]]
    with pytest.raises(ValidationError) as error:
        plan_windows(entries, max_turns=0, max_chars=100)
    assert error.value.field == "window_turns"
