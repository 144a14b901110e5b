"""The offline rules extractor: deterministic patterns for common first-person facts.

It does not try to be clever. Each pattern names a fact it is sure of; a sentence with a hedge
("if", "maybe", "will", a question) or a third person says nothing. Right on what it claims, silent
otherwise. Only the user's own turns are read: an assistant's paraphrase is not the user's word.

Handled (subject is always "user", the speaker):
- lives_in (one): "I live in / I'm based in / I moved to / I relocated to X", "I lived in X from A to B";
  "I moved out of X" / "I left X" (when X is where they live) retracts.
- works_at (one): "I work at/for X", "I got a job at X", "I started working at X"; "I left / quit X",
  "I no longer work at X" retracts.
- name (one): "my name is X", "call me X". birthday (one): "my birthday is <date>", "I was born on <date>".
- likes (many): "I like / love / enjoy X", "I'm a fan of X"; "I no longer like X", "I don't like X anymore",
  "I stopped liking X" retract (and "I don't like X" when the ledger says they do).
- has (many), for possessions and family from a fixed noun list: "I have / I own / I've got a X",
  "I bought / adopted a X"; "I no longer have X", "I sold / gave away my X", "my X died" retract.
- note (many): "remember that …".
- corrections: "actually it was March, not April" replaces the one current value containing the
  corrected word(s); if none or several do, nothing is said.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise

from .extractor import ExtractionRequest
from .model import Draft
from .when import MONTHS, find_time_phrase, resolve_time_phrase

SUBJECT = "user"

# Registry entries the rules extractor writes with (cardinality and sentence template).
PREDICATES: dict[str, tuple[str, str]] = {
    "lives_in": ("one", "{subject} lives in {value}"),
    "works_at": ("one", "{subject} works at {value}"),
    "name": ("one", "{subject}'s name is {value}"),
    "birthday": ("one", "{subject}'s birthday is {value}"),
    "likes": ("many", "{subject} likes {value}"),
    "has": ("many", "{subject} has {value}"),
    "note": ("many", "{subject} asked to remember: {value}"),
}

_LEAD = re.compile(
    r"^(?:(?:so|well|oh|also|and|but|btw|by the way|fyi|just so you know|anyway|hey|hi|hello|yeah|yes|ok|okay|um|uh|"
    r"please|actually|sorry|correction|no|oops|wait|"
    r"oh and|guess what|news|these days|nowadays|currently|now|"
    r"[A-Za-z]+(?:\s+[A-Za-z]+){0,2}:)[,!:]?\s+)+",
    re.I,
)
_HEDGE = re.compile(
    r"(?i)\b(?:if|would|might|maybe|perhaps|wish|hope|hoping|want to|wanna|plan|plans|planning|thinking of|"
    r"thinking about|considering|going to|gonna|will|could|should|someday|one day|dream|dreaming|"
    r"pretend|imagine|suppose|hypothetically|not sure|unless|probably|used to|never)\b|\b\w+'(?:d|ll)\b|\?"
)
_MODAL_MAY = re.compile(r"\bmay\b")  # lower-case only: "in May" is a month
_JOINT = re.compile(r"(?:,\s*|\s+)(?:and|but|so|plus)\s+(?=(?:I|my|My|we|We)\b)|,\s+(?=I\s)")
_SENTENCE = re.compile(r"[^.!?;\n]+(?:[.!?;]+|$)")

# A proper name: capitalised words, with a few lower-case joiners between them ("Rio de Janeiro").
_PROPER = (
    r"(?P<v>[A-Z][\w'’&\-]*\.?(?:\s+(?:(?:de|da|do|del|di|la|le|am|upon|on|of|and|&)\s+)?"
    r"(?:[A-Z][\w'’&\-]*\.?|\d+))*)"
)
_TAIL = r"(?=\s*(?:$|[,.!;:]|\s(?:since|from|in|last|this|two|three|a|an|for|until|till|as|now|with|and|but|because|today|yesterday|recently|these|at|right|nowadays|for)\b))"

_LIVES = re.compile(
    rf"^I(?:'m| am)?(?:\s+(?:now|currently|still|just|actually|finally))*\s+"
    rf"(?:live|living|reside|residing|based|(?:have|'ve)\s+(?:been\s+living|lived))\s+in\s+{_PROPER}{_TAIL}"
)
_LIVED_SINCE = re.compile(rf"^I(?:'ve|\s+have)\s+(?:been\s+living|lived|been\s+based)\s+in\s+{_PROPER}{_TAIL}")
_MOVED = re.compile(
    rf"^(?:I|[Ww]e)(?:'ve| have)?(?:\s+(?:just|recently|finally|now|actually))*\s+(?:moved|relocated)\s+to\s+{_PROPER}{_TAIL}"
)
_LIVED_RANGE = re.compile(rf"^I\s+lived\s+in\s+{_PROPER}\s+(?P<when>(?:from|between)\s+.+?\s+(?:to|until|till|and)\s+[^,.;!]+)")
_MOVED_OUT = re.compile(rf"^I(?:'ve| have)?(?:\s+(?:just|finally))?\s+(?:moved\s+(?:out\s+of|away\s+from)|left)\s+{_PROPER}{_TAIL}")

_WORKS = re.compile(
    rf"^I(?:'m| am)?(?:\s+(?:now|currently|still|actually))*\s+"
    rf"(?:work(?:ing)?(?:\s+as\s+an?\s+[a-z][a-z ]{{1,30}}?)?\s+(?:at|for)|"
    rf"(?:have|'ve)\s+been\s+working\s+(?:at|for)|got\s+a\s+(?:new\s+)?job\s+(?:at|with)|"
    rf"started\s+(?:a\s+new\s+job\s+at|working\s+(?:at|for))|(?:am|'m)\s+employed\s+by|employed\s+by)"
    rf"\s+{_PROPER}{_TAIL}"
)
_WORKED_SINCE = re.compile(rf"^I(?:'ve|\s+have)\s+been\s+(?:working|employed)\s+(?:at|for|by)\s+{_PROPER}{_TAIL}")
_LEFT_JOB = re.compile(
    rf"^I(?:'ve| have)?(?:\s+(?:just|finally|recently))?\s+"
    rf"(?:quit(?:\s+my\s+job\s+at)?|left(?:\s+my\s+job\s+at)?|no\s+longer\s+work\s+(?:at|for)|"
    rf"(?:got|was)\s+(?:laid\s+off|fired)\s+from|retired\s+from|resigned\s+from|stopped\s+working\s+(?:at|for))"
    rf"\s+{_PROPER}{_TAIL}"
)
_NAME = re.compile(r"^(?:my\s+name\s+is|my\s+name's|call\s+me|I'm\s+called|I\s+am\s+called)\s+(?P<v>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,2})(?=\s*(?:$|[,.!;]|\s(?:and|but)\b))", re.I)
_DATE_WORDS = (
    r"(?P<v>(?:[A-Za-z]+\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[A-Za-z]+\.?(?:,?\s+\d{4})?|\d{4}-\d{2}-\d{2}))"
)
_BIRTHDAY = re.compile(rf"^(?:my\s+birthday\s+is(?:\s+on)?|my\s+birthday's(?:\s+on)?|I\s+was\s+born\s+on)\s+(?:the\s+)?{_DATE_WORDS}(?=\s*(?:$|[,.!;]))", re.I)

_LIKE_VERB = r"(?:like|love|enjoy|adore|am\s+a\s+(?:big\s+|huge\s+)?fan\s+of|'m\s+a\s+(?:big\s+|huge\s+)?fan\s+of|am\s+into|'m\s+into)"
_LIKES = re.compile(rf"^I(?:\s+(?:really|also|just|absolutely|still|totally))*\s*{_LIKE_VERB}\s+(?P<v>[^,.;!]+)")
_UNLIKES = re.compile(
    r"^I(?:\s+(?:really|just))*\s+(?:no\s+longer\s+(?:like|love|enjoy)|don't\s+(?:like|love|enjoy)|do\s+not\s+(?:like|love|enjoy)|"
    r"stopped\s+(?:liking|loving|enjoying)|am\s+not\s+into|'m\s+not\s+into|'m\s+no\s+longer\s+into|am\s+no\s+longer\s+into|"
    r"(?:have|'ve)\s+gone\s+off)\s+(?P<v>[^,.;!]+)"
)
_FAVOURITE = re.compile(r"^(?P<v>[A-Za-z][\w'\- ]{0,40}?)\s+(?:is|are)\s+my\s+(?:absolute\s+|all-time\s+)?favou?rites?\b(?:\s+[a-z]+)?$")
_CLAUSE_TAIL = re.compile(r"(?i)\s+(?:after|since|when|because|before|until|while|as|ever\s+since|now\s+that)\b.*$")
_ANYMORE = re.compile(r"(?i)\s+(?:any\s?more|these\s+days|now)\s*$")

_POSSESSIONS = {
    "cat", "cats", "dog", "dogs", "puppy", "kitten", "parrot", "hamster", "rabbit", "horse", "fish", "goldfish",
    "turtle", "snake", "car", "cars", "bike", "bicycle", "motorbike", "motorcycle", "scooter", "boat", "van",
    "truck", "house", "flat", "apartment", "cottage", "garden", "piano", "guitar", "violin", "son", "sons",
    "daughter", "daughters", "kid", "kids", "child", "children", "baby", "brother", "brothers", "sister",
    "sisters", "husband", "wife", "partner", "boyfriend", "girlfriend", "twins", "grandchildren", "grandson",
    "granddaughter", "tesla", "laptop", "camera", "telescope", "drone",
}
_COUNT_WORD = r"(?:a|an|one|two|three|four|five|six|\d)"
_HAS = re.compile(
    rf"^(?:I|[Ww]e)(?:'ve\s+(?:also\s+|now\s+|just\s+)?(?:got|bought|adopted)|(?:\s+(?:also|now|just|recently|finally))*\s+(?:have|own|have\s+got|bought|adopted|got))\s+"
    rf"(?P<count>{_COUNT_WORD})\s+(?P<v>[^,.;!]+)"
)
_HAS_GONE = re.compile(
    r"^(?:I|[Ww]e)(?:\s+(?:just|finally|recently))*\s+(?:no\s+longer\s+(?:have|own)|don't\s+(?:have|own)|"
    r"sold|gave\s+away|got\s+rid\s+of|had\s+to\s+give\s+away)\s+(?:my|our|the|a|an)\s+(?P<v>[^,.;!]+)"
)
_DIED = re.compile(r"^(?:[Mm]y|[Oo]ur)\s+(?P<v>[a-z]+(?:\s+[a-z]+)?)\s+(?:died|passed\s+away|was\s+put\s+down|ran\s+away)")
_ADJECTIVES = {"new", "little", "small", "big", "old", "young", "cute", "lovely", "beautiful", "second", "first", "brand"}
# Imperative only, at the clause start ("Please" is a lead-in): "do you remember that film?" is not.
_REMEMBER = re.compile(r"(?i)^(?:remember|don't\s+forget|do\s+not\s+forget|note)\s+that\s+(?P<v>[^.!?\n]+)$")
_CORRECTION_CUE = re.compile(r"(?i)\b(?:actually|sorry|correction|no|oops|wait)\b")
_CORRECTION = re.compile(r"(?i)^(?P<body>.+?),?\s+not\s+(?P<old>[^,.;!]+?)\s*[.!]?$")

_NOT_A_LIKE = re.compile(
    r"(?i)^(?:it|that|this|them|those|these|you|him|her|to\b|when|how|what|the\s+way|being|having|it's|that's|"
    r"a\s+lot|so\s+much|very\s+much|your|ya)\b"
)
_TRAILING_NOISE = re.compile(
    r"(?i)(?:\s+(?:a\s+lot|so\s+much|very\s+much|too|as\s+well|a\s+bit|quite\s+a\s+bit|these\s+days|now|though|"
    r"and\s+stuff|and\s+all|lately|more\s+than\s+anything|most))+\s*$"
)


@dataclass
class _Clause:
    text: str  # the clause without lead-in words
    offset: int  # where `text` starts in the entry
    lead: str = ""  # the lead-in words ("Actually, ") that were cut off


def _pieces(text: str) -> list[tuple[str, int]]:
    """Sentences, and within them clauses joined by 'and I' / 'but my' / ', so we'."""
    out = []
    for match in _SENTENCE.finditer(text):
        sentence, base = match.group(0), match.start()
        cut = 0
        for joint in _JOINT.finditer(sentence):
            out.append((sentence[cut : joint.start()], base + cut))
            cut = joint.end()
        out.append((sentence[cut:], base + cut))
    return out


def _clauses(text: str) -> list[_Clause]:
    out = []
    carried = ""  # a piece that was only lead-in words ("Wait," before ", I meant …") leads the next one
    for sentence, offset in _pieces(text):
        start = offset + (len(sentence) - len(sentence.lstrip()))
        body = sentence.strip()
        lead = _LEAD.match(body + " ") if _LEAD.fullmatch(body.rstrip(",") + " ") else _LEAD.match(body)
        lead_text = carried
        if lead:
            cut = min(lead.end(), len(body))
            start += cut
            lead_text += lead.group(0)
            body = body[cut:]
        body = body.rstrip(".!;,")
        if body:
            out.append(_Clause(body, start, lead_text))
            carried = ""
        else:
            carried = lead_text
    return out


def _strip_time(value: str) -> str:
    phrase = find_time_phrase(value)
    if phrase:
        value = value[: value.find(phrase)]
    return value.strip(" ,")


def _article_free(words: str) -> str:
    tokens = words.split()
    while tokens and tokens[0].casefold() in ({"a", "an", "the", "my", "our"} | _ADJECTIVES):
        tokens = tokens[1:]
    return " ".join(tokens)


class RulesExtractor:
    """Deterministic first-person patterns; see the module docstring for what it handles."""

    name = "rules"

    def extract(self, request: ExtractionRequest) -> list[Draft]:
        entry = request.entry
        if entry.role != "user":
            return []
        drafts: list[Draft] = []
        for clause in _clauses(entry.text):
            drafts.extend(self._clause(clause, request))
        return drafts

    # -- one clause ------------------------------------------------------------------------------

    def _clause(self, clause: _Clause, request: ExtractionRequest) -> list[Draft]:
        text = clause.text
        said_at = request.entry.said_at
        remember = _REMEMBER.match(text) if not text.rstrip().endswith("?") else None
        if remember:
            value = remember.group("v").strip(" ,")
            return [self._draft("add", "note", value, remember.group(0))] if value else []
        correction = _CORRECTION.match(text) if _CORRECTION_CUE.search(clause.lead) else None
        if correction:
            return self._correction(correction, request)
        if _HEDGE.search(text) or _MODAL_MAY.search(text):
            return []

        m = _LIVED_RANGE.match(text)
        if m:
            span = resolve_time_phrase(m["when"].replace("between", "from").replace(" and ", " to "), said_at)
            if span is None or span.valid_to is None:
                return []
            return [self._one(request, "lives_in", m["v"], m.group(0), span.valid_from, span.valid_to, m["when"])]
        for pattern in (_LIVES, _LIVED_SINCE, _MOVED):
            m = pattern.match(text)
            if m:
                return [self._one_timed(request, "lives_in", m["v"], text, m.group(0), said_at)]
        m = _MOVED_OUT.match(text)
        if m:
            return self._left(request, m, text, said_at, prefer="lives_in")
        m = _LEFT_JOB.match(text)
        if m:
            return self._left(request, m, text, said_at, prefer="works_at")
        m = _WORKS.match(text) or _WORKED_SINCE.match(text)
        if m:
            return [self._one_timed(request, "works_at", m["v"], text, m.group(0), said_at)]
        m = _NAME.match(text)
        if m:
            return [self._one(request, "name", m["v"], m.group(0), None, None, "")]
        m = _BIRTHDAY.match(text)
        if m:
            value = _birthday_value(m["v"])
            return [self._one(request, "birthday", value, m.group(0), None, None, "")] if value else []
        m = _FAVOURITE.match(text)
        if m and not _NOT_A_LIKE.match(m["v"]) and len(m["v"].split()) <= 4:
            return [self._draft("add", "likes", m["v"].strip(), m.group(0))]
        m = _UNLIKES.match(text)
        if m:
            return self._unlike(request, m, text, said_at)
        m = _LIKES.match(text)
        if m:
            value = _TRAILING_NOISE.sub("", _CLAUSE_TAIL.sub("", _strip_time(m["v"]))).strip()
            if not value or _NOT_A_LIKE.match(value) or len(value.split()) > 5:
                return []
            return [self._timed("add", "likes", value, text, m.group(0), said_at)]
        m = _HAS_GONE.match(text) or _DIED.match(text)
        if m:
            return self._lost(request, m, text, said_at)
        m = _HAS.match(text)
        if m:
            return self._has(m, text, said_at)
        return []

    # -- builders -------------------------------------------------------------------------------

    def _draft(
        self,
        op: str,
        predicate: str,
        value: str | None,
        quote: str,
        *,
        valid_from: str | None = None,
        valid_to: str | None = None,
        replaces: str | None = None,
        phrase: str = "",
    ) -> Draft:
        cardinality, template = PREDICATES[predicate]
        return Draft(
            op=op,  # type: ignore[arg-type]
            subject=SUBJECT,
            predicate=predicate,
            value=value,
            quote=quote.strip(),
            cardinality=cardinality,  # type: ignore[arg-type]
            template=template,
            replaces=replaces,
            valid_from=valid_from,
            valid_to=valid_to,
            time_phrase=phrase,
        )

    def _timed(self, op: str, predicate: str, value: str, text: str, quote: str, said_at: str, replaces: str | None = None) -> Draft:
        """A draft whose valid time comes from a time phrase after the match (which then joins the quote).

        Every pattern is anchored at the clause start, so `quote` is a prefix of `text`.
        """
        rest = text[len(quote) :]
        phrase = find_time_phrase(rest)
        span = resolve_time_phrase(phrase, said_at) if phrase else None
        if phrase and span is not None:
            quote = text[: len(quote) + rest.find(phrase) + len(phrase)]
        elif phrase is None:  # patterns with an open-ended value ("I sold my car yesterday") hold it inside
            phrase = find_time_phrase(quote)
            span = resolve_time_phrase(phrase, said_at) if phrase else None
        return self._draft(
            op,
            predicate,
            value,
            quote,
            valid_from=span.valid_from if span else None,
            valid_to=span.valid_to if span else None,
            replaces=replaces,
            phrase=phrase or "",
        )

    def _one(
        self, request: ExtractionRequest, predicate: str, value: str, quote: str, valid_from: str | None, valid_to: str | None, phrase: str
    ) -> Draft:
        value = value.strip().rstrip(".")
        start = valid_from or request.entry.said_at
        op = "supersede" if _holds_other(request.current, predicate, value, start, valid_to) else "add"
        return self._draft(op, predicate, value, quote, valid_from=valid_from, valid_to=valid_to, phrase=phrase)

    def _one_timed(self, request: ExtractionRequest, predicate: str, value: str, text: str, quote: str, said_at: str) -> Draft:
        value = value.strip().rstrip(".")
        draft = self._timed("add", predicate, value, text, quote, said_at)
        start = draft.valid_from or said_at
        if _holds_other(request.current, predicate, value, start, draft.valid_to):
            draft = Draft(**{**draft.__dict__, "op": "supersede"})
        return draft

    def _left(self, request: ExtractionRequest, m: re.Match[str], text: str, said_at: str, *, prefer: str) -> list[Draft]:
        """'I left X': retract where they live or work, whichever the ledger says X is."""
        value = m["v"].strip().rstrip(".")
        for predicate in (prefer, "works_at" if prefer == "lives_in" else "lives_in"):
            if _current_value(request.current, predicate, value) is not None:
                return [self._timed("retract", predicate, value, text, m.group(0), said_at)]
        if prefer == "works_at" and re.search(r"(?i)\b(job|work|fired|laid off|retired|resigned)\b", m.group(0)):
            return [self._timed("retract", "works_at", value, text, m.group(0), said_at)]
        return []

    def _unlike(self, request: ExtractionRequest, m: re.Match[str], text: str, said_at: str) -> list[Draft]:
        raw = m["v"]
        value = _TRAILING_NOISE.sub("", _ANYMORE.sub("", _CLAUSE_TAIL.sub("", _strip_time(raw)))).strip()
        if not value or _NOT_A_LIKE.match(value):
            return []
        said_change = bool(re.search(r"(?i)no longer|stopped|gone off|any\s?more", text))
        held = _current_value(request.current, "likes", value)
        if not said_change and held is None:
            return []  # "I don't like X" is news only when the ledger says they do
        return [self._timed("retract", "likes", held.value if held else value, text, m.group(0), said_at)]

    def _has(self, m: re.Match[str], text: str, said_at: str) -> list[Draft]:
        phrase = _TRAILING_NOISE.sub("", _strip_time(m["v"])).strip()
        count = m["count"].casefold()
        value = _article_free(phrase)
        words = [w.casefold() for w in value.split()]
        if not words or not any(w in _POSSESSIONS for w in words[:3]) or len(words) > 6:
            return []
        if count not in ("a", "an", "one"):
            value = f"{m['count']} {value}"
        return [self._timed("add", "has", value, text, m.group(0), said_at)]

    def _lost(self, request: ExtractionRequest, m: re.Match[str], text: str, said_at: str) -> list[Draft]:
        value = _article_free(_CLAUSE_TAIL.sub("", _strip_time(m["v"])))
        words = [w.casefold() for w in value.split()]
        if not words or not any(w in _POSSESSIONS for w in words):
            return []
        # Name the held value when the head noun matches exactly one ("my car" -> "red car").
        head = words[-1]
        held = [c for c in request.current if c.predicate == "has" and c.valid_to is None and c.value_key.split()[-1:] == [head]]
        target = held[0].value if len(held) == 1 else value
        return [self._timed("retract", "has", target, text, m.group(0), said_at)]

    def _correction(self, m: re.Match[str], request: ExtractionRequest) -> list[Draft]:
        """'actually it was March, not April': replace the one current value that contains 'April'."""
        old = m["old"].strip()
        body = m["body"].strip()
        old_words = old.split()
        if not old_words or len(old_words) > 4:
            return []
        if old[0].isupper() or old[0].isdigit():
            run = re.search(r"((?:[A-Z][\w'’\-]*|\d+(?:st|nd|rd|th)?)(?:\s+(?:[A-Z][\w'’\-]*|\d+(?:st|nd|rd|th)?))*)$", body)
            new = run.group(1) if run else ""
        else:
            new = " ".join(body.split()[-len(old_words) :])
        if not new or normalise(new) == normalise(old):
            return []
        pattern = re.compile(rf"(?i)(?<!\w){re.escape(old)}(?!\w)")
        candidates = [
            c for c in request.current if c.subject_key == SUBJECT and c.predicate in PREDICATES and pattern.search(c.value)
        ]
        if len({(c.predicate, c.value_key) for c in candidates}) != 1:
            return []
        target = candidates[-1]
        new_value = pattern.sub(new, target.value, count=1)
        if target.predicate == "birthday":
            new_value = _birthday_value(new_value) or new_value
        many = PREDICATES[target.predicate][0] == "many"
        return [
            self._draft(
                "supersede",
                target.predicate,
                new_value,
                m.group(0),
                valid_from=min(c.valid_from for c in candidates),
                replaces=target.value if many else None,
                phrase="correction",
            )
        ]


def _current_value(current: list[ClaimVersion], predicate: str, value: str) -> ClaimVersion | None:
    wanted = normalise(value)
    for claim in current:
        if claim.subject_key == SUBJECT and claim.predicate == predicate and claim.value_key == wanted and claim.valid_to is None:
            return claim
    return None


def _holds_other(current: list[ClaimVersion], predicate: str, value: str, start: str, end: str | None) -> bool:
    """Whether the slot holds a different value somewhere in [start, end)."""
    wanted = normalise(value)
    for claim in current:
        if claim.subject_key != SUBJECT or claim.predicate != predicate or claim.value_key == wanted:
            continue
        if (claim.valid_to is None or start < claim.valid_to) and (end is None or claim.valid_from < end):
            return True
    return False


_MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]


def _birthday_value(text: str) -> str | None:
    """A birthday in one form, 'March 3' or 'March 3, 1990', so corrections and rejections compare."""
    t = text.strip().rstrip(".").replace(",", " ")
    iso = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", t)
    if iso:
        year, month, day = int(iso[1]), int(iso[2]), int(iso[3])
    else:
        words = t.split()
        month = day = year = None
        for word in words:
            w = word.casefold().rstrip(".")
            if w == "of":
                continue
            if w in MONTHS and month is None:
                month = MONTHS[w]
            elif re.fullmatch(r"\d{1,2}(?:st|nd|rd|th)?", w) and day is None:
                day = int(re.sub(r"\D", "", w))
            elif re.fullmatch(r"\d{4}", w) and year is None:
                year = int(w)
            else:
                return None
    if month is None or day is None or not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    value = f"{_MONTH_NAMES[month - 1]} {day}"
    return f"{value}, {year}" if year else value
