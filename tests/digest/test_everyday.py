"""Every everyday-speech pattern's own table (factledger.digest.everyday.PATTERNS), through the real
digest: its examples leave exactly those facts held (for the subjects they name), its counter-examples
leave nothing."""

from __future__ import annotations

import pytest

from factledger.digest import ExtractionRequest, JournalEntry
from factledger.digest.everyday import PATTERNS, Clause, everyday


SAID = "2026-03-14T10:00:00.000000Z"
EXAMPLES = [(p.name, turns, held) for p in PATTERNS for turns, held in p.examples]
COUNTER = [(p.name, text) for p in PATTERNS for text in p.counter]


def held_facts(talk) -> set[tuple[str, str, str]]:
    return {(c.subject, c.predicate, c.value) for c in talk.ledger.current([talk.scope])}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("pattern", "turns", "held"), EXAMPLES, ids=[f"{n}: {t[-1][:40]}" for n, t, _ in EXAMPLES])
def test_examples(talk, pattern: str, turns: tuple[str, ...], held: tuple[tuple[str, str, str], ...]) -> None:
    for day, text in enumerate(turns, start=1):
        talk.say(text, f"2026-03-{day:02d}T10:00:00Z")
        talk.digest()
    facts = held_facts(talk)
    assert set(held) <= facts, (pattern, facts)
    predicates = {p for _, p, _ in held}
    stale = {f for f in facts if f[1] in predicates and f not in set(held) and f[1] != "ended"}
    assert not stale, (pattern, stale)


@pytest.mark.parametrize(("pattern", "text"), COUNTER, ids=[f"{n}: {t[:40]}" for n, t in COUNTER])
def test_counter_examples(pattern: str, text: str) -> None:
    """The pattern itself does not read the sentence (another pattern may)."""
    entry = JournalEntry(id=1, scope="s", session=None, role="user", text=text, said_at=SAID)  # type: ignore[arg-type]
    clause = Clause(text.strip(" .!"), "", text, "user", SAID, ExtractionRequest(entry=entry))
    assert everyday(clause, only=frozenset({pattern})) is None


