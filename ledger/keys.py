"""Normalised keys for subjects, predicates and values (NFKC, casefold, trimmed, spaces folded)."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata

from .errors import ValidationError

_SPACES = re.compile(r"\s+")


def normalise(text: str) -> str:
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def key(value: object, field: str) -> str:
    """Normalise a required text field, refusing empty or non-text input by name."""
    if not isinstance(value, str):
        raise ValidationError(f"expected text, got {type(value).__name__}", field=field)
    normal = normalise(value)
    if not normal:
        raise ValidationError("must not be empty", field=field)
    return normal


def predicate_key(value: object, field: str = "predicate") -> str:
    """Predicates are identifiers: spaces and dashes become underscores ('lives in' -> 'lives_in')."""
    return re.sub(r"[\s\-]+", "_", key(value, field))


def content_hash(scope: str, subject_key: str, predicate: str, value_key: str) -> str:
    """The tombstone / rejection key of (scope, subject key, predicate key, value key).

    Scopes are identifiers built by code and compared exactly; the other three are normalised keys.
    """
    payload = json.dumps([scope, subject_key, predicate, value_key], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
