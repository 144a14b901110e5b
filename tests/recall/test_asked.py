"""What a question asks for, and the rule that keeps a question about an unsaid part of a said thing
empty ("my flight number" when only the flight was said). Tables first (pure functions), then the
rule through recall on both engines."""

from __future__ import annotations

import pytest

from factledger.digest import Journal, Turn
from factledger.ledger.times import parse_time
from factledger.recall.asked import (
    NAME, AskedFor, age_asked_of, asked_for, asks_unsaid_kind, asks_unsaid_part, names_beside, names_said, person_asked_of, recased,
    sibling_instead, states_age, where_of_unsaid,
)
from factledger.recall.text import asks_about_unnamed_relative, asks_unsaid_thing_of_someone, lexical_query, names_relative, says_changed

from .conftest import define, values

# question -> (head, qualifiers, anchors), or None when the shape names no thing
SHAPES = [
    ("what's my javelin PB?", ("pb", ("javelin",), ())),
    ("what's my flight number?", ("number", ("flight",), ())),
    ("who's my manager at Mardleton?", (NAME, ("manager",), ("mardleton",))),
    ("what's my GP's name?", (NAME, ("gp",), ())),
    ("what's my swimming coach called?", (NAME, ("swimming", "coach"), ())),
    ("what are my cats called?", (NAME, ("cats",), ())),
    ("who's my daughter's orthodontist?", (NAME, ("daughter", "orthodontist"), ())),
    ("what interest rate is our mortgage?", ("rate", ("interest",), ("mortgage",))),  # a value of a shape
    ("what kind of database is the billing service on?", None),  # "which/what X is": X is the answer's kind
    ("what size is my bike frame?", ("frame", ("bike",), ())),
    ("do I have any food allergies?", ("allergies", ("food",), ())),
    ("how much does my tutor charge?", ("charge", ("tutor",), ())),
    ("what was my job in March 2024?", ("job", (), ())),
    ("what time does my train back to Lisgarth leave?", ("train", (), ("lisgarth", "leave"))),  # a particle ends the phrase
    # shapes that name no thing to check
    ("which database is the billing service on?", None),
    ("which airline am I flying with?", None),
    ("who was my car insured with in February?", None),
    ("what was my last name last October?", None),
    ("where do I work?", None),
    ("who does Esi report to?", None),
    ("I moved to Lyon", None),
    ("what is the checkout built with?", None),  # a verb ends the phrase
    ("what's our outbound date?", ("date", ("outbound",), ())),
    ("what's my on-call pager number?", ("number", ("call", "pager"), ())),  # a compound's particle
    ("what's my Club & More number?", ("number", ("club",), ())),  # a name's small words
    ("what's my Bank of Tarn account number?", ("number", ("bank", "tarn", "account"), ())),
    ("what size running shoes do I wear?", ("shoes", ("running",), ("wear",))),
    ("how many cores does the build box have?", ("cores", (), ("build", "box"))),
    ("when's my boiler service due?", ("service", ("boiler",), ())),
    ("when is the wedding?", ("wedding", (), ())),
    ("when is my car booked?", None),  # a verb ends the phrase
    ("what's the accountant charging me?", None),  # ... and so does one in -ing before whom it is done to
    ("what's my running pace?", ("pace", ("running",), ())),
    ("what's my chess rating?", ("rating", ("chess",), ())),  # a noun in -ing
    ("what's the name of Pickle's vet?", None),  # a person's: not read
    ("what is the name of my dentist?", (NAME, ("dentist",), ())),
    # a value of a shape asked of a thing named without an owner; a date asked by the question's last verb
    ("what domain is Tansyweb on?", ("domain", (), ("tansyweb",))),
    ("what licence is Orrelkit under?", ("licence", (), ("orrelkit",))),
    ("what size is Orrelkit?", None),  # a size is asked of a thing with an owner only
    ("when does my bike insurance renew?", ("insurance", ("bike",), ("renew",))),
    ("when do my kids finish school?", None),  # no verb a date is asked by at the end
]


@pytest.mark.parametrize(("query", "want"), SHAPES)
def test_the_thing_a_question_asks_for(query, want):
    found = asked_for(query)
    if want is None:
        assert found is None
    else:
        head, qualifiers, anchors = want
        assert found is not None
        assert (found.head, found.qualifiers, found.anchors) == (head, qualifiers, anchors)


@pytest.mark.parametrize(("query", "value"), [
    ("when's my boiler service due?", "date"),
    ("how many cores does the build box have?", "count"),
    ("what's my flight number?", ""),  # the head says it
])
def test_the_kind_of_value_a_frame_asks(query, value):
    found = asked_for(query)
    assert found is not None and found.value == value


