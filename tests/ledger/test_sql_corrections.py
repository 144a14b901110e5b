"""The `corrections` view: each change of a slot as one row (old and new value, both intervals, the
transaction and principal, the kind), built here through SQL writes, one kind per slot."""

from __future__ import annotations

from pathlib import Path

from factledger.ledger import Ledger
from factledger.ledger.analytics import Analytics, execute_write

MOMENTS = iter(f"2025-0{m}-01T00:00:00.000000Z" for m in range(1, 10))


def slot(subject: str) -> str:
    return f"scope = 'home' AND subject = '{subject}' AND predicate = 'lives_in'"


def test_each_kind_of_change_is_one_row(tmp_path: Path) -> None:
    moment = [next(MOMENTS)]
    path = tmp_path / "ledger.db"
    with Ledger.open(path, clock=lambda: moment[0]) as ledger:
        def write(sql: str) -> int:
            moment[0] = next(MOMENTS)
            outcome = execute_write(ledger, sql, principal="operator:ann", reason="r")
            assert outcome.result is not None
            return outcome.result.id

        with ledger.transaction(principal="operator:ann") as tx:
            tx.define("lives_in", "one")
        rows = ", ".join(f"('home', '{s}', 'lives_in', 'Paris', '2024-01-01')" for s in ("Moves", "Wrong", "Late", "Cut", "Never"))
        write(f"INSERT INTO claims (scope, subject, predicate, value, valid_from) VALUES {rows}")
        moved = write(f"UPDATE claims FOR PORTION OF VALID_TIME FROM '2024-06-01' SET value = 'Rome' WHERE {slot('Moves')}")
        wrong = write(f"UPDATE claims FOR PORTION OF VALID_TIME FROM '2024-01-01' SET value = 'Oslo' WHERE {slot('Wrong')}")
        # an earlier start for the value held: the slot holds it over the whole portion (SUPERSEDE; an
        # UPDATE changes only what the portion holds, so it would leave the dates as they are)
        late = write(f"SUPERSEDE claims FOR PORTION OF VALID_TIME FROM '2023-06-01' SET value = 'Paris' WHERE {slot('Late')}")
        cut = write(f"DELETE FROM claims FOR PORTION OF VALID_TIME FROM '2024-03-01' TO '2024-04-01' WHERE {slot('Cut')}")
        never = write(f"DELETE FROM claims FOR ALL VALID_TIME WHERE {slot('Never')}")
    with Analytics(path) as analytics:
        columns, rows = analytics.fetch(
            "SELECT subject, tx, principal, kind, old_value, old_valid_from, old_valid_to, new_value, new_valid_from, new_valid_to"
            " FROM corrections ORDER BY tx"
        )
    got = [(r[0], r[1], r[2], r[3], r[4], str(r[5])[:10], r[6], r[7], None if r[8] is None else str(r[8])[:10], r[9]) for r in rows]
    assert got == [
        ("Moves", moved, "operator:ann", "supersede", "Paris", "2024-01-01", None, "Rome", "2024-06-01", None),
        ("Wrong", wrong, "operator:ann", "correction", "Paris", "2024-01-01", None, "Oslo", "2024-01-01", None),
        ("Late", late, "operator:ann", "correction", "Paris", "2024-01-01", None, "Paris", "2023-06-01", None),
        ("Cut", cut, "operator:ann", "retraction", "Paris", "2024-01-01", None, None, None, None),
        ("Never", never, "operator:ann", "never-true", "Paris", "2024-01-01", None, None, None, None),
    ]
