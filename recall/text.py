"""What users type, turned into lane queries; and claims turned into sentences with their valid time.

Queries are NFKC-normalised and casefolded, split on anything that is not a letter or digit, stripped
of possessives ("Ondrea's" -> "ondrea") and of stop words. FTS5's porter tokenizer stems both the
index and each query term (PostgreSQL's snowball stemmer likewise), so plurals and tenses meet. Scripts
written without spaces (CJK) go to a trigram index instead, because a word token there is a whole clause.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

from factledger.ledger.times import UNKNOWN_START, display
from factledger.ledger.when import MONTHS, WEEKDAYS

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")

# English function words and question words: they carry no topic, so a query made only of them must
# find nothing, and in a longer query they must not decide the ranking.
STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are aren as at be because been before being
    below between both but by can cannot could couldn did didn do does doesn doing don down during each
    few for from further had hadn has hasn have haven having he her here hers herself him himself his
    how i if in into is isn it its itself just ll me more most mustn my myself no nor not now of off on
    once only or other ought our ours ourselves out over own re same shan she should shouldn so some
    such than that the their theirs them themselves then there these they this those through to too
    under until up very ve was wasn we were weren what when where which while who whom why will with
    won would wouldn you your yours yourself yourselves s t d m o y also ever else yet may might must
    shall us let lets get got gets go goes went gone kind sort thing things something anything
    everything nothing really much many well still even way ok okay yes yeah oh hey hi hello please
    thanks thank tell know say said says one ones
    """.split()
    # the same words typed without their apostrophe ("whats my app called?", "im in wenlock now")
    + "whats wheres whos hows whens whys thats im ive dont didnt doesnt isnt wasnt arent ur u pls plz".split()
)

# Question words are stop words too, but kept apart so the exact lane can tell "who is X" from noise.
_QUESTION_FRAMES = frozenset("what when where which who whom whose why how".split())


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def words(text: str) -> list[str]:
    """Casefolded words with possessives removed ("Anna's" -> "anna"); apostrophes inside kept apart."""
    found = []
    for match in _WORD.finditer(normalise(text)):
        word = match.group(0).replace("’", "'")
        if word.endswith("'s"):
            word = word[:-2]
        found.extend(part for part in word.split("'") if part)
    return found


def content_words(text: str) -> list[str]:
    """Words that carry topic: no stop words, no CJK runs (those go to the trigram lane)."""
    return [w for w in words(text) if w not in STOP_WORDS and not _CJK.search(w)]


def cjk_runs(text: str) -> list[str]:
    return _CJK.findall(normalise(text))


def stem(word: str) -> str:
    """A light suffix stripper for matching query words to predicate names (lives -> live)."""
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", "e"), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)] + keep
    return word


def same_word(a: str, b: str) -> bool:
    """Whether two casefolded words are one word in two forms (lives/live, moved/move, running/run), by
    the light stemmer above; the lexical index's stemmer decides matches, this only compares words."""
    if a == b or b in VERB_FORMS.get(a, ()):
        return True
    short, long = sorted((stem(a), stem(b)), key=len)
    if short == long:
        return True
    return len(short) >= 3 and len(long) == len(short) + 1 and long.startswith(short) and long[-1] in ("e", short[-1])


# Who a thing belongs to: "I work" is the speaker's work, not the never-mentioned wife's.
_PERSONS = frozenset("i me my mine we us our ours you your yours he him his she her hers they them their theirs".split())
_FIRST_PERSON = frozenset("i me my mine we us our ours".split())
# Qualifiers that never make a different thing of what they qualify ("my current job" is my job).
_LOOSE_QUALIFIERS = frozenset(
    "current new old latest present previous last first next actual real main usual exact full whole same own".split()
)
# Words that judge a thing rather than tell it apart from another of its kind.
_JUDGED = frozenset("wrong right correct incorrect proper entire only good bad".split())


# People a question names by their relation to the speaker ("my brother"): one such word never said in the
# searched scopes means the person was never mentioned, and nobody else's facts answer for them.
RELATIVES = frozenset(
    "brother brothers sister sisters mother mom mum father dad wife husband partner son sons daughter daughters "
    "boyfriend girlfriend fiance fiancee cousin aunt uncle niece nephew grandma grandpa grandmother grandfather "
    "stepmom stepdad stepson stepdaughter roommate flatmate twin grandad granddad gran nan nana grandson granddaughter "
    "grandchild grandkids godfather godmother godson goddaughter gf bf bro sis".split()
)