# The fixed patterns and everyday speech, for clauses said otherwise than they expect: the dropped "I" put
# back, a leading time phrase moved after what it dates, lists of "X is Y" read one by one, dotted words
# kept whole. (turns said in order, facts held afterwards, facts that must not be held.)
REWORDED = [
    (("started at Pellmark on Monday as a QA engineer",), {("user", "works_at", "Pellmark")}, set()),
    (("booked a cabin in Abisko for May 3",), {("user", "booked", "a cabin in Abisko for May 3")}, set()),
    (("I work at Pellmark", "since June I work at Orbisoft"), {("user", "works_at", "Orbisoft")}, {("user", "works_at", "Pellmark")}),
    (("stack: Flask 2.3 on Postgres 15, CI is Drone, code lives on Codeberg",),
     {("user", "ci", "Drone"), ("user", "code", "on Codeberg")}, set()),
    (("the staging host is db-stage-3.lan",), {("user", "staging_host", "db-stage-3.lan")}, set()),
    (("our stack is Go on Kubernetes (AKS)", "scratch AKS, we moved to DOKS last month"),
     {("user", "stack", "Go on Kubernetes (DOKS)")}, {("user", "lives_in", "DOKS")}),
    (("hey there. name's Ilona, I live in Brno",), {("user", "name", "Ilona"), ("user", "lives_in", "Brno")}, set()),
    (("correction: it's October 3",), set(), {("user", "name", "October")}),
    (("meds: lisinopril 10 mg", "stopped the lisinopril"), set(), {("user", "medication", "lisinopril 10 mg")}),
    (("my brother lives in Tartu", "Joonas (my brother) moved to Pärnu last month"),
     {("Joonas", "lives_in", "Pärnu"), ("Joonas", "relation", "brother")}, {("user's brother", "lives_in", "Tartu")}),
    (("my partner Ruben says hi",), {("Ruben", "relation", "partner")}, set()),
    (("use the staging db for tests",), set(), {("user", "uses", "the staging db for tests")}),  # an instruction
    # a note about someone keeps the words said, as the user's note
    (("remember: my niece Tilde turns 7 on June 2, she wants a kite",),
     {("user", "note", "my niece Tilde turns 7 on June 2"), ("Tilde", "relation", "niece")}, {("Tilde", "note", "I turns 7 on June 2")}),
    (("hi! it's Astro 4 on my laptop, npm for packages",), set(), {("user", "name", "Astro")}),  # no name
    (("morning! boss is Ondrea Varga", "my boss is Pennock Lunde now"), {("user", "manager", "Pennock Lunde")}, {("user", "boss", "Pennock Lunde")}),
    # a hedge in an aside leaves the statement before it sure; a hedged statement stays unsaid
    (("rate is €300", "raised my rate to €340 as of this month, nobody complained, should have done it ages ago"),
     {("user", "rate", "€340")}, {("user", "rate", "€300")}),
    (("I might move to Lyon, it's cheaper",), set(), {("user", "lives_in", "Lyon")}),
    (("salary's £48k if that's relevant",), {("user", "salary", "£48k")}, set()),
    # a value's relative clause is no part of it; a tool ripped out for another; a host that moved
    (("CI is Jenkins which I hate but whatever", "we finally ripped out Jenkins, it's Woodpecker all the way now"),
     {("user", "ci", "Woodpecker")}, {("user", "ci", "Jenkins which I hate but whatever")}),
    (("fwiw the staging box is db-stg-02.example.internal if you need it", "staging moved btw, it's db-stg-07 now"),
     {("user", "staging_box", "db-stg-07")}, {("user", "staging_box", "db-stg-02.example.internal")}),
    # a figure a later turn says changed is replaced; one sharing a single word is another slot
    (("remember: gym locker code 4471", "fyi locker code changed, now 8830", "remember: bike lock code 1234"),
     {("user", "gym_locker_code", "8830"), ("user", "bike_lock_code", "1234")},
     {("user", "gym_locker_code", "4471")}),
    # a note a later note says changed is replaced; one sharing a single word is another note
    (("remember: water the balcony ferns on sundays", "fyi balcony ferns changed, water them on mondays now",
      "remember: water the kitchen basil daily"),
     {("user", "note", "balcony ferns changed, water them on mondays now"), ("user", "note", "water the kitchen basil daily")},
     {("user", "note", "water the balcony ferns on sundays")}),
    # a drug the doctor took the user off ends; the one switched to starts
    (("my GP put me on atenolol 25mg", "she bumped me to 50mg atenolol", "the atenolol made me dizzy so she's taken me off it and switched me to bisoprolol 5mg"),
     {("user", "medication", "bisoprolol 5 mg")}, {("user", "medication", "atenolol 50 mg"), ("user", "medication", "me 50 mg")}),
    # a kin word said without "my" is still the user's ("mum moved to X" moves the mum "my mum" named)
    (("my mum lives in Kelso", "mum moved to Hawick in June"), {("user's mum", "lives_in", "Hawick")}, {("user's mum", "lives_in", "Kelso")}),
    # a leading time phrase moved after what it dates starts small, so it is no part of a name
    (("Since March I work at Pellory.",), {("user", "works_at", "Pellory")}, {("user", "works_at", "Pellory Since March")}),
    (("I live in Kelso", "Last Friday I moved to Hawick."), {("user", "lives_in", "Hawick")}, {("user", "lives_in", "Kelso")}),
    # "Name's …" and "he's …" are that person's ('s as "is" before -ing, else "has"); the second thing they did
    # after "and" is still theirs; a kin word written capitalised at a sentence's start; a two-word name
    (("Declan, my brother-in-law, got engaged", "Declan's quit the fire service. He's retraining as a welder and moved to Tralee for the course."),
     {("Declan", "lives_in", "Tralee")}, {("user", "lives_in", "Tralee")}),
    (("My gran Orla lives on her own in Clonmel", "Gran moved into a sheltered flat in Thurles last week"),
     {("Orla", "lives_in", "Thurles")}, {("Orla", "lives_in", "Clonmel")}),
    (("My coworker Ysolde Quarrin is here", "Ysolde's leaving us, she's accepted a job at Pellmark Robotics"),
     {("Ysolde Quarrin", "works_at", "Pellmark Robotics")}, {("user", "works_at", "Pellmark Robotics")}),
    # one person once the turns say so: what "my brother-in-law" held is Fennor's; two people doing one thing
    (("My brother-in-law lives in Greymouth", "Fennor, my brother-in-law, has left the fire service", "Fennor and my sister moved up to Oamaru last month"),
     {("Fennor", "lives_in", "Oamaru"), ("user's sister", "lives_in", "Oamaru")}, {("user's brother-in-law", "lives_in", "Greymouth"), ("Fennor", "lives_in", "Greymouth")}),
    # the move comes first, so what the naming clause and the next say of the moved facts is said of them
    (("my brother just started as a line cook at Brightwick", "Corvinel (my brother) left Brightwick. He's head chef at Ollamere now"),
     {("Corvinel", "works_at", "Ollamere")}, {("Corvinel", "works_at", "Brightwick"), ("user's brother", "works_at", "Brightwick")}),
    # a relative said short ("bro", "gf"), with a word before ("my little bro"); an emoji ends a sentence
    (("my gf Ysolt is vegetarian",), {("Ysolt", "relation", "girlfriend"), ("Ysolt", "diet", "vegetarian")}, set()),
    (("big news i left Quarlow 👋 started at Tennick Systems on monday 😅 any rust tips",),
     {("user", "works_at", "Tennick Systems")}, set()),
    # a name the ledger knows, written small
    (("my sister Eluned lives in Pellory", "eluned's moved to Lisgarth"), {("Eluned", "lives_in", "Lisgarth")}, {("Eluned", "lives_in", "Pellory")}),
    (("my sister Eluned lives in Pellory", "eluned is here"), {("Eluned", "lives_in", "Pellory")}, set()),
    # contractions typed without their apostrophe; a thing done after a comma is its own clause
    (("im on the search squad at Tollbridge",), {("user", "team", "search squad"), ("user", "works_at", "Tollbridge")}, set()),
    (("going to Vellory instead, same dates, booked the Quillet Inn",), {("user", "booked", "the Quillet Inn")}, set()),
    # ... and a name held as a value, written small: "ondrash left" is the reviewer held leaving
    (("my reviewer is Ondrash Vell", "ondrash left on Friday :( Tamsine does my reviews now"),
     {("user", "review_contact", "Tamsine")}, {("user", "reviewer", "Ondrash Vell")}),
    # "she" with nobody named before is nobody's we know, unless what she did was to the user
    (("she's accepted a job at Pellmark Robotics",), set(), {("user", "works_at", "Pellmark Robotics")}),
    # a school moved to is a school, not a home; a correction naming someone else's held value corrects theirs
    (("my son goes to Harwick Primary", "my son moved to Tollard Academy in September"),
     {("user's son", "school", "Tollard Academy")}, {("user's son", "lives_in", "Tollard Academy"), ("user's son", "school", "Harwick Primary")}),
    (("my son Tavish's school is Pellory Academy", "correction: the school is Quarlow Academy, not Pellory"),
     {("Tavish", "school", "Quarlow Academy")}, {("user", "school", "Quarlow Academy"), ("Tavish", "school", "Pellory Academy")}),
    # the figure a held thing moved to, not the amount taken from it; a figure of another thing is not the held one's
    (("our emergency fund is at £4,000", "car repair ate £600 of the emergency fund, so we're down to £3,400"),
     {("user", "emergency_fund", "£3,400")}, {("user", "emergency_fund", "£600"), ("user", "emergency_fund", "at £4,000")}),
    (("mugs are $42", "the courier broke 3 mugs so I've switched couriers. and I launched a planters line, $55 each"),
     {("user", "mugs", "$42")}, {("user", "mugs", "$55")}),
    # "I meant Y, not X" corrects the held X, a number's own comma inside it
    (("Rent is £1,275 a month.", "ugh, I meant £1,725, not £1,275. typo on my part."),
     {("user", "rent", "£1,725 a month")}, {("user", "rent", "£1,275 a month")}),
    # a diet ended in its short word, after another clause, "i" written small
    (("I'm vegetarian", "rehomed the snake, couldn't give him the attention. and i eat fish again, not veggie anymore"),
     set(), {("user", "diet", "vegetarian")}),
    # an ending names the slot rather than the value ("my gym membership" is the membership held "at Corefit")
    (("my gym membership is at Fitforge", "I cancelled my gym membership"), set(), {("user", "gym_membership", "at Fitforge")}),
    # a new home said as being in it, getting its keys, or settling there (someone else's too)
    (("I live in Quellbury", "finally got the keys for our new place in Tarrowby yesterday, so many boxes"),
     {("user", "lives_in", "Tarrowby")}, {("user", "lives_in", "Quellbury")}),
    (("I live in Quellbury", "we've been in the new flat in Tarrowby for a fortnight now, still no curtains"),
     {("user", "lives_in", "Tarrowby")}, {("user", "lives_in", "Quellbury")}),
    (("my mum lives in Wexby", "mum's settled in Tarrowby, she loves the sea air"),
     {("user's mum", "lives_in", "Tarrowby")}, {("user's mum", "lives_in", "Wexby")}),
    # "he" in a turn whose lead-in names the one person the ledger knows: theirs
    (("my brother Cathal is a nurse at Ravenby General",
      "news from Cathal: he's started as a paramedic with the Tolland Ambulance Trust, and he's got his own flat in Corwick at last."),
     {("Cathal", "job_title", "paramedic"), ("Cathal", "works_at", "Tolland Ambulance Trust"), ("Cathal", "lives_in", "Corwick")},
     {("Cathal", "works_at", "Ravenby General"), ("user", "lives_in", "Corwick")}),
    # a correction that puts the value first ("it's X I get hives from, not Y"), of the user or of the one person holding Y
    (("I'm allergic to almonds", "sorry, I said almonds before but it's walnuts I get hives from"),
     {("user", "allergic_to", "walnuts")}, {("user", "allergic_to", "almonds")}),
    (("my wife Brisca is allergic to mango", "no wait, it's kiwi she's allergic to, not mango"),
     {("Brisca", "allergic_to", "kiwi")}, {("Brisca", "allergic_to", "mango")}),
    (("I'm allergic to almonds", "it's the dog I worry about, not the cat"), {("user", "allergic_to", "almonds")}, set()),
    # a team as an aside about a job the job's pattern reads whole, then moved from it onto another
    (("I started as a tester at Pell & Rowan in May, on the mobile team.", "they've transferred me from mobile onto the pricing team"),
     {("user", "team", "pricing team"), ("user", "works_at", "Pell & Rowan")}, {("user", "team", "mobile team")}),
    # someone and their partner moved: the one the user knows moved (their partner is nobody held); a time
    # phrase the ledger cannot date ("over the holidays") still ends the name
    (("my sister Tessaly is a nurse", "tessaly and her gf moved to Arrowby over the holidays, I'm lending them a van"),
     {("Tessaly", "lives_in", "Arrowby")}, {("user", "lives_in", "Arrowby")}),
    (("my brother Hollin is a cook", "Hollin finally left home, he's got a flat in Sennick"), {("Hollin", "lives_in", "Sennick")}, set()),
    # a command abbreviated ("rmbr:") is a command; what it heads is one note up to a question, and a note
    # that says a change of the same things (by their stems: "suppliers", "supply") replaces the held one
    (("rmbr: garden waste gets collected monday mornings", "rmbr: the council moved it, garden waste is wednesday mornings now"),
     {("user", "note", "the council moved it, garden waste is wednesday mornings now")}, {("user", "note", "garden waste gets collected monday mornings")}),
    (("remember: energy supply renews in May, it's with Pellbridge Power",
      "note to self: switched energy suppliers. Quellane Power now, next bill 3 June. can you set a reminder?"),
     {("user", "note", "switched energy suppliers. Quellane Power now, next bill 3 June")},
     {("user", "note", "energy supply renews in May, it's with Pellbridge Power")}),
    # a correction owned up to in its own clause, without a lead-in cue
    (("new address is 14 Orlin Row, Sennick", "oh no the form's wrong, its 41 not 14. swapped the digits"),
     {("user", "address", "41 Orlin Row")}, {("user", "address", "14 Orlin Row")}),
    # a day of the month corrected by its ordinal ("not the 22nd"), an hour by its bare number (the
    # held "4pm" keeps its pm), a slip owned up to after the clause it corrects
    (("booked the podiatrist at Quarrel Footcare for oct 22, 4pm", "correction: podiatrist is oct 24 not the 22nd"),
     {("user", "booked", "the podiatrist at Quarrel Footcare for oct 24, 4pm")}, {("user", "booked", "the podiatrist at Quarrel Footcare for oct 22, 4pm")}),
    (("booked the podiatrist at Quarrel Footcare for oct 22, 4pm", "oh it's 4:15 not 4, my mistake"),
     {("user", "booked", "the podiatrist at Quarrel Footcare for oct 22, 4:15pm")}, {("user", "booked", "the podiatrist at Quarrel Footcare for oct 22, 4pm")}),
    (("booked the podiatrist at Quarrel Footcare for oct 22, 4pm", "its the blue frames not the red ones, says the leaflet"),
     {("user", "booked", "the podiatrist at Quarrel Footcare for oct 22, 4pm")}, set()),
    # an interjection leads a clause in ("ugh", "lol"), and a move's purpose ("to be near …") ends its place
    (("ugh my cousin Wellabeth is staying over again, she lost her keys",), {("Wellabeth", "relation", "cousin")}, set()),
    (("my cousin Wellabeth is a welder", "lol wellabeth got a job at Drummock Forge and moved into her own place in Pellstow"),
     {("Wellabeth", "works_at", "Drummock Forge")}, {("user", "works_at", "Drummock Forge"), ("user", "lives_in", "Pellstow")}),
    (("my cousin Wellabeth is a welder", "wellabeth moved to Pellstow to be closer to work"),
     {("Wellabeth", "lives_in", "Pellstow")}, {("user", "lives_in", "Pellstow")}),
    # a new home "on" a street, been "at" since a day, and a move's day said after it ("the other day")
    (("I live in Quellbury", "we've been at a new flat on Tollenby Street since saturday"),
     {("user", "lives_in", "Tollenby Street")}, {("user", "lives_in", "Quellbury")}),
    (("we moved into the new flat on Tollenby Street the other day, still no curtains",),
     {("user", "lives_in", "Tollenby Street")}, set()),
    # a pet got, then its name in the next clause; someone else's pet is not the user's
    (("we took in a kitten from the shelter, her name is Wrenlow.",), {("Wrenlow", "relation", "kitten")}, set()),
    (("adopted a dog 3 days ago!! his name is Tumbrel, what should i feed him?",), {("Tumbrel", "relation", "dog")}, set()),
    (("my sister adopted a dog, her name is Pipsy",), set(), {("Pipsy", "relation", "dog")}),
    # a workplace with its kind in small letters, a home "out in" a place; a job left "on friday" ends there
    # (typed small, too)
    (("my uncle Tobrek works at the Fennaby bottling plant, 20 yrs now. he lives out in Wessling",),
     {("Tobrek", "works_at", "Fennaby bottling plant"), ("Tobrek", "lives_in", "Wessling")}, set()),
    (("I work at Fennaby", "I officially retired from fennaby on friday"), set(), {("user", "works_at", "Fennaby")}),
    (("I work at Pellory Foods", "I left Pellory Foods on Friday, onwards!"), set(), {("user", "works_at", "Pellory Foods")}),
    # a named pet gone leaves one fewer of its kind held
    (("we've got three dogs, Pobble, Wim and Sorrow", "sad news, wim died on sunday"),
     {("user", "has", "two dogs"), ("Pobble", "relation", "dog")}, {("user", "has", "three dogs"), ("Wim", "relation", "dog")}),
    (("we've got two cats, Tansel and Orrick", "we rehomed orrick with my aunt"), {("user", "has", "one cat")}, {("user", "has", "two cats")}),
    # a kind switched, then the new one named in the next words: the one held (a pet's too) is replaced
    (("save: Tumbrel's vet is Dr. Orsley at Tesswick clinic", "changed vets, the new one is Dr. Varnsey"),
     {("Tumbrel", "vet", "Dr. Varnsey")}, {("Tumbrel", "vet", "Dr. Orsley at Tesswick clinic"), ("user", "vet", "Dr. Varnsey")}),
    (("my dentist is Dr. Orsley", "changed dentists. new one: Dr. Varnsey, much closer"), {("user", "dentist", "Dr. Varnsey")}, set()),
    # a title typed small and the name after it
    (("upd8: new vet, dr orlin wessick. the old one is too far",), {("user", "vet", "Dr Orlin Wessick")}, set()),
    (("my dentist is dr tarrow",), {("user", "dentist", "Dr Tarrow")}, set()),
    # the person just named in a role ("my mentor at work is X") is who "she" is next
    (("my mentor at work is Orvella Quist, she's a staff architect in the Kellmoor office",),
     {("Orvella Quist", "office", "Kellmoor")}, {("user", "office", "Kellmoor")}),
]


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("turns", "held", "not_held"), REWORDED, ids=[t[-1][:40] for t, _, _ in REWORDED])
def test_said_otherwise(talk, turns, held, not_held) -> None:
    for day, text in enumerate(turns, start=1):
        talk.say(text, f"2026-03-{day:02d}T10:00:00Z")
        talk.digest()
    facts = held_facts(talk)
    assert held <= facts, facts
    assert not (not_held & facts), facts


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize("said", ["landlord's raising the rent to €975 from May. ugh", "rent is going up to €975 from May"])
def test_a_change_announced_ahead_starts_when_it_was_said_to(talk, said: str) -> None:
    """'raising the rent to €975 from May', said in March: €900 holds in April, €975 from May 1."""
    talk.say("rent is €900 a month", "2026-01-10T10:00:00Z")
    talk.digest()
    talk.say(said, "2026-03-14T10:00:00Z")
    talk.digest()
    def rent(day: str) -> list[str]:
        return [c.value for c in talk.ledger.as_of([talk.scope], valid_at=f"{day}T00:00:00Z", predicate="rent")]
    assert rent("2026-04-20") == ["€900 a month"]
    assert rent("2026-04-30") == ["€900 a month"]
    assert rent("2026-05-01") == ["€975"]
    assert rent("2026-06-15") == ["€975"]


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("said", "starts"), [
    ("we're moving to Corbridge in June", "2026-06-01"),  # the June ahead, not the last one
    ("I'm moving to Corbridge next month, can't wait", "2026-04-01"),
    ("we moved to Corbridge in June", "2025-06-01"),  # done: the June before
    ("I'm moving to Corbridge", None),  # no time said: maybe only a plan
    ("thinking of moving to Corbridge next month", None),
])
def test_a_move_said_ahead_starts_when_it_happens(talk, said: str, starts: str | None) -> None:
    talk.say(said, "2026-03-01T10:00:00Z")
    talk.digest()
    found = [c.valid_from[:10] for c in talk.ledger.as_of([talk.scope], valid_at="2026-12-01T00:00:00Z", predicate="lives_in")]
    assert found == ([starts] if starts else []), found


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_an_offer_taken_starts_on_the_day_ahead_it_names_with_its_pay(talk) -> None:
    """'took the offer … £47k, start 3 August' said in July: the old job and pay hold until August 3rd
    of this year (not last year's), the new ones from then."""
    talk.say("I'm a buyer at Mardleton, salary's £39k", "2026-02-10T10:00:00Z")
    talk.digest()
    talk.say("took the Pellory offer!!! senior planner, £47k, start 3 August. handing my notice in tomorrow", "2026-07-06T10:00:00Z")
    talk.digest()
    def held(day: str) -> set[tuple[str, str]]:
        return {(c.predicate, c.value) for c in talk.ledger.as_of([talk.scope], valid_at=f"{day}T12:00:00Z")
                if c.predicate in ("works_at", "salary")}
    assert held("2026-07-20") == {("works_at", "Mardleton"), ("salary", "£39k")}
    assert held("2026-08-03") == {("works_at", "Pellory"), ("salary", "£47k")}


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_job_ends_on_its_last_day_and_the_next_starts_on_its_first(talk) -> None:
    """A notice with its last day, then a first week done elsewhere: the old job holds through its last
    day, the new one from that first week, and the title said with the old employer ends with it."""
    talk.say("so I'm a Grade 4 site surveyor at Brackley & Pumfrey, been here two years", "2025-08-04T19:00:00Z")
    talk.digest()
    talk.say("handed in my notice!! last day at B&P is 3 Oct", "2025-08-25T12:30:00Z")
    talk.digest()
    talk.say("first week at carnhallow done, my brain is full", "2025-10-20T20:15:00Z")
    talk.digest()

    def held(day: str, predicate: str) -> list[str]:
        return [c.value for c in talk.ledger.as_of([talk.scope], valid_at=f"{day}T12:00:00Z", predicate=predicate)]

    assert held("2025-09-15", "works_at") == ["Brackley & Pumfrey"]
    assert held("2025-10-03", "works_at") == ["Brackley & Pumfrey"]
    assert held("2025-10-08", "works_at") == []  # the week off between
    assert held("2025-10-14", "works_at") == ["Carnhallow"]
    assert [c.value for c in talk.ledger.current([talk.scope]) if c.predicate == "works_at"] == ["Carnhallow"]
    assert held("2025-09-15", "job_title") == ["Grade 4 site surveyor"]
    assert held("2025-10-14", "job_title") == []


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("turns", "slot", "value"), [
    (("my bench max is 70 kg", "bench finally moved: 75 kg for a single yesterday"), "bench_max", "75 kg"),
    (("current maxes: squat 100 kg, bench 70 kg", "PR day!! squat max is 110 now. bench still stuck at 70", "bench finally moved: 75 kg"),
     "bench_max", "75 kg"),
    (("weekly mileage is 20 km", "mileage is up to 42 km a week now"), "weekly_mileage", "42 km a week"),
    # two held slots in the unit the clause names: which one moved is not said
    (("squat max 100 kg, bench max 70 kg", "max went up to 105 kg"), "squat_max", "100 kg"),
    # a figure in another unit is not the held slot's
    (("my bench max is 70 kg", "bench session was 45 min"), "bench_max", "70 kg"),
])
def test_a_held_figure_moves_when_its_slot_is_named_in_its_unit(talk, turns, slot, value) -> None:
    for day, text in enumerate(turns, start=1):
        talk.say(text, f"2026-03-{day:02d}T10:00:00Z")
        talk.digest()
    assert [c.value for c in talk.ledger.current([talk.scope]) if c.predicate == slot] == [value]
    assert not [c for c in talk.ledger.current([talk.scope]) if c.predicate.startswith("bench_still")]


