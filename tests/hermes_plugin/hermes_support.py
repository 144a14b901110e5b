"""Driving Hermes's real AIAgent against the scripted model server, the way a front end does."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from factledger.hermes_plugin.paths import HermesPaths
from factledger.hermes_plugin.provider import FactledgerMemoryProvider
from factledger.hermes_plugin.scripted_model import ScriptedModelServer
from factledger.hermes_plugin.settings import ProviderSettings, read_settings_text
from factledger.ledger import Ledger


@dataclass
class Conversation:
    """One Hermes session: an AIAgent (with its own provider instance) and the messages so far."""

    agent: Any
    messages: list[dict[str, Any]] = field(default_factory=list)
    ended: bool = False

    def say(self, text: str) -> str:
        result = self.agent.run_conversation(text, conversation_history=list(self.messages))
        assert not result.get("failed"), result
        self.messages = list(result["messages"])
        return result["final_response"]

    @property
    def provider(self) -> FactledgerMemoryProvider:
        manager = self.agent._memory_manager
        assert manager is not None, "Hermes did not load a memory provider"
        provider = manager.get_provider("factledger")
        assert isinstance(provider, FactledgerMemoryProvider), f"Hermes holds {provider!r}, not factledger"
        assert provider.session is not None, "factledger did not initialize"
        return provider

    def digest_now(self) -> None:
        """What a gateway does at session expiry without tearing the agent down."""
        self.agent.commit_memory_session(self.messages)

    def end(self) -> None:
        """What the CLI does on exit: on_session_end, then shutdown."""
        if not self.ended:
            self.ended = True
            self.agent.shutdown_memory_provider(self.messages)


class HermesHost:
    """Builds agents in one process, like Hermes's gateway, against one scripted model server."""

    def __init__(self, run_agent: Any, paths: HermesPaths, server: ScriptedModelServer):
        self.run_agent = run_agent
        self.paths = paths
        self.server = server
        self.conversations: list[Conversation] = []

    def chat(self, **identity: Any) -> Conversation:
        agent = self.run_agent.AIAgent(
            base_url=self.server.base_url,
            api_key="sk-fake",
            model="fake-model",
            quiet_mode=True,
            skip_context_files=True,
            enabled_toolsets=["memory"],
            tool_delay=0.0,
            **identity,
        )
        conversation = Conversation(agent)
        conversation.provider  # fail here, loudly, if Hermes did not load and initialize us
        self.conversations.append(conversation)
        return conversation

    def close(self) -> None:
        for conversation in self.conversations:
            conversation.end()

    @property
    def location(self) -> Path | str:
        """Where the provider keeps the ledger: the settings' database_url, else the home's file."""
        return ProviderSettings.load(self.paths.settings_path).ledger_location(self.paths.ledger_path)

    def update_settings(self, **sections: Any) -> None:
        """Change top-level settings as an operator editing the file would, keeping the rest (database_url)."""
        # Read as the provider reads it: yaml.safe_load would turn the default file's `off:` into False.
        data = read_settings_text(self.paths.settings_path.read_text("utf-8")) or {}
        data.update(sections)
        self.paths.settings_path.write_text(yaml.safe_dump(data), "utf-8")

    def ledger(self, *, read_only: bool = True) -> Ledger:
        return Ledger.open(self.location, read_only=read_only)

    def table_counts(self) -> dict[str, int]:
        """Rows in every table a write could touch: the proof that a refused call changed nothing."""
        tables = ["transactions", "claims", "predicates", "tombstones", "journal", "proposals", "rejections", "confirmations"]
        with self.ledger() as ledger:
            counts = {t: ledger.storage.one(f"SELECT COUNT(*) FROM {t}")[0] for t in tables}
            counts["open_proposals"] = ledger.storage.one("SELECT COUNT(*) FROM proposals WHERE status = 'pending'")[0]
            counts["closed_versions"] = ledger.storage.one("SELECT COUNT(*) FROM claims WHERE tx_to IS NOT NULL")[0]
        return counts


def tool_results(request) -> list[Any]:
    return [r["content"] for r in request.tool_results()]


def parsed(content: Any) -> dict[str, Any]:
    return content if isinstance(content, dict) else json.loads(content)