# Words for one relative ("my gran" is the grandma a turn named): a relative is unnamed only when none was said.
SAME_RELATIVE: tuple[frozenset[str], ...] = (
    frozenset("girlfriend gf".split()),
    frozenset("boyfriend bf".split()),
    frozenset("brother bro".split()),
    frozenset("sister sis".split()),
    frozenset("grandma grandmother gran granny nan nana".split()),
    frozenset("grandpa grandfather grandad granddad".split()),
    frozenset("mum mom mother".split()),
    frozenset("dad father".split()),
    frozenset("wife husband partner spouse".split()),
    frozenset("grandchild grandchildren grandkids grandson granddaughter".split()),
)
# Said from the other side: "I'm an aunt!!! baby girl, Seluna" is a niece's birth (a relative asked by one
# of these words was mentioned when the other was said).
INVERSE_RELATIVE: dict[str, frozenset[str]] = {
    "niece": frozenset({"aunt", "uncle", "auntie"}), "nephew": frozenset({"aunt", "uncle", "auntie"}),
}


def relative_words(word: str) -> frozenset[str]:
    """The words for the relative `word` names, itself included."""
    return frozenset().union(*(group for group in SAME_RELATIVE if word in group), {word}, INVERSE_RELATIVE.get(word, ()))


def relatives_asked(query: str) -> frozenset[str]:
    """Every word for the relatives a question asks about ("my gran": grandma, gran, nan, …)."""
    asked = words(query)
    return frozenset().union(*(relative_words(w) for o, w in zip(asked, asked[1:]) if o in ("my", "our") and w in RELATIVES))


def asks_about_unnamed_relative(query: str, never_said: frozenset[str]) -> bool:
    """Whether `query` asks about the speaker's relative ("my brother", "our daughter") none of whose
    words was ever said in the searched scopes (`never_said` must hold every word of `relatives_asked`)."""
    asked = words(query)
    return any(
        owner in ("my", "our") and word in RELATIVES and relative_words(word) <= never_said for owner, word in zip(asked, asked[1:])
    )


def neighbours_unsaid(query: str, asked: Sequence[str], never_said: frozenset[str]) -> bool:
    """Whether a query qualifies a word that was said in the searched scopes with two words side by
    side that never were ("overhead press max" when only squat and bench maxes were said): that kind
    of the thing is absent, and what matches the said word is about its neighbour. (`asked`: the
    query's topical words.) Only three words next to each other in the query count, the said one last:
    "my Sapporo trip, as of mid-February" names no thing "trip mid", in "playing a string instrument" the
    said word is not part of the thing, and "harpsichord keyboard instrument" describes what was said."""
    topical = {w for w in asked if w not in _PAST_CUES and w not in _LIGHT_VERBS and w not in _TIME_WORDS}
    raw = words(query)
    for run in zip(raw, raw[1:], raw[2:]):
        unsaid = [w in never_said for w in run]
        if all(w in topical for w in run) and unsaid == [True, True, False]:
            return True  # two unsaid words qualifying the said one right after them
    return False


# Words of a time phrase ("as of mid-February", "late last year"): when, not what.
_TIME_WORDS = frozenset("mid early late start end beginning week weeks month months year years day days today now".split())


_LIGHT_VERBS = frozenset("going doing done use using used get getting got make making made take taking took dealing".split())


# "what's my wife's name?", "what is my niece called?": the name of a relative of the speaker.
_RELATIVES_NAME = re.compile(
    r"(?i)\b(?:my|our)\s+(?P<a>[a-z]+(?:-in-law)?)['’]s\s+(?:first\s+|full\s+|last\s+)?name\b"
    r"|\b(?:my|our)\s+(?P<b>[a-z]+(?:-in-law)?)\s+(?:called|named)\s*\?"
)


def asks_relatives_name(query: str) -> str | None:
    """The relation word when `query` asks the name of the speaker's relative ("my wife's name")."""
    match = _RELATIVES_NAME.search(query)
    if match is None:
        return None
    relation = (match["a"] or match["b"]).casefold()
    return relation if relation.removesuffix("-in-law") in RELATIVES else None


