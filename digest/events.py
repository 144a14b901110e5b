"""Dated events as facts: what someone did (or has coming up) at a stated time.

Two `many` predicates, chosen so the rendered sentence reads as plain English:
- `did`: "{subject} {value}" with a past-tense value and its date, e.g. "user went to the pottery class
  on 12 March 2026". Valid from the start of the event's period, open-ended: the statement "user went to
  the pottery class on 12 March" is true from that day on, so current truth and a later question ("when did
  I go to the pottery class?") still see it, while an as-of read before the event does not.
- `has_event`: "{subject} has {value}" for a scheduled one, e.g. "user has sister's wedding on 3 June
  2024". Valid from when it was said (it was known, and planned, from then).
The date label is part of the value: the same activity on two dates is two events (in a `many` slot the
same value would be one), and the sentence answers "when" in words. Extractors only find the time words;
factledger.ledger.when resolves them against the turn's said-at time.
"""

from __future__ import annotations

import re
from datetime import timedelta

from .model import Draft
from factledger.ledger.times import format_time, to_datetime
from factledger.ledger.when import TIME_PHRASE, EventTime, resolve_event_time

EVENT_PREDICATES: dict[str, tuple[str, str]] = {
    "did": ("many", "{subject} {value}"),
    "has_event": ("many", "{subject} has {value}"),
}


def event_value(what: str, when: EventTime) -> str:
    """The event's words with its date label ("went to the pottery class on 12 March 2026")."""
    what = " ".join(what.split()).strip(" ,.")
    return f"{what} {when.label}"


def event_draft(
    predicate: str, subject: str, what: str, quote: str, phrase: str, said_at: str, *, upcoming: bool = False
) -> Draft | None:
    """A draft for a dated event, or None when the time words name no single period."""
    cardinality, template = EVENT_PREDICATES[predicate]
    when = resolve_event_time(phrase, said_at, upcoming=upcoming or predicate == "has_event")
    if when is None or not what.strip():
        return None
    return Draft(
        op="add",
        subject=subject,
        predicate=predicate,
        value=event_value(what, when),
        quote=quote.strip(),
        cardinality=cardinality,  # type: ignore[arg-type]
        template=template,
        valid_from=when.start if predicate == "did" else said_at,  # has_event: from when it was said
        time_phrase=phrase,
    )


# -- what the user says they did, on a day they say ---------------------------------------------------

# A past form: a regular one, or an irregular verb people tell news with ("got the keys yesterday").
_IRREGULAR_PAST = (
    "got|had|went|bought|sold|took|made|came|left|found|lost|met|saw|won|gave|sent|paid|ran|rode|swam|began|broke|"
    "caught|flew|drove|wrote|fell|held|spent|did|sat|wore|threw|brought|built|quit|shut|split|hit|set|put"
)
PAST_FORM = rf"(?:[a-z]{{2,}}ed|{_IRREGULAR_PAST})(?![\w'’-])"
_HAPPENED = re.compile(
    r"^(?:I|[Ww]e)(?:\s+(?:just|finally|also|actually|recently|even|only|officially|eventually))*\s+"
    rf"(?P<what>(?P<verb>{PAST_FORM}).*)$"
)
# Past forms that tell no event: thinking, wanting, saying, and the helpers ("had to", "used to"); and
# the ones that change how things are (moving, switching, starting, joining): those are the state
# patterns' to read, and an event naming the old place ("moved into the Tarn Lodge care home in May") would
# be shown as held true after the place changed.
_NOT_HAPPENINGS = frozenset(
    "used needed wanted liked loved hated asked wondered thought realised realized noticed meant guessed hoped expected "
    "figured managed planned decided wished felt seemed looked sounded mentioned said told talked worried struggled "
    "agreed assumed believed considered forgot heard moved relocated switched swapped changed transferred started joined signed".split()
)
_NEWS_WITHIN = timedelta(days=62)
_TO_THE_ASSISTANT = re.compile(r"(?i)\S+\s+(?:you|u|ya)\b")


def done_in_the_chat(what: str) -> bool:
    """Whether a thing done was done to the assistant ("gave you the wrong date yesterday", "sent you the
    draft on Monday"): the conversation, not news of the user's life."""
    return bool(_TO_THE_ASSISTANT.match(what))
_TAIL_WORDS = re.compile(r"(?i)(?:\s+(?:and|but|with|so|because|when|which|where|too|as\s+well|finally|at\s+last))+\s*$")


def happened(text: str, said_at: str, subject: str) -> Draft | None:
    """'we got the keys to the allotment shed yesterday', 'I handed in the essay on Monday': something done
    on one day the clause names (a `did` event), when no other pattern read the clause. None when the
    clause tells no event, names no single past day, or is too long to be one thing done."""
    m = _HAPPENED.match(text)
    if not m or m["verb"].casefold() in _NOT_HAPPENINGS:
        return None
    what = m["what"]
    if re.match(r"(?i)\S+\s+to\s|did\s+(?:it|that|this|so|not)\b", what):
        return None  # "had to cancel", "used to run", "I did it, …": not a thing done, or not what
    if done_in_the_chat(what):
        return None
    found = TIME_PHRASE.search(what)
    if not found:
        return None
    when = resolve_event_time(found.group(0), said_at)
    if when is None or when.start > said_at:
        return None  # a range, a period not understood, or one still ahead
    if when.start < format_time(to_datetime(said_at) - _NEWS_WITHIN):
        # news is recent: "signed up for the half on 19 Oct" said in May dates the race, not the signing
        return None
    done = _TAIL_WORDS.sub("", what[: found.start()].strip(" ,;:-"))
    if len(done.split()) < 2 or len(done.split()) > 10:
        return None  # "I left yesterday": what was left is not said; a long clause is more than one thing
    return event_draft("did", subject, done, text, found.group(0), said_at)
