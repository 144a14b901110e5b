"""`import_history` reports each transaction as it is applied (the CLI's progress bar), and a refusal
after some of them still writes nothing: the whole history is one database transaction."""

from __future__ import annotations

import pytest

from factledger.ledger.ops import LineError, import_history, parse_operation, plan_import


def _history(count: int, *, refused_at: int | None = None) -> list:
    lines = [{"op": "define", "predicate": "lives_in", "cardinality": "one"}]
    for n in range(count):
        city = "Oslo" if n == refused_at else f"city {n}"
        op = "add" if n in (0, refused_at) else "supersede"
        lines.append({"op": op, "scope": "s", "subject": "Ann", "predicate": "lives_in", "value": city,
                      "valid_from": f"{2000 + n}-01-01", "tx_time": f"2024-01-{n + 1:02d}T00:00:00Z"})
    return [parse_operation(line, i + 1) for i, line in enumerate(lines)]


def test_progress_is_called_once_per_transaction(fresh_ledger) -> None:
    plan = plan_import(_history(5))
    seen: list[int] = []
    results = import_history(fresh_ledger, plan, principal="import:test", progress=lambda: seen.append(len(seen)))
    assert len(seen) == len(plan) == len(results) == 6  # the definitions' transaction, then five
    assert [c.value for c in fresh_ledger.as_of()] == ["city 4"]


def test_a_refusal_after_progress_writes_nothing(fresh_ledger) -> None:
    plan = plan_import(_history(5, refused_at=3))  # an add clashing with the city held then
    seen: list[int] = []
    with pytest.raises(LineError):
        import_history(fresh_ledger, plan, principal="import:test", progress=lambda: seen.append(1))
    assert len(seen) == 4  # the definitions and three transactions were applied, then rolled back
    assert fresh_ledger.as_of() == [] and fresh_ledger.last_tx_time() is None
