"""What a Hermes user is told, and how long memory may hold Hermes up.

- A settings file factledger cannot use makes `is_available()` False (Hermes runs without the provider
  and `hermes memory status` says "not available" with the reason), instead of a provider that fails
  later in every hook.
- Problems reach the user's terminal through the `warning_callback` Hermes passes on the CLI, once each.
- On exit, `on_session_end` and `shutdown` share one short wait (`digest.exit_wait_seconds`) for a slow
  digest: the turns it did not finish stay in the journal. An earlier version waited 30 s in each.
- `hermes chat -q`/`-Q` silences that line (the agent's `suppress_status_output`): a notice then goes to
  stderr, where Hermes writes its own error and `session_id:` lines, and stdout keeps only the reply.
"""

from __future__ import annotations

import json

import socket
import threading
from types import SimpleNamespace

import yaml

from factledger.digest import Journal
from factledger.hermes_plugin.paths import HermesPaths
from factledger.hermes_plugin.provider import FactledgerMemoryProvider
from factledger.hermes_plugin.scripted_model import ModelReply
from factledger.ledger import Ledger

from ..support.fake_openai import FakeOpenAI, hold, tool_call

CELLO = {
    "claims": [
        {"turn": 1, "op": "add", "subject": "user", "predicate": "plays", "cardinality": "many",
         "template": "{subject} plays {value}", "value": "the cello", "quote": "I play the cello"}
    ]
}


def write_settings(paths: HermesPaths, **digest: object) -> None:
    paths.state_dir.mkdir(parents=True, exist_ok=True)
    paths.settings_path.write_text(yaml.safe_dump({"digest": digest}), "utf-8")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_broken_settings_file_makes_the_provider_unavailable(hermes_runtime, hermes_home: HermesPaths, capsys):
    provider = FactledgerMemoryProvider()
    assert provider.is_available()
    hermes_home.settings_path.write_text("digest:\n  batch_size: -1\n")
    assert not provider.is_available()
    assert "digest.batch_size" in provider.unavailable_reason()

    from hermes_cli.memory_setup import cmd_status

    cmd_status(SimpleNamespace())
    out = capsys.readouterr().out
    assert "Status:    not available ✗" in out and "settings_error: digest.batch_size" in out

    agent = hermes_runtime.AIAgent(base_url="http://127.0.0.1:9/v1", api_key="sk-fake", model="fake-model",
                                   quiet_mode=True, skip_context_files=True, enabled_toolsets=["memory"])
    assert agent._memory_manager is None  # Hermes skipped us at start, rather than failing in every hook

    hermes_home.settings_path.write_text("digest:\n  batch_size: 8\n")
    assert provider.is_available() and provider.unavailable_reason() is None


def test_problems_reach_the_users_warning_line_once(hermes, hermes_home: HermesPaths):
    write_settings(hermes_home, exit_wait_seconds=60,
                   model={"base_url": f"http://127.0.0.1:{closed_port()}/v1", "name": "digest-model"})
    shown: list[tuple[str, str]] = []
    chat = hermes.chat(status_callback=lambda kind, message: shown.append((kind, message)))
    hermes.server.push(ModelReply.say("Noted."), ModelReply.say("Noted again."))
    chat.say("I play the cello on weekends.")
    chat.provider.session.digest_pending(wait=True)  # the model is unreachable: the digest fails
    chat.say("I also play the piano.")
    chat.end()

    warnings = [message for kind, message in shown if kind == "warn" and message.startswith("factledger memory:")]
    # The exit's retries of the unreachable model may also be told as a slow exit digest (another kind).
    failures = [message for message in warnings if "the last digest is slow" not in message]
    assert len(failures) == 1, warnings  # the same kind of failure is told once per session
    assert "could not be digested" in failures[0] and "stay in the journal" in failures[0]
    with Ledger.open(hermes_home.ledger_path, read_only=True) as ledger:
        waiting = [entry.text for entry in Journal(ledger).backlog()]
    # Nothing lost: both of the user's turns wait in the journal for a working model.
    assert "I play the cello on weekends." in waiting and "I also play the piano." in waiting