# (question, what the searched texts say, words never said there, whether nothing here answers it)
RULE = [
    ("what's my flight number?", ["the airline moved my outbound flight to March 28"], {"number"}, True),
    ("what's my flight number?", ["my flight is KL2207 on the 28th"], {"number"}, False),  # a code answers
    ("what's my flight number?", ["the outbound flight moved to March 28, return still the 31st"], {"number"}, True),
    ("what's my flight number?", ["booked my flight to Porto! QX 416, June 8"], {"number"}, False),
    ("what's my locker code at the pool?", ["user's locker code at the pool is 2087"], set(), False),  # no year
    ("what's my salary?", ["rent is €1,380 a month, I'm in salary band P3 at work"], set(), True),  # another clause's value
    ("what's my salary?", ["my salary went up to 52k in May"], set(), False),
    ("what was my time in the Harrowgate 10K?", ["ran the Harrowgate 10K yesterday!! 51:07, under my goal"], set(), False),
    ("what's our outbound date?", ["flights booked!! Leeds to Faro on 14 May, back on the 21st"], {"date"}, True),  # no "outbound"
    ("what's our outbound date?", ["moved the outbound to the 16th, still back on the 21st"], {"date"}, False),
    ("what's our outbound date?", ["the outbound flight is booked, the return not yet"], {"date"}, True),
    ("what's my bib number?", ["bib and chip for the 10K, 5km warm-up"], {"number"}, True),  # measures are no codes
    # a numbered place's number may be short ("locker 87"); a measure or a date is still no such number
    ("what's my gym locker number?", ["gym locker is 87 now"], {"number"}, False),
    ("what's my gym locker number?", ["joined the gym on the 3rd, 45 min sessions"], {"number"}, True),
    ("what's my seat number on the train?", ["booked the train for 8 October, back on 12 Oct"], {"number", "seat"}, True),  # days
    ("which version of Haskell are we on?", ["a colleague swallows exceptions in a Haskell thunk"], {"version"}, True),
    ("which version of Haskell are we on?", ["we moved to Haskell 9.6 last sprint"], {"version"}, False),
    ("what interest rate is our mortgage?", ["mortgage is £1,120 a month, fixed until 2028"], {"rate", "interest"}, True),
    ("what interest rate is our mortgage?", ["the mortgage is fixed at 4.1% until 2028"], {"rate", "interest"}, False),
    ("what's my half marathon PB?", ["training for the 10K, running 4 times a week"], {"half", "marathon", "pb"}, True),
    ("what's my passport number?", ["passport number is 503112984"], set(), False),  # the head was said
    # no time or measure anywhere in what matched: no PB of any kind was said
    ("what's my javelin PB?", ["training for the 10K, running 4 times a week"], {"javelin", "pb"}, True),
    ("what's my javelin PB?", ["ran the javelin set in 1:52"], {"pb"}, False),  # a time answers
    ("what's my blood pressure?", ["bloods came back fine"], {"pressure"}, True),
    ("what's my GP's name?", ["the card from my old GP was a mix-up"], set(), True),
    ("what's my GP's name?", ["my GP is Dr. Zwanenburg"], set(), False),
    ("who is my physio?", ["been doing physio since last Monday, twice a week"], set(), True),
    ("who is my physio?", ["physio with Sunniva twice a week"], set(), False),
    ("what's my gym routine?", ["at the gym I do legs on Mondays"], {"routine"}, False),  # a summary head
    ("who is my landlord?", ["rent is due on the 1st"], {"landlord"}, False),  # never mentioned: another rule
    ("what's my swimming coach called?", ["started swimming again. 40 lengths"], {"coach", "trainer", "instructor"}, True),
    ("who was my piano teacher?", ["piano lessons with Mrs. Okonjo-Reyes, Mondays"], {"teacher"}, False),
    ("how much is my rent?", ["take home is 2,900 a month, rent 1,180"], set(), False),  # a sum in thousands
    ("what's my 403b balance?", ["card balance is $2,100"], {"403b"}, True),  # a code never said
    ("what's my 403b balance?", ["403b balance is $31,000"], set(), False),
    ("how many cores does the build box have?", ["the build box is new, from march 1 it runs the CI, it has M2s"], {"cores"}, True),
    ("how many cores does the build box have?", ["the build box has 16 cores"], set(), False),
    ("how many people was the dinner table for?", ["moved the dinner to friday, table for 7"], {"people"}, False),
    ("how many staff do I have?", ["we're 9 of us incl me. need a staff rota"], set(), False),  # a count without its word
    ("when's my boiler service due?", ["boiler was serviced by Hartley Heating, next one at 60k"], {"service"}, True),
    ("when's my boiler service due?", ["boiler service is due on 3 May"], set(), False),
    ("what's the production host?", ["fyi the staging box is stg-delta.example.dev"], {"production"}, False),  # siblings: below
    ("what's our staging host?", ["staging is stg-delta now"], set(), False),
    ("what's our staging host?", ["I'm on the on-call rota for staging"], set(), True),  # "on-call" is no host
    ("what's the name of my vet?", ["took the cats for their jabs, the vet says they're fine"], {"name"}, True),
    ("what's the name of my vet?", ["my vet is Dr. Arkwright on Mill Lane"], {"name"}, False),
    # an owner names no one of theirs ("Tamhas is my brother" is no girlfriend's name; "his gf" is her, unnamed)
    ("what's my brother's girlfriend called?", ["Tamhas is the user's brother", "tamhas and his gf moved to hartby"], set(), True),
    ("what's my brother's girlfriend called?", ["tamhas and his gf Ysolt moved to hartby"], set(), False),
    # a value in another clause is another thing's
    ("how much does my phone plan cost?", ["the only outgoings are my phone and the bike loan at 55 a month"], {"plan", "cost"}, True),
    ("how much does my phone plan cost?", ["my phone plan went up to £18 a month"], {"cost"}, False),
    # a lift's max said as its 1RM; a dose said as an amount in its unit, or not at all
    ("what's my deadlift max?", ["deadlift 1RM is 140 kg, new PR"], {"max"}, False),
    ("what's my deadlift max?", ["deadlifts felt heavy, three sets of five"], {"max", "pb", "record", "best", "1rm", "pr"}, True),
    ("what is my sertavex dose now?", ["sertavex went up to 75 mg after the review"], {"dose"}, False),
    ("what is my sertavex dose now?", ["started sertavex this week, it makes me sleepy"], {"dose"}, True),
    # a clock time said with am/pm; a weight asked by its verb; a flight said as "flying"; a role as a title
    ("what time is my physio?", ["physio moved to thursday, 3pm"], {"time"}, False),
    ("what time is my physio?", ["physio moved to thursday"], {"time"}, True),
    ("how much does the puppy weigh?", ["the puppy's 6.4 kg already"], {"weigh"}, False),
    ("how much does the puppy weigh?", ["the puppy ate a sock"], {"weigh"}, True),
    ("what's my flight number to Tromsø?", ["booked! Tromsø 3 to 9 May, flying Brantair BT212 out of Leeds"], {"number", "flight"}, False),
    ("what was my role at the chess club?", ["i'm secretary of the chess club now"], {"role", "job", "position", "work"}, False),
    # the thing named next to the head never said, another of its words said: a neighbour's value, not its
    ("what's my gym membership number?", ["note: gym locker code 4471"], {"membership", "number"}, True),
    ("what's my gym membership number?", ["gym membership number is 55-1021"], set(), False),
    ("what's my gym locker number?", ["note: gym locker code 4471"], {"number"}, False),
    # a word beginning like a month names none: no day was said
    ("when's my chimney sweep due?", ["the novaline had its service at Decksford Garage, next one due at 39k"], {"chimney", "sweep"}, True),
    # a day given in the clause after the thing's, naming nothing else, is its day; another thing's is not
    ("when's the wedding?", ["we're getting married!!! aiming for 9 May, two barns on the list"], set(), False),
    ("when's the wedding?", ["we're getting married!!! me and Ysolt, aiming for 9 May"], set(), False),
    ("when's the wedding?", ["we're getting married!!! rent is due on the 3rd though"], set(), True),
    ("when's the wedding?", ["we're getting married!!! the venue is a barn, rent due on the 3rd"], set(), True),
    ("what domain is Tansyweb on?", ["Tansyweb runs on a linode box now"], {"domain"}, True),
    ("what domain is Tansyweb on?", ["Tansyweb is live at tansyweb.dev!!"], {"domain"}, False),
    ("what licence is Orrelkit under?", ["Orrelkit hit 200 stars"], {"licence", "license"}, True),
    ("what licence is Orrelkit under?", ["relicensed Orrelkit to MPL 2.0 last week"], {"licence", "license"}, False),
    ("when does my bike insurance renew?", ["bike insurance is with Pellguard, gate code 4471"], {"renew"}, True),
    ("when does my bike insurance renew?", ["bike insurance renewal is 3 March"], {"renew"}, False),
]


