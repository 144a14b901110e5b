"""What a question asks for, read from its shape: the thing it names ("my javelin PB": the
head word "pb", qualified by "javelin") and the words around it ("at Mardleton").

Recall uses it to tell a question about an unsaid part of a said thing from one the said turns answer:
"what's my flight number?" when only the flight was said is answered by nothing here, however well the
turn about the flight matches "flight". The shapes and word lists are data, each with its examples in
tests/recall/test_asked.py.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

from factledger.ledger.when import MONTH_WORD
from factledger.recall.text import RELATIVES, SAID_OTHERWISE, STOP_WORDS, names_relative, relative_words, same_word, words

# The head of "who is my physio?", "what's my GP's name?", "what's my coach called?": a name, which a
# turn gives without the word ("my GP is Dr Zwanenburg").
NAME = "name"

_ROLE_ENDS = frozenset("names".split())
# "my last name", "my full name": the speaker's own name, not one of a role.
_OWN_NAMES = frozenset("first last full middle maiden nick user sur given family legal".split())
# Titles that name someone wherever they stand in a sentence.
_TITLES = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|Professor|Dame|Sir)\b\.?\s*[A-Z]")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_CLAUSE = re.compile(r"(?<!\d)[,;](?!\d)|(?<=[.!?])\s+|\n+|\s+(?:and|but)\s+")
_CAPITALISED = re.compile(r"(?<![\w'’])[A-Z][a-z][\w'’-]*")
# Capitalised words that name nobody.
_NOT_NAMES = frozenset(
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August "
    "September October November December Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec I I'm I've I'd I'll OK "
    "Ok".split()
)

def names_said(texts: Iterable[str]) -> frozenset[str]:
    """The casefolded words `texts` write capitalised ("new flatmate moved in!! Keziah."): names, as
    far as the turns say; a word capitalised only by a sentence's start is among them, which matters only
    where a question puts it in a person's place ("what's keziah's surname?"). Weekdays, months, "I"
    and stop words are none."""
    found = set()
    for text in texts:
        for m in _CAPITALISED.finditer(text):
            word = words(m.group(0))[0]
            if m.group(0).rstrip("'’") in _NOT_NAMES or word in RELATIVES:
                continue  # "Mum" is a relative, asked as one
            found.add(word)
    return frozenset(found - STOP_WORDS)


def recased(query: str, names: Iterable[str]) -> str:
    """`query` with the words `names` holds capitalised: users type "what's keziah's surname?" in lower
    case, and a question's shape reads a person by their capital ("Keziah's surname")."""
    known = set(names)
    if not known:
        return query
    return _LOWER_WORD.sub(lambda m: m.group(0).capitalize() if m.group(0) in known else m.group(0), query)


_LOWER_WORD = re.compile(r"(?<![\w'’])[a-z][a-z-]*(?![\w-])")


# "Dev's phone number": a capitalised name owning the thing (not "What's", "It's").
_POSSESSIVE = re.compile(
    r"(?<!\bmy\s)(?<!\bour\s)(?<!\bthe\s)(?<!\bher\s)(?<!\bhis\s)(?<!\byour\s)"
    r"\b(?!(?:What|Who|Where|When|How|Which|That|It|There|Here|He|She|Let|Today|Tomorrow)['’]s)([A-Z][a-z][\w-]*)['’]s\s+(?=[a-z])"
)
# Who owns the thing a question names.
_OWNERS = frozenset("my our the his her their your".split())
_BE = frozenset("is are was were am".split())
_AUX = _BE | frozenset("do does did will can could should has have had".split())
_FRAMES = frozenset("what which who".split())
# Past participles that end a question's phrase as its verb ("what is the site built with?").
_PARTICIPLES = frozenset("built made written run done kept held hosted deployed stored based located paid taught".split())
# Who a verb ending a question's phrase is done to ("charging me"; "my chess rating" has none).
_OBJECTS = frozenset("me us you him her them".split())
# Words that end the phrase naming the thing without being part of it.
# (and particles after a noun: "my train back to Lisgarth" is the train, "my flight home" the flight)
_PHRASE_ENDS = frozenset("called named now currently right today these days again due back home away".split())

# Heads that ask for a kind of value, not a thing ("what size is my bike frame?": the thing is the
# frame): the phrase after the verb names what is asked about.
TYPE_HEADS = frozenset(
    "time date day days year month week size colour color type kind sort brand model make version length "
    "height width weight price cost amount".split()
)

# Verbs a date is asked by at a question's end ("when does my lease end?").
_DATED_VERBS = frozenset("renew renews expire expires start starts end ends finish finishes open opens close closes begin begins "
                         "arrive arrives leave leaves land lands depart departs happen reset resets".split())

# Kinds of value a question asks of a thing it names without an owner ("what domain is Tansyweb on?"): the
# value's shape says it, so a thing named by its name alone is enough.
_ASKED_OF_A_NAME = frozenset("domain licence license port version".split())

# Kinds of a thing whose value is a name ("what make is my bike?": a brand's).
_NAMED_KINDS = frozenset("brand make model".split())

# Heads a title answers without their word ("i'm secretary of the chess club" for "my role there").
TITLE_HEADS = frozenset("role job position title occupation profession".split())

# Heads that sum up what was said rather than name one thing of it ("my gym routine" is answered by
# "squats, then intervals on the rower" without the word): a turn need not say them, so their absence proves nothing.
SUMMARY_HEADS = frozenset(
    "routine routines schedule plan plans setup situation status goal goals progress budget commute stack "
    "diet habit habits hobby hobbies preference preferences favourite favourites favorite update updates news "
    "history background experience availability arrangement arrangements options choice choices".split()
)

_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()