# A capitalised word that names someone: not a weekday, a month or a word that starts a sentence
# ("Monday is my son's swimming" names nobody).
_A_NAME = (
    r"(?!(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July"
    r"|August|September|October|November|December|I|The|A|An|And|But|So|Oh|Also|Then|This|That|It|Yes|No|Not"
    r"|Because|When|If|Today|Tomorrow|Yesterday)\b)[A-Z][\w-]+"
)


# "I'm an uncle!!! she had a little boy on the 22nd, Brisk": the child named beside it.
_BORN_CHILD = re.compile(rf"(?i:\b(?:baby|little|a)\s+(?P<kind>girl|boy)\b)[^.!?]{{0,40}}?[,:]\s*{_A_NAME}")
_CHILD_KIND = {"niece": "girl", "nephew": "boy"}


def names_relative(text: str, relation: str, owner: str = r"(?:my|our|(?:the\s+)?user['’]s)") -> bool:
    """Whether `text` gives a name to the speaker's `relation` ("my wife Liesel", "Joost, my
    father-in-law", "my sister is called Ana", "Tom is user's brother", "user's GP is Dr Okafor").
    `owner`: whose relation, as a pattern (another person's: "(?:Wiebke's|her)"). A niece or nephew is
    also named at their birth, said by their aunt or uncle ("I'm an aunt!!! baby girl, Seluna")."""
    r = re.escape(relation)
    kind = _CHILD_KIND.get(relation.casefold())
    if kind and re.search(r"(?i)\b(?:I'm|I\s+am|I've\s+become)\s+(?:an?\s+)?(?:aunt|auntie|uncle)\b", text):
        if any(m["kind"].casefold() == kind for m in _BORN_CHILD.finditer(text)):
            return True
    return bool(re.search(
        rf"(?i:\b{owner}\s+{r})(?:['’]s\s+name)?,?\s+(?:is\s+)?(?i:(?:called|named)\s+)?{_A_NAME}"
        rf"|\b{_A_NAME},?\s+\(?(?i:{owner}\s+{r})\b"
        rf"|\b{_A_NAME}\s+(?i:is\s+{owner}\s+{r})\b"
        rf"|(?i:\b{r}\s+(?:is\s+)?(?:called|named))\s+[A-Z]",
        text,
    ))


# "Aubreth's phone number": a capitalised name, its possessive, then the thing (up to three words).
_THING_OF = re.compile(r"\b(?!(?:What|Who|Where|When|How|Why|Which|That|It|There|Here|He|She|Let)['’]s)([A-Z][\w-]*)['’]s\s+((?:[\w-]+\s*){1,3})")


_NAME_PARTS = frozenset("first last".split())  # "Tamhas's last name": no time


def asks_unsaid_thing_of_someone(query: str, never_said: frozenset[str], known: frozenset[str]) -> bool:
    """Whether `query` asks for a thing of a named person ("Aubreth's phone number") who is neither a fact's
    subject nor a speaker here (only mentioned: "I report to Aubreth"; a speaker's own turns may answer) and every word of that thing (two or more) was
    never said in the searched scopes. Nothing here can answer it: what mentions the person is about something else."""
    if not never_said:
        return False
    subject_words = {w for subject in known for w in words(subject)}
    for match in _THING_OF.finditer(query):
        name = words(match.group(1))
        if not name or name[0] in subject_words or name[0] in STOP_WORDS:
            continue
        thing = []
        for word in words(match.group(2)):
            if word in STOP_WORDS or (word in QUESTION_TIME_WORDS and word not in _NAME_PARTS) or (word.endswith("ed") and len(word) > 4):
                break  # "Tamhas's wedding supposed to be": a verb ends the thing
            thing.append(word)
        # Two words at least: one alone may name the person's tie to what was said ("Rex's owner" of
        # "two dogs named Rex and Luna"); a thing of several words none of which was said is absent.
        if len(thing) >= 2 and all(word in never_said for word in thing):
            return True
    return False


_CLAUSES = re.compile(r"(?<!\d)[,;:()](?!\d)|(?<=[.!?])\s+|\n+|\s[-–—]\s")


# "the wifi password at home", "my locker in the annexe": a thing asked of a place.
_PLACED = re.compile(r"(?i)\b(?:at|in)\s+(?:the\s+|my\s+|our\s+)?([a-z][\w\-]*)\s*\??\s*$")
_PLACED_IN_TEXT = re.compile(r"(?i)\b(?:at|in)\s+(?:the\s+|my\s+|our\s+)?([a-z][\w\-]*)")


