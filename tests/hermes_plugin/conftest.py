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
def hermes_home(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ledger_engine: str) -> HermesPaths:
    """A fresh Hermes home with factledger installed and selected, as a user would do it. In a module
    marked `both_engines` it runs once more with the settings' `database_url` naming a fresh PostgreSQL
    database (the ledger file is then never created)."""
    home = tmp_path / "hermes-home"
    home.mkdir()
    result = run_cli("hermes", "install", "--hermes-home", str(home), "--set-provider")
    assert result.exit_code == 0, result.output
    paths = HermesPaths(home)
    if ledger_engine == "postgres":
        url = request.getfixturevalue("postgres_url")
        text = paths.settings_path.read_text("utf-8")
        assert text.count('database_url: ""') == 1, "the installed settings no longer hold an empty database_url"
        paths.settings_path.write_text(text.replace('database_url: ""', f"database_url: '{url}'"), "utf-8")
    monkeypatch.setenv("HERMES_HOME", str(home))
    return paths


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
    if isinstance(host.location, str):  # database_url: everything went to PostgreSQL, no file beside it
        assert not hermes_home.ledger_path.exists(), "a database_url provider wrote the SQLite file"
