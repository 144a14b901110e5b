"""Sanitising turns before they reach the journal: secrets are redacted or the turn refused, and trivial
turns ("ok", "thanks") are skipped. Pure functions, tested on their own. The secret shapes and the
character rules live in ledger/values.py, shared with every other write path.

Why redact rather than always refuse: "my GitHub token is ghp_… and I work at Acme" still carries a fact
worth keeping; the token never reaches the disk. A private key block is refused outright: a turn that
pastes one is the key, not conversation about it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# The credential shapes are the ledger's (one secret policy for every write path): the journal redacts
# them in conversation, the ledger refuses them in facts.
from factledger.ledger.values import MAX_TURN_CHARS, PRIVATE_KEY, REDACTED, clean_turn_text, redact_secrets

__all__ = ["REDACTED", "Sanitised", "is_trivial", "redact_secrets", "sanitise"]

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


def sanitise(text: str) -> Sanitised:
    """Decide what the journal stores for a turn's text: control and invisible characters removed
    (ledger/values.py, `clean_turn_text`), secrets redacted, over-long or key-pasting turns refused."""
    text = clean_turn_text(text)
    if len(text) > MAX_TURN_CHARS:
        return Sanitised("", "refuse", f"the turn is {len(text)} characters long; the journal keeps at most {MAX_TURN_CHARS}")
    if PRIVATE_KEY.search(text):
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