def placed_elsewhere(query: str, text: str, never_said: frozenset[str]) -> bool:
    """Whether `text` gives the thing `query` asks of a place never said in the searched scopes at another
    place: "the wifi password at home" when only "wifi pw at the cabin: …" was said. The thing is the
    query's words before the place; the text must say one of them (or a word it is said as) with "at" or
    "in" another place within four words after it."""
    placed = _PLACED.search(query)
    if placed is None or placed[1].casefold() not in never_said or words(query)[0] in ("where", "when"):
        return False  # ("where was I living in March?" asks the place; "in March" is when)
    place = placed[1].casefold()
    if place in QUESTION_TIME_WORDS or place in NOW_WORDS or place in MONTHS or place in WEEKDAYS:
        return False
    thing = [w for w in words(query[: placed.start()]) if w not in STOP_WORDS][-2:]
    if not thing:
        return False
    said = words(text)
    for at, word in enumerate(said):
        if not any(same_word(word, t) or word in SAID_OTHERWISE.get(t, ()) for t in thing):
            continue
        for other in _PLACED_IN_TEXT.finditer(" ".join(said[at + 1 : at + 5])):
            # another place of the same kind, written as a common noun ("at the cabin"): a place said by its
            # name ("at Quarrowby") may be the very one asked of ("at work")
            if other[1] != place and other[1] not in STOP_WORDS and re.search(
                    rf"\b(?:at|in)\s+(?:the\s+|my\s+|our\s+)?{re.escape(other[1])}\b", text):
                return True
    return False


def qualified_elsewhere(query: str, text: str, never_said: frozenset[str]) -> bool:
    """Whether `text` matches `query` only beside what it asks: the query qualifies a thing with a word
    never said in the searched scopes ("the *production* DB host"), and the text holds that thing with
    another qualifier the query lacks ("the *staging* DB host"). The text is then about a neighbouring
    thing, and what the query asks about was never said.

    The thing is the run of content words right after the qualifier ("DB host"); the text qualifies it
    otherwise when a content word the query lacks, or a person ("I work" for "my wife work"), stands
    right before one of them ("staging DB", "DB host" for "database host"). Only words written next to each other count, on both sides, so a
    paraphrase that words things apart ("what type of kite" / "built a kite frame") is never taken
    for one; generic qualifiers ("my current job") never count."""
    asked = words(query)
    if not never_said or len(asked) < 2:
        return False
    # pairs within one clause: "got a raise, take-home is …" does not qualify "take-home" with "raise"
    pairs = [pair for clause in _CLAUSES.split(text) for held in [words(clause)] for pair in zip(held, held[1:])]
    topical = [w for w in asked if w not in STOP_WORDS]
    own = asks_the_users_own(query)
    for at, qualifier in enumerate(asked):
        if qualifier not in never_said or qualifier in _LOOSE_QUALIFIERS or qualifier in QUESTION_TIME_WORDS:
            continue  # ("in early October" asks a time, not an early kind of October)
        thing = []
        for word in asked[at + 1 : at + 4]:
            if word in STOP_WORDS or _CJK.search(word):
                break
            thing.append(word)
        for before, here in pairs:
            if (
                any(same_word(here, word) for word in thing)
                and (before not in STOP_WORDS or before in _PERSONS)
                and before not in _LOOSE_QUALIFIERS and before not in _JUDGED  # "the wrong warehouse" is the warehouse
                and not _CJK.search(before)
                and not any(same_word(before, w) for w in topical)
                # a fact's "user's take-home" or a turn's "our CI" is the asker's own ("my monthly
                # take-home", "what were we running CI on"), unless a relative is asked ("my wife's job")
                and not ((before == "user" or before in _FIRST_PERSON) and own and qualifier not in RELATIVES)
            ):
                return True
    return False


@dataclass(frozen=True)
class LexicalQuery:
    """What one query looks for in the lexical indexes: content words, and for CJK its three-character
    grams and shorter runs (each recorder turns them into its engine's match expressions)."""

    words: tuple[str, ...]
    grams: tuple[str, ...]
    short_cjk: tuple[str, ...]
    cjk_bigrams: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.words and not self.grams and not self.short_cjk