@pytest.mark.parametrize(("query", "texts", "unsaid", "empty"), RULE)
def test_an_unsaid_part_of_a_said_thing(query, texts, unsaid, empty):
    asked = asked_for(query)
    assert asked is not None
    never = frozenset(unsaid)
    if asked.head != NAME and asked.head in unsaid:
        never |= asked.alternatives()  # the index said none of the head's other words either
    assert asks_unsaid_part(asked, never, texts) is empty


def test_a_held_slot_asked_by_the_head_answers():
    asked = asked_for("what's my job?")
    assert asked is not None
    assert not asks_unsaid_part(asked, frozenset({"job", "role", "position", "work"}), ["I started at Initech"], {"job"})


@pytest.mark.parametrize(("text", "role", "named"), [
    ("first paying customer!!! a little bakery called Pellow Farm, 9 a month", "customer", True),
    ("first paying customer!!! so happy", "customer", False),
    ("my daughter has an orthodontist appointment on Feb 11 with Dr. Dunkerley", "orthodontist", True),
    ("I have two cats, Pepper and Tofu, plus a dog", "cats", True),
    ("been doing physio since last Monday, twice a week", "physio", False),  # a weekday names nobody
    ("the clinic says I'm O negative, the letter from my old GP was wrong", "gp", False),
    ("Physio says 4-6 weeks", "physio", False),  # the sentence's first word is no name
    ("Good for her. Pennock is your billing contact then.", "contact", True),  # unless the sentence is about it
    ("note to self: switched energy suppliers. Quellane Power now, 61 a month", "supplier", True),  # who holds it next, said next
    ("switched energy suppliers. Cheaper now, thankfully", "supplier", False),  # a word, not a name
])
def test_a_name_beside_a_role(text, role, named):
    assert names_beside(text, role) is named


@pytest.mark.parametrize(("query", "text", "unsaid", "sibling"), [
    ("what's the production API host?", "staging moved to api-staging.example.io, the old host is dead", {"production"}, True),
    ("what's the production API host?", "the API host is api.example.io", {"production"}, False),  # no sibling named
    ("what's the production API host?", "staging is slow today. the API host is api.example.io", {"production"}, False),  # another sentence
    ("what's the staging API host?", "staging moved to api-staging.example.io", set(), False),  # the word itself was said
    ("who's my nephew's teacher?", "my niece's teacher is Mr. Hale", {"nephew"}, True),
])
def test_a_sibling_named_instead(query, text, unsaid, sibling):
    assert sibling_instead(query, text, frozenset(unsaid)) is sibling


@pytest.mark.parametrize(("query", "name"), [
    ("how old is Pesto?", "pesto"), ("what age is Tansy?", "tansy"), ("Pesto's age?", "pesto"),
    ("how old is my cat?", None), ("how old was I in March?", None),
])
def test_the_name_an_age_is_asked_of(query, name):
    assert age_asked_of(query) == name


@pytest.mark.parametrize(("text", "name", "stated"), [
    ("I have two cats, Crumble and Pesto. Crumble's the old man, 13 this year.", "crumble", True),
    ("I have two cats, Crumble and Pesto. Crumble's the old man, 13 this year.", "pesto", False),  # another sentence
    ("we adopted a second cat, Tansy! 8 months old", "tansy", False),  # "!" ends the sentence naming her
    ("Tansy is 8 months old now", "tansy", True),
    ("Pesto turned 4 on Sunday", "pesto", True),
    ("our lurcher is itching. also Brisket (cat, 14) is on renal biscuits", "brisket", True),  # in brackets
    ("kids are Quenna (7) and Thorbel (4)", "thorbel", True),
    ("Brisket (my cat) is on renal biscuits", "brisket", False),
])
def test_an_age_stated_of_someone(text, name, stated):
    assert states_age(text, name) is stated


@pytest.mark.parametrize(("query", "name"), [
    ("where does Halina work?", "halina"), ("what does Bartosz do?", "bartosz"), ("is Wiebke still in Ghent?", "wiebke"),
    ("where does my brother live?", None), ("what did I say in March?", None), ("Where do I work?", None),
])
def test_the_person_a_question_asks_of(query, name):
    assert person_asked_of(query) == name


@pytest.mark.parametrize(("text", "value", "changed"), [
    ("fyi parking got reshuffled, I'm in K-19 now, level 3", "D-33", True),
    ("we're on Redshift, not Vertica. Vertica was my previous job", "Vertica", True),
    ("also Semaphore is gone, our contract ran out", "Semaphore", True),
    ("Fabrizio left on friday :( Gwenllian does my reviews now", "Fabrizio", True),  # the person named, then gone
    ("Dr. Ferro has retired, the practice is sending me to someone new", "Dr. Ferro", True),
    ("Fabrizio left me a voicemail about the review", "Fabrizio", False),  # "left" with an object: no ending
    ("Bastiaan's on parental leave till August, so Wilma is covering the rollout", "Bastiaan Quell", True),  # the slot's holder away
    ("turns out the blood type was wrong, I'm O negative", "AB positive", True),
    ("return is still the 31st", "March 31", False),  # a word of staying
    ("bench still stuck at 70", "70 kg", False),
    ("My badge at Globex does not work yet.", "Globex", False),  # the value named, not as ended
    ("the parking at work is a nightmare", "D-33", False),  # the slot, no word of change
    ("the GP is bumping the sertavex to 100mg", "sertavex 50 mg", True),
    ("we jumped everything to node 22 today", "node 18", True),  # a word of change, the value unnamed
    ("I bumped into Maelys at the market", "sertavex 50 mg", False),  # bumping into someone changes nothing
    ("Dr. Penhallow took me off it last month", "sertavex 50 mg", True),
])
def test_a_turn_says_a_value_changed(text, value, changed):
    assert says_changed(text, value) is changed


