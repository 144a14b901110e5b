"""Hermes's own loader finds the provider in a home written by `factledger hermes install`.

A failed plugin import is only logged at DEBUG by Hermes, so these tests look at what the agent holds.
"""

from __future__ import annotations

from factledger.hermes_plugin.provider import FactledgerMemoryProvider
from factledger.hermes_plugin.tools import TOOL_NAMES

from .conftest import run_cli


def make_agent(run_agent, server):
    return run_agent.AIAgent(
        base_url=server.base_url,
        api_key="sk-fake",
        model="fake-model",
        quiet_mode=True,
        skip_context_files=True,
        enabled_toolsets=["memory"],
    )


def test_hermes_loader_returns_our_provider(hermes_runtime, hermes_home):
    from plugins.memory import load_memory_provider

    provider = load_memory_provider("factledger")
    assert isinstance(provider, FactledgerMemoryProvider)
    assert provider.is_available()


def test_an_agent_built_from_the_home_holds_our_provider_and_offers_its_tools(hermes_runtime, hermes_home, model_server):
    agent = make_agent(hermes_runtime, model_server)
    try:
        manager = agent._memory_manager
        assert manager is not None
        ours = manager.get_provider("factledger")
        assert isinstance(ours, FactledgerMemoryProvider)
        assert ours.session is not None  # initialize ran and opened the memory under this home
        assert ours.session.paths.home == hermes_home.home
        assert hermes_home.ledger_path.exists()
        offered = {tool["function"]["name"] for tool in agent.tools}
        assert TOOL_NAMES <= offered
    finally:
        agent.shutdown_memory_provider([])


def test_a_shim_hermes_cannot_recognise_is_not_loaded(hermes_runtime, hermes_home, model_server):
    # The control for the test above: the same home with the discovery words removed loads nothing.
    hermes_home.shim.write_text("def register(ctx):\n    from factledger.hermes_plugin.provider import register as r\n    r(ctx)\n")
    agent = make_agent(hermes_runtime, model_server)
    assert agent._memory_manager is None or agent._memory_manager.get_provider("factledger") is None


def test_hermes_reads_the_plugin_manifest_as_bundled_providers_are_read(hermes_runtime, tmp_path):
    """plugin.yaml's pip_dependencies and requires_env, as Hermes's own setup and web UI read them; no
    config_schema.py (its panel would write a file the provider does not read)."""
    from hermes_constants import reset_hermes_home_override, set_hermes_home_override

    assert run_cli("hermes", "install", "--hermes-home", str(tmp_path), "--set-provider").exit_code == 0
    token = set_hermes_home_override(tmp_path)
    try:
        from hermes_cli import web_server
        from plugins.memory.config_schema import get_provider_config_schema

        manifest = web_server._memory_provider_setup_manifest("factledger")
        assert manifest["pip_dependencies"] == ["factledger"] and manifest["required_env"] == []
        assert web_server._memory_provider_dependencies_installed(manifest)  # imports here: nothing to install
        assert get_provider_config_schema("factledger") is None
    finally:
        reset_hermes_home_override(token)
