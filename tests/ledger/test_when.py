"""Time phrases resolve against the moment the turn was said (a plain function, no model)."""

from __future__ import annotations

import pytest

from factledger.digest import resolve_time_phrase
from factledger.ledger.when import dated_day_words, find_time_phrase, resolve_event_time

SAID = "2026-03-14T10:00:00.000000Z"  # a Saturday


def day(text: str) -> str:
    return f"{text}T00:00:00.000000Z"


@pytest.mark.parametrize(
    ("phrase", "valid_from", "valid_to"),
    [
        ("last March", day("2025-03-01"), None),  # said in March: the March before
        ("last month", day("2026-02-01"), None),
        ("since 2019", day("2019-01-01"), None),
        ("since March 2021", day("2021-03-01"), None),
        ("since last March", day("2025-03-01"), None),
        ("until Friday", None, day("2026-03-21")),  # through the coming Friday
        ("until June", None, day("2026-07-01")),
        ("from 2015 to 2019", day("2015-01-01"), day("2020-01-01")),
        ("from May 2020 until August 2021", day("2020-05-01"), day("2021-09-01")),
        ("two years ago", day("2024-03-14"), None),
        ("3 months ago", day("2025-12-14"), None),
        ("a week ago", day("2026-03-07"), None),
        ("yesterday", day("2026-03-13"), None),
        ("today", day("2026-03-14"), None),
        ("in 2019", day("2019-01-01"), None),
        ("in May", day("2025-05-01"), None),  # the most recent May
        ("January", day("2026-01-01"), None),
        ("last week", day("2026-03-02"), None),  # weeks start on Monday
        ("last Friday", day("2026-03-13"), None),
        ("on Monday", day("2026-03-09"), None),
        ("next week", day("2026-03-16"), None),
        ("last summer", day("2025-06-01"), None),
        ("March 3", day("2026-03-03"), None),
        ("3rd of April", day("2025-04-03"), None),  # the most recent 3 April
        ("May 2, 1990", day("1990-05-02"), None),
        ("2024-05-01", day("2024-05-01"), None),
    ],
)
def test_phrase_resolves(phrase: str, valid_from: str | None, valid_to: str | None) -> None:
    resolved = resolve_time_phrase(phrase, SAID)
    assert resolved is not None, phrase
    assert (resolved.valid_from, resolved.valid_to) == (valid_from, valid_to)


@pytest.mark.parametrize("phrase", ["", "   ", "soon", "one of these days", "since forever", "from 2020 to 2019", "2024-02-30"])
def test_unknown_phrase_is_none(phrase: str) -> None:
    assert resolve_time_phrase(phrase, SAID) is None


def test_last_month_crosses_a_year() -> None:
    resolved = resolve_time_phrase("last month", "2026-01-05T09:00:00.000000Z")
    assert resolved is not None and resolved.valid_from == day("2025-12-01")


@pytest.mark.parametrize(
    ("sentence", "phrase"),
    [
        ("I moved to Lisbon last month", "last month"),
        ("I have worked at Acme since 2019.", "since 2019"),
        ("I'm in Paris until Friday", "until Friday"),
        ("I may go", None),  # the modal, not the month
        ("I sat down", None),
        ("We relocated to Singapore in March 2024 for work", "in March 2024"),  # the month with its year
        ("the play was the day before yesterday", "the day before yesterday"),  # not "yesterday"
        ("checkup booked for a week from tomorrow", "a week from tomorrow"),
    ],
)
def test_find_time_phrase(sentence: str, phrase: str | None) -> None:
    assert find_time_phrase(sentence) == phrase


def test_dates_outside_the_calendar_are_none() -> None:
    assert resolve_time_phrase("999 years ago", "0500-01-01T00:00:00.000000Z") is None


# -- dated events -----------------------------------------------------------------------------------


EVENT_SAID = "2026-03-14T10:00:00.000000Z"  # a Saturday


@pytest.mark.parametrize(
    ("phrase", "upcoming", "start", "end", "label"),
    [
        ("yesterday", False, "2026-03-13", "2026-03-14", "on 13 March 2026"),
        ("last Saturday", False, "2026-03-07", "2026-03-08", "on 7 March 2026"),
        ("last weekend", False, "2026-03-07", "2026-03-09", "between 7 March 2026 and 8 March 2026"),
        ("in September", False, "2025-09-01", "2025-10-01", "in September 2025"),
        ("on June 3", False, "2025-06-03", "2025-06-04", "on 3 June 2025"),
        ("on June 3", True, "2026-06-03", "2026-06-04", "on 3 June 2026"),
        ("on Friday", True, "2026-03-20", "2026-03-21", "on 20 March 2026"),
        ("next week", False, "2026-03-16", "2026-03-23", "in the week of 16 March 2026"),
        ("in 2019", False, "2019-01-01", "2020-01-01", "in 2019"),
        ("two weeks ago", False, "2026-02-28", "2026-03-01", "on 28 February 2026"),
        ("a fortnight ago", False, "2026-02-28", "2026-03-01", "on 28 February 2026"),
        ("three weeks ago today", False, "2026-02-21", "2026-02-22", "on 21 February 2026"),
        ("the day before yesterday", False, "2026-03-12", "2026-03-13", "on 12 March 2026"),
        ("the day after tomorrow", True, "2026-03-16", "2026-03-17", "on 16 March 2026"),
        ("a week from tomorrow", True, "2026-03-22", "2026-03-23", "on 22 March 2026"),
    ],
)
def test_event_times(phrase: str, upcoming: bool, start: str, end: str, label: str) -> None:
    when = resolve_event_time(phrase, EVENT_SAID, upcoming=upcoming)
    assert when is not None
    assert (when.start[:10], when.end[:10], when.label) == (start, end, label)


