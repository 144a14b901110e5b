"""`hermes memory setup factledger` (Hermes's own command) writes factledger settings that the provider
reads: the profile's own model by default, an endpoint with its key kept in .env, refusals that write
nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from factledger.hermes_plugin.memory import digest_config
from factledger.hermes_plugin.paths import HermesPaths
from factledger.hermes_plugin.provider import FactledgerMemoryProvider
from factledger.hermes_plugin.settings import DEFAULT_SETTINGS_TEXT, ProviderSettings
from factledger.hermes_plugin.setup import CANCELLED, choice_order, run_setup, settings_mapping
from factledger.ledger import ValidationError

BIN = Path(sys.executable).parent


def with_model(paths: HermesPaths, base_url: str) -> None:
    config = yaml.safe_load(paths.config_yaml.read_text())
    config["model"] = {"provider": "custom", "base_url": base_url, "default": "profile-model", "api_key": "sk-profile"}
    paths.config_yaml.write_text(yaml.safe_dump(config))


OPERATOR_FILE = """\
# my notes: keep discord groups private
recall:
  group_long_term:
    off: [discord]      # the team server
    on: []
digest:
  batch_size: 4         # small batches on this laptop
"""


def test_hermes_memory_setup_offers_the_profiles_model_and_keeps_the_operators_file(hermes_home: HermesPaths, model_server):
    with_model(hermes_home, model_server.base_url)
    hermes_home.settings_path.write_text(OPERATOR_FILE)
    # Off a terminal Hermes's picker cannot read, so the choices are listed and typed by name
    answers = "hermes\n" "strict\n" "\n" "30\n" "discord\n" "telegram:-100, 42\n"
    env = {**os.environ, "HERMES_HOME": str(hermes_home.home), "TIRITH_ENABLED": "0", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([str(BIN / "hermes"), "memory", "setup", "factledger"], input=answers, env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert "profile-model at" in done.stdout and "up to one model call per turn" in done.stdout
    listed = done.stdout[done.stdout.index("  Digest model:"):]  # the profile's own model first, with its cost
    assert listed.index("hermes - this profile's own model, profile-model: up to one model call per turn") < listed.index("rules - the default")
    assert "Memory provider: factledger" in done.stdout

    settings = ProviderSettings.load(hermes_home.settings_path)
    assert settings.model.from_hermes and settings.policy == "strict" and settings.retention_days == 30
    assert settings.excluded_platforms == ("discord",) and settings.excluded_chats == ("telegram:-100", "42")
    assert settings.group_long_term_off == ("discord",) and settings.batch_size == 4  # not asked: kept
    text = hermes_home.settings_path.read_text()
    # the operator's file as written: comments, order, the `off:` key (never rewritten as `false:`)
    assert text.startswith("# my notes: keep discord groups private\nrecall:\n  group_long_term:\n    off: [discord]      # the team server\n")
    assert "batch_size: 4         # small batches on this laptop" in text and "false:" not in text
    assert "sk-profile" not in text  # the profile's key is never copied
    assert yaml.safe_load(hermes_home.config_yaml.read_text())["memory"]["provider"] == "factledger"
    # a session resolves the profile's model through Hermes's own configuration
    config = digest_config(settings, {})
    assert (config.base_url, config.model, config.api_key, config.policy) == (model_server.base_url, "profile-model", "sk-profile", "strict")


def scripted(answers: dict[str, str]):
    """The wizard's prompt and picker answering from `answers` (label prefix -> text, or the choice's
    name for a picker); what is not answered keeps its default. Returns run_setup's keywords and the
    labels asked, pickers included."""
    asked: list[str] = []

    def answer(label: str) -> str | None:
        asked.append(label)
        for start, value in sorted(answers.items(), key=lambda a: -len(a[0])):  # the longest label first
            if label.startswith(start):
                return value
        return None

    def prompt(label: str, default: str | None = None, secret: bool = False) -> str:
        value = answer(label)
        return (default or "") if value is None else value

    def choose(title: str, items: list[tuple[str, str]], default: int) -> int:
        value = answer(title)
        return default if value is None else [name for name, _ in items].index(value)

    return {"prompt": prompt, "choose": choose}, asked


def test_an_endpoint_keeps_its_key_in_dotenv_and_only_the_name_in_the_settings(hermes_runtime, hermes_home: HermesPaths, monkeypatch):
    monkeypatch.delenv("MY_DIGEST_KEY", raising=False)
    wizard, asked = scripted({
        "Digest model": "endpoint", "Digest endpoint base URL": "http://127.0.0.1:9/v1", "Digest model name": "small",
        "Environment variable": "MY_DIGEST_KEY", "The endpoint's API key": "sk-secret-123",
    })
    config = yaml.safe_load(hermes_home.config_yaml.read_text())
    assert run_setup(str(hermes_home.home), config, **wizard, out=lambda _: None) is not None
    text = hermes_home.settings_path.read_text()
    assert "sk-secret-123" not in text
    assert "MY_DIGEST_KEY=sk-secret-123" in (hermes_home.home / ".env").read_text().splitlines()
    settings = ProviderSettings.load(hermes_home.settings_path)
    assert (settings.model.base_url, settings.model.name, settings.model.api_key_env) == ("http://127.0.0.1:9/v1", "small", "MY_DIGEST_KEY")
    assert digest_config(settings, {"MY_DIGEST_KEY": "sk-secret-123"}).api_key == "sk-secret-123"
    assert any(label.startswith("The endpoint's API key") for label in asked)


def test_a_refused_answer_writes_nothing(hermes_runtime, hermes_home: HermesPaths):
    before = hermes_home.settings_path.read_text()
    config_before = hermes_home.config_yaml.read_text()
    left = {"prompt": lambda label, default=None, secret=False: default or "", "choose": lambda title, items, default: CANCELLED}
    assert run_setup(str(hermes_home.home), {}, **left, out=lambda _: None) is None  # Esc in a picker
    wizard, _ = scripted({"Digest model": "endpoint", "Digest endpoint base URL": "", "Digest model name": "small"})
    assert run_setup(str(hermes_home.home), {}, **wizard, out=lambda _: None) is None
    wizard, _ = scripted({"Keep conversation turns": "forever"})
    assert run_setup(str(hermes_home.home), {}, **wizard, out=lambda _: None) is None
    assert hermes_home.settings_path.read_text() == before and hermes_home.config_yaml.read_text() == config_before


@pytest.mark.parametrize("values, field", [
    ({"digest_model": "gpt"}, "digest_model"),
    ({"policy": "sometimes"}, "digest.policy"),
    ({"recall_configuration": "nonesuch"}, "recall_configuration"),
    ({"exclude_chats": "a\nb"}, "exclude.chats[0]"),
])
def test_save_config_refuses_bad_values_naming_the_field(tmp_path, values, field):
    with pytest.raises(ValidationError) as caught:
        FactledgerMemoryProvider().save_config(values, str(tmp_path))
    assert caught.value.field == field
    assert not HermesPaths(tmp_path).settings_path.exists()


def test_save_config_keeps_what_the_wizard_does_not_ask_about(tmp_path):
    data = settings_mapping({"policy": "strict"}, {"digest": {"batch_size": 4}, "journal": {"assistant_name": "Ada"}})
    assert data["digest"]["batch_size"] == 4 and data["journal"]["assistant_name"] == "Ada" and data["digest"]["policy"] == "strict"


def test_the_wizard_default_is_the_settings_default_and_words_yaml_would_misread_are_quoted(hermes_runtime, hermes_home: HermesPaths):
    from factledger.hermes_plugin.setup import CONFIG_FIELDS, DEFAULT_DIGEST_CHOICE

    hermes_home.settings_path.unlink()
    wizard, _ = scripted({"Platforms kept out": "no, discord", "Chat ids kept out": "-100, on"})
    answers = run_setup(str(hermes_home.home), {}, **wizard, out=lambda _: None)
    assert answers is not None and answers["digest_model"] == DEFAULT_DIGEST_CHOICE == "rules"
    assert CONFIG_FIELDS[0]["default"] == DEFAULT_DIGEST_CHOICE
    assert choice_order("digest_model", None) == ["rules", "endpoint", "hermes"]  # no profile model: the default first
    settings = ProviderSettings.load(hermes_home.settings_path)
    assert settings == ProviderSettings(excluded_platforms=("no", "discord"), excluded_chats=("-100", "on"))
    text = hermes_home.settings_path.read_text()
    assert "platforms: ['no', discord]" in text and "chats: ['-100', 'on']" in text
    assert text.count("#") >= DEFAULT_SETTINGS_TEXT.count("#")  # a fresh file is the commented default one
