"""Sanitising turns before they reach the journal: secrets are redacted or the turn refused, and trivial
turns ("ok", "thanks") are skipped. Pure functions, tested on their own.

Why redact rather than always refuse: "my GitHub token is ghp_… and I work at Acme" still carries a fact
worth keeping; the token never reaches the disk. A private key block is refused outright: a turn that
pastes one is the key, not conversation about it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

REDACTED = "[redacted {kind}]"

# Well-known credential shapes: provider prefixes are specific enough to be right when they match.
_TOKEN_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
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
_PRIVATE_KEY = re.compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----")
# Words after a cue that are not secrets ("the password is wrong", "token is expired").
_NOT_A_SECRET = {
    "wrong", "incorrect", "expired", "invalid", "correct", "required", "missing", "needed", "changed",
    "reset", "strong", "weak", "long", "short", "secret", "safe", "saved", "stored", "there", "here",
    "that", "this", "what", "the", "a", "an", "not", "still", "also", "really", "very", "too", "and",
    "manager", "managers", "field", "fields", "prompt", "protected", "policy", "rules", "rotation",
}

_TRIVIAL = {
    "ok", "okay", "k", "kk", "ok thanks", "okay thanks", "thanks", "thank you", "thx", "ty", "thanks a lot",
    "thank you so much", "cool", "great", "nice", "sure", "yes", "no", "yep", "nope", "yeah", "nah", "lol",
    "haha", "hi", "hello", "hey", "bye", "goodbye", "good night", "see you", "got it", "sounds good",
    "alright", "all right", "fine", "perfect", "awesome", "hmm", "mm", "right", "understood", "noted",
}
_WORDS = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Sanitised:
    """The outcome of sanitising one turn's text."""

    text: str
    action: str  # "keep" | "redact" | "refuse" | "skip"
    reason: str = ""
    kinds: tuple[str, ...] = field(default_factory=tuple)


def is_trivial(text: str) -> bool:
    """A turn with no content worth digesting: an acknowledgement, a greeting, punctuation or emoji."""
    words = _WORDS.findall(text.casefold())
    if not words:
        return True
    return " ".join(words) in _TRIVIAL


def redact_secrets(text: str) -> tuple[str, list[str]]:
    """Replace every recognised secret by a marker naming its kind; return the text and the kinds."""
    kinds: list[str] = []

    def token(kind: str):
        def replace(match: re.Match[str]) -> str:
            kinds.append(kind)
            return REDACTED.format(kind=kind)

        return replace

    for kind, pattern in _TOKEN_PATTERNS:
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


def sanitise(text: str) -> Sanitised:
    """Decide what the journal stores for a turn's text."""
    if _PRIVATE_KEY.search(text):
        return Sanitised("", "refuse", "the turn contains a private key", ("private key",))
    if is_trivial(text):
        return Sanitised("", "skip", "trivial turn")
    cleaned, kinds = redact_secrets(text)
    if not kinds:
        return Sanitised(text.strip(), "keep")
    # Only markers and filler left: nothing but the secret was said.
    remainder = re.sub(r"\[redacted [a-z ]+\]", " ", cleaned)
    if is_trivial(remainder) or len(_WORDS.findall(remainder)) < 2:
        return Sanitised("", "refuse", f"the turn is only a secret ({', '.join(sorted(set(kinds)))})", tuple(kinds))
    return Sanitised(cleaned.strip(), "redact", f"secret removed: {', '.join(sorted(set(kinds)))}", tuple(kinds))