# Heads answered by a value of a shape rather than by their own word: "my passport number" by
# "passport 503112984", "the interest rate" by "4.1%". (head words, the value's pattern)
VALUE_SHAPES: tuple[tuple[frozenset[str], re.Pattern[str]], ...] = (
    (
        frozenset("number no code id pin combination passcode password reference ref registration serial plate account iban".split()),
        # four digits or more (a year of 1900-2039 aside), or letters and digits in one token ("KL2207", "D-14"),
        # neither an ordinal nor a measure ("the 31st", "5km", "10K")
        re.compile(
            r"\b(?<![\d-])(?!(?:19\d|20[0-3])\d\b|\d{4}-\d\d-\d\d\b)\d[\d \-]{2,}\d\b"
            r"|\b(?!\d+(?:st|nd|rd|th|am|pm|km|kg|mg|ml|mi|k|m|h|s|x|min|mins|hrs?|kms)\b)"
            r"(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z\d][\w-]{2,}\b"
            r"|(?-i:\b[A-Z]{2,3}\s\d{2,5}\b)",  # a carrier's code and a number ("QX 416")
            re.I,
        ),
    ),
    (
        frozenset("host hostname server box machine".split()),
        # a dotted name ("api-stg.example.dev"), an address, or a hyphenated or numbered name ("stg-delta", "db07";
        # not a word of English joined by a particle: "on-call", "follow-up")
        re.compile(
            r"\b[a-z][\w-]*(?:\.[a-z][\w-]*)+\b|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b(?=[a-z-]*\d)[a-z][a-z\d-]+\b"
            r"|\b(?!(?:on|in|up|off|out|over|back|down|well|self|non|re|co|pre|post|by|all|one|two|half|full|part|long|short|high|low)-)"
            r"[a-z]+(?:-(?!(?:on|in|up|off|out|over|back|down|by|based|time|free|ish|like|made|term)\b)[a-z\d]+)+\b",
            re.I,
        ),
    ),
    (
        frozenset("date day deadline".split()),
        # a month or weekday, a day of a month ("the 16th", "16/05"), or a day said relatively
        re.compile(
            # (a month's whole name or its short form: "octagon", "maybe", "decided" name no month)
            rf"\b{MONTH_WORD}\b"
            r"|\b(?:mon|tues?|wed|thu|thurs|fri|sat|sun)[a-z]*days?\b"
            r"|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{1,2}[/.]\d{1,2}\b|\b(?:today|tomorrow|tonight|yesterday|next\s+week)\b",
            re.I,
        ),
    ),
    (
        frozenset({"count"}),
        # a number, not a day of a month ("from december 1") nor part of a code ("H100s"), or a number word
        re.compile(
            "".join(f"(?<!{m} )" for m in _MONTHS) + r"(?<![\w.,:/-])\d{1,3}(?:,\d{3})*(?:k\b|(?![\w.:/-]|,\d))"
            r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|twenty|thirty|forty|fifty|hundred)\b",
            re.I,
        ),
    ),
    (
        frozenset("address".split()),
        # a street with its number or its kind ("14 Vell Row", "on Hartop Terrace"), or a postcode
        re.compile(
            r"\b(?:\d{1,4}[A-Za-z]?,?\s+)?(?:[A-Z][\w'’-]+\s+){1,3}(?i:street|st|road|rd|lane|ln|avenue|ave|terrace|close|way|drive"
            r"|place|court|crescent|gardens|grove|square|row|hill|boulevard|blvd|mews|walk|parade|strasse|straße|rue|via|calle)\b"
            r"|\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b",
        ),
    ),
    (
        frozenset("brand make model".split()),
        # a name: a capitalised word not starting its sentence ("I drive a 2019 Corvanne"; "I", a month or a
        # weekday names no brand)
        re.compile(
            r"(?<=[\w,;:+&]\s)(?!I\b|I['’])(?!(?:" + "|".join(_MONTHS) + r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b)"
            r"(?-i:[A-Z])[\w'’&\-]+",
            re.I,
        ),
    ),
    (
        frozenset("licence license".split()),
        # a licence's name
        re.compile(r"\b(?:MIT|Apache|A?GPL|LGPL|GPLv\d|BSD|MPL|ISC|EUPL|SSPL|BSL|Unlicense|Creative\s+Commons|CC[- ]?BY[\w-]*|CC0|WTFPL|proprietary|public\s+domain)\b", re.I),
    ),
    (
        frozenset({"port"}),
        # a port after a host's colon, or said as one ("port 8443", "on 8080")
        re.compile(r"(?<=[\w\]]):\d{2,5}\b|\bports?\s+\d{2,5}\b|\bon\s+\d{4,5}\b", re.I),
    ),
    (frozenset({"version"}), re.compile(r"\bv?\d+(?:\.(?:\d+|x))*\b", re.I)),  # "3.12", "node 22", "1.24.x", "v5"
    (
        frozenset("dose dosage".split()),
        re.compile(r"\b\d+(?:\.\d+)?\s*(?:mg|mcg|µg|ml|iu|units?|tablets?|pills?|puffs?|drops?)\b", re.I),
    ),
    (
        frozenset("pb record best max 1rm pr time".split()),
        # a clock time or a duration ("7:30", "3pm", "51:07", "45 min"), or a lift's weight
        re.compile(r"\b\d{1,2}:\d\d\b|\b\d{1,2}(?:[.:]\d\d)?\s*(?:am|pm)\b|\b(?:noon|midday)\b|\b\d+(?:\.\d+)?\s*(?:min|mins|minutes|secs?|seconds|kg|km)\b", re.I),
    ),
    (
        frozenset("weigh weighs weighed weight".split()),
        re.compile(r"\b\d+(?:\.\d+)?\s*(?:kg|kgs|kilos?|lbs?|pounds|st|stone)\b", re.I),
    ),
    (frozenset("rate percentage apr interest".split()), re.compile(r"\d\s*%|\bper\s*cent\b|\bpercent\b")),
    (
        frozenset("price cost fee fees charge charges rent salary pay wage payment payments bill premium deposit balance".split()),
        # a currency, a unit, or a sum written in thousands ("rent 1,240")
        re.compile(r"[£$€¥]\s*\d|\b\d{1,3}(?:,\d{3})+\b|\b\d[\d,.]*\s*(?:k|euros?|dollars?|pounds?|quid|bucks|usd|eur|gbp|an hour|/h|a month|per month|a year|per year|p\.?a)\b", re.I),
    ),
)
_DAY_SHAPE = next(shape for heads, shape in VALUE_SHAPES if "date" in heads)
# A site's domain, asked only of a thing named without an owner ("what domain is Tansyweb on?"): a name with a
# top-level domain ("tansyweb.dev", "shop.pellow.co.uk"). (Asked of "my" things, a domain is often said
# without one: "the domain's at Namecheap".)
_DOMAIN = re.compile(r"\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|dev|app|co|ai|xyz|me|uk|de|fr|nl|eu|info|site|shop|blog|page|sh|gg|tech|cloud|so|is|to|fm|tv)\b", re.I)

