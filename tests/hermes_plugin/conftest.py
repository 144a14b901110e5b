"""Fixtures for the Hermes plugin tests: a Hermes home written by `factledger hermes install`, the
scripted model server, and Hermes itself (imported once per test session, under a temporary home)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.hermes_plugin.paths import HermesPaths
from factledger.hermes_plugin.scripted_model import ScriptedModelServer


@pytest.fixture(scope="session")
def hermes_runtime(tmp_path_factory: pytest.TempPathFactory):
    """Hermes's run_agent module. HERMES_HOME points at a throwaway folder before the first import,
    since importing Hermes creates its home; each test then sets its own home."""
    os.environ["HERMES_HOME"] = str(tmp_path_factory.mktemp("hermes-import-home"))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import run_agent

    return run_agent


def run_cli(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> HermesPaths:
    """A fresh Hermes home with factledger installed and selected, as a user would do it."""
    home = tmp_path / "hermes-home"
    home.mkdir()
    result = run_cli("hermes", "install", "--hermes-home", str(home), "--set-provider")
    assert result.exit_code == 0, result.output
    monkeypatch.setenv("HERMES_HOME", str(home))
    return HermesPaths(home)


@pytest.fixture
def model_server():
    with ScriptedModelServer() as server:
        yield server


@pytest.fixture
def hermes(hermes_runtime, hermes_home, model_server):
    """Hermes in this process, with factledger installed in a fresh home and the scripted model."""
    from .hermes_support import HermesHost

    host = HermesHost(hermes_runtime, hermes_home, model_server)
    yield host
    host.close()
