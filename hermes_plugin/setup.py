"""`hermes memory setup factledger`: the fields Hermes asks for, how the answers become factledger's
settings file, and the Hermes profile's own model as the digest's default.

Secrets follow the bundled providers' rule: a key the user types goes to `$HERMES_HOME/.env` (through
Hermes's own writer), and factledger's config.yaml keeps only the NAME of the variable (`api_key_env`).
The profile's model is never copied at all: `digest.model.from_hermes` makes each session resolve it,
credentials included, through Hermes's runtime provider resolution.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from factledger.ledger import ValidationError

from .paths import PROVIDER_NAME, HermesPaths
from .settings import DEFAULT_SETTINGS_TEXT, ProviderSettings, read_settings_text

DIGEST_CHOICES = ("hermes", "endpoint", "rules")
# The one default, as the settings file states it (`digest.model` empty, from_hermes false) and status
# shows it: the offline rules extractor. The wizard offers the profile's own model first, with its cost.
DEFAULT_DIGEST_CHOICE = "rules"
DIGEST_COST = "up to one model call per turn said, in the background (fewer when turns are batched)"
DEFAULT_KEY_ENV = "FACTLEDGER_DIGEST_API_KEY"

CONFIG_FIELDS: list[dict[str, Any]] = [
    {"key": "digest_model", "choices": list(DIGEST_CHOICES), "default": DEFAULT_DIGEST_CHOICE,
     "description": "Digest model: 'hermes' (this profile's own model: " + DIGEST_COST + "), 'endpoint' (another "
                    "OpenAI-compatible server, the same cost), 'rules' (the default: offline rules extractor, no "
                    "calls, nothing leaves the machine)"},
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


# What each choice means, shown beside it in Hermes's picker (the descriptions above say it for Hermes's
# generic path, which shows choices bare).
CHOICE_HELP: dict[str, dict[str, str]] = {
    "digest_model": {
        "hermes": "this profile's own model: " + DIGEST_COST,
        "endpoint": "another OpenAI-compatible server: the same cost, its key kept in .env",
        "rules": "the default: the offline rules extractor, no model calls, nothing leaves the machine",
    },
    "policy": {"auto": "apply grounded facts now", "strict": "hold every digested fact for review"},
}
CANCELLED = -1  # what a picker returns when the operator leaves it (Esc, q)


def choice_order(key: str, host: "HostModel | None") -> list[str]:
    """The choices in the order the picker offers them: for the digest model, the profile's own model
    first when it has one the digest can use, else the rules first (and 'hermes' last)."""
    field = next(f for f in CONFIG_FIELDS if f["key"] == key)
    choices = list(field["choices"])
    if key == "digest_model":
        first = "hermes" if host is not None else DEFAULT_DIGEST_CHOICE
        choices.sort(key=lambda c: (c != first, c == "hermes"))
    return choices


def _hermes_picker(title: str, items: list[tuple[str, str]], default: int) -> int:
    """Hermes's own picker (arrow keys), as its generic setup uses for choice fields."""
    from hermes_cli.memory_setup import _curses_select

    return _curses_select(title, items, default=default, cancel_returns=CANCELLED)


def _typed_choice(ask: Callable[..., str], out: Callable[[str], None]) -> Callable[[str, list[tuple[str, str]], int], int]:
    """Off a terminal Hermes's picker returns 'cancelled' at once (it never reads a pipe), so a scripted
    setup types the choice's name instead: each choice is listed with what it means, in the same order."""

    def choose(title: str, items: list[tuple[str, str]], default: int) -> int:
        out(f"\n  {title}:")
        for name, meaning in items:
            out(f"    {name} - {meaning}" if meaning else f"    {name}")
        names = [name for name, _ in items]
        value = ask(f"{title} ({'/'.join(names)})", default=names[default])
        if value not in names:
            out(f"\n  {value!r} is not one of {', '.join(names)}.")
            return CANCELLED
        return names.index(value)

    return choose


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


def _child(data: MutableMapping[str, Any], key: str) -> MutableMapping[str, Any]:
    """The section `key` of `data`, made (as the same kind of mapping) when absent or not a mapping."""
    value = data.get(key)
    if not isinstance(value, MutableMapping):
        value = type(data)()
        data[key] = value
    return value


def _set(data: MutableMapping[str, Any], key: str, value: Any) -> None:
    """Set one value, leaving the key (and the comment beside it) in place when it is already there."""
    if data.get(key) != value or type(data.get(key)) is not type(value):
        data[key] = value


