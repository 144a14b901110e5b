"""Grounding: a proposal stands only on words that were said. Its quote must appear in its source turns
after whitespace and case normalisation (typographic quotes folded, apostrophes dropped), else it is dropped with a
receipt saying why."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

_SPACES = re.compile(r"\s+")
# (apostrophes are folded away: "im on the team" grounds "I'm on the team", as the rules read it)
_FOLD = str.maketrans({"’": "", "‘": "", "'": "", "“": '"', "”": '"', "–": "-", "—": "-"})


def normalise_text(text: str) -> str:
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).translate(_FOLD).casefold()).strip()


@dataclass(frozen=True)
class Grounding:
    grounded: bool
    receipt: str  # why it was kept or dropped


def ground(quote: str | None, sources: Sequence[tuple[str, str]]) -> Grounding:
    """Check `quote` against (ref, text) source turns."""
    wanted = normalise_text(quote or "").strip(" .,!?;:\"'")
    if not wanted:
        return Grounding(False, "dropped: the proposal has no supporting quote")
    for ref, text in sources:
        if wanted in normalise_text(text):
            return Grounding(True, f"quote found in {ref}")
    refs = ", ".join(ref for ref, _ in sources) or "no source turn"
    shown = quote if len(quote or "") <= 120 else (quote or "")[:117] + "..."
    return Grounding(False, f"dropped: quote {shown!r} is not in {refs}")
