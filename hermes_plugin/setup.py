"""`hermes memory setup factledger`: the fields Hermes asks for, how the answers become factledger's
settings file, and the Hermes profile's own model as the digest's default.

Secrets follow the bundled providers' rule: a key the user types goes to `$HERMES_HOME/.env` (through
Hermes's own writer), and factledger's config.yaml keeps only the NAME of the variable (`api_key_env`).
The profile's model is never copied at all: `digest.model.from_hermes` makes each session resolve it,
credentials included, through Hermes's runtime provider resolution.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from factledger.ledger import ValidationError

from .paths import PROVIDER_NAME, HermesPaths
from .settings import DEFAULT_SETTINGS_TEXT, ProviderSettings

DIGEST_CHOICES = ("hermes", "endpoint", "rules")
DEFAULT_KEY_ENV = "FACTLEDGER_DIGEST_API_KEY"

CONFIG_FIELDS: list[dict[str, Any]] = [
    {"key": "digest_model", "choices": list(DIGEST_CHOICES), "default": "hermes",
     "description": "Digest model: 'hermes' (this profile's own model), 'endpoint' (another OpenAI-compatible "
                    "server), 'rules' (offline rules extractor, nothing leaves the machine)"},
    {"key": "model_base_url", "description": "Digest endpoint base URL (e.g. http://127.0.0.1:8080/v1)",
     "when": {"digest_model": "endpoint"}},
    {"key": "model_name", "description": "Digest model name", "when": {"digest_model": "endpoint"}},
    {"key": "model_api_key_env", "default": DEFAULT_KEY_ENV, "when": {"digest_model": "endpoint"},
     "description": "Environment variable that holds the endpoint's key"},
    {"key": "model_api_key", "secret": True, "env_var": DEFAULT_KEY_ENV, "when": {"digest_model": "endpoint"},
     "description": "The endpoint's API key (saved to .env; blank for none)"},
    {"key": "policy", "choices": ["auto", "strict"], "default": "auto",
     "description": "Digest policy: 'auto' applies grounded facts, 'strict' holds every fact for review"},
    {"key": "recall_configuration", "default": "",
     "description": "Named recall configuration (blank for the default)"},
    {"key": "retention_days", "default": "0",
     "description": "Keep conversation turns this many days (0 keeps them)"},
    {"key": "exclude_platforms", "default": "",
     "description": "Platforms kept out of memory, comma-separated (e.g. discord)"},
    {"key": "exclude_chats", "default": "",
     "description": "Chat ids kept out of memory, comma-separated (platform:chat_id for one platform)"},
]


@dataclass(frozen=True)
class HostModel:
    """The Hermes profile's model as its runtime resolves it (the key stays in memory only)."""

    base_url: str
    name: str
    api_key: str


def hermes_profile_model() -> HostModel | None:
    """The model this Hermes profile chats with, through Hermes's own configuration and credential
    resolution; None when there is none, or it does not speak the OpenAI chat API the digest uses."""
    try:
        from hermes_cli.config import load_config
        from hermes_cli.runtime_provider import resolve_runtime_provider

        model = load_config().get("model")
        name = (model.get("default") or model.get("model") or "") if isinstance(model, dict) else str(model or "")
        if not str(name).strip():
            return None
        runtime = resolve_runtime_provider()
    except Exception:  # no Hermes, or its configuration names no usable provider: the rules extractor
        return None
    base_url = str(runtime.get("base_url") or "").strip()
    if not base_url or runtime.get("api_mode", "chat_completions") != "chat_completions":
        return None
    return HostModel(base_url=base_url, name=str(name).strip(), api_key=str(runtime.get("api_key") or ""))


def _items(text: Any, field: str) -> list[str]:
    if isinstance(text, (list, tuple)):
        return [str(t).strip() for t in text if str(t).strip()]
    if not isinstance(text, str):
        raise ValidationError("must be comma-separated text", field=field)
    return [t.strip() for t in text.split(",") if t.strip()]