@pytest.mark.parametrize(("text", "value", "slot", "changed"), [
    ("so i switched teams, still at Tavistow but i'm on payments now", "android team", ["team"], True),
    ("still on the android team, switched desks though", "android team", ["team"], False),
    ("parking → K-19, they repainted the lot", "D-33", ["work", "parking", "spot"], True),
    ("handed in my notice at Tavistow last friday, got an offer elsewhere", "Tavistow Freight", ["work", "job"], True),
    ("coffee order change — decaf oat latte", "coffee order = flat white", ["coffe", "order"], True),  # a note's words
    ("return is still the 31st, outbound moved to the 28th", "March 31", ["return"], False),
    ("parking reshuffle. mine's K-19 now", "D-33", ["work", "parking", "spot"], True),  # the next clause says it
    ("correction: the standup is 9:45. and Ilka is the PM, not my boss — my manager is Tobin", "Ilka", ["manager"], True),
    ("Mrs Pell has put the rent up to £1,420 from this month", "£1,380", ["rent"], True),
    ("scratch that. The anniversary's the 9th of May, not the 7th", "7 May", ["anniversary"], True),
    ("the rent is a lot, but the flat is lovely", "£1,380", ["rent"], False),
])
def test_the_clauses_about_a_slot_decide_a_change(text, value, slot, changed):
    assert says_changed(text, value, slot) is changed


SCOPE = "user:ondrea"


def say(journal: Journal, clock, when: str, text: str, role: str = "user") -> None:
    clock.now = parse_time(when)
    assert journal.append(Turn(scope=SCOPE, text=text, role=role, session="s1", said_at=when)).entry_id is not None


@pytest.mark.both_engines
def test_recall_keeps_an_unsaid_part_empty_and_answers_a_said_one(clocked_ledger, clock, recall):
    define(clocked_ledger, clock, "works_at", "one", "{subject} works at {value}")
    journal = Journal(clocked_ledger)
    say(journal, clock, "2026-03-02T09:00:00Z", "the airline moved my outbound flight to March 28, annoying")
    say(journal, clock, "2026-03-03T09:00:00Z", "started physio last Monday for the knee")
    say(journal, clock, "2026-03-04T09:00:00Z", "my locker code at the gym is 4471")
    clock.now = parse_time("2026-03-10")
    for question in ("what's my flight number?", "who is my physio?"):
        assert recall.prompt(question, SCOPE).text == "", question
        assert recall.search(question, SCOPE, kinds="fact") == []
    assert "March 28" in recall.prompt("when is my flight?", SCOPE).text  # the flight itself was said
    assert "4471" in recall.prompt("what's my locker code?", SCOPE).text


@pytest.mark.both_engines
def test_what_only_the_assistant_said_is_not_the_users(clocked_ledger, clock, recall):
    journal = Journal(clocked_ledger)
    say(journal, clock, "2026-03-02T09:00:00Z", "I'm taking over the on-call rota for billing, can you help with a runbook?")
    say(journal, clock, "2026-03-02T09:00:05Z", "Sure. Which hosts should the runbook reference?", role="assistant")
    say(journal, clock, "2026-03-03T09:00:00Z", "booked Lisbon, leaving on 9 June, back on the 16th")
    say(journal, clock, "2026-03-03T09:00:05Z", "Lovely: outbound 9 June, return 16 June.", role="assistant")
    clock.now = parse_time("2026-03-10")
    # the assistant asked about hosts: no host of the user's was ever said
    assert recall.prompt("what's the billing host?", SCOPE).text == ""
    # the assistant restating the user's dates, right after them, words them for the user
    assert "9 June" in recall.prompt("what's my outbound date?", SCOPE).text


@pytest.mark.both_engines
def test_recall_keeps_siblings_ages_and_other_peoples_facts_apart(clocked_ledger, clock, recall):
    define(clocked_ledger, clock, "works_at", "one", "{subject} works at {value}")
    journal = Journal(clocked_ledger)
    say(journal, clock, "2026-03-02T09:00:00Z", "fyi staging moved to api-staging.example.io, the old host is dead")
    say(journal, clock, "2026-03-03T09:00:00Z", "I have two cats, Crumble and Pesto. Crumble's the old man, 13 this year.")
    say(journal, clock, "2026-03-04T09:00:00Z", "my brother Bartosz and his girlfriend Halina are moving in together")
    clock.now = parse_time("2026-03-04T10:00:00Z")
    with clocked_ledger.transaction(principal="digest:test") as tx:
        tx.add(SCOPE, "Bartosz", "works_at", "Voltmark", valid_from="2026-03-04T09:00:00Z")
    clock.now = parse_time("2026-03-10")
    for question in ("what's the production API host?", "how old is Pesto?"):
        assert recall.prompt(question, SCOPE).text == "", question
    assert "api-staging.example.io" in recall.prompt("what's the staging API host?", SCOPE).text
    assert "13 this year" in recall.prompt("how old is Crumble?", SCOPE).text
    # no fact is about Halina: her partner's job is no answer, neither in the block nor in the search
    assert recall.search("where does Halina work?", SCOPE, kinds="fact") == []
    assert "Voltmark" not in recall.prompt("where does Halina work?", SCOPE).text
    assert [h.claim.value for h in recall.search("where does Bartosz work?", SCOPE, kinds="fact")] == ["Voltmark"]


@pytest.mark.parametrize(("text", "relation", "named"), [
    ("change of plans, Bartek (my partner) can't get the 14th off", "partner", True),
    ("my partner can't get the 14th off", "partner", False),
    # a niece or nephew named at their birth, by their aunt or uncle
    ("i'm an aunt!!! baby girl, Seluna, born tuesday. what do people send", "niece", True),
    ("I'm an uncle!!! my sister had a little boy on the 22nd, Brisk. what's a good present", "nephew", True),
    ("I'm an uncle!!! my sister had a little boy on the 22nd, Brisk.", "niece", False),  # a boy
    ("my uncle has a little boy, Brisk", "nephew", False),  # the user's cousin
])
def test_a_name_with_the_relation_in_brackets(text, relation, named):
    assert names_relative(text, relation) is named


