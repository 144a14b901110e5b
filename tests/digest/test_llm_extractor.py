"""The LLM extractor against a real OpenAI-compatible HTTP server on 127.0.0.1 (no client patching)."""

from __future__ import annotations

import json

import openai
import pytest

from factledger.digest import DigestConfig, Digester, Journal, Turn, build_extractor, list_proposals
from factledger.digest.held import HELD_LIMIT
from factledger.digest.llm import LLMExtractor
from tests.support.fake_openai import FakeOpenAI, delay, status, text, tool_call

SAID = "2026-03-14T10:00:00Z"


def claim(**fields) -> dict:
    base = {"turn": 2, "op": "add", "subject": "user", "predicate": "lives_in", "cardinality": "one",
            "template": "{subject} lives in {value}", "value": "Lisbon", "when": "last month",
            "quote": "I moved to Lisbon last month"}
    base.update(fields)
    return base


def extraction(*claims: dict):
    return tool_call("Extraction", {"claims": list(claims)})


def config(server: FakeOpenAI, **overrides) -> DigestConfig:
    values = dict(base_url=server.base_url, model="fake-model", api_key="sk-fake", timeout=5.0,
                  transient_retries=2, validation_retries=1, retry_backoff=0.0)
    values.update(overrides)
    return DigestConfig(**values)


def digest(ledger, server, **overrides):
    cfg = config(server, **overrides)
    return Digester(ledger, LLMExtractor(cfg, sleep=lambda s: None), policy=cfg.policy).run()


@pytest.fixture
def said(fresh_ledger):
    journal = Journal(fresh_ledger)
    journal.append(Turn(scope="chat", text="Hello there, how are you today?", session="s", said_at="2026-03-14T09:59:00Z"))
    journal.append(Turn(scope="chat", text="I moved to Lisbon last month, and I adore fado.", session="s", said_at=SAID))
    return fresh_ledger


def test_tools_mode_proposals_are_applied_with_resolved_times(said) -> None:
    with FakeOpenAI([extraction(claim(), claim(predicate="likes", cardinality="many", template=None, value="fado", when="", quote="I adore fado"))]) as server:
        report = digest(said, server)
    assert report.to_dict()["proposals"]["applied"] == 2 and report.complete
    assert report.extractor == "llm:fake-model"
    lives = said.current(["chat"], predicate="lives_in")[0]
    assert (lives.value, lives.valid_from, lives.source) == ("Lisbon", "2026-02-01T00:00:00.000000Z", ("journal:2",))
    assert said.transaction_record(lives.opened_by).principal == "digest:llm:fake-model"
    assert said.predicate("lives_in").template == "{subject} lives in {value}"
    (request,) = server.chat_requests  # one call for the window of both turns
    assert request["model"] == "fake-model"
    assert request["tools"][0]["function"]["name"] == "Extraction"
    assert request["tool_choice"]["function"]["name"] == "Extraction"
    prompt = request["messages"][-1]["content"]
    assert "[T1 user, said at 2026-03-14T09:59:00.000000Z] Hello there" in prompt
    assert "[T2 user, said at 2026-03-14T10:00:00.000000Z] I moved to Lisbon last month" in prompt


def test_schema_sent_to_the_model_describes_every_field(said) -> None:
    with FakeOpenAI([extraction()]) as server:
        digest(said, server)
    parameters = server.chat_requests[0]["tools"][0]["function"]["parameters"]
    claim_schema = parameters["$defs"]["ExtractedClaim"]["properties"]
    assert claim_schema and all(prop.get("description") for prop in claim_schema.values())


def test_invalid_output_is_retried_with_the_error(said) -> None:
    missing_quote = claim()
    del missing_quote["quote"]
    script = [tool_call("Extraction", {"claims": [missing_quote]}), extraction(claim())]
    with FakeOpenAI(script) as server:
        report = digest(said, server)
    assert report.to_dict()["proposals"]["applied"] == 1
    assert len(server.chat_requests) == 2
    retry_messages = json.dumps(server.chat_requests[1]["messages"])
    assert "quote" in retry_messages  # instructor re-asked with the validation error


