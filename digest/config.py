"""Digest settings: typed, built from explicit values or from the environment at run time (never at
import time)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from factledger.ledger import ValidationError

Policy = Literal["auto", "strict"]
POLICIES = ("auto", "strict")

# Environment variables read by DigestConfig.from_env (documented in docs/review.md).
ENV_BASE_URL = "FACTLEDGER_DIGEST_BASE_URL"
ENV_MODEL = "FACTLEDGER_DIGEST_MODEL"
ENV_API_KEY = "FACTLEDGER_DIGEST_API_KEY"
ENV_POLICY = "FACTLEDGER_DIGEST_POLICY"
ENV_TIMEOUT = "FACTLEDGER_DIGEST_TIMEOUT"
ENV_RETRY_BACKOFF = "FACTLEDGER_DIGEST_RETRY_BACKOFF"


def check_policy(policy: object) -> Policy:
    if policy not in POLICIES:
        raise ValidationError(f"{policy!r} is not a policy; use 'auto' or 'strict'", field="policy")
    return policy  # type: ignore[return-value]


@dataclass(frozen=True)
class DigestConfig:
    """Which extractor to use and how to reach its model. No model: the offline rules extractor."""

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    policy: Policy = "auto"
    timeout: float = 60.0  # seconds per model request
    transient_retries: int = 2  # extra attempts after a timeout, connection error, 429 or 5xx
    validation_retries: int = 2  # extra attempts (instructor re-asks) after output fails validation
    retry_backoff: float = 1.0  # seconds before the first transient retry, doubled each time
    context_turns: int = 6  # earlier turns of the session shown to the model
    window_turns: int = 10  # turns of one session the model reads (and digests) per call
    window_chars: int = 6000  # and at most this many characters of their text

    def __post_init__(self) -> None:
        check_policy(self.policy)
        if self.model is not None and not self.model.strip():
            raise ValidationError("must not be empty", field="model")
        if self.timeout <= 0:
            raise ValidationError("must be positive", field="timeout")
        if self.retry_backoff < 0:
            raise ValidationError("must not be negative", field="retry_backoff")
        for name in ("transient_retries", "validation_retries", "context_turns"):
            if getattr(self, name) < 0:
                raise ValidationError("must not be negative", field=name)
        for name in ("window_turns", "window_chars"):
            if getattr(self, name) < 1:
                raise ValidationError("must be at least 1", field=name)

    @property
    def uses_model(self) -> bool:
        return bool(self.model)

    @classmethod
    def from_env(cls, environ: Mapping[str, str], **overrides: object) -> "DigestConfig":
        """Settings from environment variables (FACTLEDGER_DIGEST_*; OPENAI_BASE_URL / OPENAI_API_KEY as
        fallbacks for the endpoint), with explicit overrides winning when not None."""
        values: dict[str, object] = {
            "base_url": environ.get(ENV_BASE_URL) or environ.get("OPENAI_BASE_URL") or None,
            "model": environ.get(ENV_MODEL) or None,
            "api_key": environ.get(ENV_API_KEY) or environ.get("OPENAI_API_KEY") or None,
            "policy": environ.get(ENV_POLICY) or "auto",
        }
        for name, attribute in ((ENV_TIMEOUT, "timeout"), (ENV_RETRY_BACKOFF, "retry_backoff")):
            if environ.get(name):
                try:
                    values[attribute] = float(environ[name])
                except ValueError:
                    raise ValidationError(f"{environ[name]!r} is not a number of seconds", field=name) from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
