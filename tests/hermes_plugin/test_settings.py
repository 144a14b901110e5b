"""The provider's settings file: defaults, the model section, clear errors naming the key."""

from __future__ import annotations

import pytest

from factledger.hermes_plugin.memory import digest_config
from factledger.hermes_plugin.settings import DEFAULT_SETTINGS_TEXT, ProviderSettings
from factledger.ledger import ValidationError


def test_the_default_file_means_the_defaults(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(DEFAULT_SETTINGS_TEXT)
    assert ProviderSettings.load(path) == ProviderSettings() == ProviderSettings.load(tmp_path / "missing.yaml")
    config = digest_config(ProviderSettings(), {"OPENAI_API_KEY": "sk-x"})  # a key alone names no model
    assert not config.uses_model and config.policy == "auto"


def test_without_a_model_in_the_file_the_digest_variables_apply_but_not_their_policy():
    environ = {"FACTLEDGER_DIGEST_MODEL": "m", "FACTLEDGER_DIGEST_BASE_URL": "http://127.0.0.1:9/v1", "FACTLEDGER_DIGEST_POLICY": "auto"}
    config = digest_config(ProviderSettings(policy="strict"), environ)
    assert (config.model, config.base_url, config.policy) == ("m", "http://127.0.0.1:9/v1", "strict")


def test_a_model_section_reaches_the_digest_with_the_key_from_the_named_variable(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(
        "digest:\n  policy: strict\n  model:\n    base_url: http://127.0.0.1:9/v1\n    name: small\n    api_key_env: MY_KEY\n"
    )
    settings = ProviderSettings.load(path)
    config = digest_config(settings, {"MY_KEY": "sk-local"})
    assert (config.base_url, config.model, config.api_key, config.policy) == ("http://127.0.0.1:9/v1", "small", "sk-local", "strict")


@pytest.mark.parametrize(
    "text, field",
    [
        ("- a list\n", "settings"),
        ("digest: 3\n", "digest"),
        ("digest:\n  policy: lenient\n", "digest.policy"),
        ("digest:\n  batch_size: 0\n", "digest.batch_size"),
        ("digest:\n  max_delay_seconds: soon\n", "digest.max_delay_seconds"),
        ("digest:\n  exit_wait_seconds: -1\n", "digest.exit_wait_seconds"),
        ("digest:\n  exit_wait_seconds: 601\n", "digest.exit_wait_seconds"),
        ("digest:\n  model: [x]\n", "digest.model"),
        ("recall: on\n", "recall"),
        ("digest: {policy: [\n", "settings"),
    ],
)
def test_malformed_settings_name_the_key(tmp_path, text, field):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(ValidationError) as err:
        ProviderSettings.load(path)
    assert err.value.field == field


def test_an_exit_wait_of_zero_is_an_exit_that_waits_for_no_digest(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("digest:\n  exit_wait_seconds: 0\n")
    assert ProviderSettings.load(path).exit_wait_seconds == 0


def test_yaml_boolean_words_as_keys_read_as_written(tmp_path):
    # YAML 1.1 reads a plain `off:` / `on:` as the keys False / True; the settings read them as the words.
    path = tmp_path / "config.yaml"
    path.write_text("recall:\n  group_long_term:\n    default: yes\n    off: [discord, 'telegram:-100']\n    on: [-42]\n")
    settings = ProviderSettings.load(path)
    assert settings.group_long_term_off == ("discord", "telegram:-100") and settings.group_long_term_on == ("-42",)
    assert not settings.recalls_long_term("discord", "-1", "group") and settings.recalls_long_term("discord", "-42", "group")
    assert not settings.recalls_long_term("telegram", "-100", "group")
    assert ProviderSettings.load(path) == ProviderSettings.from_mapping(
        {"recall": {"group_long_term": {"off": ["discord", "telegram:-100"], "on": ["-42"]}}})


@pytest.mark.parametrize(
    "text, field, words",
    [
        ("exclude:\n  platform: [discord]\n", "exclude.platform", "did you mean 'platforms'"),
        ("recall:\n  group_long_term:\n    of: [discord]\n", "recall.group_long_term.of", "did you mean 'off'"),
        ("digest:\n  modle: {}\n", "digest.modle", "did you mean 'model'"),
        ("colour: blue\n", "colour", "known here: database_url"),
        ("exclude:\n  platforms: [no]\n", "exclude.platforms[0]", "YAML boolean"),
        ("digest:\n  policy: auto\n  batch_size: 4\n  policy: strict\n", "policy", "lines 2 and 4"),
    ],
)
def test_a_key_that_would_be_ignored_or_misread_is_an_error_naming_it(tmp_path, text, field, words):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(ValidationError) as err:
        ProviderSettings.load(path)
    assert err.value.field == field and words in str(err.value)
