"""Rendering recalled text for a host's prompt: one line, nothing that reads as markup of the host.

A recalled item is data inside the host's fenced block (Hermes: `<memory-context>` … `</memory-context>`,
docs/ARCHITECTURE.md "Input stays data"). Whatever a stored value holds, its line must not end the
fence, open another one, start a new line of the block, or carry text a reader cannot see:

- control characters, line breaks (every Unicode kind) and runs of spaces become one space;
- invisible format characters (zero-width, joiners, bidi controls, the tag block) are removed, so
  `<memory\u200b-context>` cannot hide a tag from a matcher that a model would still read as one;
- every angle bracket, and every character that Unicode compatibility folds to one (fullwidth
  `＜／＞`, small `﹤﹥`), becomes a single guillemet `‹ ›`: no tag of any name, with any attribute,
  spacing or case, survives (Hermes's own sanitiser only removes the exact `<memory-context>` tags);
- a bracketed "[System note" (the host's own label inside the fence) becomes "(System note";
- lone surrogates become U+FFFD; the result is cut to `limit` characters with "…".

Pure; tested alone (tests/recall/test_render.py).
"""

from __future__ import annotations

import re
import unicodedata

ELLIPSIS = "…"

# Every character one of whose Unicode normal forms holds "<" or ">": fullwidth and small form
# variants, and "≮ ≯" (which decompose to "<" / ">" plus a combining stroke). A test recomputes it.
_OPEN = "<\ufe64\uff1c\u226e"
_CLOSE = ">\ufe65\uff1e\u226f"
# U+0130 (İ) is the one character whose lower case is longer than itself ("i" + combining dot): a host
# that finds its fence by lower-casing a copy of the text (Hermes's streaming scrubber does) then cuts at
# the wrong place. Its canonical decomposition looks the same and keeps the length under lower().
_BRACKETS = str.maketrans({**{c: "\u2039" for c in _OPEN}, **{c: "\u203a" for c in _CLOSE}, "\u0130": "I\u0307"})
# Cc (controls, including tab/CR/LF/NEL), Zl/Zp (line and paragraph separators) and whitespace runs.
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\s\u2028\u2029]+")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
_SYSTEM_NOTE = re.compile(r"\[(\s*system\s*note)", re.IGNORECASE)


def _is_invisible(char: str) -> bool:
    return unicodedata.category(char) == "Cf"


def _strip_invisible(text: str) -> str:
    # Cf characters are rare: test the cheap way first (str.isprintable is False for every Cf).
    if text.isprintable():
        return text
    return "".join(c for c in text if not _is_invisible(c))


def one_line(text: object, limit: int | None = None) -> str:
    """`text` as one line of plain data for a host prompt (see the module docstring)."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = _LONE_SURROGATE.sub("\ufffd", text)
    text = _strip_invisible(text)
    text = _BREAKS.sub(" ", text).strip()
    text = text.translate(_BRACKETS)
    text = _SYSTEM_NOTE.sub(r"(\1", text)
    if limit is not None and len(text) > limit:
        if limit < 1:
            return ""
        text = text[: limit - 1].rstrip() + ELLIPSIS
    return text
