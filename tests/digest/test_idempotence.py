"""Digestion is resumable and idempotent per journal entry: twice, or after a crash, the same ledger."""

from __future__ import annotations

import pytest

from factledger.digest import Digester, ExtractionRequest, Journal, RulesExtractor, Turn
from factledger.ledger import Ledger

# The contract suite: SQLite and PostgreSQL (tests/conftest.py); see erase_guard_on_engine (conftest).
pytestmark = [pytest.mark.both_engines, pytest.mark.usefixtures("erase_guard_on_engine")]

TURNS = [
    ("I live in Paris and I work at Acme Corp since 2019.", "2026-01-10T09:00:00Z"),
    ("I love jazz.", "2026-01-10T09:01:00Z"),
    ("My birthday is April 3.", "2026-01-10T09:02:00Z"),
    ("I moved to Lisbon last month!", "2026-03-14T10:00:00Z"),
    ("Actually it was March 3, not April 3.", "2026-03-14T10:05:00Z"),
    ("I no longer like jazz.", "2026-04-20T08:00:00Z"),
    ("I have a dog named Rex.", "2026-04-20T08:01:00Z"),
]


class Crash(Exception):
    """Stands for the process dying: not a LedgerError, so nothing catches it."""


class CrashingRules(RulesExtractor):
    """The rules extractor, but the process 'dies' when it reaches the given entry."""

    def __init__(self, crash_at: int):
        self.crash_at = crash_at

    def extract(self, request: ExtractionRequest):
        if request.entry.id == self.crash_at:
            raise Crash()
        return super().extract(request)


def fill(path) -> Ledger:
    ledger = Ledger.open(path)
    journal = Journal(ledger)
    for text, said in TURNS:
        journal.append(Turn(scope="chat", text=text, said_at=said))
    return ledger


def state(ledger: Ledger) -> list[tuple]:
    """The ledger's content without transaction times (which differ between runs)."""
    claims = ledger.storage.query(
        "SELECT subject_key, predicate, value, valid_from, valid_to, tx_to IS NULL AS believed, source FROM claims ORDER BY 1, 2, 3, 4"
    )
    proposals = ledger.storage.query("SELECT entry_id, ordinal, op, predicate, value, status FROM proposals ORDER BY entry_id, ordinal")
    return [tuple(r) for r in claims] + [tuple(r) for r in proposals]


def test_twice_is_the_same_as_once(new_ledger_location) -> None:
    ledger = fill(new_ledger_location())
    first = Digester(ledger, RulesExtractor()).run()
    before = state(ledger)
    second = Digester(ledger, RulesExtractor()).run()
    assert first.entries_digested == len(TURNS) and second.entries_seen == 0
    assert state(ledger) == before


@pytest.mark.parametrize("crash_at", [1, 4, 7])
def test_crash_half_way_then_rerun_equals_one_clean_run(new_ledger_location, crash_at: int) -> None:
    clean = fill(new_ledger_location())
    Digester(clean, RulesExtractor()).run()

    crashed = fill(new_ledger_location())
    with pytest.raises(Crash):
        Digester(crashed, CrashingRules(crash_at)).run()
    assert Journal(crashed).backlog_size() == len(TURNS) - crash_at + 1
    Digester(crashed, RulesExtractor()).run()
    assert state(crashed) == state(clean)


def test_a_crash_while_writing_an_entry_leaves_nothing_of_it(new_ledger_location) -> None:
    ledger = fill(new_ledger_location())

    class DiesMidEntry(Digester):
        def _one(self, entry, ordinal, draft, registered):
            if entry.id == 1 and ordinal == 1:  # after the first proposal of the entry was applied
                raise Crash()
            return super()._one(entry, ordinal, draft, registered)

    with pytest.raises(Crash):
        DiesMidEntry(ledger, RulesExtractor()).run()
    assert ledger.storage.one("SELECT COUNT(*) FROM claims")[0] == 0
    assert ledger.storage.one("SELECT COUNT(*) FROM proposals")[0] == 0
    assert ledger.storage.one("SELECT COUNT(*) FROM transactions")[0] == 0
    assert Journal(ledger).backlog_size() == len(TURNS)


def test_limit_digests_in_slices(new_ledger_location) -> None:
    ledger = fill(new_ledger_location())
    seen = []
    while True:
        report = Digester(ledger, RulesExtractor()).run(limit=3, progress=lambda done, total: seen.append((done, total)))
        if report.entries_seen == 0:
            break
    assert Journal(ledger).backlog_size() == 0
    assert (3, 3) in seen and (1, 1) in seen
    other = fill(new_ledger_location())
    Digester(other, RulesExtractor()).run()
    assert state(ledger) == state(other)
