"""A machine named by its code in passing: "our pipeline deploys to the staging box stg-quell-02".

A coding assistant hears hosts, boxes and databases named beside what the turn is really about ("can u
help me read this stack trace"), as "the <kind> <code>": the kind ("staging box", "build server", "prod
db") names the slot, the code is its value (lower case with a digit and a dash or a dot, or a host name:
"stg-quell-02", "pg-main-3.lan", "stg-orwell.internal"); "staging lives at <code>" names the
environment's. Said with nothing held there, the code holds since at least then; said with another code
held, it holds in its place from when it was said. A held code whose slot the turn names beside a change
("staging moved btw, new host is stg2-orwell.internal") is replaced by the one new code the turn names.
Each shape is data with examples and counter-examples (tests/digest/test_machines.py).
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
_CODE = r"(?P<v>(?=[a-z0-9.\-]*\d)[a-z][a-z0-9]*(?:[\-.][a-z0-9]+)+|[a-z][a-z0-9]*(?:-[a-z0-9]+)+\.(?:internal|local|lan|corp|net|com|io|dev|cloud))"


@dataclass(frozen=True)
class Shape:
    name: str
    regex: re.Pattern[str]
    examples: tuple[tuple[str, tuple[str, str]], ...]  # (turn, (slot, value))
    counter: tuple[str, ...] = ()


# An environment said as where a thing lives: "staging lives at stg-orwell.internal", "prod is on pg-main-3".
_PLACE = r"(?P<kind>staging|prod|production|dev|test|qa|uat|preprod|sandbox)"

SHAPES: tuple[Shape, ...] = (
    Shape(
        "the kind code",
        re.compile(rf"\b(?:the|our|my)\s+{_KIND}\s+{_CODE}(?![\w\-])"),
        (("our pipeline deploys to the staging box stg-quell-02. any idea why the build hangs?", ("staging_box", "stg-quell-02")),
         ("the build server ci-07.lan keeps running out of disk", ("build_server", "ci-07.lan"))),
        counter=("the box in the hallway", "my server is fine", "the staging box is slow today", "our db v2 schema"),
    ),
    Shape(
        "the environment lives at code",
        re.compile(rf"(?i)\b{_PLACE}\s+(?:lives|is|sits|runs|runs\s+on|is\s+hosted|is\s+deployed)\s+(?:at|on)\s+{_CODE}(?![\w\-])"),
        (("working on the billing service today. staging lives at stg-orwell.internal, deploys are a makefile", ("staging", "stg-orwell.internal")),
         ("prod is on pg-main-3 and backups go to the nas", ("prod", "pg-main-3"))),
        counter=("staging is on fire", "prod lives at the edge"),
    ),
)


_ANY_CODE = re.compile(rf"(?<![\w\-.]){_CODE}(?![\w\-])")
_CHANGED = re.compile(r"(?i)\b(?:moved|changed|migrated|new|now|replaced|swapped)\b")


def _code_replaced(turn: str, subject: str, said_at: str, current: Sequence[ClaimVersion], drafted: set[tuple[str, str]]) -> list[Draft]:
    """'staging moved btw, new host is stg2-orwell.internal': a held code's slot named by its first word, a
    change said, and one code the turn names that nothing holds: that code in place of the held one."""
    codes = list(dict.fromkeys(m["v"] for m in _ANY_CODE.finditer(turn)))
    out = []
    for held in current:
        slot = held.predicate
        if (held.subject_key != normalise(subject) or held.tx_to is not None or held.valid_to is not None
                or (held.subject_key, slot) in drafted or not _ANY_CODE.fullmatch(held.value)):
            continue
        word = slot.split("_")[0]
        if not re.search(rf"(?i)\b{re.escape(word)}\b", turn) or not _CHANGED.search(turn):
            continue
        new = [code for code in codes if code != held.value and not any(c.value == code for c in current)]
        if len(new) != 1:
            continue
        draft = in_place_of_held(subject, slot, new[0], turn, f"{{subject}}'s {slot.replace('_', ' ')} is {{value}}", said_at, current)
        if draft is not None:
            drafted.add((held.subject_key, slot))
            out.append(draft)
    return out


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
    return out + _code_replaced(turn, subject, said_at, current, drafted)
