"""Normalised keys for subjects, predicates and values (NFKC, casefold, trimmed, spaces folded)."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import unicodedata
from functools import lru_cache

from .errors import ValidationError
from .values import invisible_characters, refuse_lone_surrogates

_SPACES = re.compile(r"[\s\u0085\u2028\u2029]+")
_INVISIBLE = invisible_characters()


@lru_cache(maxsize=65536)  # subjects, predicates and values repeat; NFKC and casefold are not free
def normalise(text: str) -> str:
    # Invisible characters go before the key is taken: "Paris\u200b" is "Paris", so a zero-width
    # character cannot slip a value past its tombstone or its rejection.
    return _SPACES.sub(" ", _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).casefold()).strip()


def key(value: object, field: str) -> str:
    """Normalise a required text field, refusing empty or non-text input by name."""
    if type(value) is str:
        return _text_key(value, field)
    if not isinstance(value, str):
        raise ValidationError(f"expected text, got {type(value).__name__}", field=field)
    return _checked_key(value, field)


@lru_cache(maxsize=65536)  # every operation keys its subject and value; a refusal raises, so is not cached
def _text_key(value: str, field: str) -> str:
    return _checked_key(value, field)


def _checked_key(value: str, field: str) -> str:
    normal = normalise(refuse_lone_surrogates(value, field))
    if not normal:
        raise ValidationError("must not be empty", field=field)
    return normal


_PREDICATE_SEPARATORS = re.compile(r"[\s\-]+")


def predicate_key(value: object, field: str = "predicate") -> str:
    """Predicates are identifiers: spaces and dashes become underscores ('lives in' -> 'lives_in')."""
    return _predicate_key(key(value, field))


@lru_cache(maxsize=4096)
def _predicate_key(normal: str) -> str:
    return _PREDICATE_SEPARATORS.sub("_", normal)


def unkeyed_content_hash(scope: str, subject_key: str, predicate: str, value_key: str) -> str:
    """sha256 of the normalised (scope, subject key, predicate key, value key): what tombstones, rejections
    and confirmations were keyed on before migration 0007. Guessable alone; only an input to the keyed hash.

    Scopes are identifiers built by code and compared exactly; the other three are normalised keys.
    """
    payload = json.dumps([scope, subject_key, predicate, value_key], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def keyed_hash(secret: str, text: str) -> str:
    """HMAC-SHA256 of `text` under the ledger's secret (hex). Without the secret a stored hash cannot
    confirm a guessed value."""
    return hmac.new(secret.encode("ascii"), text.encode("utf-8"), hashlib.sha256).hexdigest()


def content_hash(secret: str, scope: str, subject_key: str, predicate: str, value_key: str) -> str:
    """The tombstone / rejection / confirmation key: the keyed hash of the unkeyed content hash, so that
    migration 0007 could re-key rows that kept only the unkeyed hash (a tombstone has no value left)."""
    return keyed_hash(secret, unkeyed_content_hash(scope, subject_key, predicate, value_key))