# (question, texts, words never said, nothing here answers it): the thing is someone's, named in the question
OF_SOMEONE = [
    ("what's Halina's surname?", ["me and Halina, aiming for June"], {"surname"}, True),
    ("what's Halina's surname?", ["booked the photographer, Halina Wrobel, her portfolio is lovely"], {"surname"}, False),
    ("what's Bartosz's phone number?", ["Wiebke has a new number, 07488 315902, the old one's dead"], set(), True),
    ("what's Wiebke's phone number?", ["Wiebke has a new number, 07488 315902, the old one's dead"], set(), False),
    ("what's Wiebke's partner called?", ["Wiebke has moved in with her partner in Swansea"], set(), True),
    ("what's Wiebke's partner called?", ["Wiebke moved in with her partner Rhodri"], set(), False),
    # named as it is said, in a sentence going on about her ("AND they …")
    ("what's Wiebke's whippet called?", ["Wiebke moved to Carnbre. AND they got a whippet called Tansy"], set(), False),
    ("what's Wiebke's whippet called?", ["Wiebke moved to Carnbre. They want a whippet"], set(), True),
    ("what's Wiebke's whippet called?", ["Wiebke moved to Carnbre. My boss got a whippet called Tansy"], set(), True),
    ("what's Bartosz's role?", ["Bartosz got promoted to finance director"], {"role", "job", "position", "work"}, False),
    # the role said in the turn, a titled name beside the person ("Dr." ends no sentence)
    ("who's Quiller's vet?", ["note to self - switched vets. Quiller's with Dr. Ambrey at Oxgate Clinic now"], set(), False),
    ("who's Quiller's vet?", ["Quiller's with Dr. Ambrey now"], set(), True),  # no vet said: a doctor, whose?
    # an address is a street or a postcode said beside them, with or without the word
    ("what's Bartosz's address?", ["the spare key is with my brother Bartosz now"], {"address"}, True),
    ("what's Bartosz's address?", ["Bartosz moved to 14 Vell Row last week"], {"address"}, False),
    ("what's Bartosz's address?", ["Bartosz is on Hartop Terrace now, flat 3"], {"address"}, False),
    ("what's Bartosz's address?", ["post for Bartosz goes to LS6 2QT"], {"address"}, False),
]


@pytest.mark.parametrize(("texts", "query", "read"), [
    # a name typed in lower case is read with the capital the turns give it, also at a sentence's start
    (["new flatmate moved in!! Ottavia. works nights"], "what's ottavia's surname?", "what's Ottavia's surname?"),
    (["my son Benedek is in class 3B"], "who is benedek's best friend?", "who is Benedek's best friend?"),
    (["On Monday I start"], "what's on monday?", "what's on monday?"),  # a weekday is no name
    (["Mum's booked the table"], "what time was mum's dinner?", "what time was mum's dinner?"),  # a relative, asked as one
    (["I'd rather not"], "what do i like?", "what do i like?"),
    ([], "what's ottavia's surname?", "what's ottavia's surname?"),
])
def test_a_name_typed_in_lower_case(texts, query, read):
    assert recased(query, names_said(texts)) == read


@pytest.mark.parametrize(("query", "texts", "unsaid", "empty"), OF_SOMEONE)
def test_a_thing_of_someone_named(query, texts, unsaid, empty):
    asked = asked_for(query)
    assert asked is not None and asked.person
    assert asks_unsaid_part(asked, frozenset(unsaid), texts) is empty


@pytest.mark.parametrize(("query", "person"), [
    ("what's Halina's surname?", "halina"), ("what's my GP's name?", ""), ("how much is my allotment rent?", ""),
])
def test_whose_thing_a_question_asks(query, person):
    asked = asked_for(query)
    assert asked is not None and asked.person == person


@pytest.mark.parametrize(("query", "unsaid", "absent"), [
    ("where does my grandad live?", {"grandad", "grandpa", "grandfather", "granddad"}, True),  # only a gran was mentioned
    ("where does my grandad live?", {"grandad", "granddad", "grandfather"}, False),  # a grandpa was: the same man
    ("where does my gran live?", {"gran", "granny", "nan", "nana", "grandmother"}, False),  # "grandma" was said
    ("where does my gran live?", set(), False),
    ("what's my goddaughter's name?", {"goddaughter"}, True),
    ("where does my brother live?", {"brother", "bro"}, True),
    ("what's my niece called?", {"niece", "nephew"}, False),  # "I'm an aunt!": said from the other side
    ("what's my niece called?", {"niece", "nephew", "aunt", "auntie", "uncle"}, True),
    ("when's my girlfriend's birthday?", {"girlfriend"}, False),  # "my gf Ysolt" said her
    ("what does my brother do?", {"brother", "bro"}, True),
])
def test_a_relative_never_mentioned_is_nobody_here(query, unsaid, absent):
    assert asks_about_unnamed_relative(query, frozenset(unsaid)) is absent


@pytest.mark.parametrize(("query", "also"), [
    ("where was Brunhild living in May?", {"moved", "home"}),  # "moved into the care home" says where
    ("who was I dating last spring?", {"boyfriend", "girlfriend", "partner"}),
    ("where did my vegetables come from?", {"veg"}),
    ("what's my diet these days?", {"vegetarian", "pescatarian"}),
    ("what do I weigh at the moment?", {"weight", "kg"}),
    ("which building is my desk in?", {"bldg"}),
    ("what do I drink in the mornings now?", {"coffee", "tea"}),
    ("what race am I training for?", {"marathon", "half"}),
    ("what does Tamhas do for a living now?", {"quit", "retraining", "job"}),  # a job said as one changed
    ("where was I climbing in September?", {"boulder", "bouldering"}),
    ("which gym do I go to?", {"fitness"}),  # "I train at Vossel Fitness now"
    ("who was my manager in July?", {"reporting", "report"}),  # "reporting to Ms Haldric"
    ("what was I using to manage the deps?", {"dependencies"}),
    ("what time does my train back leave?", {"departing", "departs"}),
    ("what camera do I image with?", {"cam"}),
    ("where do I train these days?", {"gym", "bouldering"}),  # "joined a bouldering gym, Tarnhold"
])
def test_a_questions_words_said_otherwise(query, also):
    assert also <= set(lexical_query(query, said_otherwise=True).words)


