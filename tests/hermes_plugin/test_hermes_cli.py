"""The path a user takes: `factledger hermes install --set-provider`, then Hermes's own `hermes chat`
command (a separate process) with a custom model endpoint. One single-query session: Hermes offers our
tools, and after exit the turn is digested into the ledger under $HERMES_HOME/factledger/ (by the digest
after exit: test_exit_hand_over.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from factledger.hermes_plugin.provider import SYSTEM_PROMPT_BLOCK
from factledger.hermes_plugin.scripted_model import ModelReply
from factledger.hermes_plugin.tools import TOOL_NAMES
from factledger.ledger import Ledger

from .test_exit_hand_over import digested_after_exit, handed_over

BIN = Path(sys.executable).parent


def run(command: list[str], home: Path) -> subprocess.CompletedProcess:
    # TIRITH_ENABLED=0: Hermes's command scanner would otherwise try to download its binary.
    env = {**os.environ, "HERMES_HOME": str(home), "HF_HUB_OFFLINE": "1", "TIRITH_ENABLED": "0"}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)


@pytest.mark.slow  # `hermes chat` processes
def test_hermes_chat_uses_factledger_from_an_installed_home(tmp_path, model_server):
    home = tmp_path / "home"
    assert run([str(BIN / "factledger"), "hermes", "install", "--set-provider"], home).returncode == 0
    config = yaml.safe_load((home / "config.yaml").read_text())
    config["model"] = {"provider": "custom", "base_url": model_server.base_url, "default": "fake-model", "api_key": "sk-none"}
    (home / "config.yaml").write_text(yaml.safe_dump(config))

    model_server.push(ModelReply.say("Noted, Initech."))
    chat = run([str(BIN / "hermes"), "chat", "-Q", "-q", "I work at Initech."], home)
    assert chat.returncode == 0, chat.stderr
    assert "Noted, Initech." in chat.stdout

    (request,) = model_server.requests
    assert TOOL_NAMES <= set(request.tool_names)
    assert SYSTEM_PROMPT_BLOCK.splitlines()[0] in request.system_text()
    digested_after_exit(home, handed_over(home)[1])
    with Ledger.open(home / "factledger" / "ledger.db", read_only=True) as ledger:
        assert [(c.subject, c.predicate, c.value) for c in ledger.current()] == [("user", "works_at", "Initech")]