# Words one head may be said as (a question says "boss" where the turn said "manager").
SAME_THING: tuple[frozenset[str], ...] = (
    frozenset("manager boss supervisor lead".split()),
    frozenset("coach trainer instructor".split()),
    frozenset("physio physiotherapist".split()),
    frozenset("doctor gp physician".split()),
    frozenset("pb record best max 1rm pr".split()),
    frozenset("salary pay wage wages income earn earns".split()),
    frozenset("job role position work".split()),
    frozenset("allergy allergies allergic".split()),
    frozenset("airline carrier".split()),
    frozenset("flat apartment home house".split()),
    frozenset("car vehicle".split()),
    frozenset("host hostname server box machine".split()),
    frozenset("partner wife husband girlfriend boyfriend spouse".split()),
)


@dataclass(frozen=True)
class AskedFor:
    """The thing a question names: `head` what is asked ("pb"), `qualifiers` the words before it in
    its phrase ("javelin"), `anchors` the question's other topical words ("mardleton")."""

    head: str
    qualifiers: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()
    # Whose it is, when the question names them ("Dev's phone number": "dev"); a value must be said
    # beside them.
    person: str = ""
    # The kind of value asked when the question's frame says it rather than its head ("when is my MOT?":
    # a date): a head of `VALUE_SHAPES`.
    value: str = ""
    # Words the question says as owners ("my brother's girlfriend": "brother"), not as kinds of the thing.
    owners: tuple[str, ...] = ()

    @property
    def others(self) -> tuple[str, ...]:
        return self.qualifiers + self.anchors

    def alternatives(self) -> frozenset[str]:
        """The head's words for the same thing, itself included, and the words it is said as
        (`SAID_OTHERWISE`: "married" for a wedding)."""
        return frozenset().union(*(group for group in SAME_THING if self.head in group), {self.head}, SAID_OTHERWISE.get(self.head, ()))

    def probes(self) -> frozenset[str]:
        """The words whose presence in the searched scopes the rule asks: the head's words, or for a
        name the role's."""
        if self.head == NAME:
            return AskedFor(self.qualifiers[-1]).alternatives() if self.qualifiers else frozenset()
        return self.alternatives()

    def shape(self) -> re.Pattern[str] | None:
        if self.head in ("number", "no") and set(self.qualifiers) & NUMBERED_PLACES:
            return _SMALL_NUMBER  # "my gym locker number": "the locker is 87 now" says it
        if self.value == "domain":
            return _DOMAIN
        return next((pattern for heads, pattern in VALUE_SHAPES if (self.value or self.head) in heads), None)


# Things numbered by a short number ("locker 87", "seat 14C", "room 212"): their number need not be long.
NUMBERED_PLACES = frozenset(
    "locker room seat gate desk table platform bay pitch flat apartment unit house door cabin berth carriage coach "
    "bus route stall plot space spot pew shirt jersey box".split()
)
_SMALL_NUMBER = re.compile(
    "".join(f"(?<!{m} )" for m in _MONTHS)  # "October 8": a day, not a seat
    + r"(?<![\w.,:/-])\d{1,4}[A-Za-z]?(?![\w.:/-]|,\d)"
    r"(?!\s*(?:min|mins|minutes|secs?|seconds|km|kg|mg|ml|mi|miles|lbs?|am|pm|h|hrs?|hours?|%|x|times|days?|weeks?|months?|years?|people|kids?"
    + "".join(f"|{m}" for m in _MONTHS) + r")\b)",
    re.I,
)


# Words of a time phrase ("in February", "last October", "two weeks ago"): when, not what.
_TIME_WORDS = frozenset(
    "january february march april may june july august september october november december monday tuesday "
    "wednesday thursday friday saturday sunday week weeks month months year years ago yesterday tomorrow "
    "today tonight morning evening night weekend".split()
)


def _phrase(tokens: Sequence[str], start: int) -> list[str]:
    """The content words from `start` up to the first word that ends a noun phrase."""
    found = []
    for at in range(start, len(tokens)):
        word = tokens[at]
        if word in STOP_WORDS or word in _PHRASE_ENDS or word in _FRAMES or word in _TIME_WORDS or word.isdigit():
            break
        if word in ("last", "next", "this") and at + 1 < len(tokens) and tokens[at + 1] in _TIME_WORDS:
            break
        found.append(word)
    return found


# Heads that ask for a person's family name; a text gives it as a capitalised word right after theirs.
_SURNAMES = frozenset("surname lastname".split())


def _SURNAME_AFTER(person: str) -> re.Pattern[str]:
    return re.compile(rf"(?i:\b{re.escape(person)})\s+(?!(?:{'|'.join(sorted(_NOT_NAMES))})\b)[A-Z][a-z][\w'’-]+")


def _shares(said: Iterable[str], wanted: Iterable[str]) -> bool:
    """Whether a word of `said` is one of `wanted` in some form ("lessons" for "lesson")."""
    wanted = list(wanted)
    return any(same_word(w, x) for w in said for x in wanted)


# "when do I fly out?", "what day is the move?", "what date is it due?": a question a day answers
_ASKS_WHEN = re.compile(r"(?i)^\W*(?:when\b|(?:what|which)\s+(?:day|date|days)\b|on\s+what\s+(?:day|date)\b)")


def asks_when(query: str) -> bool:
    """Whether `query` asks for a day or a date (answered by a value naming one)."""
    return _ASKS_WHEN.search(query) is not None


def names_a_day(text: str) -> bool:
    """Whether `text` names a day: a month, a weekday, a day of a month, a day said relatively."""
    return _DAY_SHAPE.search(text) is not None


def words_share(text: str, wanted: Iterable[str]) -> bool:
    """Whether `text` says one of `wanted` in some form."""
    return _shares(words(text), wanted)


def _shaped(head: str) -> bool:
    return any(head in heads for heads, _ in VALUE_SHAPES)