# Words people use for the thing a question names, when a turn says it otherwise ("when's the wedding?"
# of "we're getting married … aiming for late June"): a question word -> the turn words looked up beside it.
# One meaning each; the stemmer already joins a word's forms, and the never-said rules read the question's
# own words, so an expansion only finds, never answers.
SAID_OTHERWISE: dict[str, tuple[str, ...]] = {
    "wedding": ("married", "marry"), "married": ("wedding",), "marry": ("wedding",),
    "fly": ("flight", "flights", "flew"), "flying": ("flight", "flights"), "flight": ("fly", "flying", "flew"),
    "live": ("moved", "home", "rehomed"), "lives": ("moved", "rehomed"), "living": ("moved", "home"), "lived": ("moved", "home"),
    "work": ("job", "employer"), "job": ("work", "working", "role"), "employer": ("work", "job"),
    "salary": ("pay", "paid", "earn"), "earn": ("salary", "pay"), "earning": ("salary", "pay"), "pay": ("salary",),
    "medication": ("meds", "prescribed", "dose"), "meds": ("medication", "prescribed"), "medicine": ("meds", "medication"),
    "allergic": ("allergy", "allergies"), "allergy": ("allergic",), "allergies": ("allergic",),
    "injure": ("hurt", "tweaked", "strained"), "injured": ("hurt", "tweaked", "strained"),
    "hotel": ("staying", "booked", "guesthouse", "hostel", "inn"), "staying": ("hotel",), "stay": ("hotel",),
    "car": ("drive", "driving"), "drive": ("car",), "birthday": ("born", "turns"), "born": ("birthday",),
    "trip": ("holiday", "travel"), "holiday": ("trip", "vacation"), "vacation": ("trip", "holiday"),
    "quit": ("stopped",), "smoking": ("cigarettes", "smoke"), "lesson": ("tutor", "class"), "lessons": ("tutor", "class"),
    "class": ("tutor", "lessons"), "tutor": ("lessons", "class"), "phone": ("mobile",), "mobile": ("phone",),
    "dating": ("boyfriend", "girlfriend", "partner"), "vegetables": ("veg",), "veg": ("vegetables",),
    "seeing": ("dating", "boyfriend", "girlfriend"), "drink": ("coffee", "coffees", "tea", "drinking"),
    "race": ("marathon", "half", "10k", "5k", "sportive", "triathlon"),
    "working": ("job", "employer", "joined", "hired"), "marrying": ("fiance", "fiancé", "fiancee", "engaged"),
    "diet": ("vegetarian", "vegan", "pescatarian", "veggie", "eat", "eating"), "weighing": ("weight", "weighed", "kg", "lbs"),
    "database": ("db",), "db": ("database",), "building": ("bldg",), "team": ("squad",), "squad": ("team",),
    "injury": ("hurt", "tweaked", "strained", "sprained", "pulled", "torn", "physio"),
    "office": ("coworking", "based"), "hosted": ("host", "hosting", "runs"),
    "weigh": ("weight", "weighed", "kg", "lbs"), "weight": ("weigh", "weighed", "kg", "lbs"),
    "pet": ("cat", "dog"), "pets": ("cat", "cats", "dog", "dogs"),
    "charge": ("fee", "fees", "price", "quote"), "charging": ("fee", "fees", "price", "quote"), "charges": ("fee", "fees", "price"),
    "fee": ("charge", "charges", "costs"), "travelling": ("coming", "joining"), "traveling": ("coming", "joining"),
    "climbing": ("boulder", "bouldering"), "climb": ("boulder", "bouldering"), "gym": ("fitness",),
    "camera": ("cam",), "dependencies": ("deps",), "deps": ("dependencies",), "manager": ("reporting", "report", "boss"), "boss": ("manager",),
    "leave": ("departing", "departs", "departure"), "leaves": ("departing", "departs", "departure"),
    "train": ("gym", "bouldering", "climbing", "lifting", "workouts"),
    "calorie": ("cals", "kcal", "kcals"), "calories": ("cals", "kcal", "kcals"), "food": ("diet", "eats", "kibble", "feed"),
    # an instrument is said by its name ("I play bass")
    "instrument": ("bass", "guitar", "piano", "drums", "violin", "cello", "viola", "ukulele", "sax", "saxophone", "trumpet",
                   "flute", "clarinet", "keys", "keyboard", "harp", "banjo", "mandolin", "trombone", "oboe", "accordion"),
    # a niece or nephew said from the other side ("I'm an aunt!!!"), as `INVERSE_RELATIVE` has it
    **{relative: tuple(sorted(said)) for relative, said in INVERSE_RELATIVE.items()},
}


