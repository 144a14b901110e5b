"""Who someone the user knows is with: a partner named, changed or gone.

"Idony's dating a bloke named Tobrin these days", "my brother Anso got engaged to his girlfriend Lirael",
"Sigrun's boyfriend Jesper has practically moved in", "she's been with her boyfriend Caspar since uni", "Wenna
and Tobin broke up":
news about another person's life, said in passing or as gossip, so no first-person pattern reads it. Each
shape below is data, with examples and counter-examples (tests/digest/test_couples.py);
`partners_in_passing` holds the partner named in place of the one held (someone new is the new value, from
when it was said) and ends the held one at a break-up. Only people the turn or the ledger already knows
are read (a name after "my sister", a subject held): "Spring is seeing a surge" names nobody's partner.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise
from factledger.ledger.when import MONTHS, WEEKDAYS

from .model import Draft
from .passing import ended_when_said, held_open, in_place_of_held

SLOT = "partner"
TEMPLATE = "{subject}'s partner is {value}"

_NAME = r"(?-i:[A-Z][a-z][\w\-]*)"
# Whose partner: a name, or a pronoun standing for the one person named before it in the turn.
_WHO = rf"(?P<p>{_NAME}|she|he|they)"
_WHOSE = r"(?P<p>her|his|their)"
# The partner: a name and perhaps a surname ("Ninian Vale"), never a word that starts the next clause.
_PARTNER = rf"(?P<q>{_NAME}(?:\s+(?!(?-i:Now|Too|Though|Lol)\b){_NAME})?)(?![\w'’])"
_LOVER = r"(?:boyfriend|girlfriend|partner|bf|gf|husband|wife|fianc[eé]e?|hubby)"
_SOMEONE = r"(?:(?:a|this|some|another)\s+(?:new\s+)?(?:guy|girl|bloke|man|woman|lad|lass|fella|chap|person)|some(?:one|body)(?:\s+new)?)"
_BE = r"(?:['’]s|\s+is|\s+was|\s+has\s+been|\s+are|['’]re)"
_TOGETHER = r"(?:got|are|were|have\s+got|just\s+got|finally\s+got|are\s+getting|got\s+back)"


@dataclass(frozen=True)
class Shape:
    """One way a turn says who someone is with (`apart`: that they no longer are)."""

    name: str
    regex: re.Pattern[str]
    examples: tuple[tuple[str, tuple[str, str]], ...]  # (turn, (person, partner)); apart: the partner held before
    counter: tuple[str, ...] = ()
    apart: bool = False
    both_ways: bool = False  # "Anso and Lirael got engaged": either may be the one the ledger knows


SHAPES: tuple[Shape, ...] = (
    Shape(
        "seeing someone",
        re.compile(rf"(?i)\b{_WHO}{_BE}?\s+(?:now\s+|also\s+)?(?:seeing|dating|going\s+out\s+with)\s+(?:{_SOMEONE},?\s+(?:(?:called|named)\s+)?)?{_PARTNER}"
                   rf"(?=\s*(?:now|these\s+days|again|for\s+(?:a|about|like|\d|two|three|six)|since|[,.;:!?)]|$))"),
        (("guess what, my flatmate Idony's dating a bloke named Tobrin these days", ("Idony", "Tobrin")),
         ("my sister Wenna is going out with someone, Tobin, since the summer", ("Wenna", "Tobin")),
         ("my friend Torvi is dating Gwilym these days", ("Torvi", "Gwilym"))),
        ("my sister Wenna is seeing Dr Lang on friday", "Wenna is seeing Mira for lunch tomorrow", "I'm seeing Gwilym later"),
    ),
    Shape(
        "has a partner",
        re.compile(rf"(?i)\b{_WHO}(?:\s+has(?:\s+got)?|['’]s\s+got|\s+got)\s+(?:a\s+)?(?:new\s+)?{_LOVER}(?:\s+now)?\s*(?:,|:|\s-|\s—|\s+(?:called|named))\s*{_PARTNER}"),
        (("my friend Torvi has a new boyfriend, Dace", ("Torvi", "Dace")),
         ("my cousin Nell's got a girlfriend called Maren", ("Nell", "Maren"))),
        ("my friend Torvi has a boyfriend", "my friend Torvi has a partner in the firm, Dace Ltd"),
    ),
    Shape(
        "Name's partner Name",
        re.compile(rf"(?i)\b{_WHO}['’]s\s+(?:new\s+)?{_LOVER}(?:\s+is|,)?\s+{_PARTNER}(?!['’]s)"),
        (("my flatmate Sigrun's boyfriend Jesper is basically living here now", ("Sigrun", "Jesper")),
         ("my brother Anso's fiancée is Lirael", ("Anso", "Lirael"))),
        ("my flatmate Sigrun's boyfriend is lovely", "my flatmate Sigrun's partner in the shop, Ida, quit"),
    ),
    Shape(
        "engaged or married to",
        re.compile(rf"(?i)\b{_WHO}(?:\s+(?:just|finally))?(?:\s+(?:got|is|was|are|has\s+got)|['’]s|['’]re)(?:\s+(?:just|finally|now|getting))?\s+(?:engaged|married)\s+to\s+"
                   rf"(?:(?:his|her|their)\s+(?:{_LOVER}\s+)?|{_SOMEONE},?\s+(?:(?:called|named)\s+)?)?{_PARTNER}"),
        (("my brother Anso got engaged to his gf Lirael at the weekend", ("Anso", "Lirael")),
         ("My best friend Odette just got engaged to a guy called Lorimer Moss! so happy", ("Odette", "Lorimer Moss")),
         ("my aunt Petra's getting married to Caddoc in june", ("Petra", "Caddoc"))),
        ("my brother Anso got engaged last week", "my brother Anso got married to the job"),
    ),
    Shape(
        "marrying Name",
        re.compile(rf"(?i)\b{_WHO}\s+(?:is\s+marrying|married|is\s+engaged\s+to)\s+{_PARTNER}"),
        (("my aunt Petra is marrying Caddoc in june", ("Petra", "Caddoc")),),
        ("my aunt Petra married young",),
    ),
    Shape(
        "Name and Name got together",
        re.compile(rf"(?i)\b{_WHO}\s+(?:and|&)\s+{_PARTNER}\s+(?:have\s+|are\s+|just\s+|finally\s+)*(?:{_TOGETHER}\s+)?"
                   rf"(?:engaged|married|hitched|together(?!\s+(?:for|on|at|to|in)\b)|an?\s+item|a\s+couple)"),
        (("my brother Anso and Lirael got married on saturday", ("Anso", "Lirael")),
         ("my flatmate Sigrun and Jesper are together now", ("Sigrun", "Jesper"))),
        ("my brother Anso and Lirael went to Rome together", "my brother Anso and Ivo are together on the rota"),
        both_ways=True,
    ),
    Shape(
        "her partner Name",
        re.compile(rf"(?i)\b{_WHOSE}\s+(?:new\s+)?{_LOVER}(?:\s+is|,)?\s+{_PARTNER}(?!['’]s)"),
        (("my flatmate Sigrun is a nurse and she's been with her boyfriend Caspar since uni", ("Sigrun", "Caspar")),),
        ("her boyfriend is lovely", "my sister and her bf Caspar came over"),
    ),
    Shape(
        "split up with",
        re.compile(rf"(?i)\b{_WHO}(?:\s+(?:has|have|just|finally))*\s+(?:split\s+up|broke\s+up|broken\s+up|split|separated|divorced)\s+(?:with|from)\s+{_PARTNER}"),
        (("my sister Wenna split up with Tobin", ("Wenna", "Tobin")),),
        ("my sister Wenna split from the choir",),
        apart=True,
    ),
    Shape(
        "dumped Name",
        re.compile(rf"(?i)\b{_WHO}\s+(?:just\s+|finally\s+)?dumped\s+{_PARTNER}"),
        (("my flatmate Idony dumped Tobrin, finally", ("Idony", "Tobrin")),),
        ("my sister Wenna left Harwell on monday for a new job", "my sister Wenna dumped the idea"),
        apart=True,
    ),
    Shape(
        "Name and Name split up",
        re.compile(rf"(?i)\b{_WHO}\s+(?:and|&)\s+{_PARTNER}\s+(?:have\s+|just\s+|finally\s+)*(?:split\s+up|broke\s+up|broken\s+up|separated|divorced|are\s+over|split(?=\s*(?:[,.;:!?]|$|after\b|last\b|this\b|in\b)))"),
        (("my sister Wenna and Tobin broke up", ("Wenna", "Tobin")),),
        ("my sister Wenna and Tobin split the bill",),
        apart=True,
        both_ways=True,
    ),
)

_PRONOUNS = frozenset("she he they her his their".split())
_NOT_NAMES = frozenset(
    "i im i'm and but so the this that it we you mr mrs ms dr in on at for to of from with by as if or my our "
    "also just now then still well oh ok okay yes no lol update news gossip".split()
) | frozenset(MONTHS) | frozenset(WEEKDAYS)
_MY_PERSON = re.compile(rf"(?i)\bmy\s+(?:[a-z][\w-]*\s+){{1,2}}?(?P<name>{_NAME})")


@dataclass(frozen=True)
class Couple:
    """What a turn says of someone's partner: `person` is with `partner` (`apart`: no longer)."""

    shape: Shape
    person: str
    partner: str
    quote: str


