"""The provider outside a Hermes turn: lifecycle edges, read-only contexts, session switches."""

from __future__ import annotations

import json
import threading
import time

import pytest

from factledger.hermes_plugin.memory import WARM_AT_PREFETCH
from factledger.hermes_plugin.provider import SYSTEM_PROMPT_BLOCK, FactledgerMemoryProvider
from factledger.hermes_plugin.tools import TOOL_SCHEMAS
from factledger.ledger import Ledger


@pytest.fixture
def provider_factory(hermes_runtime, tmp_path):
    opened: list[FactledgerMemoryProvider] = []

    def make(session_id: str = "s1", **kwargs) -> FactledgerMemoryProvider:
        provider = FactledgerMemoryProvider()
        provider.initialize(session_id, hermes_home=str(tmp_path), **{"platform": "cli", "agent_identity": "default", **kwargs})
        opened.append(provider)
        return provider

    yield make
    for provider in opened:
        provider.shutdown()


def journal(tmp_path) -> list[tuple[str, str]]:
    with Ledger.open(tmp_path / "factledger" / "ledger.db", read_only=True) as ledger:
        return [(r["role"], r["text"]) for r in ledger.storage.query("SELECT role, text FROM journal ORDER BY id")]


def test_before_initialize_tools_answer_with_an_error_and_prefetch_is_empty(hermes_runtime):
    provider = FactledgerMemoryProvider()
    assert provider.name == "factledger" and provider.is_available()
    assert provider.prefetch("anything") == ""
    assert "unavailable" in json.loads(provider.handle_tool_call("factledger_search", {"query": "x"}))["error"]
    provider.sync_turn("I live in Paris.", "ok")  # ignored, not an exception
    provider.shutdown()


def test_system_prompt_block_is_short_and_stable(hermes_runtime):
    provider = FactledgerMemoryProvider()
    assert provider.system_prompt_block() == SYSTEM_PROMPT_BLOCK == FactledgerMemoryProvider().system_prompt_block()
    assert len(SYSTEM_PROMPT_BLOCK) < 800
    for schema in TOOL_SCHEMAS:
        assert schema["name"] in SYSTEM_PROMPT_BLOCK


def test_tool_names_do_not_collide_with_hermes_core_tools(hermes_runtime):
    from toolsets import _HERMES_CORE_TOOLS

    assert not {s["name"] for s in TOOL_SCHEMAS} & set(_HERMES_CORE_TOOLS)


def test_an_unknown_tool_is_refused(provider_factory):
    provider = provider_factory()
    assert "not a factledger tool" in json.loads(provider.handle_tool_call("factledger_erase", {}))["error"]


def test_a_cron_context_reads_but_never_writes(provider_factory, tmp_path):
    writer = provider_factory("s1")
    writer.handle_tool_call("factledger_remember", {"subject": "user", "predicate": "likes", "value": "tea"})
    cron = provider_factory("s2", platform="cron", agent_context="cron")
    cron.sync_turn("I live in Paris.", "ok")
    cron.on_memory_write("add", "user", "User likes coffee")
    refused = json.loads(cron.handle_tool_call("factledger_remember", {"subject": "user", "predicate": "likes", "value": "x"}))
    assert "may read memory but not change it" in refused["error"]
    assert journal(tmp_path) == []
    # cron is not a local front end: it has no user, so it reads only its own scratch
    assert json.loads(cron.handle_tool_call("factledger_search", {"query": "tea"}))["results"] == []


def test_session_switches_keep_or_change_scratch_as_the_conversation_does(provider_factory):
    provider = provider_factory("s1")
    first = provider.session.scopes
    saved = json.loads(provider.handle_tool_call(
        "factledger_remember", {"subject": "task", "predicate": "note", "value": "draft the memo", "keep": "this_chat"}
    ))
    assert saved["status"] == "applied" and saved["memory"] == "this_chat"

    def memo_found() -> bool:
        return bool(json.loads(provider.handle_tool_call("factledger_search", {"query": "memo"}))["results"])

    provider.on_session_switch("s1-compressed", parent_session_id="s1", reset=False, reason="compression")
    assert provider.session.scopes == first and memo_found()  # the same conversation goes on
    provider.on_session_switch("s3", parent_session_id="s1-compressed", reset=True, reason="new_session")
    assert provider.session.scopes.durable == first.durable and provider.session.scopes.scratch != first.scratch
    assert not memo_found()
    provider.on_session_switch("s1", parent_session_id="s3", reset=False, reason="resume")
    assert provider.session.scopes == first and memo_found()  # resuming s1 brings its scratch back


def test_memory_tool_writes_are_worded_as_evidence_and_removals_say_so(provider_factory, tmp_path):
    provider = provider_factory()
    provider.on_memory_write("add", "user", "Lives in Paris")
    provider.on_memory_write("remove", "memory", "Project X deadline is Friday", metadata={"old_text": "x"})
    provider.on_memory_write("view", "memory", "ignored")
    assert journal(tmp_path) == [
        ("assistant", "Noted in Hermes memory (user): Lives in Paris"),
        ("assistant", "Removed from Hermes memory (memory): Project X deadline is Friday"),
    ]