# A verb's forms the stemmers cannot join ("give" and "gave", "fly" and "flies": porter keeps "fly" and
# makes "flies" "fli"): each line one verb, its forms. A question asks in one form what a turn says in
# another ("when did I last give blood?" of "gave blood this morning").
_VERB_LINES = """
    give gave given gives giving | go went gone goes | buy bought | sell sold | fly flew flown flies
    drive drove driven | ride rode ridden | run ran | swim swam swum | take took taken | leave left
    meet met | get got gotten | pay paid | begin began begun | break broke broken | eat ate eaten
    see saw seen | teach taught | win won | lose lost | find found | bring brought | choose chose chosen
    wear wore worn | write wrote written | speak spoke spoken | hold held | keep kept | sleep slept
    spend spent | send sent | build built | feel felt | tell told | fall fell fallen | grow grew grown
    know knew known | throw threw thrown | catch caught | fight fought | sing sang sung | sit sat
    stand stood | hide hid hidden | bite bit bitten | lend lent | bend bent | sink sank sunk | wake woke woken
"""
VERB_FORMS: dict[str, frozenset[str]] = {
    form: frozenset(line.split()) for line in re.split(r"[|\n]", _VERB_LINES) if line.strip() for form in line.split()
}


def verb_forms(word: str) -> frozenset[str]:
    """The forms of `word`'s verb that no stemmer joins to it (itself included), or just `word`."""
    forms = VERB_FORMS.get(word)
    return frozenset((word,)) if forms is None else frozenset(f for f in forms if f == word or f not in STOP_WORDS)


_FOR_A_LIVING = re.compile(r"(?i)\bfor\s+a\s+living\b")
# "what does Fennor do for a living / for work now?": a job, said as one changed ("quit the fire service,
# he's retraining as a joiner") as often as by a word of work.
_ASKS_A_JOB = re.compile(r"(?i)\bdo(?:es)?\s+(?:\w+\s+){0,3}?do\s+for\s+(?:a\s+living|work)\b|\bdo\s+for\s+(?:a\s+living|work)\b")
_JOB_SAID_AS = ("job", "work", "works", "quit", "left", "joined", "hired", "retraining", "retired", "promoted")


# "what Go version are we on?", "what go version were we running?": the language, not the stop word.
_GO_LANGUAGE = re.compile(
    r"(?<=[\w,]\s)Go\b(?!['’])|(?i:\bgo\s+(?:version|\d|services?|modules?|backend|code|toolchain|release|binary|runtime)\b)"
)


def lexical_query(text: str, *, said_otherwise: bool = False) -> LexicalQuery:
    """The query's lexical terms; `said_otherwise`: with the words its words are said as (`SAID_OTHERWISE`)."""
    terms = list(dict.fromkeys(content_words(text) + (["go"] if _GO_LANGUAGE.search(text) else [])))
    if said_otherwise:
        # "what does she do for a living" asks for a job, not a home
        kept = [w for w in terms if not (w == "living" and _FOR_A_LIVING.search(text))]
        terms = list(dict.fromkeys(terms + [extra for word in kept for extra in SAID_OTHERWISE.get(word, ())]
                                   + (list(_JOB_SAID_AS) if _ASKS_A_JOB.search(text) else [])))
    grams: list[str] = []
    short: list[str] = []
    bigrams: list[str] = []
    for run in cjk_runs(text):
        if len(run) >= 3:
            grams.extend(run[i : i + 3] for i in range(len(run) - 2))
            bigrams.extend(run[i : i + 2] for i in range(len(run) - 1))
        elif len(run) == 2:
            short.append(run)
    return LexicalQuery(tuple(terms), tuple(dict.fromkeys(grams)), tuple(short), tuple(dict.fromkeys(bigrams)))


