"""Current truth is "valid now, latest known" (DESIGN §5), even when the newest transaction's time is
ahead of the wall clock: after the clock stepped back, or after an import with explicit tx times.

Found by the stateful test: `current()` used to read as known at the clock's now, so it hid the newest
transaction whenever its tx time was later than the clock.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.both_engines  # the contract suite: SQLite and PostgreSQL (tests/conftest.py)


def _seed(ledger) -> None:
    with ledger.transaction(principal="operator:test") as tx:
        tx.define("lives_in", "one")
        tx.add("s", "Ann", "lives_in", "Paris", valid_from="2024-01-01")


def test_current_shows_a_transaction_made_before_the_clock_stepped_back(clocked_ledger, clock):
    _seed(clocked_ledger)  # tx time 2025-01-01
    clock.now = "2024-12-01T00:00:00.000000Z"  # the wall clock steps back
    with clocked_ledger.transaction(principal="operator:test") as tx:
        tx.supersede("s", "Ann", "lives_in", "Rome", valid_from="2024-06-01")
    assert tx.result.tx_time > "2025-01-01T00:00:00.000000Z"  # still increasing
    assert [v.value for v in clocked_ledger.current()] == ["Rome"]


def test_current_shows_an_import_with_tx_time_ahead_of_the_clock(clocked_ledger, clock):
    _seed(clocked_ledger)
    # Up to MAX_CLOCK_SKEW (5 minutes) ahead is accepted (DESIGN §8).
    with clocked_ledger.transaction(principal="import:test", tx_time="2025-01-01T00:04:00Z") as tx:
        tx.supersede("s", "Ann", "lives_in", "Oslo", valid_from="2024-06-01")
    assert [v.value for v in clocked_ledger.current()] == ["Oslo"]
    # As-of without known_at reads the same latest knowledge; at the clock's time, what was believed then.
    assert [v.value for v in clocked_ledger.as_of(valid_at="2024-07-01")] == ["Oslo"]
    believed = clocked_ledger.as_of(valid_at=clock.now, known_at=clock.now)
    assert [v.value for v in believed] == ["Paris"]