def test_every_pattern_has_its_own_name():
    """Patterns are chosen by name (FIRST_PATTERNS, a builder's `only=`): two of one name would both run."""
    names = [p.name for p in PATTERNS]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_tool_switched_off_with_nothing_live_instead_just_ends(talk) -> None:
    talk.say("backups go to tarnvault", "2026-03-01T10:00:00Z")
    talk.digest()
    talk.say("tarnvault switched off, too pricey", "2026-03-09T10:00:00Z")
    talk.digest()
    assert not [c for c in talk.ledger.current([talk.scope]) if c.predicate == "backups"]
    before = talk.ledger.as_of([talk.scope], valid_at="2026-03-05T00:00:00Z")
    assert [(c.predicate, c.value) for c in before] == [("backups", "tarnvault")]


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("first", "then", "slot", "before", "after"), [
    ("I smoke about 10 a day", "cut down to 5 a day", "smoking", "about 10 a day", "5 a day"),
    ("I smoke about 10 a day", "smoke-free since the 5th!! I quit on March 5", "smoking", "about 10 a day", None),
    ("I drink about 4 espressos a day and want to cut down", "down to one coffee a day now", "coffee", "about 4 espressos a day", "one coffee a day"),
    ("I drink about 4 espressos a day", "quit caffeine, it was wrecking my sleep", "coffee", "about 4 espressos a day", None),
    ("I smoke about 10 a day", "haven't had a cigarette since march 1!!! using gum", "smoking", "about 10 a day", None),
    ("I smoke about 10 a day", "day 9 without a single cigarette", "smoking", "about 10 a day", None),
])
def test_a_habit_counted_a_day_changes_and_ends(talk, first: str, then: str, slot: str, before: str, after: str | None) -> None:
    talk.say(first, "2026-02-01T10:00:00Z")
    talk.digest()
    talk.say(then, "2026-03-10T10:00:00Z")
    talk.digest()
    def held(day: str) -> list[str]:
        return [c.value for c in talk.ledger.as_of([talk.scope], valid_at=f"{day}T12:00:00Z", predicate=slot)]
    assert held("2026-02-15") == [before]
    assert held("2026-03-11") == ([after] if after else [])


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
@pytest.mark.parametrize(("said", "slot", "old", "new"), [
    ("we ditched pellmark CI, everything builds on Quorrow now", "ci", "pellmark", "Quorrow"),
    ("we swapped Memcord out for Tallyvine as the job queue", "job_queue", "Memcord", "Tallyvine"),
])
def test_a_tool_replaced_with_nothing_held_keeps_the_old_one_before(talk, said: str, slot: str, old: str, new: str) -> None:
    """The first the ledger hears of the slot is its change: the old tool held up to when it was said."""
    talk.say(said, "2026-03-14T10:00:00Z")
    talk.digest()
    def held(day: str) -> list[str]:
        return [c.value for c in talk.ledger.as_of([talk.scope], valid_at=f"{day}T00:00:00Z", predicate=slot)]
    assert held("2026-02-01") == [old]
    assert held("2026-03-15") == [new]


@pytest.mark.both_engines
@pytest.mark.usefixtures("erase_guard_on_engine")
def test_a_name_typed_small_is_read_as_the_assistants_answer_writes_it(talk) -> None:
    """'moved into a flat in orlinby last saturday' answered 'Welcome to Orlinby!': the answer's capitals say
    the word is a name (only mid-sentence: a sentence's first word says nothing)."""
    talk.say("moved into a flat in orlinby last saturday, rent is 950 a month", "2026-03-14T10:00:00Z")
    talk.say("Welcome to Orlinby! Want help with a budget?", "2026-03-14T10:00:05Z", role="assistant")
    talk.say("i moved to tessick in may", "2026-03-15T10:00:00Z", session="s2")
    talk.say("Tessick sounds lovely.", "2026-03-15T10:00:05Z", role="assistant", session="s2")
    talk.digest()
    lives = {c.value for c in talk.ledger.current([talk.scope]) if c.predicate == "lives_in"}
    assert lives == {"Orlinby"}, lives