def _anchors(tokens: Sequence[str], phrase: Iterable[str]) -> tuple[str, ...]:
    taken = set(phrase)
    return tuple(dict.fromkeys(w for w in tokens
        if w not in STOP_WORDS and w not in taken and w not in _PHRASE_ENDS and w not in _TIME_WORDS and not w.isdigit()))


# "on-call", "check-in": a compound with a particle, whose particle would end the phrase.
_PARTICLE_COMPOUND = re.compile(r"\b([A-Za-z]+)-([A-Za-z]+)\b")
# "Club & More", "Bank of Tarn": a name whose small words would end the phrase.
_NAME_JOINER = re.compile(r"\b([A-Z][\w']*)\s+(?:&|and|of|the|de|du|la|le|von|van)\s+(?=[A-Z])")
# ... and capitalised small words inside a name ("Club More").
_NAME_SMALL_WORD = re.compile(r"\b([A-Z][\w']*)\s+(?:More|Most|Less|Only|All|Own|Same|Other)\b")


def _compact(query: str) -> str:
    """The question with its compounds' particles and its names' small words left out, so each stays in
    its phrase: "my on-call pager number" -> "my call pager number", "my Club & More number" -> "my
    Club number"."""
    query = _PARTICLE_COMPOUND.sub(
        lambda m: " ".join(part for part in m.groups() if part.lower() not in STOP_WORDS) or m.group(0), query
    )
    return _NAME_SMALL_WORD.sub(r"\1", _NAME_JOINER.sub(r"\1 ", query))


def asked_for(query: str) -> AskedFor | None:
    """The thing `query` asks for, when its shape says: "what's my X", "who is our X", "what X is my Y",
    "which X do I …", "do I have any X", "how much does my X <verb>", "what size X do I …", "how many X
    does Y have", "when is my X". None for other shapes."""
    query = _compact(query)
    tokens = words(query)
    if not tokens:
        return None
    owned = _POSSESSIVE.search(query)
    person = words(owned[1])[0] if owned and owned[1] not in _NOT_NAMES else ""
    found = _asked_for(tokens, person)
    if found is None:
        return None
    owners = tuple(w for w in dict.fromkeys(words(" ".join(_OWNED.findall(query)))) if w in found.qualifiers)
    if owners:
        found = dataclasses.replace(found, owners=owners)
    if not person or person not in found.anchors + found.qualifiers:
        return found
    return dataclasses.replace(found, person=person)


_OWNED = re.compile(r"(?i)\b([a-z][\w-]*)['’]s\s+(?=[a-z])")


def _asked_for(tokens: Sequence[str], person: str) -> AskedFor | None:
    for at, word in enumerate(tokens):
        rest = tokens[at + 1 :]
        if word in _FRAMES and rest:
            n = 0
            while n < len(rest) and rest[n] in _BE:
                n += 1
            if n < len(rest) and (rest[n] in _OWNERS or (person and rest[n] == person)):
                thing = _phrase(rest, n + 1)
                if not thing:
                    return None
                after = rest[n + 1 + len(thing) :]
                if thing[-1] in _PARTICIPLES or (thing[-1].endswith("ed") and len(thing[-1]) > 4):
                    return None  # "what is the checkout built with?": a verb ends the phrase, no thing is named
                if len(thing) >= 2 and thing[-1].endswith("ing") and after and after[0] in _OBJECTS:
                    return None  # "what's the accountant charging me?": what they do, not a thing of theirs
                if thing == [NAME] and len(after) >= 3 and after[0] == "of" and after[1] in _OWNERS:
                    # "what's the name of my dentist?": a name asked of a role ("the name of Ana's dog" is
                    # not read: a person's things are often said without the role's word)
                    inner = _phrase(after, 2)
                    if inner:
                        return AskedFor(NAME, tuple(inner), _anchors(after, inner))
                    return None
                if thing[-1] == NAME or (thing[-1] in _ROLE_ENDS and len(thing) >= 2):
                    if len(thing) < 2 or thing[-2] in _OWN_NAMES:
                        return None  # "my last name": the speaker's own, not a role's
                    return AskedFor(NAME, tuple(thing[:-1]), _anchors(rest, thing))
                if word == "who" or (after and after[0] in ("called", "named")):
                    if thing[-1].endswith(("ed", "ing")):
                        return None  # "who was my car insured with": a verb ends the phrase, not a role
                    # a person asked by their role: the role's name is what is asked
                    return AskedFor(NAME, tuple(thing), _anchors(rest, thing))
                return AskedFor(thing[-1], tuple(thing[:-1]), _anchors(rest, thing))
            if word in ("what", "which") and n == 0:
                # "which database is billing on?": the word names the kind of the answer ("RavenDB"),
                # which a turn rarely says; only "what size is my bike frame?" names a thing asked about
                thing = _phrase(rest, 0)
                after = rest[len(thing):]
                if thing and thing[-1] in _ASKED_OF_A_NAME and after and after[0] in _BE and after[1:2] and after[1] not in _OWNERS:
                    # "what domain is Tansyweb on?": a value of a shape asked of a thing named without an owner
                    inner = _phrase(after, 1)
                    if inner:
                        return AskedFor(thing[-1], tuple(thing[:-1]), tuple(dict.fromkeys(inner + list(_anchors(after, inner)))),
                                        value="domain" if thing[-1] == "domain" else "")
                    return None
                if thing and _shaped(thing[-1]) and after and after[0] in _BE:
                    # "what interest rate is our mortgage?": a value of a shape ("4.1%") asked of a thing
                    inner = next((_phrase(after, k + 1) for k, token in enumerate(after) if token in _OWNERS), [])
                    if inner:
                        return AskedFor(thing[-1], tuple(thing[:-1]), tuple(dict.fromkeys(inner + list(_anchors(after, inner)))))
                    return None
                if len(thing) >= 2 and thing[0] in TYPE_HEADS and after and after[0] in _AUX:
                    # "what size climbing shoes do I wear?": the thing is the phrase after the kind
                    return AskedFor(thing[-1], tuple(thing[1:-1]), _anchors(rest, thing))
                if len(thing) != 1 or thing[0] not in TYPE_HEADS:
                    return None
                if after and after[0] == "of":
                    # "which version of Haskell are we on?": a value of a shape asked of the thing after "of"
                    inner = _phrase(after, 1)
                    if inner and _shaped(thing[0]):
                        return AskedFor(inner[-1], tuple(inner[:-1]), _anchors(after, inner), value=thing[0])
                    return None
                for k, token in enumerate(after):
                    if token in _OWNERS:
                        inner = _phrase(after, k + 1)
                        if inner:
                            # "what make is my bike?": a brand's name is the value asked of the bike
                            value = thing[0] if thing[0] in _NAMED_KINDS else ""
                            return AskedFor(inner[-1], tuple(inner[:-1]), _anchors(after, inner), value=value)
                        return None
                return None
            return None
        if word == "how" and len(rest) >= 3 and rest[0] == "many":
            thing = _phrase(rest, 1)  # "how many GPUs does the cluster have?"
            if thing and len(rest) > len(thing) + 1 and rest[len(thing) + 1] in _AUX:
                return AskedFor(thing[-1], tuple(thing[:-1]), _anchors(rest, thing), value="count")
            return None
        if word == "when" and len(rest) >= 4 and rest[0] in ("do", "does", "did") and rest[1] in _OWNERS:
            # "when does my bike insurance renew?": a date asked of the thing before the question's last word, its verb
            phrase = _phrase(rest, 2)
            if len(phrase) >= 2 and len(rest) == 2 + len(phrase) and phrase[-1] in _DATED_VERBS:
                thing = phrase[:-1]
                return AskedFor(thing[-1], tuple(thing[:-1]), (phrase[-1],), value="date")
            return None
        if word == "when" and rest and rest[0] in _BE:
            rest = rest[1:]  # "when is my MOT due?", "when's my MOT due?"
        if word == "when" and len(rest) >= 2 and rest[0] in _OWNERS:
            thing = _phrase(rest, 1)  # a date asked of a thing
            if thing and thing[-1] not in _PARTICIPLES and not thing[-1].endswith("ed"):  # "when is my car booked"
                return AskedFor(thing[-1], tuple(thing[:-1]), _anchors(rest, thing), value="date")
            return None
        if word in ("do", "does", "did") and len(rest) >= 3 and rest[1] == "have" and rest[2] in ("any", "a", "an"):
            thing = _phrase(rest, 3)
            if thing:
                return AskedFor(thing[-1], tuple(thing[:-1]), _anchors(rest, thing))
            return None
        if word == "how" and len(rest) >= 4 and rest[0] == "much" and rest[1] in _BE and rest[2] in _OWNERS:
            thing = _phrase(rest, 3)  # "how much is my allotment rent?": a price asked of a thing
            if thing and _shaped(thing[-1]):
                return AskedFor(thing[-1], tuple(thing[:-1]), _anchors(rest, thing))
            return None
        if word == "how" and len(rest) >= 4 and rest[0] == "much" and rest[1] in ("does", "do", "did") and rest[2] in _OWNERS:
            thing = _phrase(rest, 3)
            if len(thing) >= 2:  # "how much does my tutor charge": what the tutor charges
                return AskedFor(thing[-1], tuple(thing[:-1]), _anchors(rest, thing))
            return None
        if word not in STOP_WORDS:
            return None  # a statement or another shape: the question's head is not read
    return None