def test_a_failing_start_is_told_on_the_warning_line(hermes_runtime, tmp_path):
    home = HermesPaths(tmp_path)
    home.state_dir.mkdir(parents=True)
    home.ledger_path.write_bytes(b"this is not a SQLite database" * 100)
    told: list[str] = []
    provider = FactledgerMemoryProvider()
    provider.initialize("s1", hermes_home=str(tmp_path), platform="cli", warning_callback=told.append)  # opens on a thread
    assert provider.session is None  # waits for the opening, which failed
    assert len(told) == 1 and told[0].startswith("factledger memory: off for this session: cannot open memory")
    answer = json.loads(provider.handle_tool_call("factledger_profile", {}))
    assert answer["error"].startswith("factledger memory is unavailable: ") and "database" in answer["error"]


def test_exit_waits_once_and_briefly_for_a_slow_digest(hermes_runtime, tmp_path):
    paths = HermesPaths(tmp_path)
    answer = threading.Event()
    with FakeOpenAI([hold(answer, tool_call("Extraction", CELLO))]) as server:
        write_settings(paths, exit_wait_seconds=0.5, model={"base_url": server.base_url, "name": "digest-model"})
        told: list[str] = []
        provider = FactledgerMemoryProvider()
        provider.initialize("s1", hermes_home=str(tmp_path), platform="cli", warning_callback=told.append)
        session = provider.session
        provider.sync_turn("I play the cello on weekends.", "Lovely.")
        provider.on_session_end([])
        provider.shutdown()
        try:
            # Both hooks returned while the model still had not answered: the exit did not wait for it.
            assert not answer.is_set()
            assert any("did not finish within 0.5 s" in line and "next session" in line for line in told), told
            with Ledger.open(paths.ledger_path, read_only=True) as ledger:
                assert Journal(ledger).backlog_size() == 2  # the turn is still in the journal
        finally:
            answer.set()
        # A process that lives on (the gateway) finishes the digest once the model answers.
        assert session is not None and session.worker.stop(timeout=60)
        assert len(server.chat_requests) == 1
    with Ledger.open(paths.ledger_path, read_only=True) as ledger:
        assert [c.value for c in ledger.current(predicate="plays")] == ["the cello"]
        assert Journal(ledger).backlog_size() == 0


def test_a_slow_exit_digest_is_told_on_stderr_when_hermes_silences_its_warning_line(hermes, hermes_home: HermesPaths, capsys):
    answer = threading.Event()
    with FakeOpenAI([hold(answer, tool_call("Extraction", CELLO))]) as digest_model:
        write_settings(hermes_home, exit_wait_seconds=0.5, model={"base_url": digest_model.base_url, "name": "digest-model"})
        chat = hermes.chat()
        chat.agent.suppress_status_output = True  # what `hermes chat -q` sets after building the agent (cli.py)
        hermes.server.push(ModelReply.say("Noted."))
        chat.say("I play the cello on weekends.")
        capsys.readouterr()
        try:
            chat.end()  # Hermes's exit: on_session_end, then shutdown
        finally:
            answer.set()
    seen = capsys.readouterr()
    told = [line for line in seen.err.splitlines() if line.startswith("factledger memory: ")]
    assert len(told) == 1 and "did not finish within 0.5 s" in told[0] and "next session" in told[0], seen.err
    assert "factledger" not in seen.out  # stdout stays the reply's


def test_an_exit_digest_that_runs_long_is_told_while_exit_waits(hermes_runtime, tmp_path):
    paths = HermesPaths(tmp_path)
    answer = threading.Event()
    with FakeOpenAI([hold(answer, tool_call("Extraction", CELLO))]) as server:
        write_settings(paths, exit_wait_seconds=1.5, model={"base_url": server.base_url, "name": "digest-model"})
        told: list[str] = []
        provider = FactledgerMemoryProvider()
        provider.initialize("s1", hermes_home=str(tmp_path), platform="cli", warning_callback=told.append)
        session = provider.session
        provider.sync_turn("I play the cello on weekends.", "Lovely.")
        try:
            provider.on_session_end([])
            # Told while the exit still waited (before shutdown's outcome), with the rest of the wait.
            assert len(told) == 1 and "the last digest is slow; exit waits for it up to 1.5 s in all" in told[0], told
            provider.shutdown()
            assert "did not finish within 1.5 s" in told[-1] and len(told) == 2, told
        finally:
            answer.set()
        assert session is not None and session.worker.stop(timeout=60)