def apply_answers(values: Mapping[str, Any], data: MutableMapping[str, Any], *, text: Callable[[str], Any] = str,
                  items: Callable[[list[str]], Any] = list) -> None:
    """Change `data` (the settings file's content) in place for the wizard's answers; keys and sections
    the wizard does not ask about are left as they are. `text`/`items` build the values written (the
    round-trip writer quotes words YAML would read otherwise). Raises ValidationError naming the field."""
    digest = _child(data, "digest")
    choice = str(values.get("digest_model") or "").strip()
    if choice:
        if choice not in DIGEST_CHOICES:
            raise ValidationError(f"{choice!r} is not one of {', '.join(DIGEST_CHOICES)}", field="digest_model")
        model = _child(digest, "model")
        if choice == "endpoint":
            answers = {"base_url": str(values.get("model_base_url") or "").strip(),
                       "name": str(values.get("model_name") or "").strip(),
                       "api_key_env": str(values.get("model_api_key_env") or "").strip()}
            for key, field in (("base_url", "model_base_url"), ("name", "model_name")):
                if not answers[key]:
                    raise ValidationError("an endpoint needs a base URL and a model name", field=field)
        else:
            answers = {"base_url": "", "name": "", "api_key_env": ""}
        for key, value in answers.items():
            _set(model, key, text(value))
        _set(model, "from_hermes", choice == "hermes")
    if values.get("policy"):
        _set(digest, "policy", text(str(values["policy"]).strip()))
    if "recall_configuration" in values:
        _set(_child(data, "recall"), "configuration", text(str(values["recall_configuration"] or "").strip()))
    if str(values.get("retention_days") or "").strip():
        written = str(values["retention_days"]).strip()
        try:
            days = float(written)
        except ValueError:
            raise ValidationError(f"{written!r} is not a number of days", field="retention_days") from None
        _set(_child(data, "journal"), "retention_days", int(days) if days == int(days) else days)
    for key in ("platforms", "chats"):
        if f"exclude_{key}" in values:
            chosen = _items(values[f"exclude_{key}"] or "", f"exclude_{key}")
            exclude = _child(data, "exclude")
            if list(exclude.get(key) or []) != chosen:
                exclude[key] = items([text(c) for c in chosen])


def _validate(data: Any, source: str) -> ProviderSettings:
    settings = ProviderSettings.from_mapping(data, source=source)
    if settings.recall_configuration:
        _check_recall_configuration(settings.recall_configuration)
    return settings


def _check_recall_configuration(name: str) -> None:
    from factledger.recall import RecallConfig

    try:
        RecallConfig.preset(name)
    except Exception as exc:
        raise ValidationError(str(exc), field="recall_configuration") from None


