"""Policy: per grounded proposal, apply now or hold for review, with the reason recorded.

`auto` (default) applies grounded proposals as `digest:<extractor>` but holds any that would supersede or
retract an operator-confirmed value (and, when applying fails on a conflict, holds that one too);
`strict` holds everything the digest proposes. Rejected values never reach the policy: rejection memory
marks them rejected_again first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .model import Confirmation


@dataclass(frozen=True)
class Decision:
    action: Literal["apply", "hold"]
    reason: str


def decide(policy: str, *, touched: list[Confirmation], extractor_hold: str = "") -> Decision:
    if policy == "strict":
        return Decision("hold", "strict policy: every digest proposal waits for review")
    if extractor_hold:
        return Decision("hold", extractor_hold)
    if touched:
        who = ", ".join(sorted({f"{c.value!r} (confirmed by {c.confirmed_by})" for c in touched}))
        return Decision("hold", f"auto policy: would change an operator-confirmed value: {who}")
    return Decision("apply", "auto policy: grounded, no confirmed value touched")
