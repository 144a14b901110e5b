"""Where the user's project runs: a coding assistant's "it's on the new host now".

"my side project Tansyweb runs on a small linode box", "shifted tansyweb over to Koyeb.app, it's been on
there since the weekend", "the old laptop gave up so tansyweb lives on a mini pc now", "tansyweb is back
on the linode box, the free plan ended": said beside a question about code, so no pattern reads the clause whole. Each shape below
is data with examples and counter-examples (tests/digest/test_hosting.py); `hosting_in_passing` holds
where a named project runs in place of where it ran (from when it was said). Only a project the turn
names ("my side project X", "an app called X") or the ledger already holds is read: "the meeting runs on
Teams" names no project.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise

from .model import Draft
from .passing import in_place_of_held

SLOT = "runs_on"
TEMPLATE = "{subject} runs on {value}"

# The project: a word that names it ("Tansyweb", "tansyweb", "tansyweb-core"), or "it" for the one the turn named.
_PROJECT = r"(?P<p>[A-Za-z][\w\-]*)"
# Where: a few words, up to the end of what says it ("a five-dollar linode box", "Koyeb.app", "a mini pc").
_WORD = r"[\w$\-]+(?:\.[\w\-]+)*"  # "Koyeb.app" keeps its dot; a sentence's full stop ends it
_STOPS = r"(?:and|but|so|since|for|with|now|because|though|which|that|until|in|at|over|under|near|behind|during|last|this|about|lol)"
_WHERE = rf"(?P<v>(?:(?:a|an|the|our|my)\s+)?{_WORD}(?:\s+(?!{_STOPS}\b){_WORD}){{0,3}}?)"
_END = rf"(?=\s*(?:[,.;:!?()—–]|$|\s{_STOPS}\b))"
# Words that say a place to run, for a move that does not say where from.
_HOSTLIKE = r"(?:(?:a|an|the|our|my)\s+)?(?:[\w\-]+\s+){0,2}?(?:server|vps|box|cloud|host|hosting|instance|cluster|laptop|machine|pc|nas|[\w\-]+\.(?:io|app|com|dev|net|cloud|sh))\b"

# Naming a project: "my side project Tansyweb", "an app called Tansyweb", "Tansyweb (the rss scraper …)".
_NAMED = re.compile(r"(?i)\b(?:(?:side\s+)?project|app|site|bot|scraper|service|api|repo|website|blog)\s+(?:(?:is\s+|['’]s\s+)?(?:called|named)\s+)?(?P<p>[A-Za-z][\w\-]*)")
_NOT_PROJECTS = frozenset(
    "it everything that this which what who the a an my our i we you he she they there here work code time stuff "
    "meeting call standup server box vps pi linode and but so is was".split()
)


@dataclass(frozen=True)
class Shape:
    """One way a turn says where a project runs."""

    name: str
    regex: re.Pattern[str]
    examples: tuple[tuple[str, tuple[str, str]], ...]  # (turn, (project, where))
    counter: tuple[str, ...] = ()


SHAPES: tuple[Shape, ...] = (
    Shape(
        "X runs on Y",
        re.compile(rf"(?i)\b{_PROJECT}(?:\s*\([^)]*\))?\s+(?:(?:that|which)\s+)?(?:runs|is\s+running|lives|is\s+hosted|is\s+deployed|(?:is|['’]s)\s+back|(?:is|['’]s)\s+now)\s+on\s+{_WHERE}{_END}"),
        (("my side project Tansyweb runs on a small linode box, it gets a few hundred visits", ("Tansyweb", "a small linode box")),
         ("the old box died so my app tansyweb lives on a mini pc now", ("tansyweb", "a mini pc")),
         ("ugh, my side project Tansyweb is back on the linode box. whatever", ("Tansyweb", "the linode box"))),
        ("the meeting runs on Teams now", "my standup runs on for ages"),
    ),
    Shape(
        "X (… that runs on Y)",
        re.compile(rf"(?i)\b{_PROJECT}\s*\([^)]*?\b(?:runs|lives|is\s+hosted|is\s+running)\s+on\s+{_WHERE}{_END}"),
        (("stuck on a bug in my side project tansyweb (a price tracker which runs on an old laptop under my desk), any ideas", ("tansyweb", "an old laptop")),),
        ("my standup (which runs on and on) is a pain",),
    ),
    Shape(
        "moved X to Y",
        # moved off somewhere, or to a host ("a vps", "Koyeb.app"): not "moved X to hatch" (a tool it uses)
        re.compile(rf"(?i)\b(?:moved|migrated|switched|shifted|ported)\s+(?:(?:my|our|the)\s+(?:side\s+)?(?:project|app|site|bot|service|api|website|blog)\s+)?{_PROJECT}\s+"
                   rf"(?:off\s+[\w.\-]+(?:\s+[\w.\-]+){{0,2}}?\s+(?:over\s+)?(?:to|onto)\s+|(?:over\s+)?(?:to|onto)\s+(?={_HOSTLIKE})){_WHERE}{_END}"),
        (("migrated my side project Tansyweb to Koyeb.app over the weekend, painless", ("Tansyweb", "Koyeb.app")),
         ("moved my app tansyweb off the linode box to a mini pc", ("tansyweb", "a mini pc"))),
        ("moved it to the bin", "moved my app Tansyweb to hatch, it all builds on hatch now"),
    ),
    Shape(
        "it runs on Y",
        # "it's been on X" (not "it's all on hatch now": a tool, not where it runs)
        re.compile(rf"(?i)\b(?P<p>it|it\s+all|everything)(?:['’]s|\s+is|\s+has)?\s+(?:(?:now\s+)?(?:runs|running|lives|living|hosted|deployed)\s+on|(?<=it['’]s\s)been\s+on|(?<=it\shas\s)been\s+on)\s+{_WHERE}{_END}"),
        (("quick one about my app Tansyweb: it's been on Koyeb.app for a month and the logs are noisy", ("Tansyweb", "Koyeb.app")),
         ("my side project Tansyweb is a recipe site, it runs on an old laptop in my closet", ("Tansyweb", "an old laptop"))),
        ("it's on me, sorry", "everything is on fire at work", "moved my app Tansyweb to hatch, it all builds on hatch now"),
    ),
)


@dataclass(frozen=True)
class Said:
    shape: Shape
    project: str
    where: str
    quote: str


def hosting_said(text: str, known: Sequence[str] = ()) -> list[Said]:
    """Each (project, where it runs) `text` says: a project it names, or one of `known` (held projects)."""
    named = [m["p"] for m in _NAMED.finditer(text) if m["p"].casefold() not in _NOT_PROJECTS]
    names = {n.casefold(): n for n in [*known, *named]}
    found: list[Said] = []
    for shape in SHAPES:
        for m in shape.regex.finditer(text):
            who = m["p"].casefold()
            if who in ("it", "it all", "everything"):
                # the project named last before it ("Tansyweb news! moved it off the linode box")
                said = [(w.start(), n) for n in names.values() for w in re.finditer(rf"(?i)\b{re.escape(n)}\b", text[: m.start()])]
                if not said:
                    continue
                project = max(said)[1]
            elif who in names and who not in _NOT_PROJECTS:
                project = names[who]
            else:
                continue
            where = " ".join(m["v"].split())
            if where.casefold() in _NOT_PROJECTS or len(where) < 2:
                continue
            if all(normalise(s.project) != normalise(project) for s in found):
                found.append(Said(shape, project, where, m.group(0)))
    return found


def hosting_in_passing(turn: str, said_at: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> list[Draft]:
    """Where each project `turn` names runs, in place of where it ran."""
    known = [c.subject for c in current if c.predicate == SLOT and c.tx_to is None]
    drafted = {normalise(d.subject) for d in drafts if d.predicate == SLOT}
    out = []
    for said in hosting_said(turn, known):
        held = next((k for k in known if normalise(k) == normalise(said.project)), said.project)
        if normalise(held) in drafted:
            continue
        draft = in_place_of_held(held, SLOT, said.where, turn, TEMPLATE, said_at, current)
        out += [draft] if draft else []
    return out