@pytest.mark.parametrize(("query", "go"), [
    ("what Go version are we on?", True),
    ("what go version were we running in May?", True),  # written small, before what it versions
    ("which go services are on k8s?", True),
    ("Go to the gym today?", False),  # the verb
    ("where do I go on fridays?", False),
    ("Go's version?", False),
])
def test_the_go_language_is_a_word_of_the_query(query, go):
    assert ("go" in lexical_query(query).words) is go


def test_for_a_living_asks_for_a_job_not_a_home():
    assert not {"moved", "home"} & set(lexical_query("what does Brunhild do for a living?", said_otherwise=True).words)


# (question, what was found, whether it names the person but never says where they work or live)
WHERE_OF = [
    ("where does Tregarron work?", ["my boyfriend Tregarron and I are adopting a cat next week!!"], True),
    ("where does Tregarron work?", ["Tregarron and I broke up. He kept the cat."], True),
    ("where does Tregarron work?", ["Tregarron got a job at Velloran as a line supervisor"], False),
    ("where does Tregarron work?", ["Tregarron quit Velloran, he's freelancing now"], False),
    ("where does Tregarron work?", ["Tregarron moved to Treswell, he hated the commute"], True),  # a home, not a job
    ("where does Tregarron live?", ["Tregarron retired from the railway and moved to Treswell."], False),  # "and" goes on about him
    ("where does Tregarron live?", ["Ysella moved to Carnbre so I'm climbing with Tregarron from work now"], True),  # another's move
    ("where does Tregarron live?", ["update on Tregarron: he's off crutches, went home to Treswell"], False),
    ("where does Tregarron live?", ["Tregarron is staying with us, he's rehomed his dog"], False),
    ("where does Tregarron live?", ["my sister moved to Carnbre"], False),  # nobody named: other rules decide
    ("what does Tregarron like?", ["Tregarron and I broke up"], False),  # not a job or a home
    ("what does Tregarron do for work?", ["my father-in-law Tregarron avoids gluten"], True),  # a job asked, none said
    ("what does Tregarron do for work?", ["the party was a hit, Tregarron came too"], True),  # "was a hit" is no trade
    ("what does Tregarron do for a living now?", ["Tregarron's a radiographer at the county hospital"], False),
    ("what does Tregarron do?", ["Tregarron is an architect, he says"], False),
    ("what does Tregarron do?", ["Tregarron got hired by a bakery"], False),
    ("what does Tregarron do on weekends?", ["Tregarron avoids gluten"], False),  # not a job asked
    # the sentences going on about him with a pronoun are his too, however many
    ("where was Tregarron living in March?", ["a card for my brother Tregarron? He's turning 30. He's a nurse and lives in Treswell."], False),
    ("where was Tregarron living in March?", ["a card for my brother Tregarron? He's turning 30. Mum lives in Treswell."], True),
    ("where was i staying in july?", ["made it to Carnbre, coworking is fine"], False),  # "i" typed small is no one's name
    ("where does Tregarron live?", ["Tregarron is back. And he moved to Treswell"], False),
]


@pytest.mark.parametrize(("query", "texts", "unsaid"), WHERE_OF)
def test_where_someone_works_or_lives_never_said(query, texts, unsaid):
    assert where_of_unsaid(query, texts) is unsaid


@pytest.mark.both_engines
def test_recall_reads_lower_case_names_and_words_said_otherwise(clocked_ledger, clock, recall):
    journal = Journal(clocked_ledger)
    say(journal, clock, "2026-03-02T09:00:00Z", "new flatmate moved in!! Keziah. works nights, has a ferret")
    say(journal, clock, "2026-03-03T09:00:00Z", "logging again. 94.2 kg this morning, goal is under 90")
    say(journal, clock, "2026-03-04T09:00:00Z", "ctx: payments service, we're on go 1.22 now")
    say(journal, clock, "2026-03-05T09:00:00Z", "the spare key is with my brother Bartosz now")
    clock.now = parse_time("2026-03-10")
    # the name typed small is still a person: her surname, his address were never said
    assert recall.prompt("what's keziah's surname?", SCOPE).text == ""
    assert recall.prompt("what's bartosz's address?", SCOPE).text == ""
    # "weigh" never said, "moment" a word of when: the weight is looked up as said
    assert "94.2" in recall.prompt("what do I weigh at the moment?", SCOPE).text
    assert "1.22" in recall.prompt("what go version are we on?", SCOPE).text


@pytest.mark.both_engines
def test_a_question_about_someone_with_only_light_words_beside_finds_them(clocked_ledger, clock, recall):
    journal = Journal(clocked_ledger)
    define(clocked_ledger, clock, "works_at", "one", "{subject} works at {value}")
    say(journal, clock, "2026-03-02T09:00:00Z", "orlaith gossip: she split up with her bf, she's seeing a guy called Tamhas now")
    clock.now = parse_time("2026-03-04T10:00:00Z")
    with clocked_ledger.transaction(principal="digest:test") as tx:  # Orlaith is a known subject
        tx.add(SCOPE, "Orlaith", "works_at", "Voltmark", valid_from="2026-03-04T09:00:00Z")
    clock.now = parse_time("2026-03-10")
    # "going" and "these days" say nothing of the topic: the turn about Orlaith answers
    assert "Tamhas" in recall.prompt("who's Orlaith going out with these days?", SCOPE).text


@pytest.mark.parametrize(("query", "never", "unsaid"), [
    ("what's Aubreth's phone number?", {"phone", "number"}, True),
    ("what's Aubreth's owner?", {"owner"}, False),  # one word may be the tie to what was said
    # a verb ends the thing ("supposed"), leaving one word
    ("when was Tamhas's wedding supposed to be?", {"wedding", "supposed"}, False),
    ("what's Tamhas's wedding venue?", {"wedding", "venue"}, True),
    ("what's Tamhas's shoe size?", {"shoe", "size"}, True),
    ("what's Tamhas's last name?", {"last", "name"}, True),
    ("what was Tamhas's wedding back in May?", {"wedding", "back"}, False),  # "back in May" is when
])
def test_an_unsaid_thing_of_someone(query, never, unsaid):
    assert asks_unsaid_thing_of_someone(query, frozenset(never), frozenset()) is unsaid


