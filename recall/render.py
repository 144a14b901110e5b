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
- characters that look like an angle bracket without folding to one (`〈 〉` CJK, `⟨ ⟩` mathematical,
  `ᐸ ᐳ` Canadian syllabics, `˂ ˃` modifier arrowheads, `❮ ❯` ornaments, …: Unicode's confusables
  of `<`/`>`) become the same guillemets, so `〈/memory-context〉` forges no fence either;
- a bracketed "[System note" (the host's own label inside the fence) becomes "(System note", also when
  it is spelled with lookalikes: the bracket a fullwidth `［` or another square-bracket lookalike, the
  words in Cyrillic or Greek letters that look Latin (`[Sуstem note` with a Cyrillic у), fullwidth or
  mathematical letters. The match runs on a skeleton of the text (one character for each: confusables
  folded to Latin, NFKC, case-folded), so the text itself is changed only where the label was forged;
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
# Confusables of "<" and ">" that no normal form folds: Unicode's confusables.txt (˂ ᐸ ᚲ 𝈶 / ˃ ᐳ 𖼿 𝈷)
# and every character named an angle bracket (〈 ⟨ ⟪ 《 ⧼ ❬ ❮ ❰ …) or a left/right arrowhead letter
# (˂ ˱); the test recomputes the named ones. "‹ ›" themselves are the rendering; "« »" stay (quotation
# marks of prose), as do "≤ ≥" (mathematics, not brackets).
_OPEN_LOOKALIKES = "\u02c2\u02f1\u1438\u16b2\u2329\u276c\u276e\u2770\u27e8\u27ea\u2991\u29fc\u3008\u300a\U0001d236"
_CLOSE_LOOKALIKES = "\u02c3\u02f2\u1433\u232a\u276d\u276f\u2771\u27e9\u27eb\u2992\u29fd\u3009\u300b\U0001d237\U00016f3f"
# U+0130 (İ) is the one character whose lower case is longer than itself ("i" + combining dot): a host
# that finds its fence by lower-casing a copy of the text (Hermes's streaming scrubber does) then cuts at
# the wrong place. Its canonical decomposition looks the same and keeps the length under lower().
_BRACKETS = str.maketrans({**{c: "\u2039" for c in _OPEN + _OPEN_LOOKALIKES},
                           **{c: "\u203a" for c in _CLOSE + _CLOSE_LOOKALIKES}, "\u0130": "I\u0307"})
# Cc (controls, including tab/CR/LF/NEL), Zl/Zp (line and paragraph separators) and whitespace runs.
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\s\u2028\u2029]+")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
_SYSTEM_NOTE = re.compile(r"\[(?=\s*system\s*note)")  # on the skeleton, which is lower case
# Square-bracket lookalikes: what reads as "[" in front of the host's label.
_SQUARE_LOOKALIKES = "\uff3b\ufe47\u2045\u27e6\u27ec\u301a\u3010\u3014\u3016\u3018\u2772\ufe5d\u298b\u298d\u298f\u2983\uff5f"
# Cyrillic, Greek and other letters that look like the Latin letters of "system note" (confusables.txt),
# mapped to them for the skeleton.
_LATIN_LOOKALIKES = {
    **dict.fromkeys("\u0405\u0455\u01bd\u10bd", "s"),  # Ѕ ѕ
    **dict.fromkeys("\u0423\u0443\u04ae\u04af\u03a5\u03b3\u028f\u1eff\u0176", "y"),  # У у Ү ү Υ γ ʏ
    **dict.fromkeys("\u0422\u0442\u03a4\u03c4\u1d1b", "t"),  # Т т Τ τ ᴛ
    **dict.fromkeys("\u0415\u0435\u0395\u0401\u0451\u04bc\u1d07", "e"),  # Е е Ε Ё ё ᴇ
    **dict.fromkeys("\u041c\u043c\u039c\u1d0d", "m"),  # М м Μ ᴍ
    **dict.fromkeys("\u039d\u03b7\u0578\u057c\u0274", "n"),  # Ν η ո ռ ɴ
    **dict.fromkeys("\u041e\u043e\u039f\u03bf\u03c3\u0585\u1d0f\u0ce6\u0d20", "o"),  # О о Ο ο σ օ ᴏ
    **dict.fromkeys(_SQUARE_LOOKALIKES, "["),
}


def _skeleton_char(char: str) -> str:
    """One character for `char` as a reader sees it: its Latin lookalike, else its NFKC form case-folded
    when that is one character, else itself case-folded (kept one character, so indices line up)."""
    mapped = _LATIN_LOOKALIKES.get(char)
    if mapped is not None:
        return mapped
    if char.isascii():
        return char.lower()
    folded = unicodedata.normalize("NFKC", char).casefold()
    if len(folded) == 1:
        return _LATIN_LOOKALIKES.get(folded, folded)
    lowered = char.lower()
    return lowered if len(lowered) == 1 else char


def _unlabel(text: str) -> str:
    """Every bracket that opens the host's "[System note" label, in any lookalike spelling, as "("."""
    if "note" not in text.lower() and text.isascii():
        return text
    skeleton = "".join(_skeleton_char(c) for c in text)
    starts = [m.start() for m in _SYSTEM_NOTE.finditer(skeleton)]
    if not starts:
        return text
    chars = list(text)
    for index in starts:
        chars[index] = "("
    return "".join(chars)


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
    text = _unlabel(text)
    if limit is not None and len(text) > limit:
        if limit < 1:
            return ""
        text = text[: limit - 1].rstrip() + ELLIPSIS
    return text