# Words that point a question at the past ("what did I say in March", "when did she go"): such a
# question may be answered by what was said; one about the present prefers the facts.
_PAST_CUES = frozenset(
    """
    did was were had said told mentioned talked asked went used ago last yesterday earlier before
    previously once back then former formerly originally first
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday
    """.split()
)
_YEAR = re.compile(r"\b(?:1[89]|2[01])\d\d\b")
# A question's words of when ("in May", "back in feb", "at the start of March"): no part of what it asks.
QUESTION_TIME_WORDS = _PAST_CUES | _TIME_WORDS | frozenset(
    "jan feb mar apr jun jul aug sep sept oct nov dec mid morning mornings evening evenings night nights weekend weekends".split()
)
# Words of "now" in a question ("these days", "right now", "at the moment"): when, not what is asked.
NOW_WORDS = frozenset("now currently nowadays these days today right moment still anymore present".split())
# Words that say nothing of a question's topic: its time ("these days", "at the moment") and light verbs
# ("who's Orlaith going out with these days?" asks about Orlaith).
UNTOPICAL_WORDS = QUESTION_TIME_WORDS | _LIGHT_VERBS | NOW_WORDS
# Characters that must not reach a prompt as themselves: controls, line and paragraph separators, and
# zero-width or direction marks that can hide text.
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]+")


def asks_about_past(text: str) -> bool:
    """Whether a question is about what was (said, done, true) rather than what is."""
    return bool(_PAST_CUES.intersection(words(text))) or bool(_YEAR.search(text))


_FIRST_PERSON = frozenset("i my me mine our ours we".split())


# A capitalised word past a question's first: a name ("where does Halina work?"), "I" aside.
_NAMED_IN_QUESTION = re.compile(r"(?<=\S)\s+(?!I\b|I['’])[A-Z]")


def asks_the_users_own(query: str) -> bool:
    """Whether a question asks about the user's own things: in the first person ("what's my…", "where
    do I…"), or naming nobody ("what's the staging host?"). A question naming someone ("what did Halina
    paint?") may be answered by anyone's turns."""
    return not _FIRST_PERSON.isdisjoint(words(query)) or not _NAMED_IN_QUESTION.search(query.strip())


def _sentences(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"(?<=[.!?…])\s+", text.strip()) if p.strip()]


def _asks(sentence: str) -> bool:
    return sentence.rstrip("\"')] ").endswith("?")


def statements(text: str) -> str:
    """`text` without its questions: the sentences that say something."""
    return " ".join(p for p in _sentences(text) if not _asks(p))


def is_question(text: str) -> bool:
    """A turn that only asks (every sentence ends in a question mark): it is no evidence of an answer."""
    parts = _sentences(text)
    return bool(parts) and all(_asks(p) for p in parts)


# Words a turn says a thing changed with ("I'm in K-19 now", "switched to", "turns out it was wrong").
_CHANGE_CUES = re.compile(
    r"(?i)\b(?:now|no\s+longer|any\s?more|instead|switch(?:ed|ing)|chang(?:ed|ing|es?)|mov(?:ed|ing)|new|replac(?:ed|ing)|"
    r"turns?\s+out|actually|correction|scratch|wrong|mix-up|mixed\s+up|reshuffled?|put\s+(?:\w+\s+){0,2}(?:up|down)|hik(?:ed|ing)|left|quit|ditched|dropped|gone|got\s+off|"
    r"took\s+over|taking\s+over|taken\s+over|handed\s+over|promoted|on\s+(?:\w+\s+)?leave|covering|stepp(?:ed|ing)\s+in|standing\s+in|filling\s+in|(?:go(?:ing|ne|es)?|went)\s+(?:up|down)|stopped|shortened|lengthened|raised|lowered|cut|increased|decreased|reduced|upgraded|"
    r"downgraded|cancell?ed|rebooked|handed\s+in\s+(?:my\s+|her\s+|his\s+|their\s+)?notice|resign(?:ed|ing)|last\s+day|rescheduled|postponed|delayed|pushed(?:\s+back)?|brought\s+forward|sold|wrapped\s+up|reset|renewed|rebuilt|redone|updated|bump(?:ed|ing)\s+(?:\w+\s+){0,3}(?:up\s+)?to|"
    r"swapp(?:ed|ing)|jump(?:ed|ing)\s+(?:\w+\s+){0,2}to|(?:took|taken|taking)\s+(?:me|him|her|them|us)\s+off|came\s+off)\b"
)
# Words that, right before a value, say it no longer holds ("not Vertica", "wrapped up at Mardleton Labs")
# or, right after, that it ended ("Semaphore is gone").
_ENDED_BEFORE = re.compile(r"(?i)\b(?:not|no\s+longer|from|off|left|quit|ditched|dropped|instead\s+of|replaced|wrapped\s+up\s+at|ex|former|old|previous)\W+(?:\w+\W+){0,2}$")
_ENDED_AFTER = re.compile(r"(?i)^\W*(?:is|was|'s)\s+(?:the|a|an|my|our)\s+(?:\w+\s+){0,2}?\w+,?\s+not\s+(?:my|our|the)\b"  # "Ilka is the PM, not my manager"
                          r"|^\W*(?:\w+\W+){0,1}(?:is|was|are|were|has\s+been)?\s*(?:gone|wrong|dead|over|done|cancell?ed|no\s+more|any\s?more)\b|^\W*(?:has\s+|had\s+|just\s+)*(?:left|quit|retired|resigned|moved\s+on|passed\s+away|died)\b(?!\s+(?:me|us|him|her|them|you|a|an|the|my|our|his|their|it)\b)")