@pytest.mark.parametrize("phrase", ["", "since 2019", "until Friday", "from 2015 to 2019", "around the big storm"])
def test_what_is_not_one_event_time(phrase: str) -> None:
    assert resolve_event_time(phrase, EVENT_SAID) is None


# A turn's relative day words, dated for a reader (the prompt block's excerpts). Said on Saturday
# 2026-03-14; invented sentences.
@pytest.mark.parametrize(
    ("text", "dated"),
    [
        ("Got the keys yesterday, so happy", "Got the keys yesterday [2026-03-13], so happy"),
        ("flew in this morning", "flew in this morning"),  # the day it was said: the turn's own date says it
        ("two weeks smoke-free today", "two weeks smoke-free today"),
        ("the plumber comes tomorrow", "the plumber comes tomorrow [2026-03-15]"),
        ("sprained it three days ago at netball", "sprained it three days ago [2026-03-11] at netball"),
        ("started the new job two weeks ago", "started the new job two weeks ago [2026-02-28]"),
        ("bought the bike a fortnight ago", "bought the bike a fortnight ago [2026-02-28]"),
        ("three weeks ago today I started", "three weeks ago today [2026-02-21] I started"),
        ("see you next tuesday", "see you next tuesday [2026-03-17]"),
        ("last friday was fun", "last friday [2026-03-13] was fun"),
        # a weekday alone, by what its clause says
        ("our cat Quiller died on Wednesday, she was 15", "our cat Quiller died on Wednesday [2026-03-11], she was 15"),
        ("baby boy, born monday!", "baby boy, born monday [2026-03-09]!"),
        ("had her since Tuesday", "had her since Tuesday [2026-03-10]"),
        ("the scan is on Thursday", "the scan is on Thursday [2026-03-19]"),
        ("scan is booked for thursday", "scan is booked for thursday [2026-03-19]"),
        ("the review got moved to Friday", "the review got moved to Friday [2026-03-20]"),
        ("the play was the day before yesterday", "the play was the day before yesterday [2026-03-12]"),
        ("movers come the day after tomorrow", "movers come the day after tomorrow [2026-03-16]"),
        ("checkup booked for a week from tomorrow", "checkup booked for a week from tomorrow [2026-03-22]"),
        ("deadline is two weeks from today", "deadline is two weeks from today [2026-03-28]"),
        ("v2 ships a fortnight from tomorrow", "v2 ships a fortnight from tomorrow [2026-03-29]"),
        ("my defence is in three weeks", "my defence is in three weeks [2026-04-04]"),
        ("lost 2 kg in three weeks", "lost 2 kg in three weeks"),  # a span, not a day ahead
        # "Prof." ends no clause; a clause saying no direction takes its sentence's ("moved … , on saturday")
        ("my viva is with Prof. Pardew in three weeks", "my viva is with Prof. Pardew in three weeks [2026-04-04]"),
        ("moved out of the old flat and into one on Vell Row, Hartby on friday. boxes everywhere",
         "moved out of the old flat and into one on Vell Row, Hartby on friday [2026-03-13]. boxes everywhere"),
        ("so tired. gym on monday, swim on tuesday", "so tired. gym on monday, swim on tuesday"),  # no verb anywhere
        # left as said: neither way, a habit, a plural, a period longer than a day, already dated
        ("we rehearse on Monday at the hall", "we rehearse on Monday at the hall"),
        ("swimming on mondays", "swimming on mondays"),
        ("moving out next week", "moving out next week"),
        ("moved here last month", "moved here last month"),
        ("the party is on Friday 20th", "the party is on Friday 20th"),
        ("signed it yesterday [2026-03-13]", "signed it yesterday [2026-03-13]"),
        ("today's special", "today's special"),
        ("Saturday mornings with the tutor", "Saturday mornings with the tutor"),
        # "the 19th": of the month named before it, else this month or the next/last by its clause
        ("correction: the scan is on the 19th, not the 18th", "correction: the scan is on the 19th [2026-03-19], not the 18th"),
        ("flying out April 27, back on the 3rd", "flying out April 27, back on the 3rd [2026-05-03]"),  # after it
        ("flying out April 2, back on the 9th", "flying out April 2, back on the 9th [2026-04-09]"),
        ("we now land on April 6, not on the 4th", "we now land on April 6, not on the 4th [2026-04-04]"),  # near: same month
        ("rent is due on the 1st", "rent is due on the 1st [2026-04-01]"),
        ("I got the keys on the 2nd", "I got the keys on the 2nd [2026-03-02]"),
        ("we land the 16th", "we land the 16th"),  # neither way: left as said
        ("fitting booked for the 4th of June", "fitting booked for the 4th of June"),  # its month beside it
        ("flying out December 30, back on the 2nd of January", "flying out December 30, back on the 2nd of January"),
    ],
)
def test_relative_day_words_are_dated_as_said(text, dated):
    assert dated_day_words(text, SAID) == dated


def test_dating_needs_only_the_day_it_was_said():
    assert dated_day_words("left yesterday", "2026-03-14") == "left yesterday [2026-03-13]"
    assert dated_day_words("left yesterday", "not a time") == "left yesterday"
