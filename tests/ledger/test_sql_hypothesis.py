"""Random histories (the ledger's own strategies), queried through SQL at random (valid_at, known_at)
pairs, agree with the ledger's as-of reads, in either clause order and either timestamp spelling."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from factledger.ledger import Ledger
from factledger.ledger.analytics import Analytics
from tests.strategies import PROBE_TIMES, apply_history, histories

NOW = "2030-01-01T00:00:00.000000Z"


def _timestamp(text: str, spelled_typed: bool) -> str:
    if spelled_typed:  # TIMESTAMP 'YYYY-MM-DD HH:MM:SS.ffffff' (UTC)
        return f"TIMESTAMP '{text[:10]} {text[11:26]}'"
    return f"'{text}'"


def probes(ends: list[str]) -> st.SearchStrategy:
    """(valid_at, known_at, swap the clause order, spell as TIMESTAMP) lists; half the instants are
    the history's own interval ends, where closed-open bounds go wrong if they are wrong."""
    instant = st.one_of(st.sampled_from(ends), st.sampled_from(PROBE_TIMES)) if ends else st.sampled_from(PROBE_TIMES)
    return st.lists(st.tuples(instant, instant, st.booleans(), st.booleans()), min_size=1, max_size=10)


@pytest.mark.slow  # 40 histories, each asked through DuckDB
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=histories(max_transactions=8, max_ops=3), mode=st.sampled_from(["live", "snapshot", "companion"]),
       data=st.data())
def test_sql_as_of_agrees_with_the_ledger(history, mode: str, data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory(prefix="factledger-sql-") as folder:
        path = Path(folder) / "ledger.db"
        ledger = Ledger.open(path, clock=lambda: NOW)
        try:
            apply_history(ledger, history)
            ends = {
                t
                for row in ledger.storage.query("SELECT valid_from, valid_to, tx_from, tx_to FROM claims")
                for t in row
                if t is not None
            }
            pairs = data.draw(probes(sorted(ends)), label="probes")
            expected = [
                sorted(v.id for v in ledger.as_of(valid_at=valid_at, known_at=known_at)) for valid_at, known_at, _, _ in pairs
            ]
            current = sorted(v.id for v in ledger.current())
        finally:
            ledger.close()
        with Analytics(path, mode=mode, companion_path=Path(folder) / "companion.duckdb", clock=lambda: NOW) as analytics:
            assert analytics.mode == mode, analytics.mode_note
            for (valid_at, known_at, swap, typed), want in zip(pairs, expected):
                valid = f"FOR VALID_TIME AS OF {_timestamp(valid_at, typed)}"
                system = f"FOR SYSTEM_TIME AS OF {_timestamp(known_at, not typed)}"
                clauses = f"{system} {valid}" if swap else f"{valid} {system}"
                got = sorted(row[0] for row in analytics.fetch(f"SELECT id FROM claims {clauses}")[1])
                assert got == want, (valid_at, known_at, clauses)
            assert sorted(row[0] for row in analytics.fetch("SELECT id FROM claims")[1]) == current
