"""Hermes's CLI exit hands the session's digest to a process of its own, and loses no turn.

Real `hermes chat -Q -q` processes (Hermes's own CLI and exit path) in a home written by `factledger
hermes install`. The exiting Hermes journals the turn (committed before the process ends), starts the
digest after exit (`hermes_plugin/after_exit.py` starts `exit_digest.py`) and ends; that process digests once Hermes has ended.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from factledger.digest import Journal
from factledger.hermes_plugin.after_exit import LOG_NAME
from factledger.hermes_plugin.scripted_model import ModelReply
from factledger.hermes_plugin.settings import read_settings_text
from factledger.ledger import Ledger

from ..support.fake_openai import FakeOpenAI, hold, tool_call

pytestmark = pytest.mark.slow  # `hermes chat` processes

BIN = Path(sys.executable).parent
HANDED = re.compile(r"the exit handed the digest of (\d+) journal entries to process (\d+)")
CELLO = {"claims": [{"turn": 1, "op": "add", "subject": "user", "predicate": "plays", "cardinality": "many",
                     "template": "{subject} plays {value}", "value": "the cello", "quote": "I play the cello"}]}


def run(command: list[str], home: Path) -> subprocess.CompletedProcess:
    # TIRITH_ENABLED=0: Hermes's command scanner would otherwise try to download its binary.
    env = {**os.environ, "HERMES_HOME": str(home), "HF_HUB_OFFLINE": "1", "TIRITH_ENABLED": "0"}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)


def installed_home(tmp_path: Path, model_url: str, **digest: object) -> Path:
    home = tmp_path / "home"
    assert run([str(BIN / "factledger"), "hermes", "install", "--set-provider"], home).returncode == 0
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["model"] = {"provider": "custom", "base_url": model_url, "default": "fake-model", "api_key": "sk-none"}
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    if digest:
        settings_path = home / "factledger" / "config.yaml"
        settings = read_settings_text(settings_path.read_text("utf-8")) or {}
        settings["digest"] = {**settings.get("digest", {}), **digest}
        settings_path.write_text(yaml.safe_dump(settings), "utf-8")
    return home


def journal(home: Path) -> tuple[int, int]:
    """(entries, undigested entries) in the home's ledger."""
    with Ledger.open(home / "factledger" / "ledger.db", read_only=True) as ledger:
        return ledger.storage.one("SELECT COUNT(*) FROM journal")[0], Journal(ledger).backlog_size()


def handed_over(home: Path) -> tuple[int, int]:
    """(entries, pid) from the exiting Hermes's own log line."""
    found = HANDED.findall((home / "logs" / "agent.log").read_text("utf-8", errors="replace"))
    assert len(found) == 1, found
    return int(found[0][0]), int(found[0][1])


def digested_after_exit(home: Path, pid: int, timeout: float = 120.0) -> str:
    """The digest after exit's report, once that process has written it."""
    log = home / "logs" / LOG_NAME
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text("utf-8") if log.exists() else ""
        if f"(pid {pid}): digested " in text or f"(pid {pid}): failed" in text:
            return text
        time.sleep(0.1)
    raise AssertionError(f"the digest after exit (pid {pid}) wrote no report in {timeout} s")


def test_a_one_question_exit_leaves_its_digest_to_a_process_of_its_own(tmp_path, model_server):
    home = installed_home(tmp_path, model_server.base_url)
    model_server.push(ModelReply.say("Noted, Initech."))
    chat = run([str(BIN / "hermes"), "chat", "-Q", "-q", "I work at Initech."], home)
    assert chat.returncode == 0, chat.stderr
    assert "Noted, Initech." in chat.stdout and "factledger memory" not in chat.stderr
    # Both turns were committed to the journal before Hermes ended, whatever the digest does.
    assert journal(home)[0] == 2
    entries, pid = handed_over(home)
    assert entries == 2
    report = digested_after_exit(home, pid)
    assert f"(pid {pid}): digested 2 journal entries" in report, report
    assert journal(home) == (2, 0)
    with Ledger.open(home / "factledger" / "ledger.db", read_only=True) as ledger:
        assert [(c.subject, c.predicate, c.value) for c in ledger.current()] == [("user", "works_at", "Initech")]

    # The next session recalls it (and has nothing left to digest as it opens).
    model_server.push(lambda request: ModelReply.say(request.memory_context() or "nothing recalled"))
    again = run([str(BIN / "hermes"), "chat", "-Q", "-q", "Where do I work?"], home)
    assert again.returncode == 0, again.stderr
    assert "user works at Initech" in again.stdout


def test_a_digest_model_is_never_waited_for_at_exit(tmp_path, model_server):
    answer = threading.Event()
    with FakeOpenAI([hold(answer, tool_call("Extraction", CELLO))]) as digest_model:
        # exit_wait_seconds 4: an exit that digested in process would wait for the held answer, then say
        # on stderr that the digest did not finish.
        home = installed_home(tmp_path, model_server.base_url, exit_wait_seconds=4,
                              model={"base_url": digest_model.base_url, "name": "digest-model"})
        model_server.push(ModelReply.say("Lovely."))
        try:
            chat = run([str(BIN / "hermes"), "chat", "-Q", "-q", "I play the cello on weekends."], home)
            assert chat.returncode == 0, chat.stderr
            assert "factledger memory" not in chat.stderr  # no slow-digest notice: nothing was waited for
            assert journal(home) == (2, 2)  # committed, and not digested by the exiting process
            entries, pid = handed_over(home)
        finally:
            answer.set()  # the model answers only now, after Hermes has ended
        report = digested_after_exit(home, pid)
        assert f"(pid {pid}): digested 2 journal entries" in report, report
        assert len(digest_model.chat_requests) == 1
    with Ledger.open(home / "factledger" / "ledger.db", read_only=True) as ledger:
        assert [c.value for c in ledger.current(predicate="plays")] == ["the cello"]
