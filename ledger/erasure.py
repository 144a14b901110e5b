"""Following an erased value through free text: word-level normalised matching, redaction, scope families.

A value is matched as a run of words, each word normalised like every key (NFKC, casefold): "Lisbon"
matches "LISBON", "Ｌｉｓｂｏｎ" and "lisbon's"; "Acme Robotics" matches "acme  robotics" across any
spacing or punctuation between the two words. Scripts written without spaces (CJK, kana, Hangul) are
split into single characters, so "東京" matches inside "東京に住んでいる". Pure: no storage here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import ValidationError
from .keys import normalise

REDACTED = "[erased]"
# The erased-text guard tests word n-grams of an incoming text up to this length; a longer value is
# guarded by its first MAX_GUARD_WORDS words (which redacts it wherever it appears whole).
MAX_GUARD_WORDS = 64

# Letters, digits and combining marks (so a decomposed "é" stays one word).
_WORD = re.compile(r"(?:\w|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f])+")
# Scripts without spaces between words: every character is a word of its own.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]")

Word = tuple[str, int, int]  # (normalised word, start, end) in the original text


_SEGMENT = re.compile(f"{_UNSPACED.pattern}|(?:(?!{_UNSPACED.pattern}).)+", re.DOTALL)


def text_words(text: str) -> list[Word]:
    """The normalised words of `text` with their spans in the original."""
    found: list[Word] = []
    for match in _WORD.finditer(text):
        for segment in _SEGMENT.finditer(match.group()):
            start, end = match.start() + segment.start(), match.start() + segment.end()
            # NFKC may turn one character into several words ("¼" -> "1⁄4"): all keep the segment's span.
            for word in _WORD.findall(normalise(segment.group())):
                found.append((word, start, end))
    return found


def value_words(value: str) -> tuple[str, ...]:
    """The words a value is matched by (its normalised words, at most MAX_GUARD_WORDS)."""
    words = tuple(w for w, _, _ in text_words(value))
    if not words:
        raise ValidationError("has no letters or digits to match in text", field="value")
    return words[:MAX_GUARD_WORDS]


def mention_spans(text: str, values: Iterable[Sequence[str]]) -> list[tuple[int, int]]:
    """Spans of `text` where any of the word sequences occurs, merged and in order."""
    words = text_words(text)
    spans: list[tuple[int, int]] = []
    for wanted in values:
        n = len(wanted)
        if n == 0:
            continue
        for i in range(len(words) - n + 1):
            if words[i][0] == wanted[0] and tuple(w[0] for w in words[i : i + n]) == tuple(wanted):
                spans.append((words[i][1], words[i + n - 1][2]))
    return merge_spans(spans)


def redact_spans(text: str, spans: Sequence[tuple[int, int]]) -> str:
    out, position = [], 0
    for start, end in spans:
        out.append(text[position:start])
        out.append(REDACTED)
        position = end
    out.append(text[position:])
    return "".join(out)


def redact(text: str, values: Iterable[Sequence[str]]) -> tuple[str, int]:
    """`text` with every mention of the values replaced by REDACTED, and how many were replaced."""
    spans = mention_spans(text, values)
    return (redact_spans(text, spans), len(spans)) if spans else (text, 0)


def only_redactions(text: str) -> bool:
    """True when nothing but redaction markers (and punctuation) is left."""
    return not _WORD.search(text.replace(REDACTED, " "))


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@dataclass(frozen=True)
class ScopeFamily:
    """The scopes that belong to one person: exact scopes, and every scope beginning with a prefix.

    The ledger treats scopes as opaque; whoever composes scopes (the Hermes plugin) says which belong
    together, and erase follows the value into all of them.
    """

    exact: tuple[str, ...]
    prefixes: tuple[str, ...] = ()

    @classmethod
    def of(cls, scope: str) -> "ScopeFamily":
        return cls(exact=(scope,))

    def __post_init__(self) -> None:
        for item in (*self.exact, *self.prefixes):
            if not isinstance(item, str) or not item:
                raise ValidationError("scope family members must be non-empty strings", field="scope")

    def contains(self, scope: str) -> bool:
        return scope in self.exact or any(scope.startswith(p) for p in self.prefixes)

    def rules(self) -> list[tuple[str, str]]:
        """(match, scope) pairs as the erased-text guard stores them."""
        return [("exact", s) for s in self.exact] + [("prefix", p) for p in self.prefixes]

    def where(self, column: str = "scope") -> tuple[str, list[str]]:
        """A SQL condition on `column` selecting the family's scopes, with its parameters."""
        parts, params = [], []
        if self.exact:
            parts.append(f"{column} IN ({', '.join('?' for _ in self.exact)})")
            params.extend(self.exact)
        for prefix in self.prefixes:
            parts.append(f"substr({column}, 1, ?) = ?")
            params.extend([len(prefix), prefix])
        return "(" + " OR ".join(parts) + ")", params