_UNDOTTED = re.compile(r"\b(Dr|Mr|Mrs|Ms|Mx|Prof)\.")  # "Dr." ends no sentence


def _says_role(text: str, role: str) -> bool:
    """Whether `text` says the role's word, or its plural ("switched vets"), or a relative's other word ("gf")."""
    said = relative_words(role) if role in RELATIVES else {role}
    return any(w == r or w == r + "s" or (w.rstrip("s") == r.rstrip("s") and len(r) > 3) for w in words(text) for r in said)


_CALLED = re.compile(r"\b(?:called|named)\s+[A-Z]")
# A name of two words or with a title opening a sentence, then "now": "Quellane Direct now" (one capitalised
# word may be any word starting a sentence: "Cheaper now")
_NAME_NOW = re.compile(r"\s*(?:(?:Dr|Mr|Mrs|Ms)\.?\s+[A-Z][\w'’&\-]+|[A-Z][\w'’&\-]+(?:\s+[A-Z][\w'’&\-]+)+)\s+(?:now|instead)\b")


def names_beside(text: str, role: str) -> bool:
    """Whether a sentence of `text` holds the role word and a name: a title ("with Dr. Dunkerley"), or a
    capitalised word that does not start the sentence and is no weekday, month or "I" ("I have two
    cats, Pepper and Tofu"). A looser test than `names_relative`, for the name asked of a role."""
    parts = _SENTENCE.split(text)
    for at, part in enumerate(parts):
        if not _says_role(part, role):
            continue
        if _TITLES.search(part):
            return True
        if at + 1 < len(parts) and _CALLED.search(parts[at + 1]):
            return True  # "first paying customer!!! a little nursery called Pellow Farm"
        if at + 1 < len(parts) and _NAME_NOW.match(parts[at + 1]):
            return True  # "switched energy suppliers. Quellane Power now, 61 a month": who holds the role next

        part = part.lstrip("\"'“ ")
        for m in _CAPITALISED.finditer(part):
            if m.group(0).strip("'’") in _NOT_NAMES:
                continue
            # a sentence's first word is a name when it is what the sentence says something of
            # ("Pennock is your billing contact"), not when it only starts it ("Physio says …")
            if m.start() > 0 or re.match(r"\s+(?:is|was|will be|has been)\b", part[m.end() :]):
                return True
    return False


def _day_goes_on(asked: AskedFor, after: Sequence[str]) -> bool:
    """Whether the clauses after the one naming the thing go on to give its day before stating anything
    else ("we're getting married!!! me and Ysolt, aiming for 9 May"); "rent is due on the 3rd" states
    another thing's. At most three clauses on."""
    if asked.value != "date":
        return False
    for clause in after[:3]:
        found = _DAY_SHAPE.search(clause)
        if set(words(clause[: found.start()] if found else clause)) & _BE:
            return False
        if found:
            return True
    return False


def _value_clauses(asked: AskedFor, text: str) -> list[str]:
    """The parts of `text` a value must share with what it is asked of: its clauses, or the whole text
    when a sentence naming the person may say it as an aside ("a new number, 0748 …") or the value is a
    count, said without its thing ("6 of us incl me. need help with a staff rota")."""
    return [text] if asked.person or asked.value == "count" else _CLAUSE.split(text)


