"""What the user (and the people they know) do besides a job, and when it ends: coaching, volunteering,
teaching a class, an office in a club.

"I coach my nephew's under-13 rugby side on tuesdays", "my mum volunteers at the Oakhythe food bank", "I
teach an evening pottery class", "I'm treasurer of the Brookvale residents association": said beside
other news, and said to end ("not coaching rugby next season", "mum's stopped volunteering at Oakhythe",
"I've stepped down as treasurer", "left the band"). A start read without its end would leave a stale
value current, so both are here, each shape data with examples and counter-examples
(tests/digest/test_pursuits.py). An end names its pursuit by its verb ("coaching") and, when more than
one is held, by a word of its value ("rugby"). A band or a choir is not started here: what the user plays
in it changes in words no shape reads ("I've moved to drums"), and a fact naming only the band would hide
those turns. Volunteering is read of someone else only (`Start.users`). The rules read a relative's clause
here as "I …" with that person as its subject (`read`); `pursuits_in_passing` reads the user's whole turn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise

from .model import Draft
from .passing import ended_when_said, held_open

# A value runs to the end of its clause; a trailing "on saturdays" or "twice a week" is when, not what.
_VALUE = r"(?P<v>[^,.;:!?()]+?)"
_END = r"(?=\s*(?:[,.;:!?()]|\s(?:and|but|so|plus|because|though|lol|haha)\b|$))"
_WHEN = re.compile(
    r"(?i)\s+(?:(?:on|every)\s+(?:\w+days?|weekends?|(?:mon|tues|wed|thurs|fri|sat|sun)\w*\s+(?:mornings?|evenings?|nights?|afternoons?))"
    r"|at\s+(?:the\s+)?weekends?|(?:once|twice|three\s+times)\s+a\s+(?:week|month)|after\s+(?:school|work)|these\s+days|now|instead)$"
)
_OFFICES = (r"treasurer|secretary|chair(?:person|woman|man)?|president|vice[- ](?:chair|president|captain)|captain|"
            r"membership\s+secretary|social\s+secretary|trustee|governor")


@dataclass(frozen=True)
class Start:
    """One way the user says they do something regularly: its words and its slot."""

    name: str
    regex: re.Pattern[str]
    slot: str
    template: str
    examples: tuple[tuple[str, str], ...]  # (turn, value)
    counter: tuple[str, ...] = ()
    # read of the user too, not only of someone else: the user's own volunteering, read on the sets nobody
    # tuned for, left a value current that a later turn had changed in words no end here reads
    users: bool = True


STARTS: tuple[Start, ...] = (
    Start(
        "coaching",
        re.compile(rf"(?i)\bI(?:['’]m|\s+am)?\s+(?:also\s+|still\s+|now\s+)?(?:coach|help\s+(?:to\s+)?coach|coaching|assistant[- ]coach)\s+(?!(?:me|him|her|them|you|myself|people)\b){_VALUE}{_END}"),
        "coaches", "{subject} coaches {value}",
        (("i coach my nephew's under-13 rugby side on tuesdays", "my nephew's under-13 rugby side"),
         ("work's calm, and i help coach my son's football team after school", "my son's football team")),
        ("I coach people on interviews at work", "I coach myself through it"),
    ),
    Start(
        "volunteering",
        re.compile(rf"(?i)\bI(?:['’]m|\s+am)?\s+(?:also\s+|still\s+|now\s+)?(?:(?:have\s+|['’]ve\s+)?(?:started|begun|been)\s+)?(?:volunteer|volunteering)\s+(?:(?:on\s+)?\w+days\s+)?(?:at|with|for)\s+{_VALUE}{_END}"),
        "volunteers_at", "{subject} volunteers at {value}",
        (("my mum volunteers at the Oakhythe food bank on fridays", "the Oakhythe food bank"),),
        ("I volunteered at a fair once",),
        users=False,
    ),
    Start(
        "teaching a class",
        re.compile(rf"(?i)\bI(?:['’]m|\s+am)?\s+(?:also\s+|still\s+|now\s+)?(?:teach|teaching)\s+"
                   rf"(?P<v>(?:an?|the|some|two|three)?\s*[^,.;:!?()]*?\b(?:class|classes|course|lessons|workshops?)\b[^,.;:!?()]*?){_END}"),
        "teaches", "{subject} teaches {value}",
        (("i teach an evening pottery class at the Fernleigh centre on mondays", "an evening pottery class at the Fernleigh centre"),),
        ("I teach myself", "I'm running late for class"),
    ),
    Start(
        "an office in a club",
        re.compile(rf"(?i)\bI(?:['’]m|\s+am)\s+(?:also\s+|now\s+|still\s+)?(?:the\s+)?(?P<v>(?:{_OFFICES})\s+(?:of|for)\s+(?:the|our|my|(?-i:[A-Z]))[^,.;:!?()]+?){_END}"),
        "serves_as", "{subject} is {value}",
        (("i'm treasurer of the Brookvale residents association", "treasurer of the Brookvale residents association"),
         ("I'm captain of the Sunday league team this year", "captain of the Sunday league team this year")),
        ("I'm secretary for a day lol", "I'm the chair at the end of the table"),
    ),
)

# An end names the pursuit by its verb: "not coaching next season", "stopped volunteering at Oakhythe".
_VERBS = {"coaching": ("coaches",), "volunteering": ("volunteers_at",), "teaching": ("teaches", "works_at"),
          "coach": ("coaches",), "volunteer": ("volunteers_at",), "teach": ("teaches", "works_at")}
_STOPPED = re.compile(
    r"(?i)\b(?:(?:stopped|quit|quitting|gave\s+up|giving\s+up|finished|done\s+with|no\s+more|took\s+a\s+break\s+from|taking\s+a\s+break\s+from)\s+(?P<ing>coaching|volunteering|teaching)"
    r"|(?:not|no\s+longer|won['’]t\s+be|isn['’]t|aren['’]t)\s+(?=\w+ing\b[^,.;!?]*\b(?:any\s?more|this\s+(?:term|season|year|semester)|next\s+(?:term|season|year|semester)|from\s+now\s+on)\b)(?P<not_ing>coaching|volunteering|teaching)"
    r"|no\s+longer\s+(?P<base>coach|volunteer|teach)(?:es|s)?"
    r"|(?:don['’]t|do\s+not|doesn['’]t|does\s+not)\s+(?=(?:coach|volunteer|teach)\w*\b[^,.;!?]*\bany\s?more\b)(?P<base2>coach|volunteer|teach)"
    r")\b(?P<rest>[^,.;:!?]*)"
)
_STEPPED_DOWN = re.compile(rf"(?i)\b(?:stepped|stepping|stood|standing)\s+down\s+(?:as|from)\s+(?:the\s+)?(?P<rest>(?P<office>{_OFFICES})\b[^,.;:!?]*)")
# Leaving the group a pursuit names: "left the band", "quit the choir", "resigned from the committee".
_LEFT = re.compile(
    r"(?i)\b(?:left|quit|quitting|leaving|ditched|dropped\s+out\s+of|resigned\s+from|resigning\s+from|stepped\s+back\s+from|stepping\s+back\s+from|"
    r"(?:took|taking)\s+a\s+break\s+from|gave\s+up|given\s+up|stopped\s+going\s+to|(?:my\s+)?last\s+(?:shift|day|session)\s+(?:at|with))\s+(?:(?:the|my|our)\s+)?(?P<rest>[^,.;:!?]+)"
)
_INSTEAD = re.compile(r"(?i)\binstead\b")
_NOW = re.compile(r"(?i)\b(?:now|these\s+days)\b")
_GROUP_SLOTS = ("coaches", "volunteers_at", "serves_as", "teaches", "plays")
_SMALL = frozenset("a an the my our at in on of for with this next term season year semester anymore any more now from".split())


def started(text: str, *, users: bool = False) -> list[tuple[Start, str, str]]:
    """(start, value, quote) for each pursuit `text` says its "I" has (`users`: the user, whom some starts
    are not read of)."""
    found = []
    for start in STARTS:
        if users and not start.users:
            continue
        for m in start.regex.finditer(text):
            value, before = " ".join(m["v"].split()), ""
            while value != before:  # "at weekends instead": each trailing when, one at a time
                before, value = value, _WHEN.sub("", value).strip()
            if value and len(value.split()) <= 9:
                found.append((start, value, m.group(0)))
    return found


def _named(rest: str, held: ClaimVersion) -> bool:
    words = {w for w in re.findall(r"[\w'’\-]+", rest.casefold()) if w not in _SMALL}
    return bool(words & set(re.findall(r"[\w'’\-]+", held.value.casefold())))


def ended(text: str, current: Sequence[ClaimVersion], subject: str) -> list[tuple[ClaimVersion, str]]:
    """(held fact, quote) for each pursuit `text` says the user no longer has: the held values of the
    verb's slots its words name, or the one held when it names none."""
    open_ = held_open(current, subject)
    out: list[tuple[ClaimVersion, str]] = []
    for m in _STOPPED.finditer(text):
        verb = next(m[g] for g in ("ing", "not_ing", "base", "base2") if m[g]).casefold()
        slots = _VERBS[verb]
        held = [c for c in open_ if c.predicate in slots]
        named = [c for c in held if _named(m["rest"], c)]
        if verb.startswith("teach"):
            held = [c for c in held if c.predicate == "teaches"]  # a job is ended only by naming it
        out += [(c, m.group(0)) for c in (named or (held if len(held) == 1 else []))]
    for m in _LEFT.finditer(text):
        out += [(c, m.group(0)) for c in open_ if c.predicate in _GROUP_SLOTS and _named(m["rest"], c)]
    for m in _STEPPED_DOWN.finditer(text):
        held = [c for c in open_ if c.predicate == "serves_as"]
        named = [c for c in held if c.value.casefold().startswith(m["office"].casefold()) and (len(held) == 1 or _named(m["rest"], c))]
        out += [(c, m.group(0)) for c in named]
    return out