def test_output_that_stays_invalid_leaves_the_window_undigested(said) -> None:
    script = [tool_call("Extraction", "{not json"), tool_call("Extraction", '{"claims": [{"op": "explode"}]}')]
    with FakeOpenAI(script) as server:
        report = digest(said, server)
    assert (report.entries_digested, report.entries_failed, report.complete) == (0, 2, False)
    assert "stayed invalid" in report.errors[0]
    left = Journal(said).backlog()
    assert [e.id for e in left] == [1, 2] and all(e.attempts == 1 and "invalid" in e.last_error for e in left)


def test_a_timeout_is_retried(said) -> None:
    with FakeOpenAI([delay(1.0, extraction()), extraction(claim())]) as server:
        report = digest(said, server, timeout=0.25)
    assert report.complete and report.to_dict()["proposals"]["applied"] == 1


def test_a_500_is_retried(said) -> None:
    with FakeOpenAI([status(500), status(503), extraction(claim())]) as server:
        report = digest(said, server)
    assert report.complete and report.entries_digested == 2


def test_a_model_that_stays_down_keeps_the_journal(said) -> None:
    with FakeOpenAI([status(500), status(500), status(500)]) as server:
        report = digest(said, server, transient_retries=2)
        assert len(server.chat_requests) == 3  # bounded
    assert (report.entries_digested, report.entries_failed, report.backlog) == (0, 2, 2)
    assert "unavailable after 3 attempt(s)" in report.errors[0]
    assert said.storage.one("SELECT COUNT(*) FROM claims")[0] == 0
    # Back up: the same entries are digested, nothing was lost.
    with FakeOpenAI([extraction(claim())]) as server:
        report = digest(said, server)
    assert report.entries_digested == 2 and Journal(said).backlog_size() == 0


def test_a_client_error_is_not_retried(said) -> None:
    Journal(said).append(Turn(scope="chat", text="I work at Acme now.", session="other", said_at=SAID))
    with FakeOpenAI([status(400, "bad request")]) as server:
        report = digest(said, server)
        assert len(server.chat_requests) == 1  # the second window (another session) is not tried
    assert (report.entries_failed, report.stopped_early) == (2, True)  # a refusal would repeat: stop
    assert "refused" in report.errors[0] and Journal(said).backlog_size() == 3


def test_a_quote_the_model_made_up_is_dropped(said) -> None:
    with FakeOpenAI([extraction(claim(quote="I live in Lisbon with my cat"))]) as server:
        report = digest(said, server)
    assert report.to_dict()["proposals"]["dropped"] == 1
    assert "is not in journal:2" in list_proposals(said, status="dropped")[0].reason


def test_time_words_the_resolver_does_not_know_are_held(said) -> None:
    with FakeOpenAI([extraction(claim(when="around the time of the big storm"))]) as server:
        report = digest(said, server)
    assert report.to_dict()["proposals"]["pending"] == 1
    assert "could not resolve the time phrase" in list_proposals(said, status="pending")[0].reason


def test_config_from_env_selects_the_llm_extractor(fresh_ledger) -> None:
    with FakeOpenAI([]) as server:
        env = {"FACTLEDGER_DIGEST_MODEL": "m1", "FACTLEDGER_DIGEST_BASE_URL": server.base_url, "FACTLEDGER_DIGEST_POLICY": "strict"}
        cfg = DigestConfig.from_env(env)
        assert (cfg.model, cfg.base_url, cfg.policy) == ("m1", server.base_url, "strict")
        assert build_extractor(cfg).name == "llm:m1"
    assert build_extractor(DigestConfig.from_env({})).name == "rules"


def test_fake_server_streams_server_sent_events() -> None:
    with FakeOpenAI([text("hello from the fake model"), tool_call("lookup", {"q": "x"})]) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-fake", max_retries=0)
        stream = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
        assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "hello from the fake model"
        stream = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
        args = "".join(
            (c.choices[0].delta.tool_calls or [None])[0].function.arguments or ""
            for c in stream
            if c.choices and c.choices[0].delta.tool_calls
        )
        assert json.loads(args) == {"q": "x"}
        assert client.models.list().data[0].id == "fake-model"