def settings_mapping(values: Mapping[str, Any], existing: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The settings' content for the wizard's answers over what the file held, as plain data.
    Raises ValidationError naming the bad field."""
    data: dict[str, Any] = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in (existing or {}).items()}
    apply_answers(values, data)
    _validate(data, "the setup answers")  # refuse before writing
    return data


def _round_trip() -> Any:
    from ruamel.yaml import YAML  # hermes-agent 0.19.0 pins ruamel.yaml too: it is in Hermes's environment

    rt = YAML()  # round-trip mode: comments, key order and quoting are kept
    rt.preserve_quotes = True
    rt.width = 4096  # never re-wrap a long value
    return rt


def _quoted(value: str) -> Any:
    """The string as written to the file: quoted when PyYAML (which reads the file, YAML 1.1) would read
    the bare word as something else (`no` as false, `-100` as a number, `a: b` as a mapping)."""
    from ruamel.yaml.scalarstring import SingleQuotedScalarString

    try:
        plain = yaml.safe_load(value) == value
    except yaml.YAMLError:
        plain = False
    return value if plain and value else SingleQuotedScalarString(value) if value else value


def _flow(values: list[str]) -> Any:
    from ruamel.yaml.comments import CommentedSeq

    seq = CommentedSeq(values)
    seq.fa.set_flow_style()
    return seq


def settings_text(values: Mapping[str, Any], current: str | None) -> str:
    """The settings file's new text: the current text (the default file when there is none, or it does
    not parse) with the answers changed in place, so the operator's comments and order stay. The result
    is read back the way the provider reads it, and refused if that differs from the answers."""
    import io

    rt = _round_trip()
    doc = None
    if current is not None:
        try:
            doc = rt.load(current)
        except Exception:  # the user is re-running setup over a file that does not parse: start again
            doc = None
    if not isinstance(doc, MutableMapping):
        doc = rt.load(DEFAULT_SETTINGS_TEXT)
    apply_answers(values, doc, text=_quoted, items=_flow)
    out = io.StringIO()
    rt.dump(doc, out)
    written = out.getvalue()
    plain: dict[str, Any] = {}
    apply_answers(values, plain)
    settings = _validate(read_settings_text(written, "the setup answers") or {}, "the setup answers")
    for name, wanted in _answer_fields(plain).items():
        if _answer_fields_of(settings).get(name) != wanted:  # the file would read differently: never write it
            raise ValidationError(f"would be read back as {_answer_fields_of(settings).get(name)!r}, not {wanted!r}",
                                  field=name)
    return written


def _answer_fields(plain: Mapping[str, Any]) -> dict[str, Any]:
    """What the wizard set, by settings key (from `apply_answers` over an empty mapping)."""
    fields: dict[str, Any] = {}
    model = (plain.get("digest") or {}).get("model") or {}
    for key in ("base_url", "name", "api_key_env", "from_hermes"):
        if key in model:
            fields[f"digest.model.{key}"] = model[key]
    for section, key in (("digest", "policy"), ("recall", "configuration"), ("journal", "retention_days")):
        if key in (plain.get(section) or {}):
            fields[f"{section}.{key}"] = plain[section][key]
    for key in ("platforms", "chats"):
        if key in (plain.get("exclude") or {}):
            chosen = [str(c).lower() if key == "platforms" else c for c in plain["exclude"][key]]
            fields[f"exclude.{key}"] = tuple(dict.fromkeys(chosen))
    return fields


def _answer_fields_of(settings: ProviderSettings) -> dict[str, Any]:
    m = settings.model
    return {"digest.model.base_url": m.base_url, "digest.model.name": m.name, "digest.model.api_key_env": m.api_key_env,
            "digest.model.from_hermes": m.from_hermes, "digest.policy": settings.policy,
            "recall.configuration": settings.recall_configuration, "journal.retention_days": settings.retention_days,
            "exclude.platforms": settings.excluded_platforms,
            "exclude.chats": settings.excluded_chats}


def write_settings(values: Mapping[str, Any], hermes_home: str | Path) -> Path:
    """Write factledger's settings file for the answers, changing only the values answered (comments,
    key order and every other key stay as the operator wrote them); the key itself never goes in it."""
    from .install import _write_atomic

    paths = HermesPaths(Path(hermes_home))
    try:
        current = paths.settings_path.read_text("utf-8") if paths.settings_path.exists() else None
    except (OSError, UnicodeDecodeError):
        current = None
    _write_atomic(paths.settings_path, settings_text(values, current))
    return paths.settings_path


def run_setup(hermes_home: str, config: dict[str, Any], *, prompt: Callable[..., str] | None = None,
              choose: Callable[[str, list[tuple[str, str]], int], int] | None = None,
              out: Callable[[str], None] = print) -> dict[str, Any] | None:
    """The interactive wizard (Hermes's `post_setup`): a field with choices in Hermes's picker (each
    choice with what it means, the current value selected), the others as prompts with the current value
    as the default; then factledger's settings file, the activation in Hermes's config.yaml and the
    typed key in .env. Returns the answers, or None when an answer was refused or the operator left a
    picker (nothing written)."""
    from hermes_cli.config import save_config
    from hermes_cli.memory_setup import _prompt, _write_env_vars

    ask = prompt or _prompt
    pick = choose or (_hermes_picker if sys.stdin.isatty() else _typed_choice(ask, out))
    paths = HermesPaths(Path(hermes_home))
    current = ProviderSettings.load(paths.settings_path) if paths.settings_path.exists() else ProviderSettings()
    defaults = _current_answers(current)
    host = hermes_profile_model()
    out(f"\n  Configuring {PROVIDER_NAME} (settings: {paths.settings_path})\n")
    if host is not None:
        out(f"  This profile's model: {host.name} at {host.base_url}; choose 'hermes' to digest with it ({DIGEST_COST})")
    else:
        out("  This profile has no model the digest can use: 'rules' (offline) or 'endpoint'")
    answers: dict[str, Any] = {}
    secrets: dict[str, str] = {}
    for field in CONFIG_FIELDS:
        when = field.get("when") or {}
        if any(answers.get(k) != v for k, v in when.items()):
            continue
        key = field["key"]
        label = field["description"]
        if field.get("secret"):
            env_var = answers.get("model_api_key_env") or field["env_var"]
            present = os.environ.get(env_var, "")
            value = ask(f"{label} [{env_var}{', set; blank keeps it' if present else ''}]", secret=True)
            if value:
                secrets[env_var] = value
            continue
        current_value = str(defaults.get(key, field.get("default", "")) or "")
        if field.get("choices"):
            choices = choice_order(key, host)
            help_ = CHOICE_HELP.get(key, {})
            items = [(c, help_.get(c, "")) for c in choices]
            if key == "digest_model" and host is not None:
                items[choices.index("hermes")] = ("hermes", f"this profile's own model, {host.name}: {DIGEST_COST}")
            index = pick(field["description"].split(":")[0], items,
                         choices.index(current_value) if current_value in choices else 0)
            if not 0 <= index < len(choices):
                out(f"\n  {key}: no choice made; nothing saved.\n")  # Esc in the picker, or a typed non-choice
                return None
            answers[key] = choices[index]
            continue
        answers[key] = ask(label, default=current_value or None)
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
    """The wizard's defaults: what the settings file holds now (a fresh home: the rules extractor)."""
    model = settings.model
    choice = "hermes" if model.from_hermes else "endpoint" if model.configured else DEFAULT_DIGEST_CHOICE
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