def settings_mapping(values: Mapping[str, Any], existing: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The settings file's content for the wizard's answers, over what the file held (unknown keys and
    sections the wizard does not ask about are kept). Raises ValidationError naming the bad field."""
    data: dict[str, Any] = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in (existing or {}).items()}
    digest = data.setdefault("digest", {})
    model = dict(digest.get("model") or {})
    choice = str(values.get("digest_model") or "").strip()
    if choice:
        if choice not in DIGEST_CHOICES:
            raise ValidationError(f"{choice!r} is not one of {', '.join(DIGEST_CHOICES)}", field="digest_model")
        if choice == "endpoint":
            model = {"base_url": str(values.get("model_base_url") or "").strip(),
                     "name": str(values.get("model_name") or "").strip(),
                     "api_key_env": str(values.get("model_api_key_env") or "").strip(), "from_hermes": False}
            for key, field in (("base_url", "model_base_url"), ("name", "model_name")):
                if not model[key]:
                    raise ValidationError("an endpoint needs a base URL and a model name", field=field)
        else:
            model = {"base_url": "", "name": "", "api_key_env": "", "from_hermes": choice == "hermes"}
    digest["model"] = model
    if values.get("policy"):
        digest["policy"] = str(values["policy"]).strip()
    if "recall_configuration" in values:
        data.setdefault("recall", {})["configuration"] = str(values["recall_configuration"] or "").strip()
    if str(values.get("retention_days") or "").strip():
        text = str(values["retention_days"]).strip()
        try:
            days = float(text)
        except ValueError:
            raise ValidationError(f"{text!r} is not a number of days", field="retention_days") from None
        data.setdefault("journal", {})["retention_days"] = int(days) if days == int(days) else days
    exclude = data.setdefault("exclude", {})
    for key in ("platforms", "chats"):
        if f"exclude_{key}" in values:
            exclude[key] = _items(values[f"exclude_{key}"] or "", f"exclude_{key}")
    settings = ProviderSettings.from_mapping(data, source="the setup answers")  # refuse before writing
    if settings.recall_configuration:
        _check_recall_configuration(settings.recall_configuration)
    return data


def _check_recall_configuration(name: str) -> None:
    from factledger.recall import RecallConfig

    try:
        RecallConfig.preset(name)
    except Exception as exc:
        raise ValidationError(str(exc), field="recall_configuration") from None


def _existing(path: Path) -> dict[str, Any]:
    """What the settings file holds (a file that does not parse is replaced: the user is re-running setup)."""
    try:
        data = yaml.safe_load(path.read_text("utf-8")) if path.exists() else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    return dict(data) if isinstance(data, Mapping) else {}


def write_settings(values: Mapping[str, Any], hermes_home: str | Path) -> Path:
    """Write factledger's settings file for the answers; the key itself never goes in it."""
    from .install import _write_atomic

    paths = HermesPaths(Path(hermes_home))
    data = settings_mapping(values, _existing(paths.settings_path))
    header = DEFAULT_SETTINGS_TEXT.splitlines()[0] + "\n# Written by `hermes memory setup factledger`.\n"
    _write_atomic(paths.settings_path, header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return paths.settings_path


def run_setup(hermes_home: str, config: dict[str, Any], *, prompt: Callable[..., str] | None = None,
              out: Callable[[str], None] = print) -> dict[str, Any] | None:
    """The interactive wizard (Hermes's `post_setup`): one prompt per field, in order, with the current
    value as the default; then factledger's settings file, the activation in Hermes's config.yaml and
    the typed key in .env. Returns the answers, or None when an answer was refused (nothing written)."""
    from hermes_cli.config import save_config
    from hermes_cli.memory_setup import _prompt, _write_env_vars

    ask = prompt or _prompt
    paths = HermesPaths(Path(hermes_home))
    current = ProviderSettings.load(paths.settings_path) if paths.settings_path.exists() else ProviderSettings()
    defaults = _current_answers(current)
    host = hermes_profile_model()
    if host is None and current == ProviderSettings():
        defaults["digest_model"] = "rules"
    out(f"\n  Configuring {PROVIDER_NAME} (settings: {paths.settings_path})\n")
    out(f"  This profile's model: {host.name + ' at ' + host.base_url if host else 'none usable (the rules extractor is used)'}")
    answers: dict[str, Any] = {}
    secrets: dict[str, str] = {}
    for field in CONFIG_FIELDS:
        when = field.get("when") or {}
        if any(answers.get(k) != v for k, v in when.items()):
            continue
        key = field["key"]
        label = field["description"]
        if field.get("choices"):
            label += f" ({'/'.join(field['choices'])})"
        if field.get("secret"):
            env_var = answers.get("model_api_key_env") or field["env_var"]
            present = os.environ.get(env_var, "")
            value = ask(f"{label} [{env_var}{', set; blank keeps it' if present else ''}]", secret=True)
            if value:
                secrets[env_var] = value
            continue
        value = ask(label, default=str(defaults.get(key, field.get("default", "")) or "") or None)
        if field.get("choices") and value not in field["choices"]:
            out(f"\n  {key}: {value!r} is not one of {', '.join(field['choices'])}; nothing saved.\n")
            return None
        answers[key] = value
    try:
        write_settings(answers, hermes_home)
    except ValidationError as exc:
        out(f"\n  {exc.field}: {exc}; nothing saved.\n")
        return None
    if not isinstance(config.get("memory"), dict):
        config["memory"] = {}
    config["memory"]["provider"] = PROVIDER_NAME
    save_config(config)
    if secrets:
        _write_env_vars(Path(hermes_home) / ".env", secrets)
    out(f"\n  Memory provider: {PROVIDER_NAME}\n  Activation saved to config.yaml\n  Settings saved to {paths.settings_path}")
    if secrets:
        out("  API key saved to .env")
    out("\n  Start a new session to activate.\n")
    return answers


def _current_answers(settings: ProviderSettings) -> dict[str, Any]:
    """The wizard's defaults: what the settings file holds now (a fresh home: this profile's model)."""
    model = settings.model
    choice = "hermes" if model.from_hermes else "endpoint" if model.configured else "rules"
    if settings == ProviderSettings():
        choice = "hermes"
    return {
        "digest_model": choice,
        "model_base_url": model.base_url,
        "model_name": model.name,
        "model_api_key_env": model.api_key_env or DEFAULT_KEY_ENV,
        "policy": settings.policy,
        "recall_configuration": settings.recall_configuration,
        "retention_days": f"{settings.retention_days:g}",
        "exclude_platforms": ", ".join(settings.excluded_platforms),
        "exclude_chats": ", ".join(settings.excluded_chats),
    }