def test_assistant_turns_are_context_not_sources(fresh_ledger) -> None:
    journal = Journal(fresh_ledger)
    journal.append(Turn(scope="chat", text="Where do you live these days?", role="assistant", session="s", said_at="2026-03-14T09:59:00Z"))
    journal.append(Turn(scope="chat", text="In Lisbon, since last month.", session="s", said_at=SAID))
    with FakeOpenAI([extraction(claim(quote="In Lisbon, since last month"))]) as server:
        report = digest(fresh_ledger, server)
        assert len(server.chat_requests) == 1  # no call for the assistant's turn
        assert "Where do you live these days?" in server.chat_requests[0]["messages"][-1]["content"]
    assert report.entries_digested == 2 and report.to_dict()["proposals"]["applied"] == 1


@pytest.mark.parametrize(
    ("env", "field"),
    [
        ({"FACTLEDGER_DIGEST_POLICY": "lenient"}, "policy"),
        ({"FACTLEDGER_DIGEST_TIMEOUT": "soon"}, "FACTLEDGER_DIGEST_TIMEOUT"),
        ({"FACTLEDGER_DIGEST_TIMEOUT": "-1"}, "timeout"),
        ({"FACTLEDGER_DIGEST_RETRY_BACKOFF": "x"}, "FACTLEDGER_DIGEST_RETRY_BACKOFF"),
    ],
)
def test_bad_config_names_the_setting(env: dict, field: str) -> None:
    from factledger.ledger import ValidationError

    with pytest.raises(ValidationError) as error:
        DigestConfig.from_env(env)
    assert error.value.field == field


def _held_lines(prompt: str) -> list[str]:
    """The held-fact lines of the prompt's ledger section."""
    section = prompt.split("What the ledger holds that these turns may touch", 1)[1].split("\n\n", 1)[0]
    return [line for line in section.splitlines()[1:] if line.startswith("- ")]


@pytest.mark.slow  # ten thousand facts written first
@pytest.mark.both_engines
def test_the_model_sees_the_held_facts_its_window_talks_about_among_ten_thousand(fresh_ledger) -> None:
    with fresh_ledger.transaction(principal="import:test") as tx:
        tx.define("works_at", "one")
        tx.define("lives_in", "one")
        tx.add("chat", "user", "works_at", "Fernhill Analytics", valid_from="2025-01-01")
        tx.add("chat", "user", "lives_in", "Lisbon", valid_from="2025-01-01")
        tx.add("chat", "Ingrid", "relation", "sister", valid_from="2025-01-01")
        tx.add("chat", "Ingrid", "lives_in", "Bergen", valid_from="2025-01-01")
        for n in range(10_000):  # newer than the facts above: the scope's newest 60 are all tickets
            tx.add("chat", f"ticket {n}", "note", f"backlog item {n}", valid_from="2025-01-01")
        tx.add("other", "user", "works_at", "Globex", valid_from="2025-01-01")
    journal = Journal(fresh_ledger)
    journal.append(Turn(scope="chat", text="New chapter: I left Fernhill and joined Kestrel Labs.", session="s", said_at=SAID))
    journal.append(Turn(scope="chat", text="Congratulations!", role="assistant", session="s", said_at=SAID))
    journal.append(Turn(scope="chat", text="And my sister moved to Oslo last month.", session="s", said_at=SAID))
    with FakeOpenAI([extraction()]) as server:
        report = digest(fresh_ledger, server)
    assert report.complete
    (request,) = server.chat_requests
    lines = _held_lines(request["messages"][-1]["content"])
    assert "- user works_at = 'Fernhill Analytics' (valid 2025-01-01 .. now)" in lines[:2]  # named, so first
    assert "- Ingrid relation = 'sister' (valid 2025-01-01 .. now)" in lines
    assert "- Ingrid lives_in = 'Bergen' (valid 2025-01-01 .. now)" in lines  # the sister, through her relation
    assert "- user lives_in = 'Lisbon' (valid 2025-01-01 .. now)" in lines  # the user's own slot, never named
    assert not any("ticket" in line or "Globex" in line for line in lines)
    assert len(lines) <= HELD_LIMIT


def test_a_scope_with_nothing_relevant_says_so(said) -> None:
    with FakeOpenAI([extraction()]) as server:
        digest(said, server)
    assert _held_lines(server.chat_requests[0]["messages"][-1]["content"]) == ["- (nothing relevant held)"]