def couples_said(text: str, known: Callable[[str], str | None]) -> list[Couple]:
    """Each (person, partner) `text` says, the person one `known` knows (or named after "my …" in the
    text), a pronoun standing for the one person named before it."""
    named_mine = {m["name"] for m in _MY_PERSON.finditer(text) if m["name"].casefold() not in _NOT_NAMES}

    def person(word: str) -> str | None:
        if word.casefold() in _NOT_NAMES:
            return None
        return known(word) or (word if word in named_mine else None)

    matches = [(shape, m) for shape in SHAPES for m in shape.regex.finditer(text)]
    partners = {m["q"].split()[0] for _, m in matches}  # a partner named is not whom a pronoun stands for
    found: list[Couple] = []
    for shape, m in matches:
        who, partner = m["p"], " ".join(m["q"].split())
        if partner.split()[0].casefold() in _NOT_NAMES:
            continue
        if who.casefold() in _PRONOUNS:
            before = [w for w in re.findall(_NAME, text[: m.start()]) if w not in partners and person(w)]
            people = {person(w) for w in before}
            if len(people) != 1:
                continue  # nobody, or several, named before it: whose is not known
            subject = people.pop()
        else:
            subject = person(who)
            if subject is None and shape.both_ways and person(partner.split()[0]):
                subject, partner = person(partner.split()[0]), who
        if subject is None or normalise(subject) == normalise(partner):
            continue
        if all((c.person, c.partner) != (subject, partner) for c in found):
            found.append(Couple(shape, subject, partner, m.group(0)))
    return found


def partners_in_passing(turn: str, said_at: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion],
                        known: Callable[[str], str | None]) -> list[Draft]:
    """Drafts for the partners `turn` names (in place of the one held) and the ones it says are gone."""
    drafted = {normalise(d.subject) for d in drafts if d.predicate == SLOT}
    mine = {d.subject for d in drafts if d.predicate == "relation"}

    def knows(word: str) -> str | None:
        return known(word) or next((s for s in mine if normalise(s.split()[0]) == normalise(word)), None)

    said = couples_said(turn, knows)
    # "she split up with Tobrin, she's seeing Ninian now": the new partner in place of the old says both
    together = {normalise(c.person) for c in said if not c.shape.apart}
    out: list[Draft] = []
    for couple in said:
        key = normalise(couple.person)
        if key in drafted or (couple.shape.apart and key in together):
            continue
        drafted.add(key)
        if couple.shape.apart:
            first = normalise(couple.partner.split()[0])
            out += [ended_when_said(c, turn, said_at) for c in held_open(current, couple.person, SLOT)
                    if normalise(c.value.split()[0]) == first]
            continue
        draft = in_place_of_held(couple.person, SLOT, couple.partner, turn, TEMPLATE, said_at, current)
        out += [draft] if draft else []
    return out