def test_pre_compress_asks_for_a_digest_without_waiting_and_session_end_waits(provider_factory, tmp_path):
    provider = provider_factory()
    provider.sync_turn("I live in Oslo.", "Noted.")
    assert provider.on_pre_compress([{"role": "user", "content": "I live in Oslo."}]) == ""
    provider.on_session_end([])
    with Ledger.open(tmp_path / "factledger" / "ledger.db", read_only=True) as ledger:
        assert [c.value for c in ledger.current(predicate="lives_in")] == ["Oslo"]
        assert ledger.storage.one("SELECT COUNT(*) FROM journal WHERE digested_at IS NULL")[0] == 0


def test_initialize_with_broken_settings_fails_loudly_and_tools_say_why(hermes_runtime, tmp_path):
    (tmp_path / "factledger").mkdir()
    (tmp_path / "factledger" / "config.yaml").write_text("digest:\n  batch_size: -1\n")
    provider = FactledgerMemoryProvider()
    with pytest.raises(Exception, match="digest.batch_size"):
        provider.initialize("s1", hermes_home=str(tmp_path), platform="cli")
    assert "digest.batch_size" in json.loads(provider.handle_tool_call("factledger_search", {"query": "x"}))["error"]


def test_digestion_runs_only_on_the_worker_thread(provider_factory):
    provider = provider_factory()
    digester = provider.session.digester
    threads: list[str] = []
    original = digester.run

    def recording_run(**kwargs):  # a spy: records the thread, then does the real work
        threads.append(threading.current_thread().name)
        return original(**kwargs)

    digester.run = recording_run
    provider.sync_turn("I live in Oslo.", "Noted.")
    provider.on_pre_compress([])
    provider.on_session_end([])
    assert threads and all(name.startswith("factledger-digest-") for name in threads)
    assert threading.current_thread().name not in threads


def test_an_explicit_write_is_indexed_by_the_worker_before_the_next_prefetch_needs_it(provider_factory, tmp_path):
    provider = provider_factory()
    for turn in range(WARM_AT_PREFETCH):  # from this prefetch on, the worker loads the vector lane
        provider.prefetch(f"anything new {turn}?")
    assert provider.session.digest_pending(wait=True) and provider.session.recall.vectors_ready
    saved = json.loads(provider.handle_tool_call("factledger_remember", {"subject": "user", "predicate": "likes", "value": "jazz"}))
    assert saved["status"] == "applied"

    def outbox() -> int:
        with Ledger.open(tmp_path / "factledger" / "ledger.db", read_only=True) as ledger:
            return ledger.storage.one("SELECT COUNT(*) FROM recall_outbox")[0]

    deadline = time.monotonic() + 30
    while outbox() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert outbox() == 0  # drained by the worker: the next prefetch has no index work left
    assert "jazz" in provider.prefetch("what music do I like? jazz")


def test_a_one_question_session_never_loads_the_vector_lane_and_its_exit_does_not_wait_for_it(provider_factory, tmp_path):
    provider = provider_factory()
    provider.prefetch("where do I live?")  # `hermes chat -q`: one prefetch, one turn, exit
    provider.sync_turn("I live in Oslo.", "Noted.")
    provider.on_session_end([])
    session = provider.session
    assert not session.recall.vectors_ready and not session._vectors_wanted
    provider.shutdown()
    with Ledger.open(tmp_path / "factledger" / "ledger.db", read_only=True) as ledger:
        assert [(c.predicate, c.value) for c in ledger.current()] == [("lives_in", "Oslo")]  # digested at exit
        assert ledger.storage.one("SELECT COUNT(*) FROM recall_outbox")[0] > 0  # the index waits for a later process


def test_what_the_last_turns_showed_is_not_repeated_until_the_context_is_compressed(provider_factory, tmp_path):
    provider = provider_factory()
    provider.sync_turn("I live in Lisbon.", "Noted.")
    provider.on_session_end([])
    first = provider.prefetch("where do I live")
    assert "user lives in Lisbon" in first
    assert "Lisbon" not in provider.prefetch("where do I live now")  # still in the conversation's context
    provider.on_pre_compress([])  # the context that held it is being summarised away
    assert "user lives in Lisbon" in provider.prefetch("where do I live")


def test_repeat_after_turns_zero_shows_every_time(hermes_runtime, tmp_path):
    (tmp_path / "factledger").mkdir(parents=True)
    (tmp_path / "factledger" / "config.yaml").write_text("recall:\n  repeat_after_turns: 0\n", "utf-8")
    provider = FactledgerMemoryProvider()
    provider.initialize("s1", hermes_home=str(tmp_path), platform="cli")
    try:
        provider.sync_turn("I live in Lisbon.", "Noted.")
        provider.on_session_end([])
        assert all("user lives in Lisbon" in provider.prefetch("where do I live") for _ in range(3))
    finally:
        provider.shutdown()