def read(text: str, subject: str, said_at: str, current: Sequence[ClaimVersion], drafts: Sequence[Draft] = (), *,
         users: bool = False) -> list[Draft]:
    """Drafts for the held pursuits of `subject` that `text` ends and the ones it starts (not already
    drafted in `drafts` or held). `text` says "I" for the subject: the rules mirror a clause about
    someone else ("my mum volunteers at …") as theirs."""
    key = normalise(subject)
    drafted = {(d.predicate, normalise(d.value or "")) for d in drafts if normalise(d.subject) == key}
    held = {(c.predicate, c.value_key) for c in held_open(current, subject)}
    out: list[Draft] = []
    ending = set()
    for c, quote in ended(text, current, subject):
        if (c.predicate, c.value_key) in drafted or (c.predicate, c.value_key) in ending:
            continue
        ending.add((c.predicate, c.value_key))
        out.append(ended_when_said(c, quote, said_at))
    for start, value, quote in started(text, users=users):
        slot = (start.slot, normalise(value))
        if slot in drafted or slot in held or any(slot[1] in said for _, said in drafted):
            continue  # ("I play bass in a band called X" is a habit the rules drafted already)
        drafted.add(slot)
        others = [c for c in held_open(current, subject, start.slot) if (c.predicate, c.value_key) not in ending]
        # "instead", or "now" in the words that say it ("she volunteers at the rescue now"), and not "also"
        instead = bool(_INSTEAD.search(text) or (_NOW.search(quote) and not re.search(r"(?i)\b(?:also|too|as\s+well)\b", text)))
        if instead and len(others) == 1:
            # "now volunteers at the repair café instead": in place of the one held
            (other,) = others
            ending.add((other.predicate, other.value_key))
            out.append(ended_when_said(other, quote, said_at))
        # one ended or replaced in the same breath starts now; else it holds since some time before it was said
        changed = instead or any(d.op == "retract" and d.predicate == start.slot for d in [*drafts, *out])
        out.append(Draft(op="add", subject=subject, predicate=start.slot, value=value, quote=quote.strip(), cardinality="many",
                         template=start.template, valid_from=said_at if changed else None))
    return out


def pursuits_in_passing(turn: str, subject: str, said_at: str, drafts: Sequence[Draft], current: Sequence[ClaimVersion]) -> list[Draft]:
    """The user's pursuits a whole turn starts and ends (`read`), beside what the rules drafted."""
    return read(turn, subject, said_at, current, drafts, users=True)