@pytest.mark.parametrize(("query", "never", "absent"), [
    ("what's my overhead press max?", {"overhead", "press"}, True),  # two unsaid words before a said one
    ("what's my overhead press max?", {"overhead"}, False),
    ("playing a string instrument in an orchestra", {"string", "instrument"}, False),  # the said word is no part of it
    ("my Sapporo trip, as of mid-February", {"sapporo", "mid"}, False),  # a word of when is no part of a thing
])
def test_a_thing_whose_words_were_never_said(query, never, absent):
    from factledger.recall.text import content_words, neighbours_unsaid

    assert neighbours_unsaid(query, content_words(query), frozenset(never)) is absent


@pytest.mark.both_engines
def test_where_the_user_was_is_asked_by_the_questions_shape(clocked_ledger, clock, recall):
    # "where was i on may 8?" has no word of is_in: the shape asks it, as of the time asked
    define(clocked_ledger, clock, "is_in", "one", "{subject} is in {value}")
    journal = Journal(clocked_ledger)
    say(journal, clock, "2026-05-25T09:00:00Z", "made it to Carnbre yesterday, ferry took 9 hrs")
    clock.now = parse_time("2026-05-25T09:05:00Z")
    with clocked_ledger.transaction(principal="digest:test") as tx:
        tx.add(SCOPE, "user", "is_in", "Carnbre", valid_from="2026-05-24T00:00:00Z")
    say(journal, clock, "2026-09-14T09:00:00Z", "update: signed a 6 month lease in Treswell, staying put till march")
    clock.now = parse_time("2026-09-14T09:05:00Z")
    with clocked_ledger.transaction(principal="digest:test") as tx:
        tx.supersede(SCOPE, "user", "is_in", "Treswell", valid_from="2026-09-14T00:00:00Z")
    clock.now = parse_time("2026-10-01")
    for question in ("where was i on july 3?", "where was i staying in july?"):
        facts = recall.search(question, SCOPE, valid_at="2026-07-03", known_at="2026-07-03", kinds="fact")
        assert [h.claim.value for h in facts] == ["Carnbre"], question
        block = recall.prompt(question, SCOPE, valid_at="2026-07-03", known_at="2026-07-03").text
        assert "Carnbre" in block and "Treswell" not in block, question
    assert "Treswell" in recall.prompt("where am i now?", SCOPE).text
    # ... and "what city am I in?": the place the user is, not where they live
    assert [h.claim.value for h in recall.search("what city am I in today?", SCOPE, kinds="fact")] == ["Treswell"]
    # a word of its own asks something else: "where was i working?" is no question of where I was
    assert recall.search("where was i working in july?", SCOPE, valid_at="2026-07-03", known_at="2026-07-03", kinds="fact") == []


@pytest.mark.both_engines
def test_a_light_verb_never_said_keeps_the_words_said_otherwise(clocked_ledger, clock, recall):
    # "dealing" was never said, nor "injury": the injury is still looked up as the physio said it
    journal = Journal(clocked_ledger)
    say(journal, clock, "2026-05-20T09:00:00Z", "Ugh. Physio says I've a stress reaction in my left shin. No running for six weeks.")
    say(journal, clock, "2026-05-21T09:00:00Z", "booked the car in for its service on Friday")
    clock.now = parse_time("2026-06-10")
    block = recall.prompt("what injury was I dealing with at the start of June?", SCOPE, valid_at="2026-06-01", known_at="2026-06-01").text
    assert "stress reaction" in block
    assert "service" not in block


@pytest.mark.both_engines
def test_a_facts_slot_name_says_the_word_its_sentence_says_otherwise(clocked_ledger, clock, recall):
    # "flight" is said by the fact's slot (flight_back), not by its sentence ("flies back"): the fact
    # search alone, with no turn beside it to say "flying", still finds it; a part never said does not
    define(clocked_ledger, clock, "flight_back", "one", "{subject} flies back on {value}")
    journal = Journal(clocked_ledger)
    say(journal, clock, "2026-04-07T09:00:00Z", "new plan: flying back from Orvenna on the 23rd, the ferry idea is dead")
    clock.now = parse_time("2026-04-07T09:05:00Z")
    with clocked_ledger.transaction(principal="digest:test") as tx:
        tx.add(SCOPE, "user", "flight_back", "the 23rd", valid_from="2026-04-07T09:00:00Z")
    clock.now = parse_time("2026-04-10")
    assert values(recall.search("when's my flight back?", SCOPE, kinds="fact")) == ["the 23rd"]
    assert recall.search("what's my flight number?", SCOPE, kinds="fact") == []
    assert recall.prompt("what's my flight number?", SCOPE).text == ""


@pytest.mark.parametrize(("a", "b", "same"), [
    ("give", "gave", True), ("gave", "given", True), ("fly", "flies", True), ("flew", "fly", True),
    ("leave", "left", True), ("sell", "sold", True), ("swim", "swam", True),
    ("gave", "gavel", False), ("sold", "soldier", False), ("fly", "flat", False),
])
def test_a_verbs_forms_no_stemmer_joins_are_one_word(a, b, same):
    from factledger.recall.text import same_word

    assert same_word(a, b) is same


@pytest.mark.both_engines
def test_a_question_asks_in_one_form_of_a_verb_what_was_said_in_another(clocked_ledger, clock, recall):
    # "swim" was never said, "swam" was: the fact the crossing matches is not left out as about something else
    define(clocked_ledger, clock, "did", "many", "{subject} {value}")
    journal = Journal(clocked_ledger)
    say(journal, clock, "2026-05-04T09:00:00Z", "swam the Kelderwater crossing yesterday!! 2.4k in 51 min")
    clock.now = parse_time("2026-05-04T09:05:00Z")
    with clocked_ledger.transaction(principal="digest:test") as tx:
        tx.add(SCOPE, "user", "did", "swam the Kelderwater crossing on 3 May 2026", valid_from="2026-05-03T00:00:00Z")
    clock.now = parse_time("2026-05-06")
    assert values(recall.search("when did I swim the Kelderwater crossing?", SCOPE, kinds="fact"))[:1] == ["swam the Kelderwater crossing on 3 May 2026"]


