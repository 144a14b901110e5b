"""The provider's settings: $HERMES_HOME/factledger/config.yaml, read when a session starts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from factledger.ledger import ValidationError

DEFAULT_SETTINGS_TEXT = """\
# factledger settings for the Hermes memory provider (read when a Hermes session starts).
digest:
  policy: auto            # auto: apply grounded facts now; strict: hold every digested fact for review
  batch_size: 16          # journal entries the background worker digests per run
  max_delay_seconds: 20   # pending turns are digested at least this often
  model:                  # leave empty to use the offline rules extractor (no key, nothing leaves the machine)
    base_url: ""          # any OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1
    name: ""
    api_key_env: ""       # the NAME of the environment variable holding the key (never the key itself)
recall:
  configuration: ""       # a named recall configuration; empty for the default
journal:
  assistant_name: ""      # how the assistant's turns are labelled in recalled excerpts; empty: "assistant"
  retention_days: 0       # keep conversation turns (episodes) this many days after they were said; 0: keep them
"""


@dataclass(frozen=True)
class ModelSettings:
    base_url: str = ""
    name: str = ""
    api_key_env: str = ""

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.name)

    def api_key(self, environ: Mapping[str, str]) -> str:
        return environ.get(self.api_key_env, "") if self.api_key_env else ""


@dataclass(frozen=True)
class ProviderSettings:
    policy: str = "auto"
    batch_size: int = 16
    max_delay_seconds: float = 20.0
    model: ModelSettings = field(default_factory=ModelSettings)
    recall_configuration: str = ""
    assistant_name: str = ""
    retention_days: float = 0.0

    @classmethod
    def load(cls, path: Path) -> "ProviderSettings":
        """Defaults when the file is missing; a clear error naming the key when it is malformed."""
        if not path.exists():
            return cls()
        try:
            data = yaml.safe_load(path.read_text("utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise ValidationError(f"cannot read {path}: {exc}", field="settings") from None
        return cls.from_mapping(data, source=str(path))

    @classmethod
    def from_mapping(cls, data: Any, *, source: str = "settings") -> "ProviderSettings":
        if not isinstance(data, Mapping):
            raise ValidationError(f"{source} must be a mapping", field="settings")
        digest = _section(data, "digest")
        model = _section(digest, "model", prefix="digest.")
        recall = _section(data, "recall")
        journal = _section(data, "journal")
        assistant_name = journal.get("assistant_name") or ""
        if not isinstance(assistant_name, str):
            raise ValidationError("must be text", field="journal.assistant_name")
        retention = journal.get("retention_days", 0) or 0
        if isinstance(retention, bool) or not isinstance(retention, (int, float)) or retention < 0:
            raise ValidationError(f"{retention!r} is not a number of days (0 keeps every turn)", field="journal.retention_days")
        policy = str(digest.get("policy", "auto") or "auto")
        if policy not in ("auto", "strict"):
            raise ValidationError(f"{policy!r} is not 'auto' or 'strict'", field="digest.policy")
        batch_size = _number(digest, "batch_size", 16, int, "digest.batch_size")
        max_delay = _number(digest, "max_delay_seconds", 20.0, float, "digest.max_delay_seconds")
        return cls(
            policy=policy,
            batch_size=batch_size,
            max_delay_seconds=max_delay,
            model=ModelSettings(
                base_url=str(model.get("base_url") or ""),
                name=str(model.get("name") or ""),
                api_key_env=str(model.get("api_key_env") or ""),
            ),
            recall_configuration=str(recall.get("configuration") or ""),
            assistant_name=assistant_name.strip(),
            retention_days=float(retention),
        )


def _section(data: Mapping[str, Any], name: str, *, prefix: str = "") -> Mapping[str, Any]:
    value = data.get(name)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValidationError("must be a mapping", field=prefix + name)
    return value


def _number(data: Mapping[str, Any], name: str, default: Any, kind: type, field_name: str) -> Any:
    value = data.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValidationError(f"{value!r} is not a positive number", field=field_name)
    return kind(value)