_STILL = re.compile(r"(?i)\b(?:still|again|as\s+before|same\s+as)\b")


def says_changed(text: str, value: str, slot: Sequence[str] = ()) -> bool:
    """Whether a turn said after a fact (and mentioning its slot or value) says the value changed: the
    value named as ended ("we're on Redshift, not Vertica", "Semaphore is gone"), or, without the
    value, a word of change ("parking got reshuffled, I'm in K-19 now", "parking → K-19") and none of
    staying ("return is still the 31st"). `slot`: words naming the fact's slot; when a clause says one,
    only such clauses decide ("switched teams, still at Tavistow" changes the team). Only the words
    decide; what the value became is for the digest."""
    at = [m for m in re.finditer(rf"(?i)(?<!\w){re.escape(value.strip())}(?!\w)", text)] if value.strip() else []
    if at:
        return any(_ENDED_BEFORE.search(text[: m.start()]) or _ENDED_AFTER.search(text[m.end() :]) for m in at)
    about = [c for c in _CHANGE_CLAUSES.split(text) if slot and any(same_word(w, s) for w in words(c) for s in slot)]
    changes = [_says_a_change(part) for part in about]
    if any(change and not _STILL.search(part) for part, change in zip(about, changes)):
        return True  # "switched teams, still at Tavistow": the clause about the team changed it
    if any(_STILL.search(part) and not change for part, change in zip(about, changes)):
        return False  # "return is still the 31st, outbound moved": the clause about it kept it
    return _says_a_change(text) and (bool(about) or not _STILL.search(text))


def _says_a_change(text: str) -> bool:
    return bool(_CHANGE_CUES.search(text) or _ARROW.search(text))


# "parking → K-19", "desk -> 4.12": a terse note of what a thing became.
_ARROW = re.compile(r"\S\s*(?:→|->|=>|⇒)\s*\S")
_CHANGE_CLAUSES = re.compile(r"(?<!\d)[,;](?!\d)|(?<=[.!?])\s+|\n+|\s+(?:but|while)\s+")


def flat(text: str) -> str:
    """Any text as one printable line, for tables people read (the prompt block uses render.one_line,
    which also neutralises the host's delimiters)."""
    return " ".join(_UNPRINTABLE.sub(" ", text).split())


def valid_time_note(valid_from: str, valid_to: str | None, known_from: str | None = None) -> str:
    """'since 2024-06-01' for an open interval, '2020-01-01 to 2022-03-01' for a closed one. An undated
    statement (valid_from UNKNOWN_START) held since a moment nobody said: 'since at least <known_from>'
    (when the ledger learned it: it held then and since) while open, 'until 2022-03-01' once closed."""
    if valid_from == UNKNOWN_START:
        if valid_to is None:
            return f"since at least {display(known_from)[:10]}" if known_from else "since an unknown date"
        return f"until {display(valid_to)}"
    if valid_to is None:
        return f"since {display(valid_from)}"
    return f"{display(valid_from)} to {display(valid_to)}"


def sentence(text: str, valid_from: str, valid_to: str | None, known_from: str | None = None) -> str:
    """A memory as the host reads it: 'user lives in Berlin (since 2024-06-01)'."""
    return f"{text} ({valid_time_note(valid_from, valid_to, known_from)})"