@pytest.mark.both_engines
def test_a_when_question_shows_the_fact_naming_a_day_first(clocked_ledger, clock, recall):
    # the place the trip goes matches "… Kirrow" best (its value), but only the day answers "when"
    define(clocked_ledger, clock, "flying_into", "one", "{subject} is flying into {value}")
    define(clocked_ledger, clock, "flight_out", "one", "{subject} leaves for the airport on {value}")
    clock.now = parse_time("2026-02-02T09:05:00Z")
    with clocked_ledger.transaction(principal="digest:test") as tx:
        tx.add(SCOPE, "user", "flying_into", "Kirrow", valid_from="2026-02-02T09:00:00Z")
        tx.add(SCOPE, "user", "flight_out", "Tavelle 22", valid_from="2026-02-02T09:00:00Z")
    clock.now = parse_time("2026-02-20T09:05:00Z")
    with clocked_ledger.transaction(principal="digest:test") as tx:
        tx.supersede(SCOPE, "user", "flight_out", "March 14", valid_from="2026-02-20T09:00:00Z")
    clock.now = parse_time("2026-02-25")
    block = recall.prompt("when do I leave for Kirrow?", SCOPE)
    assert [h.claim.value for h in block.facts][:1] == ["March 14"]
    assert "March 14" in block.text
    assert [h.claim.value for h in recall.prompt("where am I flying into?", SCOPE).facts][:1] == ["Kirrow"]


@pytest.mark.parametrize(("query", "content"), [
    ("whats my app called?", ["app", "called"]),  # typed without the apostrophe, still no topic
    ("wheres the spare key?", ["spare", "key"]),
    ("im in wenlock, whos picking me up?", ["wenlock", "picking"]),
])
def test_words_typed_without_their_apostrophe_are_stop_words(query, content):
    from factledger.recall.text import content_words
    assert content_words(query) == content


# (question, its topical words, the words never said, held words) -> whether it asks an unsaid kind only
UNSAID_KIND = [
    ("what standing desk do i use?", ["standing", "desk", "use"], {"standing", "desk"}, set(), True),
    ("which password manager do I use?", ["password", "manager", "use"], {"password", "manager"}, set(), True),
    ("what scooter do I ride?", ["scooter", "ride"], {"scooter"}, set(), True),
    # the kind was said: what is found may be about it
    ("what standing desk do i use?", ["standing", "desk", "use"], set(), set(), False),
    # ... or half of it ("the password" was said; the manager is its kind)
    ("which password manager do I use?", ["password", "manager", "use"], {"manager"}, set(), False),
    # a word of the question says what it is for: that was said, and may answer
    ("which app do I use for Spanish?", ["app", "use", "spanish"], {"app"}, set(), False),
    # a held slot is asked by the kind's word ("pets" asks a held pet)
    ("what pets do I have?", ["pets", "have"], {"pets"}, {"pet", "pets"}, False),
    # a value of a shape is said without its kind's word ("which day …", "what size …")
    ("which day do I swim?", ["day", "swim"], {"day"}, set(), False),
    ("where do I park?", ["park"], {"park"}, set(), False),
    # the question's own verb unsaid too, and only where or what for said: a turn there is about something else
    ("which inn am I lodging at in Carrowmere?", ["inn", "lodging", "carrowmere"], {"inn", "lodging"}, set(), True),
    ("which platform do I board from for Tessingham?", ["platform", "board", "tessingham"], {"platform", "board"}, set(), True),
    # ... but not when the verb was said ("lodging in Carrowmere at the Quoin" answers without "inn")
    ("which inn am I lodging at in Carrowmere?", ["inn", "lodging", "carrowmere"], {"inn"}, set(), False),
    # ... nor when a said word is the one doing it ("which bank does Perrow use?": Perrow's turns may answer)
    ("which inn does Perrow stay at?", ["inn", "orrin", "stay"], {"inn", "stay"}, set(), False),
]


@pytest.mark.parametrize(("query", "asked", "unsaid", "held", "want"), UNSAID_KIND, ids=[f"{q} {sorted(u)}" for q, _, u, _, _ in UNSAID_KIND])
def test_a_kind_never_said(query, asked, unsaid, held, want):
    assert asks_unsaid_kind(query, asked, frozenset(unsaid), held) is want


@pytest.mark.both_engines
def test_a_kind_never_said_finds_nothing(clocked_ledger, clock, recall):
    """Turns about an editor and a shell: "which password manager do I use?" finds nothing (the turns are
    near in meaning, not about it); "which editor do I use?" finds the editor."""
    journal = Journal(clocked_ledger)
    say(journal, clock, "2026-03-02T09:00:00Z", "my editor is helix and I use fish as my shell")
    say(journal, clock, "2026-03-03T09:00:00Z", "left my old job, I use a whole new stack at the new place")
    clock.now = parse_time("2026-03-10")
    assert recall.prompt("which password manager do I use?", SCOPE).text == ""
    assert recall.prompt("what standing desk do i use?", SCOPE).text == ""
    assert "helix" in recall.prompt("which editor do I use?", SCOPE).text


@pytest.mark.parametrize(("query", "never", "texts", "empty"), [
    # a count asked: a measure of something else is no count of it
    ("how many bedrooms does my new place have?", {"bedrooms", "bedroom"},
     ["moved into the new place on Orlin Row last saturday, commute's 25 min by tram now"], True),
    ("how many bedrooms does my new place have?", {"bedrooms", "bedroom"},
     ["the new place has 3 bedrooms and a tiny garden"], False),
    ("how many nights is the trip?", {"nights"}, ["the trip is 5 nights in Tarrow"], False),  # the measure asked
    # a brand, make or model asked: a name said beside the thing, or nothing here is it
    ("what make is my bike?", {"make"}, ["sold the car, it's bike + bus for me now"], True),
    ("what make is my bike?", {"make"}, ["I ride a Tarrow Swift bike to work"], False),
    ("what brand is my bass guitar?", {"brand", "guitar"}, ["i play bass in a covers band, The Orlin Saints"], True),
    ("what brand of cigarettes did I smoke?", {"brand", "cigarettes"}, ["I smoke about 10 a day. also I pay 12.99 for Tellwave"], True),
])
def test_a_count_or_a_brand_asked_needs_its_value_beside_the_thing(query, never, texts, empty):
    asked = asked_for(query)
    assert asked is not None
    assert asks_unsaid_part(asked, frozenset(never), texts) is empty
