"""The value policy: what text may enter the store, for every write path (apply, the agent's
remember/forget, the digest, review, the journal). Pure functions; the ledger's write path calls them,
and so do the digest and the journal.

Three kinds of text, each with one rule (docs/ARCHITECTURE.md, "Input stays data", gives the reasons):

- facts (`check_value`): values, subjects, predicates, templates, descriptions, reasons. One line:
  line breaks, tabs and runs of spaces collapse to one space (the normalised key already folds them,
  so this changes no key); invisible format characters (zero-width, bidi controls, tag characters)
  are removed; other control characters and lone surrogates are refused; a value longer than its
  limit is refused (never cut: a cut fact says something else); a credential is refused (a fact whose
  value is the secret cannot be redacted into anything true).
- identifiers (`check_identifier`): scopes, principals, source references. Compared exactly, so never
  altered: any control character, line break or lone surrogate is refused, and so is over-long text.
- conversation (`clean_turn_text`): journal turns. Line breaks are kept; control characters and
  invisible format characters are removed, lone surrogates replaced by U+FFFD: a turn is evidence of
  what was said, and refusing it for a stray escape would lose the conversation. Secrets in turns are
  redacted (digest/sanitise.py, with the shapes below).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .errors import ValidationError
from .model import PRINCIPAL_KINDS

# -- limits (characters, after cleaning) ------------------------------------------------------------

MAX_VALUE_CHARS = 500
MAX_SUBJECT_CHARS = 200
MAX_PREDICATE_CHARS = 100
MAX_SCOPE_CHARS = 1000
MAX_REASON_CHARS = 2000
MAX_TURN_CHARS = 20_000
LIMITS: dict[str, int] = {
    "value": MAX_VALUE_CHARS,
    "replaces": MAX_VALUE_CHARS,
    "subject": MAX_SUBJECT_CHARS,
    "predicate": MAX_PREDICATE_CHARS,
    "template": 300,
    "description": 1000,
    "reason": MAX_REASON_CHARS,
    "scope": MAX_SCOPE_CHARS,
    "principal": 200,
    "source": 500,
    "sources": 500,
    "session": 500,
    "text": MAX_TURN_CHARS,
}

# -- characters -------------------------------------------------------------------------------------

# Line breaks and spaces that fold to one space in a fact: every Unicode line/paragraph separator too.
_FOLD = re.compile(r"[\s\u0085\u2028\u2029]+")
# Control characters that are never text (C0 except tab/LF/CR, DEL, C1 except NEL).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f]")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
# Invisible format characters (Unicode category Cf) removed from stored text, except ZWNJ and ZWJ,
# which Persian, Indic scripts and emoji sequences need. Includes zero-width space, word joiner, BOM,
# soft hyphen, bidi embeddings/overrides/isolates and the tag block ("ASCII smuggling").
_INVISIBLE = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)  # written out (computing it from unicodedata at import costs ~0.3 s); a test compares the two


def invisible_characters() -> re.Pattern[str]:
    """The pattern of invisible format characters the policy removes (shared with the renderer)."""
    return _INVISIBLE


def _name(char: str) -> str:
    return f"U+{ord(char):04X}" + (f" {unicodedata.name(char)}" if unicodedata.name(char, "") else "")


def _refuse_unencodable(text: str, field: str) -> None:
    bad = _LONE_SURROGATE.search(text)
    if bad:
        raise ValidationError(
            f"contains a lone surrogate ({_name(bad.group())} at character {bad.start() + 1}), which is not text",
            field=field,
        )


def _check_length(text: str, field: str, limit: int | None) -> None:
    limit = LIMITS.get(field, MAX_VALUE_CHARS) if limit is None else limit
    if len(text) > limit:
        raise ValidationError(f"is {len(text)} characters long; at most {limit} are stored", field=field)


def _as_text(text: object, field: str) -> str:
    if not isinstance(text, str):
        raise ValidationError(f"expected text, got {type(text).__name__}", field=field)
    return text


def check_value(text: object, field: str = "value", *, limit: int | None = None, secrets: bool = True) -> str:
    """A fact's text as stored: one line, no invisible characters; or a ValidationError naming the
    field (control character, lone surrogate, too long, a credential). May return "" (callers that
    need text refuse that themselves, with their own message)."""
    text = _as_text(text, field)
    _refuse_unencodable(text, field)
    bad = _CONTROL.search(text)
    if bad:
        raise ValidationError(
            f"contains a control character ({_name(bad.group())} at character {bad.start() + 1}); facts are plain text",
            field=field,
        )
    cleaned = _FOLD.sub(" ", _INVISIBLE.sub("", text)).strip()
    _check_length(cleaned, field, limit)
    if secrets:
        kinds = secret_kinds(cleaned)
        if kinds:
            raise ValidationError(
                f"looks like a credential ({', '.join(kinds)}); secrets are never stored", field=field
            )
    return cleaned


def check_identifier(text: object, field: str, *, limit: int | None = None) -> str:
    """An identifier (scope, principal, source reference), unchanged; or a ValidationError naming the
    field when it holds a control character, a line break or a lone surrogate, or is too long."""
    text = _as_text(text, field)
    _refuse_unencodable(text, field)
    bad = _CONTROL.search(text) or re.search(r"[\t\n\r\u0085\u2028\u2029]", text)
    if bad:
        raise ValidationError(
            f"contains a control character or line break ({_name(bad.group())} at character {bad.start() + 1})",
            field=field,
        )
    _check_length(text, field, limit)
    return text


def clean_turn_text(text: object, field: str = "text") -> str:
    """Conversation text as the journal keeps it: line breaks kept (CRLF and separators become LF),
    control and invisible characters removed, lone surrogates replaced by U+FFFD. Length is checked
    by the journal (an over-long turn is refused there, with its reason)."""
    text = _as_text(text, field)
    text = _LONE_SURROGATE.sub("\ufffd", text)
    text = re.sub(r"\r\n?|[\u0085\u2028\u2029]", "\n", text)
    return _INVISIBLE.sub("", _CONTROL.sub("", text))


def refuse_lone_surrogates(text: str, field: str) -> str:
    """For reads: text with a lone surrogate cannot match anything stored (and cannot be encoded)."""
    _refuse_unencodable(text, field)
    return text


# -- secrets ----------------------------------------------------------------------------------------

REDACTED = "[redacted {kind}]"

# Well-known credential shapes: provider prefixes are specific enough to be right when they match.
# Each documented shape has a test on every write path (tests/ledger/test_values_secrets.py).
TOKEN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("api key", re.compile(r"\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_\-]{16,}")),
    ("api key", re.compile(r"\b(?:rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("github token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})")),
    ("slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}")),
    ("aws key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("google api key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")),
    ("huggingface token", re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    ("bearer token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9_\-\.=]{16,}")),
)

# "password is hunter2", "password: hunter2", "api_key=abc123", "my pin is 1234": the value after the cue.
_ASSIGNED_SECRET = re.compile(
    r"(?ix)\b(?P<cue>pass(?:word|wd|phrase)|pwd|pin(?:\s+code)?|api[\s_\-]?key|secret(?:[\s_\-]?key)?|"
    r"access[\s_\-]?token|auth[\s_\-]?token|token|client[\s_\-]?secret)"
    r"(?P<glue>(?:\s+for\s+[\w.\-@ ]{1,40}?)?\s*(?:is|was|=|:)\s*|\s+)"
    r"(?P<value>[\"']?[^\s\"',;]{4,}[\"']?)"
)
PRIVATE_KEY = re.compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----")
# Words after a cue that are not secrets ("the password is wrong", "token is expired").
_NOT_A_SECRET = {
    "wrong", "incorrect", "expired", "invalid", "correct", "required", "missing", "needed", "changed",
    "reset", "strong", "weak", "long", "short", "secret", "safe", "saved", "stored", "there", "here",
    "that", "this", "what", "the", "a", "an", "not", "still", "also", "really", "very", "too", "and",
    "manager", "managers", "field", "fields", "prompt", "protected", "policy", "rules", "rotation",
    # states and places ("my PIN is hidden under the flowerpot", "the password is in the drawer")
    "hidden", "written", "kept", "somewhere", "unknown", "forgotten", "lost", "private", "personal",
    "encrypted", "hashed", "same", "different", "easy", "hard", "simple", "secure", "insecure", "in", "on",
    "under", "at", "my", "your", "his", "her", "our", "their", "its", "for", "from", "with", "without",
}


def redact_secrets(text: str) -> tuple[str, list[str]]:
    """Replace every recognised secret by a marker naming its kind; return the text and the kinds."""
    kinds: list[str] = []

    def token(kind: str):
        def replace(match: re.Match[str]) -> str:
            kinds.append(kind)
            return REDACTED.format(kind=kind)

        return replace

    for kind, pattern in TOKEN_PATTERNS:
        text = pattern.sub(token(kind), text)

    def assigned(match: re.Match[str]) -> str:
        value = match.group("value").strip("\"'")
        if value.casefold() in _NOT_A_SECRET or value.startswith("[redacted"):
            return match.group(0)
        cue = match.group("cue").casefold()
        glue = match.group("glue")
        # A bare "token abc" (no 'is'/'='/':') is only a secret when the value looks machine-made.
        if not re.search(r"(is|was|=|:)\s*$", glue) and not (re.search(r"\d", value) and re.search(r"[A-Za-z]", value)):
            return match.group(0)
        kind = "password" if cue.startswith(("pass", "pwd", "pin")) else "secret"
        kinds.append(kind)
        return f"{match.group('cue')}{glue}{REDACTED.format(kind=kind)}"

    text = _ASSIGNED_SECRET.sub(assigned, text)
    return text, kinds


def secret_kinds(text: str) -> list[str]:
    """The kinds of credential found in `text` (sorted, each once); [] when none."""
    kinds = ["private key"] if PRIVATE_KEY.search(text) else []
    kinds += redact_secrets(text)[1]
    return sorted(set(kinds))


# A principal: its kind, a colon, a name.
_PRINCIPAL = re.compile(r"^(operator|agent|digest|import):\S.*$")


def check_principal(principal: object) -> str:
    # Every transaction asks, and writers repeat one principal: a text's check is kept (it is a pure
    # function of the text; a refusal raises and is never kept).
    return _checked_principal(principal) if type(principal) is str else _check_principal(principal)


@lru_cache(maxsize=1024)
def _checked_principal(principal: str) -> str:
    return _check_principal(principal)


def _check_principal(principal: object) -> str:
    if isinstance(principal, str):
        check_identifier(principal, "principal")
    if not isinstance(principal, str) or not _PRINCIPAL.match(principal):
        raise ValidationError(
            f"{principal!r} is not a principal; use one of {', '.join(k + ':<name>' for k in PRINCIPAL_KINDS)}",
            field="principal",
        )
    return principal


def check_scope(scope: object) -> str:
    if not isinstance(scope, str) or not scope.strip():
        raise ValidationError("must be a non-empty string", field="scope")
    return _checked_scope(scope) if type(scope) is str else check_identifier(scope, "scope")


@lru_cache(maxsize=4096)  # a transaction names few scopes, many times
def _checked_scope(scope: str) -> str:
    return check_identifier(scope, "scope")