# Units a number is said with that make it a measure, not a count of things ("commute's 25 min", "10 km").
_MEASURE_AFTER = re.compile(r"\s*(?:min|mins|minutes|secs?|seconds|h|hrs?|hours?|km|kms|k|mi|miles|m|kg|kgs|lbs?|g|ml|l|%|°|am|pm|x|times"
                            r"|mg|mph|kph|quid|euros?|dollars?|pounds?|bucks|days?|weeks?|months?|years?|nights?|yrs?|wks?)\b", re.I)


def _says_value(asked: AskedFor, shape: re.Pattern[str], text: str) -> bool:
    """Whether `text` holds a value of `shape` for what `asked` asks: for a count ("how many bedrooms"), a
    number that is not a measure of something else ("25 min", "10 km"), unless it measures what is asked
    ("how many km do I run")."""
    if asked.value != "count":
        return shape.search(text) is not None
    units = asked.alternatives()
    for found in shape.finditer(text):
        unit = _MEASURE_AFTER.match(text, found.end())
        if unit is None or any(same_word(w, u) for w in words(unit.group(0)) for u in units):
            return True
    return False


def asks_unsaid_part(asked: AskedFor, never_said: frozenset[str], texts: Iterable[str], held_words: Iterable[str] = ()) -> bool:
    """Whether what `asked` asks for was never said while something it is asked of was: the head and
    each of its other words never said in the searched scopes (`never_said`), one of the question's
    other words said, and (for a head answered by a value of some shape, "my flight number") no text
    that names a qualifier holding such a value. `held_words`: words a held fact's slot is asked by
    ("job" for works_at): a head among them is answered by that fact.

    A name (`NAME`) is asked of the role before it ("my GP"): never said when the role was, but no
    text names whoever holds it ("my GP is Dr Zwanenburg", "Sunniva, my physio")."""
    held = set(held_words)
    whole = list(texts)
    if asked.person:
        # only what is said beside the person can be theirs ("Wiebke has a new number" is not Bartosz's)
        texts = [part for text in whole for part in goes_on_about(_SENTENCE.split(text), asked.person)]
    if asked.head in _SURNAMES and asked.person:
        return not any(_SURNAME_AFTER(asked.person).search(text) for text in texts)
    if asked.person and asked.head != NAME and asked.shape() is None:
        return False  # "Oriane's role" may be said without the word ("Oriane got promoted to finance director")
    if asked.head == NAME:
        if not asked.qualifiers:
            return False
        role = asked.qualifiers[-1]
        if role in held:
            return False  # a held slot answers
        if AskedFor(role).alternatives() <= never_said:
            # "my swimming coach" when swimming was said, never a coach: nobody here is them (a role
            # asked alone, "my brother", has its own rule)
            if not any(word not in never_said for word in asked.qualifiers[:-1] + asked.anchors):
                return False
            # ... unless a turn names someone beside what was said (below)
        roles = {role, " ".join(asked.qualifiers)}  # "my best friend Ana" names the friend
        texts = list(texts)
        if asked.person:  # "Wiebke's partner": named beside her ("her partner Rhod"), not any capitalised word
            if any(names_relative(text, r, owner=rf"(?:{re.escape(asked.person)}['’]s|her|his|their)") for text in texts for r in roles):
                return False
            if any(re.search(rf"(?i)\b{re.escape(role)}s?\s+(?-i:called|named)\s+[A-Z]", text) for text in texts):
                return False  # "… and they got a whippet called Tansy": named as it is said
            # "switched vets. Quiller's with Dr. Ambrey now": the role said in the turn, a titled name beside them
            return not any(_says_role(text, role) and any(asked.person in words(part) and _TITLES.search(part)
                                                            for part in _SENTENCE.split(_UNDOTTED.sub(r"\1", text))) for text in whole)
        if any(names_relative(text, r) or names_beside(text, role) for text in texts for r in roles):
            return False
        # "piano lessons with Mrs. Okonjo-Reyes" names the piano teacher without the word (not an owner:
        # "Tamhas is my brother" names no girlfriend of his)
        return not any(names_beside(text, word) for text in texts for word in asked.qualifiers[:-1] if word not in asked.owners)
    if asked.head in SUMMARY_HEADS or asked.head in TITLE_HEADS or (not asked.person and any(word in held for word in asked.alternatives())):
        return False  # a summary need not say its word; a held slot asked by the head answers (the user's own)
    if any(word in never_said and any(c.isdigit() for c in word) for word in asked.qualifiers):
        return True  # "my 403b balance" beside a card's: a thing named by a code never said is absent
    shape = asked.shape()
    if (shape is not None and len(asked.qualifiers) >= 2 and asked.qualifiers[-1] in never_said
            and not any(w in never_said for w in asked.qualifiers[:-1])):
        # "my gym membership number" beside "gym locker code 4417": of the gym, a thing never said
        return True
    if not asked.alternatives() <= never_said:
        if shape is None:
            return False
        # The head was said; its value must be said with it: "what's my salary?" is not answered by
        # "I'm in salary band L4" beside "rent is €1,450 a month" (a value of the shape, another clause).
        # A value said beside an anchor, in a turn without the head, answers too ("ran the Millbrook 10K
        # yesterday!! 48:12" for "my time in the Millbrook 10K").
        wanted = asked.alternatives() | set(asked.qualifiers)
        for text in texts:
            clauses = _value_clauses(asked, text)
            if any(_shares(words(clause), wanted) and (_says_value(asked, shape, clause) or _day_goes_on(asked, clauses[at + 1 :]))
                   for at, clause in enumerate(clauses)):
                return False
            said = set(words(text))
            if not _shares(said, asked.alternatives()) and _shares(said, asked.anchors) and _says_value(asked, shape, text):
                return False
        return True
    texts = list(texts)
    if shape is not None and not any(_says_value(asked, shape, text) for text in texts):
        return True  # "when's my MOT due?" beside a service "due at 61k": no date was said at all
    if (asked.head in _NAMED_KINDS or asked.value in _NAMED_KINDS) and any(word in never_said for word in asked.others):
        return True  # "what brand is my bass guitar?" when no guitar was ever said: the thing asked of is not here
    if all(word in never_said for word in asked.others):
        # Nothing of it was said: a paraphrase may still answer (the vector lane decides), unless the
        # thing is named by three words or more, none ever said ("my half marathon PB" beside a 10K):
        # a paraphrase of all of them is unlikely, a neighbour near in meaning likely.
        return len(asked.qualifiers) >= 2
    if shape is not None:
        # the value beside what it is asked of, in one clause: "my phone and the bike loan at 55 a month"
        # gives the loan's, not the phone plan's
        # (or starting the clause after it: "booked my flight to Halifax! QX 416, June 8")
        others = set(asked.others).union(*(SAID_OTHERWISE.get(word, ()) for word in asked.others))
        for text in texts:
            clauses = _value_clauses(asked, text)
            for at, clause in enumerate(clauses):
                if others and not _shares(words(clause), others):
                    continue  # ("flying Brantair BT212" is the flight's: "flight" said as "flying")
                after = clauses[at + 1].lstrip(" ,.;:!?-") if at + 1 < len(clauses) else ""
                if _says_value(asked, shape, clause) or (after and shape.match(after)):
                    return False
    return True


