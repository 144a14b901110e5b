"""What a slot held before a change, when the change itself is the first the ledger hears of it.

"I moved from the intake team to the triage team this sprint", "migrated CI from Rumbleci to Gantry",
"swapped Pipwell for Tarnish", "it's Ardent now instead of Mossway": the turn names the new value and
the old one. When the slot holds nothing at all yet, the old value is history nobody else will tell:
it held up to the change, since a moment nobody said. Without it an as-of read of the time before the
change answers nothing.

A shape is data: a regular expression read right before (or right after) where the turn says the new
value, naming the old one, with its examples and counter-examples (tests/digest/test_priors.py). A
shape only adds history beside a value another pattern already read (the draft), in a slot that holds
no version at all: the pattern judges what the slot is, this only dates what it held before.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from factledger.ledger.keys import normalise
from factledger.ledger.times import UNKNOWN_START
from factledger.ledger.when import find_time_phrase

from .extractor import ExtractionRequest
from .model import Draft

# One to four words of a name or a thing ("the intake team", "Quorra & Sennit", "node 18").
_OLD = r"(?P<old>[\w.+#&'’\-]+(?:\s+[\w.+#&'’\-]+){0,3}?)"
_OWNER = r"(?:(?:the|my|our|a|an)\s+)?"


@dataclass(frozen=True)
class PriorShape:
    """Where a turn names the value a change replaced: `before` is searched in the text ending where the
    new value starts (anchored at its end), `after` in the text starting where it ends (anchored at its
    start). `examples`: (turn, predicate of the slot the turn's pattern reads, value held before);
    `counter`: turns that must add no earlier value."""

    name: str
    before: re.Pattern[str] | None = None
    after: re.Pattern[str] | None = None
    examples: tuple[tuple[str, str, str], ...] = ()
    counter: tuple[str, ...] = ()


SHAPES: tuple[PriorShape, ...] = (
    PriorShape(
        "from X to Y",
        before=re.compile(rf"(?i)\b(?:from|off(?:\s+of)?)\s+{_OWNER}{_OLD}\s+(?:to|onto|over\s+to)\s+{_OWNER}$"),
        examples=(
            ("I moved from the intake team to the triage team this sprint", "team", "intake team"),
            ("we migrated CI from Rumbleci to Gantry last sprint", "ci", "Rumbleci"),
        ),
        counter=("I booked a week in Tarrow from June 9 to 16",),
    ),
    PriorShape(
        "swapped X for Y",
        before=re.compile(rf"(?i)\b(?:swapped|swapping|traded|trading|exchanged|replaced|replacing)\s+(?:out\s+)?{_OWNER}{_OLD}\s+(?:out\s+)?(?:for|with)\s+{_OWNER}$"),
        examples=(("my bank is Tarnish now, swapped Pipwell for Tarnish in May", "bank", "Pipwell"),
                  ("we swapped Memcord out for Tallyvine as the job queue", "job_queue", "Memcord"),
                  ("CI is Gantry now, replaced Rumbleci with Gantry", "ci", "Rumbleci")),
    ),
    PriorShape(
        "left X for Y",
        before=re.compile(rf"(?i)\bleft\s+{_OWNER}{_OLD}\s+(?:for|and\s+(?:joined|started\s+at|went\s+to))\s+{_OWNER}$"),
        examples=(("I left Quillory and joined Brantwick", "works_at", "Quillory"),),
    ),
    PriorShape(
        "ripped out X, the slot is Y",
        # a tool removed, then in the same sentence what does its job now ("ripped out Tessbase in the spring, our
        # search index is Orvane now"), after a comma; "dropped Mina at school" takes nobody out of anything, and
        # "ditched the old CI" names a kind, not the tool
        before=re.compile(r"(?i)\b(?:ripped\s+out|ditched|binned|got\s+rid\s+of|killed\s+off|moved\s+off(?:\s+of)?|dropped(?!\s+\w+\s+(?:off|at|in)\b))\s+"
                          r"(?:(?:the|our|my)\s+(?:old\s+)?)?(?-i:(?![A-Z]{2,5}\b)(?P<old>[A-Z][\w.+\-]*(?:\s+[A-Z][\w.+\-]*)?))\b[^.!?;,]{0,30},[^.!?;]{0,60}$"),
        examples=(("we ripped out Tessbase in the spring, our search index is Orvane now", "search_index", "Tessbase"),
                  ("finally ditched Quanterly, our bug tracker is Pellish now", "bug_tracker", "Quanterly")),
        counter=("I dropped Mina at school, my car is a Tessly now", "we ditched the old CI, Pellish is great"),
    ),
    PriorShape(
        "Y instead of X",
        after=re.compile(rf"(?i)^,?\s+(?:now\s+)?instead\s+of\s+{_OWNER}{_OLD}(?=\s*(?:[,.;:!?)]|$|\s(?:and|but|because|since|as|so)\b))"),
        examples=(("my dentist is Dr. Ardent now instead of Dr. Mossway", "dentist", "Dr. Mossway"),),
    ),
)

# Words that stand for a value without saying it: no earlier value is read from them.
_NOT_VALUES = frozenset(
    "it them that this these those there here one ones mine ours yours something somewhere someone nothing "
    "scratch home work school now then".split()
)
# The new value's span in the turn: the whole value, as said, bounded by what is not part of a word.
_EDGE = r"(?<![\w.+#&\-])"


def _spans(turn: str, value: str) -> list[re.Match[str]]:
    return list(re.finditer(rf"(?i){_EDGE}{re.escape(value)}(?![\w+#&])", turn))


def _old_value(old: str) -> str | None:
    old = old.strip(" ,.;:!?\"'’")
    if not old or len(old.split()) > 4:
        return None
    if normalise(old) in _NOT_VALUES or old.casefold().split()[0] in _NOT_VALUES:
        return None
    phrase = find_time_phrase(old)
    if phrase and len(phrase) >= len(old) - 2:
        return None  # "from June 9 to 16": a span of time, not a value
    return old


def prior_said(turn: str, new: str) -> tuple[str, str, PriorShape] | None:
    """(old value, the words that say it, the shape) when `turn` names what `new` replaced."""
    for span in _spans(turn, new):
        for shape in SHAPES:
            m = None
            if shape.before is not None:
                m = shape.before.search(turn[: span.start()])
                quote = turn[m.start() : span.end()] if m else ""
            elif shape.after is not None:
                m = shape.after.match(turn[span.end() :])
                quote = turn[span.start() : span.end() + m.end()] if m else ""
            if m is None:
                continue
            old = _old_value(m["old"])
            if old and normalise(old) != normalise(new):
                return old, quote, shape
    return None


def priors(drafts: Sequence[Draft], turn: str, request: ExtractionRequest, said_at: str,
           cardinality: Callable[[Draft], str | None]) -> list[Draft]:
    """The drafts with, before each new value of a `one` slot that holds nothing yet, the value the turn
    says it replaced: held from an unknown start up to the change (which starts when it was said, or at
    its own time words). A slot something is held in, or that another draft of the turn touches, is
    left as the drafts say."""
    held = {(c.subject_key, c.predicate) for c in request.current}
    touched = Counter((normalise(d.subject), d.predicate) for d in drafts)
    out: list[Draft] = []
    for d in drafts:
        key = (normalise(d.subject), d.predicate)
        found = None
        if (d.op == "add" and d.value and not d.drop_reason and not d.all_valid_time and d.valid_to is None
                and d.valid_from != UNKNOWN_START and key not in held and touched[key] == 1
                and cardinality(d) == "one"):
            found = prior_said(turn, d.value)
        if found is None:
            out.append(d)
            continue
        old, quote, _ = found
        start = d.valid_from or said_at  # a change is news when it was said
        out.append(dataclasses.replace(d, op="add", value=old, quote=quote, valid_from=UNKNOWN_START, valid_to=start,
                                       time_phrase="", replaces=None))
        out.append(dataclasses.replace(d, valid_from=start))
    return out
