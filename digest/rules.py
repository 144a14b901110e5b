"""The offline rules extractor: deterministic patterns for common first-person facts.

It does not try to be clever. Each pattern names a fact it is sure of; a sentence with a hedge
("if", "maybe", "will", a question) or a third person says nothing. Right on what it claims, silent
otherwise. Only the user's own turns are read: an assistant's paraphrase is not the user's word.

Handled (the subject is "user", the speaker, unless the clause is about a third person, below):
- lives_in (one): "I live in / I'm based in / I moved to / I relocated to X", "I lived in X from A to B";
  "I moved out of X" / "I left X" (when X is where they live), "I no longer live in X" retracts.
- works_at (one): "I work at/for X", "I got a (new) job at X", "I started working at X", "I'm now at X"
  (when they hold a job, or the clause says it is work); "I left / quit X", "I no longer work at X"
  retracts. "I switched from X to Y" replaces the one held value X (any of these slots) by Y.
- dated events (factledger.digest.events): "I went to the pottery class yesterday", "Last Saturday I ran
  a 10k race" -> did (many) "went to the pottery class on 13 March 2026", valid from that day;
  "my sister's wedding is on June 3", "I have a dentist appointment on Friday" -> has_event (many).
  Only with time words that name one period; the date is resolved by factledger.ledger.when.
- third persons: "my sister Anna lives in Rome" -> (Anna, lives_in, Rome) and (Anna, relation, sister);
  "my brother works at Initech" -> subject "user's brother"; a name the ledger already holds as a
  subject ("Anna moved to Milan") is that person. The same patterns as for the user apply; the quote is
  the whole clause.
- name (one): "my name is X", "call me X". birthday (one): "my birthday is <date>", "I was born on <date>".
- likes (many): "I like / love / enjoy / prefer X", "I'm a fan of X"; "I no longer like X", "I don't like X anymore",
  "I stopped liking X" retract (and "I don't like X" when the ledger says they do).
- has (many), for possessions and family from a fixed noun list: "I have / I own / I've got a X",
  "I bought / adopted a X"; "I no longer have X", "I sold / gave away my X", "my X died" retract.
- note (many): "remember that …".
- corrections: "actually it was March, not April" replaces the one current value containing the
  corrected word(s) (for a dated event the date is resolved again); if none or several do, the
  extractor returns a receipt saying so (stored as a dropped proposal), never a guess.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from factledger.ledger import ClaimVersion
from factledger.ledger.keys import normalise

from . import pursuits
from .commute import commute_in_passing
from .companions import companions_in_passing
from .couples import partners_in_passing
from .events import EVENT_PREDICATES, PAST_FORM, done_in_the_chat, event_draft, happened
from .everyday import (
    FIRST_PATTERNS, PETS_NAMED, POSSESSIONS, pet_named_after, switched_then_named, RELATION_SAID_AS, attribute_key, everyday, future_or_change_time, held_relative,
    replacement_in_turn, singular, team_said_aside,
)
from .everyday import Clause as EverydayClause
from .extractor import ExtractionRequest
from .hosting import hosting_in_passing
from .machines import machines_in_passing
from .metrics import figures_in_passing
from .model import Draft
from .priors import priors
from .pursuits import pursuits_in_passing
from .relatives import birthdays_in_passing, named_in_passing
from .slot_updates import updates_in_passing
from .trips import trip_in_passing
from factledger.ledger.when import MONTH_WORD, MONTHS, TIME_PHRASE, find_time_phrase, resolve_event_time, resolve_time_phrase

SUBJECT = "user"

# What a clause read as "X's Y" makes a slot of when X is a pronoun ("storage units got renumbered, ours is K-12 now")
_PRONOUN_SLOTS = frozenset("mine it its this that ours theirs hers his yours".split())

# Registry entries the rules extractor writes with (cardinality and sentence template).
PREDICATES: dict[str, tuple[str, str]] = {
    "lives_in": ("one", "{subject} lives in {value}"),
    "works_at": ("one", "{subject} works at {value}"),
    "school": ("one", "{subject} goes to {value}"),
    "name": ("one", "{subject}'s name is {value}"),
    "birthday": ("one", "{subject}'s birthday is {value}"),
    "likes": ("many", "{subject} likes {value}"),
    "has": ("many", "{subject} has {value}"),
    "note": ("many", "{subject} asked to remember: {value}"),
    "relation": ("many", "{subject} is the user's {value}"),
    **EVENT_PREDICATES,
}

_LEAD = re.compile(
    r"^(?:(?:so|well|oh|also|and|but|btw|by the way|fyi|just so you know|anyway|hey|hi|hello|yeah|yes|ok|okay|um|uh|ugh|urgh|argh|lol|lmao|omg|welp|phew|hmm|haha|aw|aww|ooh|yay|"
    r"please|actually|sorry|correction|no\s+wait|wait\s+no|scratch\s+that|my\s+bad|no(?=[,!]|\s*$)|oops|wait|for the record|note to self|heads up|quick update|update|just fyi|reminder|fwiw|imo|tbh|ps|"
    r"oh and|guess what|news|these days|nowadays|currently|now|change\s+of\s+plans?|plans?\s+(?:have\s+|has\s+)?changed|plot\s+twist|(?:good|bad|big|sad)\s+news|"
    r"(?:please\s+)?remember(?=\s+(?!(?:that|when|what|how|where|who|why|if|whether|the\s+time|to)\b))|"
    r"[A-Za-z][A-Za-z0-9\-]*(?:,?\s+[A-Za-z0-9\-]+){0,4}:)[,!:]?\s+)+",
    re.I,
)
_HEDGE = re.compile(
    r"(?i)\b(?:if|would|might|maybe|perhaps|wish|hope|hoping|want to|wanna|plan|plans|planning|thinking of|"
    r"thinking about|considering|going to|gonna|will|could|should|someday|one day|dream|dreaming|"
    r"pretend|imagine|suppose|hypothetically|not sure|unless|probably|used to|never)\b|\b\w+'(?:d|ll)\b|\?"
)
_MODAL_MAY = re.compile(r"\bmay\b")  # lower-case only: "in May" is a month
# Where a hedge would make the clause's statement unsure: the statement up to its first aside (", nobody
# complained, should have done it ages ago", " if that's relevant"); the clause itself when it opens with one.
_ASIDE = re.compile(r",\s+|\s+(?:if|unless|because|though|although|which|so\s+that)\s+")


def _hedged_part(text: str) -> str:
    head = _ASIDE.split(text, maxsplit=1)[0]
    return head if len(head.split()) >= 2 else text
_JOINT = re.compile(
    r"(?:,\s*|\s+)(?:and|but|so|plus)\s+(?=(?:I|my|My|we|We|our|Our|she|he|they|She|He|They)\b)|,\s+(?=(?:I|she|he|they)(?:\s|'))|:\s+(?=[A-Z])"
    # a second thing done, its "I" dropped: "wrapped up at X on Friday and started at Y on Monday"
    r"|(?:,\s*|\s+)and\s+(?:then\s+)?(?=(?:started|joined|moved|switched|left|quit|sold|bought|adopted)\s)"
    # a wish after a statement: "I drink 4 espressos a day and want to cut down" (the wish is hedged, not the fact)
    r"|(?:,\s*|\s+)and\s+(?=(?:want|wanna|need|hope|plan|am\s+trying|trying)\s+to\b)"
    # ... or after a comma: "going to Vellory instead, same dates, booked the Quillet Inn"
    r"|,\s+(?=(?:booked|rebooked|started|joined|switched|swapped|replaced|sold|bought|adopted|cancell?ed)\s)"
    # a stack's list of where things go: "…, CI on gantry, crashes go to quaylytics"
    r"|,\s+(?=(?:nightly\s+|daily\s+)?(?:crash\s+reports|crashes|errors|logs|backups|alerts|metrics|traces|emails|CI|builds|DB|DNS|CDN)\s+(?:go|goes|on|to|run|runs)\b)"
    # a list of how things are: "Django 4.2 on MariaDB 10.11, CI is Drone, code lives on SourceHut"
    # (or its "'s": "I'm a buyer at Mardleton, salary's £39k"; not "it's", "that's")
    r"|,\s+(?:and\s+)?(?=(?:the\s+|our\s+|my\s+)?(?:(?!(?:it|that|this|there|here|he|she|what|who|where|when|how|let)['’]s)[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}|[A-Z]{2,5})(?:\s+(?:is|are|lives|live|runs|run|sits)|['’]s)\s+(?:now\s+)?(?:on\s+|in\s+|through\s+|with\s+)?[A-Z0-9€$£])"
    # a second statement of how things are: "rent is £1,450 a month and the landlord is Mr. Aldane"
    r"|\s+and\s+(?=the\s+[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}\s+(?:is|are)\s)"
    # someone else's news after a comma: "Quentin's off on leave, Tamsyn Greaves is covering as my lead"
    r"|,\s+(?=(?-i:[A-Z][a-z][\w\-]+(?:\s+[A-Z][a-z][\w\-]+)?)\s+(?:is|has|was|got|will)\s)"
    # ... or their thing: "i got it wrong, Ondrea's bday is the 25th", "sorry, my rent is 900"
    r"|,\s+(?=(?:(?-i:[A-Z][a-z][\w\-]+)['’]s|my|our|her|his|their)\s+[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?(?:\s+(?-i:[A-Z][a-z][\w\-]+))?\s+(?:is|are)\s)"
    # a spaced dash before a new subject: "Ondrea is the PM, not my manager — my manager is Bo Lark"
    r"|\s+[—–-]+\s+(?=(?:I|my|My|we|We|our|Our|she|he|they|She|He|They)\b)"
)
# A full stop after a title or inside a number ("Dr. Lund", "86.5 kg") does not end a sentence.
_SENTENCE_END = re.compile(r"[\s.!;,\U0001F300-\U0001FAFF\u2600-\u27BF\ufe0f]+$")  # its stops, and an emoji ending it
_SENTENCE = re.compile(r"(?:[^.!?;\n\U0001F300-\U0001FAFF\u2600-\u27BF]|(?<=\bDr)\.|(?<=\bMr)\.|(?<=\bMrs)\.|(?<=\bMs)\.|(?<=\bSt)\.|(?<=\bProf)\.|(?<=\d)\.(?=\d)|\.(?=[\w/]))+(?:[.!?;\U0001F300-\U0001FAFF\u2600-\u27BF\ufe0f]+|$)")

# A proper name: capitalised words, with a few lower-case joiners between them ("Rio de Janeiro").
_PROPER = (
    r"(?P<v>[A-Z][\w'’&\-]*\.?(?:\s+(?:(?:de|da|do|del|di|la|le|am|upon|on|of|and|&)\s+)?"
    # (a weekday or a month after it is when, not more of the name: "left Pellmark on Friday")
    r"(?:(?!(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|"
    r"September|October|November|December)\b)[A-Z][\w'’&\-]*\.?|\d+))*)"
)
_TAIL_WORDS = r"since|from|in|on|last|this|two|three|a|an|for|until|till|as|now|with|and|but|because|today|yesterday|recently|these|next|at|right|nowadays|for|again|after|over|around|during|before|by|earlier|back"
_TAIL = rf"(?=\s*(?:$|[,.!;:]|\s(?:{_TAIL_WORDS})\b))"
# A new home's place, then why or when the move was ("moved to X to be closer to work", "moved into the flat on
# X the other day"); elsewhere "left X the day before yesterday" is read whole, as an event with its day
_HOME_TAIL = rf"(?=\s*(?:$|[,.!;:]|\s(?:{_TAIL_WORDS}|to|so|bc|cos|cuz|while|when|near|the\s+(?:day|week|weekend|month|year|other))\b))"

_LIVES = re.compile(
    rf"^I(?:'m| am)?(?:\s+(?:now|currently|still|just|actually|finally))*\s+"
    rf"(?:live|living|reside|residing|based|(?:have|'ve)\s+(?:been\s+living|lived))"
    rf"(?:\s+(?:on\s+(?:my|her|his|their)\s+own|alone|together|with\s+(?:my|her|his|their)\s+[a-z]+|out|over|up|down))?\s+in\s+{_PROPER}{_TAIL}"
)
_LIVED_SINCE = re.compile(rf"^I(?:'ve|\s+have)\s+(?:been\s+living|lived|been\s+based)\s+in\s+{_PROPER}{_TAIL}")
_MOVED = re.compile(
    rf"^(?:I|[Ww]e)(?:'ve| have)?(?:\s+(?:just|recently|finally|now|actually))*\s+(?:moved|relocated)\s+"
    rf"(?:(?:up\s+|down\s+|over\s+|back\s+|out\s+)?to|into\s+(?:a|an|the|my|our|her|his|their)\s+(?:[a-z][\w\-]*\s+){{0,3}}?(?:flat|apartment|house|home|place|room|studio|cottage|bungalow)\s+(?:in|on))\s+{_PROPER}{_HOME_TAIL}"
)
# "we've been in the new flat in X for a fortnight", "got the keys for our new place in X", "mum's settled in X",
# "he's got his own flat in X now" (a relative's clause, read as "I have got his own flat in X")
_NEW_HOME = re.compile(
    rf"^(?:I|[Ww]e)(?:'ve| have)?(?:\s+(?:just|finally|now|all))*\s+(?:(?:been\s+(?:in|at)|got\s+the\s+keys\s+(?:to|for))\s+(?:the|our|my|a)\s+new\s+"
    rf"(?:[a-z][\w\-]*\s+)?(?:flat|apartment|house|home|place|bungalow|cottage)\s+(?:in|on)|settled\s+in(?:to)?"
    rf"|got\s+(?:(?:(?:my|our|his|her|their)\s+)?own|a|a\s+new)\s+(?:flat|apartment|house|home|place)\s+in)\s+{_PROPER}{_HOME_TAIL}"
)
# "we're moving to X next month": a move said with when it happens (without a time it may be only a plan)
_MOVING = re.compile(
    rf"^(?:I|[Ww]e)(?:'m|'re| am| are)(?:\s+(?:finally|actually|now))*\s+(?:moving|relocating)\s+(?:(?:up|down|over|back)\s+)?to\s+{_PROPER}{_TAIL}"
)
# The last word of a school's name: moving "to" it is changing schools.
_SCHOOL = re.compile(r"\s(?:School|Academy|Primary|College|University|Nursery|High|Secondary|Kindergarten|Montessori|Grammar)$")
_LIVED_RANGE = re.compile(rf"^I\s+lived\s+in\s+{_PROPER}\s+(?P<when>(?:from|between)\s+.+?\s+(?:to|until|till|and)\s+[^,.;!]+)")
_MOVED_OUT = re.compile(rf"^I(?:'ve| have)?(?:\s+(?:just|finally))?\s+(?:moved\s+(?:out\s+of|away\s+from)|left)\s+{_PROPER}{_TAIL}")

# A workplace named, then its kind in small letters ("the Kelbrook bottling plant", "Orsett general hospital")
_WORKPLACE = _PROPER[:-1] + (
    r"(?:\s+(?:[a-z]+\s+)?(?:depot|hospital|factory|warehouse|plant|station|clinic|library|mill|yard|bakery|cafe|garage|"
    r"lab|labs|hotel|restaurant|brewery|distillery|dairy|quarry|mine|docks?|works|surgery|practice|pharmacy))?)"
)
_WORKS = re.compile(
    rf"^I(?:'m| am)?(?:\s+(?:now|currently|still|actually))*\s+"
    rf"(?:work(?:ing)?(?:\s+as\s+an?\s+[a-z][a-z ]{{1,30}}?)?\s+(?:at|for)|"
    rf"(?:have|'ve)\s+been\s+working\s+(?:at|for)|got\s+a\s+(?:new\s+)?job\s+(?:at|with)|"
    rf"started\s+(?:a\s+new\s+job\s+at|working\s+(?:at|for))|(?:am|'m)\s+employed\s+by|employed\s+by)"
    rf"\s+(?:the\s+)?{_WORKPLACE}{_TAIL}"
)
# "first day at Dunnock & Velmar was yesterday": working there from that day (or from the day ahead it names)
_FIRST_DAY = re.compile(r"^(?:(?:[Mm]y|[Oo]ur)\s+)?[Ff]irst\s+(?:day|shift|week)\s+(?:at|with)\s+(?P<v>[\w'’&.\-]+(?:\s+[\w'’&.\-]+){0,3}?)\s+(?:was|(?P<ahead>is|'s))\s+(?P<when>[^,;.!?]+)")
_WORKED_SINCE = re.compile(rf"^I(?:'ve|\s+have)\s+been\s+(?:working|employed)\s+(?:at|for|by)\s+{_PROPER}{_TAIL}")
_LEFT_JOB = re.compile(
    rf"^I(?:'ve| have)?(?:\s+(?:just|finally|recently|officially|actually))?\s+"
    rf"(?:quit(?:\s+my\s+job\s+at)?|left(?:\s+my\s+job\s+at)?|no\s+longer\s+work\s+(?:at|for)|"
    rf"(?:got|was)\s+(?:laid\s+off|fired)\s+from|retired\s+from|resigned\s+from|stopped\s+working\s+(?:at|for))"
    rf"\s+{_PROPER}{_TAIL}"
)
_NAME = re.compile(r"^(?:(?:my\s+)?name\s+is|(?:my\s+)?name's|(?:you\s+can\s+)?call\s+me|I'm\s+called|I\s+am\s+called)\s+(?P<v>[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,2})(?=\s*(?:$|[,.!;]|\s(?:and|but)\b))", re.I)
_DATE_WORDS = (
    r"(?P<v>(?:[A-Za-z]+\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[A-Za-z]+\.?(?:,?\s+\d{4})?|\d{4}-\d{2}-\d{2}))"
)
_BIRTHDAY = re.compile(rf"^(?:my\s+birthday\s+is(?:\s+on)?|my\s+birthday's(?:\s+on)?|I\s+was\s+born\s+on)\s+(?:the\s+)?{_DATE_WORDS}(?=\s*(?:$|[,.!;]))", re.I)

_LIKE_VERB = r"(?:like|love|enjoy|adore|(?:now\s+)?prefer|am\s+a\s+(?:big\s+|huge\s+)?fan\s+of|'m\s+a\s+(?:big\s+|huge\s+)?fan\s+of|am\s+into|'m\s+into)"
_LIKES = re.compile(rf"^I(?:\s+(?:really|also|just|absolutely|still|totally))*\s*{_LIKE_VERB}\s+(?P<v>[^,.;!]+)")
_UNLIKES = re.compile(
    r"^I(?:\s+(?:really|just))*(?:\s+|(?='))(?:no\s+longer\s+(?:like|love|enjoy)|don't\s+(?:like|love|enjoy)|do\s+not\s+(?:like|love|enjoy)|"
    r"stopped\s+(?:liking|loving|enjoying)|am\s+not\s+into|'m\s+not\s+into|'m\s+no\s+longer\s+into|am\s+no\s+longer\s+into|"
    r"(?:have|'ve)\s+gone\s+off)\s+(?P<v>[^,.;!]+)"
)
_FAVOURITE = re.compile(r"^(?P<v>[A-Za-z][\w'\- ]{0,40}?)\s+(?:is|are)\s+my\s+(?:absolute\s+|all-time\s+)?favou?rites?\b(?:\s+[a-z]+)?$")
_CLAUSE_TAIL = re.compile(r"(?i)\s+(?:after|since|when|because|before|until|while|as|ever\s+since|now\s+that|over|rather\s+than|instead\s+of)\b.*$")
_ANYMORE = re.compile(r"(?i)\s+(?:any\s?more|these\s+days|now)\s*$")

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
_COMMAND_LEAD = re.compile(r"(?i)\b(?:remember|rmbr|rmb|remem|note(?:\s+to\s+self)?|nts|fyi|for\s+the\s+record|memo|save\s+this|keep\s+in\s+mind)\b")
_CORRECTION_CUE = re.compile(r"(?i)\b(?:actually|sorry|correction|no|oops|wait|scratch\s+that|my\s+bad)\b")
_I_MEANT = re.compile(r"(?i)^I\s+meant\b")
_OWNED_UP = re.compile(r"(?i)^.*\b(?:wrong|typo|mistake|messed\s+up|got\s+it\s+wrong|misread|misspelled|mistyped)\b[^,]*,\s+(?:it['’]?s|it\s+is)\s")
# A turn that owns up to a slip anywhere ("its 4:15 not 4, misread the invite"): its "X not Y" clauses
# correct, wherever the owning up stands
_SLIP_WORDS = r"misread|mistyped|misspelled|misremembered|typo|my\s+bad|my\s+mistake|got\s+(?:it|that)\s+wrong|i\s+was\s+wrong"
_SLIP_OWNED = re.compile(rf"(?i)\b(?:{_SLIP_WORDS})\b")
_SLIP_AFTER = re.compile(rf"(?i),\s*[^,]*\b(?:{_SLIP_WORDS})\b[^,]*$")
# "it's Tobren not Tobran", "his name is Orvel, not Orval": a person's name said again, corrected
_NAME_CORRECTED = re.compile(r"^(?:(?:it|its|it['’]s|it\s+is|(?:his|her|their)\s+name\s+is|(?:his|her|their)\s+name['’]s)\s+)(?P<new>[A-Z][a-z][\w'’\-]*),?\s+not\s+(?P<old>[A-Z][a-z][\w'’\-]*)\b", re.I)
# "it's walnuts I get hives from, not almonds", "but it's kiwi she's allergic to": the value put first
_CLEFT = re.compile(
    r"(?i)(?:^|,\s*|\bbut\s+|\bcorrection:?\s+)(?:it['’]?s|it\s+is)\s+(?P<new>[\w'’\-]+(?:\s+[\w'’\-]+){0,2}?)\s+(?:that\s+)?(?P<who>I|she|he|they|we)"
    r"(?:['’]m|['’]s|['’]re|\s+am|\s+is|\s+are)?\s+(?:\w+\s+){0,2}?\w+\s+(?:to|with|for|on|at|in|of|from)"
    r"(?:,?\s+not\s+(?P<old>[\w'’\-]+(?:\s+[\w'’\-]+){0,3}?))?\s*[.!]?$"
)
_SAID_BUT = re.compile(r"(?i)\bI\s+said\s+(?P<old>[\w'’\-]+(?:\s+[\w'’\-]+){0,3}?)\s+(?:(?:before|earlier|yesterday|last\s+time)\s+)?but\s+it")
# (a number's own commas and points are inside what is corrected: "I meant £1,540, not £1,450")
_CORRECTION = re.compile(r"(?i)^(?P<body>.+?),?\s+not\s+(?P<old>(?:[^,.;!]|(?<=\d)[,.](?=\d))+?)\s*[.!]?$")
# "correction: it's October 23", "sorry, it's 3:10": the new value alone, the old one left unsaid
_CORRECTED_TO = re.compile(r"(?i)^(?:it['’]?s|it\s+is|that['’]s|that\s+is)\s+(?:actually\s+)?(?:on\s+|at\s+)?(?P<new>[^,;!?]{1,30}?)\s*[.!]?$")
# The shapes a value alone is matched to the held value it corrects by: a day of a month, a clock time.
_VALUE_SHAPES = (
    re.compile(rf"(?i)\b(?:{MONTH_WORD}\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH_WORD})\b"),
    re.compile(r"(?i)(?<![\d:])\d{1,2}[:.]\d\d(?:\s*(?:am|pm))?(?![\d:])"),
)

_NOT_A_LIKE = re.compile(
    r"(?i)^(?:it|that|this|them|those|these|you|him|her|to\b|when|how|what|the\s+way|being|having|it's|that's|"
    r"a\s+lot|so\s+much|very\s+much|your|ya)\b"
)
_TRAILING_NOISE = re.compile(
    r"(?i)(?:\s+(?:a\s+lot|so\s+much|very\s+much|too|as\s+well|a\s+bit|quite\s+a\s+bit|these\s+days|now|though|"
    r"and\s+stuff|and\s+all|lately|more\s+than\s+anything|most))+\s*$"
)


# "I don't live in X" alone is often a denial ("lol no, I don't live in Paris"); "anymore" makes it news.
_NO_LONGER_LIVES = re.compile(
    rf"^I(?:\s+no\s+longer\s+live\s+in\s+{_PROPER}{_TAIL}|\s+(?:don't|do\s+not)\s+live\s+in\s+{_PROPER.replace('<v>', '<v2>')}\s+any\s?more)"
)
_NOW_AT = re.compile(rf"^I(?:'m| am)\s+now\s+(?:working\s+)?at\s+{_PROPER}{_TAIL}")
_SWITCHED_FROM = re.compile(
    rf"^(?:I|[Ww]e)(?:'ve| have)?(?:\s+(?:just|finally|recently))?\s+(?:switched|changed|moved|migrated)\s+(?:over\s+)?from\s+(?P<old>[A-Z][^,.;!]*?)\s+to\s+{_PROPER}{_TAIL}"
)
_SWITCHED_JOB = re.compile(
    rf"^I(?:'ve| have)?(?:\s+(?:just|finally|recently))?\s+(?:switched|changed)\s+(?:jobs|companies|employers)\s+(?:to|and\s+(?:I'm|am)\s+now\s+at)\s+{_PROPER}{_TAIL}"
)
_WORK_WORDS = re.compile(r"(?i)\b(?:job|work|working|as\s+an?|team|company|employer|hired|position|role)\b")

_EVENT_VERB = (
    r"(?:went|attended|visited|ran|joined|took\s+part\s+in|participated\s+in|competed\s+in|finished|completed|hosted|"
    r"celebrated|won|watched|saw|met|played|gave|organi[sz]ed|volunteered|signed\s+up\s+for|graduated|got\s+married|"
    r"got\s+engaged|started|began|tried|learned|learnt|painted|baked|cooked|climbed|hiked|traveled|travelled|flew|"
    r"performed|took|spoke|presented)"
)
_EVENT = re.compile(rf"^(?:I|[Ww]e)(?:\s+(?:just|finally|also|actually|recently|even))*\s+(?P<what>{_EVENT_VERB}\b.*)$")
_LEADING_TIME = re.compile(rf"^(?P<phrase>{TIME_PHRASE.pattern[4:]}),?\s+(?P<rest>(?:I|[Ww]e)(?:\s|['’]).*)$", re.I)
_EVENT_NOUNS = {
    "appointment", "meeting", "interview", "exam", "test", "wedding", "party", "concert", "game", "match", "trip",
    "flight", "date", "dinner", "lunch", "conference", "recital", "performance", "show", "surgery", "check-up",
    "checkup", "class", "lesson", "race", "marathon", "tournament", "ceremony", "graduation", "reunion", "festival",
    "competition", "audition", "presentation", "workshop", "retreat", "vacation", "holiday", "birthday",
}
_UPCOMING_IS = re.compile(
    r"^(?:[Mm]y|[Oo]ur)\s+(?P<what>[a-z][\w'’\-]*(?:\s+[a-z][\w'’\-]*){0,3})\s+is\s+(?P<phrase>(?:on|this|next|in)\s+.+|tomorrow|today)$"
)
_UPCOMING_HAVE = re.compile(
    r"^(?:I|[Ww]e)\s+(?:have|'ve\s+got|have\s+got)\s+(?:a|an|my|our|the)\s+(?P<what>[a-z][\w'’\-]*(?:\s+[a-z][\w'’\-]*){0,3})\s+"
    r"(?P<phrase>(?:on|this|next|in)\s+.+|tomorrow|today)$"
)

_RELATIONS = (
    r"(?:bro|sis|gf|bf|hubby|sister|brother|mother|mom|mum|father|dad|wife|husband|partner|son|daughter|best\s+friend|friend|boyfriend|"
    r"girlfriend|fianc[ée]e?|boss|colleague|coworker|co-worker|cousin|aunt|uncle|grandma|grandmother|grandpa|"
    r"grandfather|grandad|granddad|gran|nan|niece|nephew|roommate|flatmate|neighbou?r|twin|stepmom|stepdad|stepson|stepdaughter|"
    r"(?:brother|sister|mother|father|son|daughter)-in-law)"
)
_THIRD = re.compile(
    rf"^(?:(?:[Mm]y|[Oo]ur)\s+(?:(?:little|big|older|younger|baby|kid|eldest|youngest)\s+)?|(?=(?:[Mm]um|[Mm]om|[Dd]ad|[Gg]randma|[Gg]randpa|[Gg]ran|[Nn]an|[Gg]randad)\s))(?P<rel>(?i:{_RELATIONS}))(?:,?\s+(?P<name>[A-Z][a-z][\w\-]*(?:'(?!s\b)[\w\-]+)?)(?:\s+(?P<surname>[A-Z][a-z][\w\-]+))?(?=[\s,’']),?)?\s+(?P<rest>(?!is\s+called|'s\s|is\s+(?:now\s+)?(?:Dr\.?\s+|Mr\.?\s+|Mrs\.?\s+|Ms\.?\s+)?[A-Z])[a-z].*)$"
)
# "my mum's started volunteering", "dad's left the food bank": the 's is "has" before a participle.
_RELATIVE_HAS = re.compile(
    rf"^((?:(?:[Mm]y|[Oo]ur)\s+(?i:{_RELATIONS}))|[Mm]um|[Mm]om|[Dd]ad)['’]s\s+(?=(?:started|begun|been|gone|left|quit|ditched|moved|joined|switched|retired|stopped|taken|got|settled|given|dropped|finished|stepped)\b)"
)
# Short words for a relative, and whom they name.
_NAME_THEN_RELATION = re.compile(
    rf"^(?P<name>[A-Z][a-z][\w\-]*)\s*(?:\(\s*(?:my|our)\s+(?P<rel>{_RELATIONS})\s*\)|,\s*(?:my|our)\s+(?P<rel2>{_RELATIONS}),)\s+(?P<rest>[a-z].*)$"
)
_BOTH = re.compile(
    rf"^(?P<a>[A-Z][a-z][\w\-]*|(?:[Mm]y|[Oo]ur)\s+(?i:{_RELATIONS}))\s+and\s+(?P<b>[A-Z][a-z][\w\-]*|(?:my|our|his|her|their)\s+(?i:{_RELATIONS}))\s+(?P<rest>[a-z].*)$"
)
_NOT_PEOPLE = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september "
    "october november december i we you it this that".split()
)
_NAMED = re.compile(r"^(?P<name>[A-Z][a-z][\w\-]*)(?P<s>['’]s)?\s+(?P<rest>[a-z].*)$")
# After "Name's": "is" before these or an -ing word ("Ana's leaving", "Ana's a nurse"), else "has" ("Ana's quit").
_IS_AFTER_S_WORDS = (r"a|an|the|now|back|in|at|on|off|from|with|still|also|going|moving|getting|not|no|so|very|really|\w+ing"
                     r"|vegetarian|vegan|pescatarian|pescetarian|veggie|allergic|pregnant|retired|married|engaged|single")
_IS_AFTER_S = re.compile(rf"(?:{_IS_AFTER_S_WORDS})\b")
# Where news about someone turns to the user's own things: ", so Tamsyn is my lead now".
_THEN_MINE = re.compile(r",\s+(?:so\s+|and\s+|but\s+|which\s+means\s+)?(?=[^,]*\b(?:my|I|I'm|our)\b)")
# What may follow "Name's" for the clause to be news about that person rather than a thing of theirs
# ("Ana's quit", "Ana's leaving", but "Ana's birthday is …" is her birthday: another pattern's).
_NEWS_AFTER_S = re.compile(rf"(?:{_IS_AFTER_S_WORDS}|quit|left|moved|got|been|gone|started|joined|retired|accepted|taken|passed|"
                           r"finished|changed|switched|booked|sold|bought|found|had|just|finally|also|now)\b")
_THIRD_VERBS = {
    "lives": "live", "works": "work", "is": "am", "has": "have", "resides": "reside", "loves": "love", "likes": "like",
    "enjoys": "enjoy", "owns": "own", "adores": "adore", "doesn't": "don't", "prefers": "prefer", "'s": "'m",
    "volunteers": "volunteer", "coaches": "coach", "teaches": "teach",
}
_THIRD_AND = re.compile(r",?\s+and\s+(?=(?:now\s+|also\s+)?(?:lives|works|loves|likes|enjoys|has|owns|moved|got|started|is|volunteers|coaches|teaches)\b)")
_PRONOUN = re.compile(r"^(?:she|he|they)(?:(?P<s>['’]s)|['’](?P<re>re))?\s+(?P<rest>[a-z'].*)$", re.I)


# Statements of a slot that read "…, not Z" as a correction themselves.
_STATED_CORRECTIONS = frozenset({"Name's X is Y", "my X is Y", "X is Y, said plainly"})
# The roles a person holds for the user, and a value that is a person's name (a title, or two or three
# capitalised words): what "she"/"he" in the next clause stands for.
_PERSON_ROLES = frozenset(
    "landlord landlady dentist gp doctor physio physiotherapist manager boss tutor teacher coach trainer mentor accountant "
    "lawyer solicitor vet therapist counsellor reviewer lead supervisor cleaner childminder nanny plumber electrician builder "
    "agent hairdresser barber midwife consultant surgeon nurse optician".split()
)


def _names_a_role(predicate: str) -> bool:
    """'landlord', 'pm', 'mentor_at_work' (the role before where it is): a slot a person fills."""
    words = predicate.split("_")
    head = words[: words.index("at")] if "at" in words else words
    return bool(head) and (head[-1] in _PERSON_ROLES or head[-1] in ("pm", "cto", "ceo", "hr"))


_A_PERSON = re.compile(r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+)?|[A-Z][a-z][\w'’\-]*(?:\s+[A-Z][\w'’\-]+){1,2})")
# Everyday patterns read before the third person's: they name someone, but change the user's facts.
# ("Travis is gone" names a held value, not a person: the user's thing replaced)
_USER_FIRST = frozenset({"someone left", "pet gone", "moved out", "ditched X for Y", "split up", "raising X to Y", "Name is the role"})
_PETS = frozenset({"pets named"})
# What is left of a clause once its pets are cut out ("I live in X with" -> "I live in X")
_PET_TRAIL = re.compile(r"(?i)(?:\s*,)?\s+(?:with|and|plus|,)?\s*(?:,\s*)?$")


def _known_capitalised(request: ExtractionRequest, text: str) -> str:
    """`text` with its first word capitalised when that word is a person the ledger holds facts of, as
    chat writes names small ("eluned's moved to Lisgarth"); else ''."""
    found = re.match(r"[a-z][a-z\-]+(?=['’]s\b|\s)", text)
    first = found.group(0) if found else ""
    if not first or first in _NOT_PEOPLE:
        return ""
    key = normalise(first)
    known = any(c.subject_key == key and c.subject[:1].isupper() for c in request.current)
    return first.capitalize() + text[len(first):] if known else ""


def _known_person(request: ExtractionRequest, name: str) -> str | None:
    """A first name the ledger knows: a subject ("Anna"), or a person named in a held value ("my manager
    is Mira Salo" makes "Mira" that person). None when no one, or several, answer to it."""
    wanted = normalise(name)
    subjects = {c.subject for c in request.current if c.subject_key == wanted and c.subject_key != SUBJECT}
    if not subjects:  # "Ana" for the "Ana Roth" the ledger holds facts of
        subjects = {c.subject for c in request.current if c.subject_key.split(" ")[0] == wanted and c.subject[:1].isupper()}
    if subjects:
        return subjects.pop()
    people = {
        c.value for c in request.current
        if c.tx_to is None and re.fullmatch(r"[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+){0,2}", c.value) and normalise(c.value.split()[0]) == wanted
        and c.predicate not in ("lives_in", "works_at", "likes", "has", "name") and not c.predicate.endswith("_contact")
    }
    return people.pop() if len(people) == 1 else None


# Chat often writes the first person small ("i moved to Tarnow", "i'm on the search team"); the patterns read
# it as "I" (grounding folds case anyway).
_SMALL_I = re.compile(r"(?<![\w'’\-])i(?=['’](?:m|ve|d|ll)\b|\s)")


def capital_i(text: str) -> str:
    return _SMALL_I.sub("I", text)


# Contractions typed without their apostrophe ("im on the payments squad", "dont have a car anymore"):
# given it back, so the patterns read them (grounding folds apostrophes away, so the quotes still stand).
_BARE_CONTRACTIONS = {
    "im": "I'm", "ive": "I've", "dont": "don't", "didnt": "didn't", "doesnt": "doesn't", "isnt": "isn't",
    "wasnt": "wasn't", "arent": "aren't", "werent": "weren't", "cant": "can't", "wont": "won't", "havent": "haven't",
    "hasnt": "hasn't", "thats": "that's", "whats": "what's", "theres": "there's", "theyre": "they're", "youre": "you're",
}
_BARE_CONTRACTION = re.compile(r"(?<![\w'’\-])(?:" + "|".join(_BARE_CONTRACTIONS) + r")(?![\w'’\-])", re.I)


def with_apostrophes(text: str) -> str:
    def given(m: re.Match[str]) -> str:
        word = _BARE_CONTRACTIONS[m.group(0).casefold()]
        return word if m.group(0)[:1].islower() or word.startswith("I") else word[:1].upper() + word[1:]

    return _BARE_CONTRACTION.sub(given, text)


def as_read(text: str, request: ExtractionRequest) -> str:
    """The turn as the patterns read it: contractions with their apostrophes, "i" as "I", known names and
    names after a title with their capitals."""
    return names_typed_small(titled_names(capital_i(with_apostrophes(text))), request)


# A title typed small and the name after it ("new vet, dr orlin wessick"): one or two words, not a word that
# goes on with the sentence ("dr wessick says …", "dr wessick at the surgery").
_TITLED_SMALL = re.compile(r"(?<![\w'’\-])(dr|mr|mrs|ms|mx|prof)(\.?\s+)([a-z][a-z'’\-]+)(?:(\s+)([a-z][a-z'’\-]+))?(?![\w'’\-])")
_NOT_SURNAMES = frozenset(
    "at in on for from to with and or but so the a an is was are were has had have says said thinks thought told tells "
    "wants reckons recommended reckoned suggested now again today tomorrow yesterday instead too also next last this "
    "who which that because if when then".split()
)


def titled_names(text: str) -> str:
    """`text` with a title typed small and the name after it capitalised ("dr orlin wessick" -> "Dr Orlin Wessick").
    The same length."""
    def capitalised(m: re.Match[str]) -> str:
        title, gap, first, space, second = m.groups()
        if first in _NOT_SURNAMES:
            return m.group(0)
        name = title.capitalize() + gap + first.capitalize()
        if second is None:
            return name
        return name + space + (second if second in _NOT_SURNAMES else second.capitalize())

    return _TITLED_SMALL.sub(capitalised, text)


# Words that are part of many names and of everyday speech alike ("the Copper Spoon", "Vellory Leisure
# Centre"): never read as a name when typed small.
_COMMON_NAME_WORDS = frozenset(
    "the and of at on in for with a an new old north south east west upper lower great little big hotel inn house "
    "lodge farm cottage cottages centre center leisure club gym fitness studio school primary academy college "
    "university clinic hospital health medical dental vets vet practice surgery street road lane row terrace "
    "avenue park lake bay hill hills coast beach bridge green court square market bakery cafe kitchen bar pub "
    "books press bank group systems labs lab software media foods freight cloud air airways airlines rail "
    "limited ltd co company partners associates mutual insurance trust council office team".split()
)
_CAPITALISED = re.compile(r"(?<![\w'’\-])[A-Z][a-z][\w'’\-]*")
# A capitalised word after a word in lower case or a comma: a name, not a sentence's first word.
_NAME_MID_SENTENCE = re.compile(r"(?<=[a-z0-9,;:]\s)(?!I['’]|I\b)[A-Z][a-z][\w'’\-]*")
_SMALL_WORD = re.compile(r"(?<![\w'’\-])[a-z][a-z][\w'’\-]*")


def names_typed_small(text: str, request: ExtractionRequest) -> str:
    """`text` with the names the scope knows (capitalised in a held fact's subject or value) given their
    capitals where typed small ("ondrash left on Friday" after "my reviewer is Ondrash Vell"), so the
    patterns that read names read them. The same length."""
    known: dict[str, str] = {}
    written = [f"{held.subject} {held.value}" for held in request.current]
    # ... and the words the conversation around the turn writes as names, mid-sentence: the session's
    # earlier turns and the assistant's answer ("moving to orlinby" answered with "… in Orlinby")
    said_around = [e.text for e in [*request.recent, *([request.reply] if request.reply else [])]]
    written += [m.group(0) for around in said_around for m in _NAME_MID_SENTENCE.finditer(around)]
    for names in written:
        for name in _CAPITALISED.findall(names):
            bare = re.sub(r"['’]s$", "", name)
            if (len(bare) >= 4 and bare.casefold() not in _COMMON_NAME_WORDS and bare.casefold() not in _MONTH_WORDS
                    and bare.casefold() not in _NOT_PEOPLE):
                known.setdefault(bare.casefold(), bare)
    if not known:
        return text

    def recase(m: re.Match[str]) -> str:
        word = m.group(0)
        bare = re.sub(r"['’]s$", "", word)
        name = known.get(bare)
        return name + word[len(bare):] if name is not None else word

    return _SMALL_WORD.sub(recase, text)


_ADVERBS = {"just", "now", "recently", "finally", "still", "also", "currently", "actually", "no", "longer"}


@dataclass
class _Clause:
    text: str  # the clause without lead-in words
    offset: int  # where `text` starts in the turn as read (`as_read`)
    lead: str = ""  # the lead-in words ("Actually, ") that were cut off


def _pieces(text: str) -> list[tuple[str, int]]:
    """Sentences, and within them clauses joined by 'and I' / 'but my' / ', so we'."""
    out = []
    for match in _SENTENCE.finditer(text):
        sentence, base = match.group(0), match.start()
        cut = 0
        for joint in _JOINT.finditer(sentence):
            if re.fullmatch(r"\s*[A-Z][a-z][\w\-]*", sentence[cut : joint.start()]) and joint.group(0).strip() == "and":
                continue  # "Fennor and my sister moved …": one subject of two people, not two clauses
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
        body = _SENTENCE_END.sub("", body)
        if body:
            out.append(_Clause(body, start, lead_text))
            carried = ""
        else:
            carried = lead_text
    return out


# A clause that drops its "I", as people do in chat ("booked Sapporo for April", "started at Farrowby on
# Monday", "stopped the vitamin D"): a past-tense verb of the patterns below at its start (a present one,
# "use tabs", is an instruction to the assistant, not news about the user).
_IMPLICIT_I = re.compile(
    r"^(?:just\s+|finally\s+|also\s+|recently\s+)?(?:booked|rebooked|had\s+to\s+cancel|started|joined|moved|relocated|quit|left|sold|bought|adopted|living|"
    r"stopped|switched|cancell?ed|signed\s+up|upgraded|got|gave|handed|retired|resigned|no\s+longer)\b",
    re.I,
)


_FROM_NOW = re.compile(r"^(?:from|as\s+of|starting|effective)\s+(?:today|now|this\s+morning|tonight)\s*,?\s+(?P<rest>(?:I|[Ww]e)(?:\s|['’]).*)$", re.I)


# "handed in the essay yesterday": a thing done on a day, said without its "I"
_DONE_ALONE = re.compile(rf"^(?:(?:just|finally|also|only)\s+)?(?:{PAST_FORM})", re.I)


def _reworded(text: str) -> str | None:
    """The clause as the patterns expect it, when it is said otherwise: the dropped "I" put back, a
    leading time phrase moved after what it dates. None when neither applies."""
    now = _FROM_NOW.match(text)
    if now:
        return now["rest"]  # "from today I'm an HR advisor at X": what holds from when it was said
    lead = _LEADING_TIME.match(text)
    if lead:  # "since October I work at X", "last Friday I moved to Y" (nothing else read them as they were said)
        return _time_after(lead)
    if _IMPLICIT_I.match(text) or (_DONE_ALONE.match(text) and find_time_phrase(text)):
        return "I " + text[0].lower() + text[1:]
    return None


def _time_after(lead: re.Match[str]) -> str:
    """A clause led by a time phrase (`_LEADING_TIME`) said with the phrase after what it dates, starting
    small ("Since March I work at X" → "I work at X since March"), so no pattern reads it as part of a name."""
    phrase = lead["phrase"]
    return f"{lead['rest']} {phrase[:1].lower()}{phrase[1:]}"


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


_NOTE_CHANGE = re.compile(r"(?i)\b(?:chang(?:ed|ing)|mov(?:ed|ing)|new|now|instead|updated|switch(?:ed|ing)|correction|actually|not)\b|\bfrom\s+(?:next\s+)?[a-z]+")
_NOTE_PLAIN = frozenset("the a an my our is are was at on in to of for and it its it's now new changed moved changing moving from same time".split())


def _note_it_changes(request: ExtractionRequest, subject: str, note: str) -> ClaimVersion | None:
    """The one held note a new note says changed: it shares a word that names something (not a number,
    not a month) and says a change. None when none or several would."""
    if not _NOTE_CHANGE.search(note):
        return None
    def named(text: str) -> set[str]:
        # a word as its stem: a plural as its singular ("bins … nights" names the "bin" and "night"), and a
        # long word by its first five letters ("suppliers" and "supply", "renews" and "renewal")
        return {(w[:5] if len(w) > 6 else w) for w in (singular(x) for x in re.findall(r"[a-z][a-z\-]{2,}", text.casefold())
                                                       if x not in _NOTE_PLAIN and x not in _MONTH_WORDS)}
    wanted = named(note)
    key = normalise(subject)
    held = [c for c in request.current if c.subject_key == key and c.predicate == "note" and c.tx_to is None
            and c.valid_to is None and len(named(c.value) & wanted) >= 2]
    return held[0] if len(held) == 1 else None


_MONTH_WORDS = frozenset("jan feb mar apr may jun jul aug sep sept oct nov dec january february march april june july "
                         "august september october november december".split())


# "her bday is the 17th", "his school is X now": someone's thing said with a possessive pronoun
_THEIR_THING = re.compile(r"^(?:her|his|their)\s+(?P<rest>(?P<attr>[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,2}?)\s+(?:is|are|['’]s)\s+\S.*)$", re.I)
_THEIR_THING_READ = frozenset({"Name's X is Y"})


def _one_holding(request: ExtractionRequest, attr: str) -> str | None:
    """The one person other than the user who holds an open value in the slot `attr` names."""
    key = attribute_key(attr)
    holders = {c.subject for c in request.current if c.predicate == key and c.subject_key != SUBJECT and c.tx_to is None and c.valid_to is None}
    return holders.pop() if len(holders) == 1 else None


def _renamed(request: ExtractionRequest, old: str, new: str, quote: str) -> list[Draft]:
    """Everything held open of `old` (who they are to the user too), held of `new` over the same valid
    time: a name corrected, not a person changed. Nothing held of `old`: nothing."""
    return _held_moved(request, old, new, quote, frozenset()) if normalise(old) != normalise(new) else []


def _held_moved(request: ExtractionRequest, old: str, new: str, quote: str, kept: frozenset[str]) -> list[Draft]:
    """What `old` holds open (but in the predicates `kept`), retracted and held of `new` over the same valid time."""
    key = normalise(old)
    moved = []
    for c in request.current:
        if c.subject_key != key or c.tx_to is not None or c.valid_to is not None or c.predicate in kept:
            continue
        moved.append(Draft(op="retract", subject=c.subject, predicate=c.predicate, value=c.value, quote=quote,
                           cardinality=c.cardinality, valid_from=c.valid_from))
        moved.append(Draft(op="add", subject=new, predicate=c.predicate, value=c.value, quote=quote,
                           cardinality=c.cardinality, valid_from=c.valid_from))
    return moved


def _moved(request: ExtractionRequest, unnamed: str, named: str) -> ExtractionRequest:
    """`request` with what the unnamed relative holds held by `named` (`RulesExtractor._unnamed_named`)."""
    key, to = normalise(unnamed), normalise(named)
    current = [dataclasses.replace(c, subject=named, subject_key=to)
               if c.subject_key == key and c.predicate not in ("relation", "note") else c for c in request.current]
    return dataclasses.replace(request, current=current)


def _titles_left_behind(drafts: list[Draft], request: ExtractionRequest) -> list[Draft]:
    """A new employer ends the job title said in the same words as the old one ("I'm a Part 3 assistant at
    X", then "first week at Y done"): that title was the title at X. A title said apart from an employer,
    or said again with the new one, stays."""
    ended: list[Draft] = []
    for new in drafts:
        if new.predicate != "works_at" or new.op not in ("add", "supersede") or new.drop_reason:
            continue
        key = normalise(new.subject)
        if any(d.predicate == "job_title" and normalise(d.subject) == key for d in drafts):
            continue
        held = [c for c in request.current if c.subject_key == key and c.tx_to is None]
        jobs = {s for c in held if c.predicate == "works_at" and c.value_key != normalise(new.value or "") for s in c.source}
        for title in (c for c in held if c.predicate == "job_title" and c.valid_to is None):
            if jobs & set(title.source) and not any(e.subject == title.subject and e.value == title.value for e in ended):
                ended.append(Draft(op="retract", subject=title.subject, predicate="job_title", value=title.value, quote=new.quote,
                                   cardinality=title.cardinality, valid_from=new.valid_from, time_phrase=new.time_phrase))
    return ended


def _span_after_quote(text: str, quote: str, said_at: str, *, ahead: bool = False):
    """(the span its time words give, the quote with them, the phrase) for a clause whose match `quote`
    is a prefix of `text`: the time words after the match, else inside it ("I sold my car yesterday")."""
    rest = text[len(quote) :]
    phrase = find_time_phrase(rest)
    span = resolve_time_phrase(phrase, said_at, ahead=ahead) if phrase else None
    if phrase and span is not None:
        quote = text[: len(quote) + rest.find(phrase) + len(phrase)]
    elif phrase is None:
        phrase = find_time_phrase(quote)
        span = resolve_time_phrase(phrase, said_at) if phrase else None
    return span, quote, phrase or ""


def _time_after_quote(text: str, quote: str, said_at: str) -> tuple[str | None, str, str]:
    """(valid_from, quote, phrase) of a change: where its time words start it, None when it gives none."""
    span, quote, phrase = _span_after_quote(text, quote, said_at)
    return (span.valid_from if span else None), quote, phrase


def _misnamed(draft: Draft, updates: Sequence[Draft]) -> bool:
    """Whether `draft` holds an update's value in a slot named by a pronoun or by some of the update's
    slot words (what a clause pattern made of the terse update `digest.slot_updates` read)."""
    return any(normalise(draft.subject) == normalise(u.subject) and draft.value == u.value and draft.predicate != u.predicate
               and (draft.predicate in _PRONOUN_SLOTS or set(draft.predicate.split("_")) & set(u.predicate.split("_")))
               for u in updates)


def _cardinality(draft: Draft) -> str | None:
    return draft.cardinality or PREDICATES.get(draft.predicate, (None, ""))[0]


class RulesExtractor:
    """Deterministic first-person patterns; see the module docstring for what it handles."""

    name = "rules"
    _last_third = ""
    _view: ExtractionRequest | None = None  # what is held as the turn being read goes on (`extract`)
    _turn = ""  # the turn being read, as the patterns read it (`as_read`)

    def extract(self, request: ExtractionRequest) -> list[Draft]:
        entry = request.entry
        if entry.role != "user":
            return []
        drafts: list[Draft] = []
        self._last_third = ""  # "my sister moved to Turku, she got a job at X": she is the sister
        # What is held as the turn reads on: "Pavel (my brother) left X. He's at Y now" moves the unnamed
        # brother's facts to Pavel in its first clause, and the second reads them as Pavel's.
        self._view = request
        previous_third = False
        self._turn = as_read(entry.text, request)
        for clause in _clauses(self._turn):
            request = self._view
            said = clause.text
            if previous_third and _IMPLICIT_I.match(clause.text):
                # "he's retraining as X and moved to Y": the second thing done is still his (quoting the words said)
                clause = _Clause(f"they {clause.text}", clause.offset, clause.lead)
            # "Fabrizio left on Friday": news about someone, but what it changes is the user's (the roles held
            # for them), so it is read before the clause is taken as the third person's own.
            about_user = self._everyday(clause, request, SUBJECT, clause.text, only=_USER_FIRST)
            third = self._third_person(clause, request)
            if third and clause.text != said:
                third = [Draft(**{**d.__dict__, "quote": said}) if d.quote == clause.text else d for d in third]
            previous_third = third is not None
            if about_user is not None:  # and what it says of them ("Ulla moved to the billing team")
                drafts.extend(about_user + [d for d in third or () if d.subject != SUBJECT])
                continue
            if third is not None:
                drafts.extend(third)
                continue
            read = self._clause(clause, request, SUBJECT)
            drafts.extend(read)
            # "my landlord is Sefa Marrock, she lives in Tarnmouth": she is the person just named in a role
            named = next((d.value for d in reversed(read) if d.subject == SUBJECT and d.op in ("add", "supersede")
                          and d.value and _names_a_role(d.predicate) and _A_PERSON.fullmatch(d.value)), None)
            # ... or the person whose thing it said ("my gf Wenna's bday is the 17th, she's vegan": Wenna)
            theirs = next((d.subject for d in reversed(read) if d.subject != SUBJECT and not d.subject.startswith(SUBJECT + "'")
                           and d.predicate == "relation"), None)
            if named or theirs:
                self._last_third = named or theirs
        drafts = drafts + _titles_left_behind(drafts, request)
        # "me and my partner Ozric, 4 nights in Vellport": who someone named in passing is
        held_now = self._view.current if self._view is not None else request.current
        drafts += named_in_passing(self._turn, drafts, held_now)
        # "for my gf Wenlis's bday on the 21st": a birthday said beside something else
        drafts += birthdays_in_passing(self._turn, drafts, held_now)
        # "tested again yesterday, ftp 243", "deadlift finally moved!! pulled 152.5 kg": training figures said in passing
        drafts = figures_in_passing(self._turn, SUBJECT, entry.said_at, drafts, held_now)
        # "we took in a kitten from the shelter, her name is Wrenlow": the pet and its name, in two clauses
        drafts += pet_named_after(self._turn, drafts)
        # "changed vets, the new one is Dr. Varnsey": the one held vet (a pet's too) is someone else now
        drafts += switched_then_named(self._turn, entry.said_at, drafts, held_now)
        # "we now land in brisport on may 5", "out jun 3 back the 11th": a trip's plan said in passing
        drafts += trip_in_passing(self._turn, SUBJECT, entry.said_at, drafts, held_now)
        # "Ondine from accounts is coming along", "Tamar pulled out": who is going with the user
        drafts += companions_in_passing(self._turn, SUBJECT, entry.said_at, drafts, held_now)
        # "Idony's dating a bloke named Tobrin", "Wenna and Tobin broke up": who someone the user knows is with
        view = self._view or request
        drafts += partners_in_passing(self._turn, entry.said_at, drafts, held_now, lambda name: _known_person(view, name))
        # "I coach my nephew's rugby side", "I've stepped down as treasurer": what the user does besides a job, and its end
        drafts += pursuits_in_passing(self._turn, SUBJECT, entry.said_at, drafts, held_now)
        # "I cycle to work", "the commute is a 25 minute tram ride now", "I've given up cycling": how the user gets to work
        drafts += commute_in_passing(self._turn, SUBJECT, entry.said_at, drafts, held_now)
        # "joined X in May as a tester, on the mobile team": the team as an aside the job's pattern read whole
        drafts += team_said_aside(self._turn, SUBJECT, entry.said_at, drafts, held_now)
        # "my side project Tansyweb runs on a linode box", "it's been on Koyeb.app for a week": where a project runs
        drafts += hosting_in_passing(self._turn, entry.said_at, drafts, held_now)
        # "our pipeline deploys to the staging box stg-quell-02": a machine named by its code
        drafts += machines_in_passing(self._turn, SUBJECT, entry.said_at, drafts, held_now)
        # "new bike shed code: 5064", "storage unit → K-12": a held slot's new value said tersely
        updates = updates_in_passing(self._turn, SUBJECT, entry.said_at, drafts, held_now)
        if updates:  # "ours is K-12 now", "shed code swapped → 9130": no slots "ours" or "shed_code_swapped", the update's value
            drafts = [d for d in drafts if not _misnamed(d, updates)] + updates
        # "moved from the intake team to the triage team": what the slot held before, when nothing is held yet
        return priors(drafts, self._turn, request, entry.said_at, _cardinality)

    # -- a third person ---------------------------------------------------------------------------

    def _one_named_before(self, clause: _Clause, request: ExtractionRequest) -> str | None:
        """The one person the ledger knows (not the user) whom the turn names before `clause`, in earlier
        clauses or its lead-in; None when nobody is, or several are."""
        before = self._turn[: clause.offset] + " " + clause.lead
        people = {p for p in (_known_person(request, w) for w in re.findall(r"\b[A-Z][a-z][\w'’\-]+", before)) if p}
        return people.pop() if len(people) == 1 else None

    def _third_person(self, clause: _Clause, request: ExtractionRequest) -> list[Draft] | None:
        """A clause about someone else: the first-person patterns with that subject, quoting the clause.
        None when the clause is not about a third person."""
        text = clause.text
        both = _BOTH.match(text)
        if both and not {both["a"].casefold(), both["b"].casefold()} & _NOT_PEOPLE:
            # "Fennor and my sister moved to Oamaru": what the clause says is each one's
            drafts: list[Draft] = []
            # ("Tessaly and her gf moved to Arrowby": her girlfriend is nobody the user has; Tessaly moved)
            theirs_too = re.match(r"(?:his|her|their)\s", both["b"])
            for who in (both["a"],) if theirs_too else (both["a"], both["b"]):
                read = self._third_person(_Clause(f"{who} {both['rest']}", clause.offset, clause.lead), request)
                drafts += [Draft(**{**d.__dict__, "quote": text}) for d in read or ()]
            return drafts if drafts else None
        theirs = _THEIR_THING.match(text)
        if theirs:
            # "her bday is the 23rd not the 21st": the person just named (in the turn, or in its lead-in:
            # "correction on Seluna: her birthday is …"), else the one person who holds that slot
            named_first = [p for p in (_known_person(request, w) for w in re.findall(r"\b[A-Z][a-z][\w'’\-]+", clause.lead)) if p]
            who = self._last_third or (named_first[-1] if named_first else None) or _one_holding(request, theirs["attr"])
            correcting = bool(_CORRECTION_CUE.search(clause.lead))
            said = f"{who}'s {theirs['rest']}" if who else ""
            read = self._everyday(_Clause(said, clause.offset, clause.lead), request, SUBJECT, said, only=_THEIR_THING_READ) if who else None
            if read:
                self._last_third = who
                return [Draft(**{**d.__dict__, "quote": text}) for d in read]
            if who is None and not correcting:
                return []  # someone's, but whose is not known: never the user's (a correction finds what it names)
        aside = _NAME_THEN_RELATION.match(text)  # "Pavel (my brother) moved to …", "Pavel, my brother, works …"
        m = _THIRD.match(f"my {aside['rel'] or aside['rel2']} {aside['name']} {aside['rest']}" if aside else _RELATIVE_HAS.sub(r"\1 has ", text))
        relation = None
        pronoun = _PRONOUN.match(text)
        handled: list[Draft] = []
        before = request  # what was held before this clause moved an unnamed relative's facts to their name
        if m:
            relation = " ".join(m["rel"].split()).casefold()
            relation = RELATION_SAID_AS.get(relation, relation)  # "my little bro Fintan": the brother
            named = " ".join(p for p in (m["name"], m["surname"]) if p)
            subject = named or held_relative(request.current, relation) or f"{SUBJECT}'s {relation}"
            rest = m["rest"]
            if named and self._unnamed_named(request, f"{SUBJECT}'s {relation}", subject, [], text):
                # read the clause ("Pavel (my brother) left Xanthe Ltd") with the brother's facts as Pavel's
                request = self._view = _moved(request, f"{SUBJECT}'s {relation}", subject)
            if named:  # "my coworker Ana Roth is leading the X migration": what the user asks Ana about
                handled = self._everyday(_Clause(f"{named} {rest}", clause.offset, clause.lead), request, SUBJECT, f"{named} {rest}",
                                         only=frozenset({"someone handles X"})) or []
        # the person just named, or else the one person the ledger knows whom the turn names before the
        # pronoun ("news from Cathal: he's retrained as …")
        elif pronoun and (who := self._last_third or self._one_named_before(clause, request)):
            subject, rest = who, pronoun["rest"]
            if pronoun["s"]:  # "he's retraining as …", "she's accepted a job at …"
                rest = ("is " if _IS_AFTER_S.match(rest) else "has ") + rest
            elif pronoun["re"]:
                rest = "are " + rest
        elif pronoun and re.match(r"(?i)(?:she|he)\b", text) and not re.search(r"(?i)\b(?:me|my|us|our)\b", text):
            # "she's accepted a job at X" with nobody named before: not the user's, and nobody's we know
            # ("she bumped me to 20 mg" is the user's: what was done to them)
            return []
        else:
            named = _NAMED.match(text) or _NAMED.match(_known_capitalised(request, text))
            if not named or (named["s"] and not _NEWS_AFTER_S.match(named["rest"])):
                return None
            subject = _known_person(request, named["name"])
            if subject is None:
                return None
            rest = named["rest"]
            if named["s"]:  # "Ana's leaving us", "Ana's quit the band": 's is "is" or "has"
                rest = ("is " if _IS_AFTER_S.match(rest) else "has ") + rest
        self._last_third = subject
        drafts: list[Draft] = []
        for part in _THIRD_AND.split(rest):  # "loves gardening and lives in Hobart": two facts, one subject
            # "he's joining the ops team, so Tamsyn is my lead now": what follows, about "my" things, is the user's
            mine = _THEN_MINE.search(part)
            if mine:
                part, user_part = part[: mine.start()], part[mine.end():]
                drafts += [Draft(**{**d.__dict__, "quote": text}) for d in self._clause(_Clause(user_part, clause.offset, clause.lead), request, SUBJECT)
                           if not d.drop_reason]
            words = part.split()
            for i, word in enumerate(words):
                if word.casefold() not in _ADVERBS:
                    words[i] = _THIRD_VERBS.get(word.casefold(), word)
                    break
            mirrored = _Clause("I " + " ".join(words), clause.offset, clause.lead)
            read = self._clause(mirrored, request, subject)
            # "my mum volunteers at the animal shelter now", "dad's left the food bank": their pursuits
            read += pursuits.read(mirrored.text, subject, request.entry.said_at, request.current, read)
            for d in read:
                if d.drop_reason:
                    continue
                if d.predicate == "note":  # a note keeps the words said, as the user's ("I turns 7" is no one's words)
                    d = Draft(**{**d.__dict__, "subject": SUBJECT, "value": text.strip(" ,.;")})
                drafts.append(Draft(**{**d.__dict__, "quote": text}))
        drafts += [Draft(**{**d.__dict__, "quote": text}) for d in handled]
        if relation and m and m["name"]:
            unnamed = f"{SUBJECT}'s {relation}"
            # the move comes first: what the clause then says of the moved facts ("left X") is said of them
            filled = [d for d in drafts if d.op != "retract"]
            drafts = (self._unnamed_named(before, unnamed, subject, filled, text) + drafts
                      + self._unnamed_ends(before, unnamed, drafts, text))
        if relation and m and m["name"] and not _HEDGE.search(text):
            # "my partner Corvinel says hi": whatever else the clause says, it names the user's partner
            drafts.insert(0, self._draft("add", "relation", relation, text, subject=subject))
        return drafts

    def _unnamed_ends(self, request: ExtractionRequest, unnamed: str, drafts: list[Draft], quote: str) -> list[Draft]:
        """'my brother lives in Poznań', later 'Pavel (my brother) moved to Lublin': what the unnamed
        brother held in a slot the named one now fills ends where the new value starts."""
        key = normalise(unnamed)
        held = [c for c in request.current if c.subject_key == key and c.tx_to is None and c.valid_to is None and c.cardinality == "one"]
        ends = []
        for d in drafts:
            if d.op not in ("add", "supersede") or d.predicate == "relation":
                continue
            for c in held:
                if c.predicate == d.predicate and c.value_key != normalise(d.value or ""):
                    start = d.valid_from or request.entry.said_at
                    ends.append(Draft(op="retract", subject=c.subject, predicate=c.predicate, value=c.value, quote=quote,
                                      cardinality="one", valid_from=max(start, c.valid_from), time_phrase=d.time_phrase))
        return ends

    def _unnamed_named(self, request: ExtractionRequest, unnamed: str, named: str, drafts: list[Draft], quote: str) -> list[Draft]:
        """'my brother-in-law lives in Greymouth', later 'Fennor, my brother-in-law, …': one person once the
        turns say so. What the unnamed one holds (in a slot this clause does not fill) is the named one's,
        over the same valid time, and the unnamed subject no longer holds it."""
        if normalise(named) == normalise(unnamed):
            return []
        kept = frozenset({d.predicate for d in drafts} | {"relation", "note"})
        return _held_moved(request, unnamed, named, quote, kept)

    # -- one clause ------------------------------------------------------------------------------

    def _clause(self, clause: _Clause, request: ExtractionRequest, subject: str) -> list[Draft]:
        text = clause.text
        said_at = request.entry.said_at
        remember = _REMEMBER.match(text) if not text.rstrip().endswith("?") else None
        if remember:
            value = remember.group("v").strip(" ,")
            return [self._draft("add", "note", value, remember.group(0), subject=subject)] if value else []
        renamed = _NAME_CORRECTED.match(text)
        if renamed and subject == SUBJECT:
            # "it's Tobren not Tobran": the person held as Tobran was Tobren all along (over the same valid time)
            moved = _renamed(request, renamed["old"], renamed["new"], text)
            if moved:
                return moved
        # "it's walnuts I get hives from, not almonds", "I said almonds but it's walnuts I get hives from"
        cleft = _CLEFT.search(text)
        if cleft:
            said = _SAID_BUT.search(text)
            if cleft["old"] or said:
                corrected = self._cleft_correction(cleft, said, request)
                if corrected:
                    return corrected
        # the cue is a lead-in word ("actually, …") or the clause's own "I meant …"
        # (or the clause owning up first: "the form's wrong, it's 52 not 25")
        slip = _SLIP_OWNED.search(request.entry.text)
        owned = _SLIP_AFTER.sub("", text) if slip else text  # "its 4:15 not 4, misread the invite": the slip is no value
        correction = _CORRECTION.match(owned) if (_CORRECTION_CUE.search(clause.lead) or _I_MEANT.match(text) or _OWNED_UP.match(text)
                                                   or slip) else None
        alone = _CORRECTED_TO.match(text) if not correction and _CORRECTION_CUE.search(clause.lead) else None
        if alone:
            found = self._corrected_by_shape(alone, request)
            if found:
                return found
        if correction:
            # "no wait, Wenna's birthday is April 3, not May": a statement of the slot, said against the old
            # value, corrects the slot it names; other corrections find the held value they name
            stated = self._everyday(clause, request, subject, text, only=_STATED_CORRECTIONS)
            return stated if stated else self._correction(correction, request, subject)
        scope = _hedged_part(text)
        if _HEDGE.search(scope) or _MODAL_MAY.search(scope):
            return []
        pets = self._everyday(clause, request, subject, text, only=_PETS) if "\0" not in clause.lead else None
        if pets:
            # "I moved to Carnbre with my dog Quiller": the pet, and what the rest of the clause says
            rest = _PET_TRAIL.sub("", PETS_NAMED.sub("", text)).strip(" ,")
            again = self._clause(_Clause(rest, clause.offset, clause.lead + "\0"), request, subject) if _IMPLICIT_I.match(rest) or rest[:2] in ("I ", "We", "we") else []
            return pets + [d for d in again if not d.drop_reason]
        first = self._everyday(clause, request, subject, text, only=FIRST_PATTERNS)
        timed = _LEADING_TIME.match(text) if not first else None
        if timed:  # "two weeks ago I started at X": read as "I started at X two weeks ago", quoting the words said
            after = _time_after(timed)
            moved = self._everyday(_Clause(after, clause.offset, clause.lead), request, subject, after, only=FIRST_PATTERNS)
            first = [Draft(**{**d.__dict__, "quote": text}) for d in moved or ()]
        if first:
            return first
        read = self._fixed(clause, request, subject, text)
        if read or clause.lead.endswith("\0"):
            return read
        rewritten = _reworded(text)
        if rewritten is None:
            return []
        # "booked Sapporo for April", "since October I work at X": said as "I booked …", "I work at X since
        # October"; the quote stays the words said (the whole clause).
        again = self._clause(_Clause(rewritten, clause.offset, clause.lead + "\0"), request, subject)
        return [Draft(**{**d.__dict__, "quote": text}) if not d.drop_reason else d for d in again]

    def _fixed(self, clause: _Clause, request: ExtractionRequest, subject: str, text: str) -> list[Draft]:
        """The fixed-slot patterns, then everyday speech's others, for one clause."""
        said_at = request.entry.said_at
        who = _Who(request, subject)

        m = _LIVED_RANGE.match(text)
        if m:
            span = resolve_time_phrase(m["when"].replace("between", "from").replace(" and ", " to "), said_at)
            if span is None or span.valid_to is None:
                return []
            return [self._one(who, "lives_in", m["v"], m.group(0), span.valid_from, span.valid_to, m["when"])]
        m = _NO_LONGER_LIVES.match(text)
        if m:
            place = (m["v"] or m["v2"]).strip().rstrip(".")
            return [self._timed("retract", "lives_in", place, text, m.group(0), said_at, subject=subject)]
        for pattern in (_LIVES, _LIVED_SINCE, _MOVED, _NEW_HOME, _MOVING):
            m = pattern.match(text)
            if m and pattern is _MOVING and not find_time_phrase(text[m.end() :]):
                continue
            if m:
                replaced = replacement_in_turn(self._turn)
                if pattern is _MOVED and replaced and normalise(replaced[1]) == normalise(m["v"]):
                    return []  # "scratch EKS, we moved to GKE": a tool replaced (read above), not a home
                # "my son moved to Tollard Academy": the school he goes to, not a home
                predicate = "school" if _SCHOOL.search(m["v"]) else "lives_in"
                return [self._one_timed(who, predicate, m["v"], text, m.group(0), said_at, ahead=pattern is _MOVING)]
        m = _SWITCHED_FROM.match(text)
        if m:
            return self._switched(who, m, text, said_at)
        m = _MOVED_OUT.match(text)
        if m:
            return self._left(who, m, text, said_at, prefer="lives_in")
        m = _LEFT_JOB.match(text)
        if m:
            return self._left(who, m, text, said_at, prefer="works_at")
        m = _FIRST_DAY.match(text)
        if m:
            return [self._one_timed(who, "works_at", m["v"], text, text[: m.start("when")].rstrip(), said_at, ahead=bool(m["ahead"]))]
        m = _WORKS.match(text) or _WORKED_SINCE.match(text) or _SWITCHED_JOB.match(text)
        if m:
            return [self._one_timed(who, "works_at", m["v"], text, m.group(0), said_at)]
        m = _NOW_AT.match(text)
        if m and (_WORK_WORDS.search(text) or any(c.predicate == "works_at" for c in who.held())):
            return [self._one_timed(who, "works_at", m["v"], text, m.group(0), said_at)]
        m = _NAME.match(text) if subject == SUBJECT else None
        if m:
            return [self._one(who, "name", m["v"], m.group(0), None, None, "")]
        m = _BIRTHDAY.match(text)
        if m:
            value = _birthday_value(m["v"])
            return [self._one(who, "birthday", value, m.group(0), None, None, "")] if value else []
        upcoming = self._upcoming(text, said_at, subject)
        if upcoming is not None:
            return upcoming
        m = _FAVOURITE.match(text)
        if m and not _NOT_A_LIKE.match(m["v"]) and len(m["v"].split()) <= 4:
            return [self._draft("add", "likes", m["v"].strip(), m.group(0), subject=subject)]
        m = _UNLIKES.match(text)
        if m:
            return self._unlike(who, m, text, said_at)
        m = _LIKES.match(text)
        if m:
            value = _TRAILING_NOISE.sub("", _CLAUSE_TAIL.sub("", _strip_time(m["v"]))).strip()
            if not value or _NOT_A_LIKE.match(value) or len(value.split()) > 5:
                return []
            return [self._timed("add", "likes", value, text, m.group(0), said_at, subject=subject)]
        m = _HAS_GONE.match(text) or _DIED.match(text)
        if m:
            return self._lost(who, m, text, said_at)
        m = _HAS.match(text)
        if m:
            return self._has(m, text, said_at, subject)
        read = self._everyday(clause, request, subject, text)
        if _LEADING_TIME.match(text):
            return read or []  # "last week I started as a courier at X": read again with its time after (_reworded)
        if read is None:  # "I started as a courier at X last week": the job, read above; else the day it was done
            read = self._event(text, said_at, subject)
        if read is None:  # "we got the shed keys yesterday": nothing held changes, but the day is worth keeping
            done = happened(text, said_at, subject)
            read = [done] if done else None
        return read or []

    def _everyday(self, clause: _Clause, request: ExtractionRequest, subject: str, text: str, *, only: frozenset[str] | None = None) -> list[Draft] | None:
        """Everyday speech (factledger.digest.everyday); a clause after a command lead-in ("remember:",
        "note to self:", "fyi") that no pattern reads is kept as a note rather than lost."""
        read = everyday(EverydayClause(text, clause.lead, self._turn, subject, request.entry.said_at, request), only=only)
        if read is None and only is None and _COMMAND_LEAD.search(clause.lead) and (len(text.split()) >= 3 or clause.lead.rstrip().endswith(":")):
            note = text.strip(" ,.;")
            if clause.lead.rstrip().endswith(":"):
                note = ". ".join([note, *self._unread_after(clause, request, subject)])
            older = _note_it_changes(request, subject, note)
            if older is not None:  # "fyi locker code changed, now 8830" replaces "gym locker code 4471"
                # ... from when it was said, or from the month it names ahead ("bin day moves to thursdays from april")
                said = EverydayClause(text, clause.lead, self._turn, subject, request.entry.said_at, request)
                start, phrase = future_or_change_time(said, note)
                return [self._draft("supersede", "note", note, text, subject=subject, replaces=older.value,
                                    valid_from=max(start or request.entry.said_at, older.valid_from), phrase=phrase)]
            return [self._draft("add", "note", note, text, subject=subject)]
        return read

    def _unread_after(self, clause: _Clause, request: ExtractionRequest, subject: str) -> list[str]:
        """The clauses after `clause` that go on with what a command heads ("note to self: switched energy
        suppliers. Quellane Power now, 61 a month"): up to the first one a pattern reads, a question, or a
        new statement of the user's ("I'm at Tarrow now" is a fact of its own)."""
        later = []
        for after in _clauses(self._turn):
            if after.offset <= clause.offset:
                continue
            end = after.offset + len(after.text)
            if self._turn[end : end + 2].lstrip().startswith("?") or re.match(r"(?i)(?:I|I'm|I've|we|we're|my|our|can|could|would|what|how)\b", after.text):
                break
            said = EverydayClause(after.text, after.lead, self._turn, subject, request.entry.said_at, request)
            if everyday(said) is not None:
                break
            later.append(after.text.strip(" ,.;"))
        return later

    # -- builders -------------------------------------------------------------------------------

    def _draft(
        self,
        op: str,
        predicate: str,
        value: str | None,
        quote: str,
        *,
        subject: str = SUBJECT,
        valid_from: str | None = None,
        valid_to: str | None = None,
        replaces: str | None = None,
        phrase: str = "",
    ) -> Draft:
        cardinality, template = PREDICATES[predicate]
        return Draft(
            op=op,  # type: ignore[arg-type]
            subject=subject,
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

    def _timed(
        self, op: str, predicate: str, value: str, text: str, quote: str, said_at: str, replaces: str | None = None, *,
        subject: str = SUBJECT, ahead: bool = False,
    ) -> Draft:
        """A draft whose valid time comes from a time phrase after the match (which then joins the quote).

        Every pattern is anchored at the clause start, so `quote` is a prefix of `text`.
        """
        span, quote, phrase = _span_after_quote(text, quote, said_at, ahead=ahead)
        return self._draft(
            op,
            predicate,
            value,
            quote,
            subject=subject,
            valid_from=span.valid_from if span else None,
            valid_to=span.valid_to if span else None,
            replaces=replaces,
            phrase=phrase or "",
        )

    def _one(self, who: "_Who", predicate: str, value: str, quote: str, valid_from: str | None, valid_to: str | None, phrase: str) -> Draft:
        value = value.strip().rstrip(".")
        start = valid_from or who.request.entry.said_at
        op = "supersede" if who.holds_other(predicate, value, start, valid_to) else "add"
        return self._draft(op, predicate, value, quote, subject=who.subject, valid_from=valid_from, valid_to=valid_to, phrase=phrase)

    def _one_timed(self, who: "_Who", predicate: str, value: str, text: str, quote: str, said_at: str, *, ahead: bool = False) -> Draft:
        value = value.strip().rstrip(".")
        draft = self._timed("add", predicate, value, text, quote, said_at, subject=who.subject, ahead=ahead)
        start = draft.valid_from or said_at
        if who.holds_other(predicate, value, start, draft.valid_to):
            draft = Draft(**{**draft.__dict__, "op": "supersede"})
        return draft

    def _switched(self, who: "_Who", m: re.Match[str], text: str, said_at: str) -> list[Draft]:
        """'I switched from X to Y': Y replaces the one held value X, in whichever slot holds it. 'I moved
        from X to Y' with nothing held naming X is a move of home (what it held before: digest.priors)."""
        old, new = m["old"].strip(), _strip_time(m["v"].strip().rstrip("."))  # "to Y on Monday": Y
        held = [c for c in who.held() if c.value_key == normalise(old) and c.predicate in PREDICATES]
        if not held:
            # "we moved from EKS to GKE" when the stack is "Go on Kubernetes (EKS)": the held values that
            # name X as a word now name Y, from when it was said (or its time words)
            word = re.compile(rf"(?i)(?<!\w){re.escape(old)}(?!\w)")
            named = [c for c in who.held() if c.tx_to is None and c.valid_to is None and word.search(c.value) and c.predicate not in ("note", "ended")]
            if not named and re.match(r"(?i)^(?:I|we)\b[^,;]*?\b(?:moved|relocated)\s+from\b", m.group(0)):
                return [self._one_timed(who, "lives_in", new, text, m.group(0), said_at)]
            purpose = None if named else re.match(r"\s+(?P<p>for\s+(?:my\s+|our\s+|the\s+)?[a-z][\w\-]*(?:\s+[a-z][\w\-]*)?)\s*[.!]?$", text[m.end("v"):])
            if purpose:
                # "switched from Vimbly to Zedra for coding" with nothing held of Vimbly: a tool for something,
                # used now, from when it was said (with nothing said it is for, the slot is unknown: an
                # employer, a gym, a bank; silent)
                value = f"{new} {purpose['p']}"
                start, quote, phrase = _time_after_quote(text, m.group(0), said_at)
                return [Draft(op="add", subject=who.subject, predicate="uses", value=value, quote=quote.strip(), cardinality="many",
                              template="{subject} uses {value}", valid_from=start, time_phrase=phrase)]
            start, quote, phrase = _time_after_quote(text, m.group(0), said_at)  # the change's time words, if any
            return [
                Draft(op="supersede", subject=who.subject, predicate=c.predicate, value=word.sub(new, c.value, count=1), quote=quote.strip(),
                      cardinality=c.cardinality, replaces=c.value if c.cardinality == "many" else None, valid_from=start,
                      time_phrase=phrase)
                for c in named
            ]
        if len({c.predicate for c in held}) != 1:
            return []
        predicate = held[0].predicate
        many = PREDICATES[predicate][0] == "many"
        timed = self._timed("supersede", predicate, new, text, m.group(0), said_at, replaces=held[0].value if many else None, subject=who.subject)
        return [dataclasses.replace(timed, valid_to=None)]  # from the change's time words on, not only during them

    def _left(self, who: "_Who", m: re.Match[str], text: str, said_at: str, *, prefer: str) -> list[Draft]:
        """'I left X': retract where they live or work, whichever the ledger says X is."""
        value = m["v"].strip().rstrip(".")
        for predicate in (prefer, "works_at" if prefer == "lives_in" else "lives_in"):
            if who.current_value(predicate, value) is not None:
                return [self._timed("retract", predicate, value, text, m.group(0), said_at, subject=who.subject)]
        if prefer == "works_at" and re.search(r"(?i)\b(job|work|fired|laid off|retired|resigned)\b", m.group(0)):
            return [self._timed("retract", "works_at", value, text, m.group(0), said_at, subject=who.subject)]
        return []

    def _unlike(self, who: "_Who", m: re.Match[str], text: str, said_at: str) -> list[Draft]:
        raw = m["v"]
        value = _TRAILING_NOISE.sub("", _ANYMORE.sub("", _CLAUSE_TAIL.sub("", _strip_time(raw)))).strip()
        if not value or _NOT_A_LIKE.match(value):
            return []
        said_change = bool(re.search(r"(?i)no longer|stopped|gone off|any\s?more", text))
        held = who.current_value("likes", value)
        if not said_change and held is None:
            return []  # "I don't like X" is news only when the ledger says they do
        return [self._timed("retract", "likes", held.value if held else value, text, m.group(0), said_at, subject=who.subject)]

    def _has(self, m: re.Match[str], text: str, said_at: str, subject: str) -> list[Draft]:
        phrase = _TRAILING_NOISE.sub("", _strip_time(m["v"])).strip()
        count = m["count"].casefold()
        value = _article_free(phrase)
        words = [w.casefold() for w in value.split()]
        if not words or not any(w in POSSESSIONS for w in words[:3]) or len(words) > 6:
            return []
        if count not in ("a", "an", "one"):
            value = f"{m['count']} {value}"
        return [self._timed("add", "has", value, text, m.group(0), said_at, subject=subject)]

    def _lost(self, who: "_Who", m: re.Match[str], text: str, said_at: str) -> list[Draft]:
        value = _article_free(_CLAUSE_TAIL.sub("", _strip_time(m["v"])))
        words = [w.casefold() for w in value.split()]
        if not words or not any(w in POSSESSIONS for w in words):
            return []
        # Name the held value when the head noun matches exactly one ("my car" -> "red car").
        head = words[-1]
        held = [c for c in who.held() if c.predicate == "has" and c.valid_to is None and c.value_key.split()[-1:] == [head]]
        target = held[0].value if len(held) == 1 else value
        return [self._timed("retract", "has", target, text, m.group(0), said_at, subject=who.subject)]

    def _event(self, text: str, said_at: str, subject: str) -> list[Draft] | None:
        """'I went to the pottery class yesterday' / 'Last Saturday I ran a 10k race': a dated event.
        None when the clause is not one (no event verb, or no time words naming one period)."""
        lead = _LEADING_TIME.match(text)
        body, phrase = (lead["rest"], lead["phrase"]) if lead else (text, None)
        m = _EVENT.match(body)
        if not m:
            return None
        what = m["what"]
        if done_in_the_chat(what):
            return None
        if phrase is None:
            found = TIME_PHRASE.search(what)
            if not found:
                return None
            phrase, what = found.group(0), what[: found.start()]
        what = re.sub(r"(?i)\s+(?:and|but|with|so|because|when|which|where)\s*$", "", what.strip(" ,"))
        if len(what.split()) < 2 or len(what.split()) > 10 or resolve_event_time(phrase, said_at) is None:
            return None  # "finished yesterday": what was finished is not said
        draft = event_draft("did", subject, what, text, phrase, said_at)
        return [draft] if draft else None

    def _upcoming(self, text: str, said_at: str, subject: str) -> list[Draft] | None:
        """'my sister's wedding is on June 3', 'I have a dentist appointment on Friday': has_event."""
        m = _UPCOMING_IS.match(text) or _UPCOMING_HAVE.match(text)
        if not m:
            return None
        what = m["what"].strip()
        if what.split()[-1].casefold() not in _EVENT_NOUNS:
            return None
        draft = event_draft("has_event", subject, what, text, m["phrase"], said_at, upcoming=True)
        return [draft] if draft else None

    def _correction(self, m: re.Match[str], request: ExtractionRequest, subject: str) -> list[Draft]:
        """'actually it was March, not April': replace the one current value that contains 'April'.
        When that cannot be done, a receipt (a dropped proposal) says why, rather than silence."""
        # "nov 24 not the 22nd": the article is not part of the held value
        old = re.sub(r"(?i)^the\s+(?=\d)", "", m["old"].strip())
        body = m["body"].strip()
        old_words = old.split()

        def receipt(why: str, new: str = "") -> list[Draft]:
            draft = self._draft("supersede", "note", new or old, m.group(0), subject=subject, phrase="correction")
            return [Draft(**{**draft.__dict__, "drop_reason": f"not proposed: {why}"})]

        if not old_words or len(old_words) > 4:
            return receipt("the corrected words are too long to match a held value")
        if old[0].isupper() or old[0].isdigit():
            # a figure is whole with its separators: "3:10" (not "10"), "1,310", "4.5", and a code's letter: "3D"
            number = r"\d+(?:[:.,]\d+)*(?:st|nd|rd|th|am|pm|[A-Za-z])?"
            run = re.search(rf"((?:[A-Z][\w'’\-]*|{number})(?:\s+(?:[A-Z][\w'’\-]*|{number}))*)$", body)
            new = run.group(1) if run else ""
        else:
            new = " ".join(body.split()[-len(old_words) :])
        if not new or normalise(new) == normalise(old):
            return receipt("no corrected value was found before 'not'")
        return self._corrected(subject, old, new, m.group(0), request, receipt)

    def _corrected_by_shape(self, m: re.Match[str], request: ExtractionRequest) -> list[Draft]:
        """'correction: it's October 23' with no old value said: the held value of the same shape (a day of
        a month, a clock time) written last is the one corrected, when exactly one slot holds such a value
        from that write; else nothing is read (another pattern may)."""
        new = re.sub(r"(?i)^the\s+", "", m["new"].strip())
        shape = next((p for p in _VALUE_SHAPES if p.fullmatch(new)), None)
        if shape is None:
            return []
        held = [c for c in request.current if c.tx_to is None and c.valid_to is None and c.predicate not in ("ended", "note")
                and shape.search(c.value)]
        if not held:
            return []
        latest = max(c.tx_from for c in held)
        last = [c for c in held if c.tx_from == latest]
        said = shape.findall(last[0].value)
        if len({(c.subject_key, c.predicate) for c in last}) != 1 or len(said) != 1:
            return []
        target, old = last[0], said[0]
        if normalise(old) == normalise(new):
            return []
        return self._corrected(target.subject, old, new, m.group(0), request, lambda *_: [])

    def _corrected(self, subject: str, old: str, new: str, quote: str, request: ExtractionRequest,
                   receipt: Callable[..., list[Draft]]) -> list[Draft]:
        """The one value `subject` holds that contains `old`, with `new` in its place, over all the time it
        held (it was wrong all along); else `receipt` says why not."""
        # "Tuesday not Thursday" corrects "on Thursdays" too: a plural keeps its ending; a day of the month
        # is one with or without its ordinal ("the 22nd" corrects "nov 22"), and an hour with its am/pm ("4"
        # corrects "4pm", which the new time keeps: "4:15pm")
        number = re.fullmatch(r"(?i)(\d{1,2})(?:st|nd|rd|th)?", old)
        if number:
            pattern = re.compile(rf"(?i)(?<![\w:.,]){number[1]}(?:st|nd|rd|th)?(?P<noon>\s?[ap]m)?(?![\w:])")
        else:
            pattern = re.compile(rf"(?i)(?<!\w){re.escape(old)}(?=(?:s|es)?(?!\w))")
        bare = re.search(r"(?i)[a-z]$", new) is None

        def replaced(found: re.Match[str]) -> str:
            return new + ((found.groupdict().get("noon") or "") if bare else "")
        candidates = [
            c for c in request.current
            if c.subject_key == normalise(subject) and c.tx_to is None and c.predicate != "ended" and pattern.search(c.value)
        ]
        slots = {(c.predicate, c.value_key) for c in candidates}
        if len(slots) != 1:
            found = "no held value" if not slots else f"{len(slots)} held values"
            return receipt(f"the corrected words match {found}; exactly one is needed", new)
        target = candidates[-1]
        new_value = pattern.sub(replaced, target.value, count=1)
        if target.predicate in EVENT_PREDICATES:
            return self._event_correction(target, new_value, quote, request, subject) or receipt(
                "the corrected date of the event could not be resolved", new
            )
        if target.predicate == "birthday":
            new_value = _birthday_value(new_value) or new_value
        many = target.cardinality == "many"
        return [
            Draft(
                op="supersede", subject=subject, predicate=target.predicate, value=new_value, quote=quote.strip(),
                cardinality=target.cardinality, template=PREDICATES.get(target.predicate, (None, None))[1],
                valid_from=min(c.valid_from for c in candidates), replaces=target.value if many else None, time_phrase="correction",
            )
        ]

    def _cleft_correction(self, m: re.Match[str], said: re.Match[str] | None, request: ExtractionRequest) -> list[Draft]:
        """'it's walnuts I get hives from, not almonds', 'I said almonds but it's walnuts I'm allergic to',
        'it's kiwi she's allergic to, not mango': the thing put first is the value, the one after
        "not" (or said before "but") the held value it corrects, of the user ("I") or of the one person
        other than the user who holds it ("she")."""
        old = (m["old"] or (said["old"] if said else "")).strip()
        new = m["new"].strip()
        if not old or not new or normalise(old) == normalise(new) or len(old.split()) > 4:
            return []
        if m["who"].casefold() in ("i", "we"):
            subject = SUBJECT
        else:
            pattern = re.compile(rf"(?i)(?<!\w){re.escape(old)}(?!\w)")
            holders = {c.subject for c in request.current if c.tx_to is None and c.subject_key != SUBJECT
                       and c.predicate not in ("relation", "name", "note", "ended") and pattern.search(c.value)}
            if len(holders) != 1:
                return []
            subject = holders.pop()
        return self._corrected(subject, old, new, m.group(0), request, lambda *_: [])

    def _event_correction(self, target: ClaimVersion, new_value: str, quote: str, request: ExtractionRequest, subject: str) -> list[Draft]:
        """A dated event's date was wrong: it never happened then (retract all valid time), it did at the
        corrected date (add, with the date resolved again from the corrected label)."""
        label = re.search(r"\s(?:on|in)\s+(?P<when>(?:\d{1,2}\s+)?[A-Z][a-z]+\s+\d{4}|\d{4})$", new_value)
        when = resolve_event_time(label["when"], request.entry.said_at) if label else None
        if when is None:
            return []
        what = new_value[: label.start()] if label else new_value
        added = event_draft(target.predicate, subject, what, quote, label["when"] if label else "", request.entry.said_at)
        if added is None:
            return []
        retract = self._draft("retract", target.predicate, target.value, quote, subject=subject, phrase="correction")
        return [Draft(**{**retract.__dict__, "all_valid_time": True}), Draft(**{**added.__dict__, "time_phrase": "correction"})]


@dataclass(frozen=True)
class _Who:
    """The subject a clause is about, and what the ledger holds for them."""

    request: ExtractionRequest
    subject: str

    def held(self) -> list[ClaimVersion]:
        key = normalise(self.subject)
        return [c for c in self.request.current if c.subject_key == key]

    def current_value(self, predicate: str, value: str) -> ClaimVersion | None:
        wanted = normalise(value)
        for claim in self.held():
            if claim.predicate == predicate and claim.value_key == wanted and claim.valid_to is None:
                return claim
        return None

    def holds_other(self, predicate: str, value: str, start: str, end: str | None) -> bool:
        """Whether the slot holds a different value somewhere in [start, end)."""
        wanted = normalise(value)
        for claim in self.held():
            if claim.predicate != predicate or claim.value_key == wanted:
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