# Words naming things of one kind that stand beside each other: the production database is not the
# staging one, the iOS target not the Android one. Synonyms stay out of a group (they name one thing).
SIBLINGS: tuple[frozenset[str], ...] = (
    frozenset("production prod staging stage dev development test testing qa uat sandbox preprod".split()),
    frozenset("ios android web desktop".split()),
    frozenset("brother sister".split()),
    frozenset("son daughter".split()),
    frozenset("niece nephew".split()),
    frozenset("aunt uncle".split()),
    frozenset("husband wife".split()),
    frozenset("grandmother grandfather".split()),
    frozenset("breakfast lunch dinner".split()),
    frozenset("inbound outbound".split()),
    frozenset("upstairs downstairs".split()),
)


def sibling_instead(query: str, text: str, never_said: frozenset[str]) -> bool:
    """Whether `text` is about a sibling of what `query` asks: the query names a thing by a word never
    said in the searched scopes ("the production API host"), and a sentence of the text names its
    sibling instead ("staging moved to api-staging…, the old host is dead") beside one of the query's
    other words. Siblings are data (`SIBLINGS`); a word the query says itself is no sibling of it."""
    asked = [w for w in words(query) if w not in STOP_WORDS]
    unsaid = [w for w in asked if w in never_said]
    groups = [group for word in unsaid for group in SIBLINGS if word in group]
    if not groups:
        return False
    rest = {w for w in asked if w not in never_said}
    for part in _SENTENCE.split(text):
        said = set(words(part))
        if not said & rest:
            continue
        if any(word in group and word not in asked for group in groups for word in said):
            return True
    return False


# "how old is Pesto?", "what age is Tansy?", "Pesto's age": the age of someone named.
_AGE_OF = re.compile(
    r"(?i:\bhow\s+old\s+(?:is|was|will)\s+)(?P<a>[A-Z][\w-]*)|(?i:\bwhat\s+age\s+(?:is|was)\s+)(?P<b>[A-Z][\w-]*)"
    r"|(?P<c>[A-Z][\w-]*)['’]s\s+(?i:age)\b"
)
_AGE = re.compile(r"(?i)\b\d{1,3}\s*(?:-\s*)?(?:years?|yrs?|months?|weeks?)(?:\s*-?\s*old)?\b|\b(?:aged?|turn(?:s|ed|ing)?)\s+\d{1,3}\b|\b\d{1,3}\s+(?:this|next|last)\s+year\b|\bborn\s+in\b")


def age_asked_of(query: str) -> str | None:
    """The name whose age `query` asks ("how old is Pesto?" -> "pesto"), or None."""
    m = _AGE_OF.search(query)
    if m is None:
        return None
    name = next(g for g in (m["a"], m["b"], m["c"]) if g)
    return None if name.strip("'’") in _NOT_NAMES else words(name)[0]


def states_age(text: str, name: str) -> bool:
    """Whether a sentence of `text` names `name` and an age ("Crumble's the old man, 13 this year"), or
    gives it in brackets after the name ("Brisket (cat, 14)", "kids are Quenna (7) and Thorbel (4)")."""
    if re.search(rf"(?i)(?<!\w){re.escape(name)}\s*\((?:[a-z][a-z ]*,\s*)?\d{{1,2}}\)", text):
        return True
    return any(name in words(part) and _AGE.search(part) for part in _SENTENCE.split(text))


# "where does Halina work?", "what does Halina do?", "is Halina …": the person a question asks about.
_ASKED_OF = re.compile(r"\b(?:does|did|is|was|has|had|will|do)\s+(?P<name>[A-Z][a-z][\w'’-]*)\b(?!['’]s)")


def person_asked_of(query: str) -> str | None:
    """The named person a question asks something of, in the subject's place ("where does Halina work?"
    -> "halina"), or None."""
    m = _ASKED_OF.search(query)
    if m is None or m["name"] in _NOT_NAMES:
        return None
    return words(m["name"])[0]


