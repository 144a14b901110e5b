"""A machine named by its code in passing: "our pipeline deploys to the staging box stg-quell-02".

A coding assistant hears hosts, boxes and databases named beside what the turn is really about ("can u help
me read this stack trace"), as "the <kind> <code>": the kind ("staging box", "build server", "prod db") names
the slot, the code (lower case, with a digit and a dash or a dot: "stg-quell-02", "pg-main-3.lan") is its
value. Said with nothing held there, it holds since at least then; said with another code held, it holds
in its place from when it was said. Each shape is data with examples and counter-examples
(tests/digest/test_machines.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise

from .model import Draft
from .passing import in_place_of_held

# The kind of machine: up to two words before a head that says it is one.
_KIND = r"(?P<kind>(?:[a-z][\w\-]*\s+){0,2}?(?:box|host|server|machine|db|database|vm|cluster|node|instance|bastion|runner))"
# Its code: lower case, a digit somewhere, parts joined by dashes or dots ("stg-quell-02", "ci04.lan").
_CODE = r"(?P<v>(?=[a-z0-9.\-]*\d)[a-z][a-z0-9]*(?:[\-.][a-z0-9]+)+)"


@dataclass(frozen=True)
class Shape:
    name: str
    regex: re.Pattern[str]
    examples: tuple[tuple[str, tuple[str, str]], ...]  # (turn, (slot, value))
    counter: tuple[str, ...] = ()


SHAPES: tuple[Shape, ...] = (
    Shape(
        "the kind code",
        re.compile(rf"\b(?:the|our|my)\s+{_KIND}\s+{_CODE}(?![\w\-])"),
        (("our pipeline deploys to the staging box stg-quell-02. any idea why the build hangs?", ("staging_box", "stg-quell-02")),
         ("the build server ci-07.lan keeps running out of disk", ("build_server", "ci-07.lan"))),
        counter=("the box in the hallway", "my server is fine", "the staging box is slow today", "our db v2 schema"),
    ),
)


def machines_in_passing(turn: str, subject: str, said_at: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> list[Draft]:
    """The codes `turn` names machines by, for slots no draft of the turn already holds."""
    drafted = {(normalise(d.subject), d.predicate) for d in drafts}
    out = []
    for shape in SHAPES:
        for m in shape.regex.finditer(turn):
            slot = "_".join(m["kind"].split())
            if (normalise(subject), slot) in drafted:
                continue
            draft = in_place_of_held(subject, slot, m["v"], m.group(0), f"{{subject}}'s {' '.join(m['kind'].split())} is {{value}}", said_at, current)
            if draft is not None:
                drafted.add((normalise(subject), slot))
                out.append(draft)
    return out