# A named person's job or home asked ("where does Halina work?"), and words a turn says it with.
_WHERE_OF = re.compile(
    r"(?i)\b(?:where|who)\s+(?:does|did|is|was)\s+(?P<name>[A-Z][\w'’-]*)\s+(?:(?P<work>work(?:ing)?|employed|work\s+for)"
    r"|(?P<live>live|living|based|staying))\b"
    # "what does Tregarron do for work?", "what does she do for a living now?": a job asked too
    r"|(?i:\bwhat\s+(?:does|did)\s+)(?P<doer>[A-Z][\w'’-]*)(?i:\s+do(?P<job>\s+for\s+(?:work|a\s+living))?(?:\s+(?:now|these\s+days|nowadays))?\s*[?.!]*\s*$)"
)
_SAYS_WORK = frozenset(
    "work works worked working job jobs employer employed company office hired joined quit left retired freelance "
    "freelancing freelancer contract contractor startup firm shop studio agency promoted role position boss colleague "
    "colleagues poached career unemployed redundant".split()
)
_SAYS_HOME = frozenset(
    "live lives lived living moved move moves moving based home house flat apartment place staying stays settled "
    "relocated rehomed rehome rehoming city town village lease rent rents".split()
)
# "Tregarron's a nurse", "she's now an architect", "trained as a welder": a trade said of someone.
_A_TRADE = (
    r"(?i)(?:\b(?:{name}|she|he|they)\s*(?:is|was|are|were|became|['’]s|['’]re)|\b(?:works|worked|working|trained|qualified)\s+as)"
    r"\s+(?:now\s+|still\s+)?(?:a|an)\s+(?!lot\b|bit\b|little\b|few\b|mess\b|wreck\b)[a-z]"
)
# Where what one clause says of someone ends: a sentence, or a turn to another matter ("… so I'm climbing
# with Tregarron now"); "and" goes on about the same person ("retired and moved to Treswell").
_CLAUSE_BREAK = re.compile(r"(?<=[.!?;])\s+|,?\s+(?:so|but|while|because)\s+|\n+")
_PRONOUNS = frozenset("i we you he she they it".split())
_PRONOUN_LEAD = re.compile(r"(?i)^(?:(?:and|also|so|but|plus)\s+)?(?:he|she|they|his|her|their)\b")


def goes_on_about(parts: list[str], name: str) -> Iterator[str]:
    """The parts (sentences or clauses) that say something of `name`: each naming them, and the run of
    parts right after one that goes on with a pronoun ("… my brother Dunstan? He's turning 30. He's a
    nurse and lives in Yarrow"; "… AND they got a second dog")."""
    about = False
    for part in parts:
        if name in words(part):
            about = True
        elif not (about and _PRONOUN_LEAD.match(part.strip().lstrip("\"'“ "))):
            about = False
        if about:
            yield part


def where_of_unsaid(query: str, texts: Iterable[str]) -> bool:
    """Whether `query` asks where a named person works or lives ("where does Tregarron work?") and what was
    found names them but never says it: no clause naming them, nor the clause right after one that goes
    on with "he"/"she" ("Tregarron and I broke up, he kept the cat"), holds a word of a job or a home. Then
    every turn naming them is about something else ("my boyfriend Tregarron and I are adopting a cat"), and
    the question was never answered here. False when nothing found names them (other rules decide)."""
    m = _WHERE_OF.search(query)
    # (a pronoun typed in lower case is no one's name: "where was i staying in july?")
    if m is None or (m["name"] or m["doer"]) in _NOT_NAMES or (m["name"] or m["doer"]).lower() in _PRONOUNS:
        return False
    name = words(m["name"] or m["doer"])[0]
    cues = _SAYS_WORK if m["work"] or m["doer"] else _SAYS_HOME
    named = False
    for text in texts:
        for clause in goes_on_about([c for c in _CLAUSE_BREAK.split(text) if c.strip()], name):
            named = True
            if any(same_word(w, cue) for w in words(clause) for cue in cues):
                return False
            if m["doer"] and re.search(_A_TRADE.format(name=re.escape(name)), clause):
                return False  # "Tregarron's a radiographer": what she does, without a word of work
    return named


# Verbs that say only how a thing is had ("what standing desk do I use?", "what scooter do I ride?"): the
# question's topic is the kind before them, not the verb.
HAVING_VERBS = frozenset(
    "use uses using used have has had having own owns owned wear wears wearing wore ride rides riding rode drive drives "
    "driving drove play plays playing played drink drinks drinking drank eat eats eating ate take takes taking took "
    "prefer prefers preferred like likes liked get gets got getting keep keeps kept run runs running ran smoke smoked "
    "smoking go goes going went do does did doing".split()
)


def asks_unsaid_kind(query: str, asked: Iterable[str], never_said: frozenset[str], held_words: Iterable[str] = ()) -> bool:
    """Whether `query` asks which thing of a kind never said in the searched scopes, and nothing else:
    "what standing desk do I use?", "which password manager do I use?" when no desk or password manager
    was ever mentioned. Every word naming the kind is unsaid (`never_said`) and asks no held slot
    (`held_words`: "pets" asks a held pet), and the question's other topical words (`asked`) are verbs of
    having (`HAVING_VERBS`): nothing said is about it, and what matches (a neighbour in meaning, a turn
    sharing a verb) is about something else. A question that names what the kind is for ("which app do I
    use for my Spanish?") is not this one."""
    tokens = words(query)
    if len(tokens) < 3 or tokens[0] not in ("what", "which"):
        return False
    kind = _phrase(tokens, 1)
    after = tokens[1 + len(kind) :]
    if not kind or not after or after[0] not in _AUX or kind[-1] in TYPE_HEADS:
        return False  # "what size …", "which day …": a shape's kind, said as its value
    if not all(word in never_said for word in kind) or set(kind) & set(held_words):
        return False  # said, or the word a held slot is asked by ("what pets do I have?" and a held pet)
    others = [word for word in asked if word not in kind]
    if all(word in HAVING_VERBS for word in others):
        return True
    # "which inn am I lodging at in Carrowmere?" when neither an inn nor lodging was ever said: the question's
    # own verb is unsaid too, and what was said ("Carrowmere") only says where or what for, so a turn about
    # that place is about something else there. (A verb of having says nothing of the kind: "which app do I
    # use for my Welsh?" is answered by "Welsh on Parlavo", and is not read so.)
    verbs = [word for word in others if word in after and word not in HAVING_VERBS]
    if not verbs or verbs[0] not in never_said:
        return False
    said = [word for word in others if word not in never_said and word not in HAVING_VERBS]
    return bool(said) and all(_only_after_a_preposition(after, word) for word in said)


_PREPOSITIONS = frozenset("in at for from to near around on".split())


def _only_after_a_preposition(tokens: Sequence[str], word: str) -> bool:
    """Whether each `word` of `tokens` is a preposition's object ("in Carrowmere", "from for Tessingham", "for my Welsh")."""
    spots = [i for i, token in enumerate(tokens) if token == word]
    def governed(i: int) -> bool:
        before = tokens[max(0, i - 2) : i]
        return any(t in _PREPOSITIONS for t in before) and all(t in _PREPOSITIONS or t in _OWNERS for t in before)
    return bool(spots) and all(governed(i) for i in spots)
