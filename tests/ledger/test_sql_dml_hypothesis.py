"""The twin of test_sql_hypothesis: random histories written through SQL DML (`execute_write`) leave
the ledger exactly as the same histories written through `apply` — every claim version, transaction,
and provenance row (the chain hashes are salted per file) — and the same transactions are refused.

One difference on purpose: an INSERT row that overlaps a version of the same value its key holds (or an
earlier row of the statement) is refused, as SQL's WITHOUT OVERLAPS key refuses it, where `apply add`
extends the version. The twin checks each such refusal against its own reading of the overlap, then
writes that transaction to the SQL ledger with `apply` too, so the two ledgers stay comparable.

One statement is one transaction, so a history transaction of several operations is one multi-row
INSERT when all are adds, and is otherwise split into one transaction per operation (in both ledgers).
Both ledgers are dated by the same clock and written by the same operator."""

from __future__ import annotations

import json
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from factledger.ledger import Ledger, LedgerError
from factledger.ledger.analytics import QueryRefused, execute_write
from factledger.ledger.keys import key
from factledger.ledger.times import parse_time
from factledger.ledger.ops import Batch, apply_batch, parse_operation
from tests.strategies import DEFINE_LINES, SETUP_TX_TIME, histories

PRINCIPAL = "operator:twin"
# version_hashes and tx_chain are salted per ledger, so they differ between any two files.
TABLES = ("transactions", "claims", "claim_provenance", "predicates")


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _time(line: dict[str, Any], name: str) -> str:
    value = line.get(name)
    return "NULL" if value is None else _quote(value)


def _slot(line: dict[str, Any], value_field: str) -> str:
    where = f"scope = {_quote(line['scope'])} AND subject = {_quote(line['subject'])} AND predicate = {_quote(line['predicate'])}"
    if line.get(value_field) is not None:
        where += f" AND value = {_quote(line[value_field])}"
    return where


def _portion(line: dict[str, Any]) -> str:
    if "valid_from" not in line and "valid_to" not in line:
        return ""  # XTDB's default: from now (the transaction time) on
    start = _time(line, "valid_from") if "valid_from" in line else "CURRENT_TIMESTAMP"
    end = f" TO {_time(line, 'valid_to')}" if "valid_to" in line else ""
    return f" FOR PORTION OF VALID_TIME FROM {start}{end}"


def to_sql(group: list[dict[str, Any]]) -> str:
    """One SQL statement doing what the operations of `group` do (several only when all are adds)."""
    if all(line["op"] == "add" for line in group):
        columns = ["scope", "subject", "predicate", "value", "valid_from", "valid_to", "source"]
        rows = [
            "(" + ", ".join(_time(line, c) if c in ("valid_from", "valid_to", "source") else _quote(line[c]) for c in columns) + ")"
            for line in group
        ]
        return f"INSERT INTO claims ({', '.join(columns)}) VALUES {', '.join(rows)}"
    (line,) = group
    if line["op"] == "supersede":
        sets = f"value = {_quote(line['value'])}" + (f", source = {_quote(line['source'])}" if "source" in line else "")
        # apply's supersede is SQL's SUPERSEDE (an UPDATE changes only what the portion holds)
        return f"SUPERSEDE claims{_portion(line)} SET {sets} WHERE {_slot(line, 'replaces')}"
    assert line["op"] == "retract"
    clause = " FOR ALL VALID_TIME" if line.get("all_valid_time") else _portion(line)
    return f"DELETE FROM claims{clause} WHERE {_slot(line, 'value')}"


def transactions(history) -> list[tuple[str, list[dict[str, Any]]]]:
    """(tx time, operations) per ledger transaction; multi-op groups that are not all adds are split."""
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for tx in history.transactions:
        ops = [dict(op) for op in tx.ops]
        if all(op["op"] == "add" for op in ops):
            out.append((tx.tx_time, ops))
            continue
        start = datetime.strptime(tx.tx_time, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
        for k, op in enumerate(ops):
            out.append(((start + timedelta(microseconds=k)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), [op]))
    return out


def overlaps_held(ledger: Ledger, tx_time: str, ops: list[dict[str, Any]]) -> bool:
    """Whether an add of `ops` overlaps a version of its own value (or, in a `one` slot, any) that the
    ledger holds or an earlier add of the group states: what SQL's INSERT refuses."""
    stated: dict[tuple[str, str, str], list[tuple[str, str, str | None]]] = {}
    for op in ops:
        if op["op"] != "add":
            return False
        slot = (op["scope"], key(op["subject"], "subject"), op["predicate"])
        if slot not in stated:
            found = ledger.held(op["scope"], op["subject"], op["predicate"])
            stated[slot] = [(s.value_key, s.valid_from, s.valid_to) for s in (found[1] if found else [])]
        predicate = ledger.predicate(op["predicate"])
        one = predicate is not None and predicate.cardinality == "one"
        value, start = key(op["value"], "value"), parse_time(op.get("valid_from") or tx_time, "valid_from")
        end = None if op.get("valid_to") is None else parse_time(op["valid_to"], "valid_to")
        if any((one or v == value) and (e is None or start < e) and (end is None or s < end) for v, s, e in stated[slot]):
            return True
        stated[slot].append((value, start, end))
    return False


def dump(ledger: Ledger) -> dict[str, list[str]]:
    return {t: [json.dumps(list(r)) for r in ledger.storage.query(f"SELECT * FROM {t} ORDER BY 1, 2")] for t in TABLES}


def write_both(folder: Path, history) -> tuple[dict, dict, list, list]:
    moment = [SETUP_TX_TIME]
    by_apply = Ledger.open(folder / "apply.db", clock=lambda: moment[0])
    by_sql = Ledger.open(folder / "sql.db", clock=lambda: moment[0])
    try:
        for ledger in (by_apply, by_sql):
            defines = Batch([parse_operation(dict(line), n) for n, line in enumerate(DEFINE_LINES, start=1)])
            apply_batch(ledger, defines, principal=PRINCIPAL, reason="twin")
        refused_apply, refused_sql = [], []
        for index, (tx_time, ops) in enumerate(transactions(history)):
            moment[0] = tx_time
            try:
                batch = Batch([parse_operation(dict(op), n) for n, op in enumerate(ops, start=1)])
                apply_batch(by_apply, batch, principal=PRINCIPAL, reason="twin")
            except LedgerError:
                refused_apply.append(index)
            overlap = index not in refused_apply and overlaps_held(by_sql, tx_time, ops)
            try:
                if execute_write(by_sql, to_sql(ops), principal=PRINCIPAL, reason="twin").rows == 0:
                    refused_sql.append(index)  # a DELETE that matched nothing writes nothing; apply refuses it
                assert not overlap, f"an INSERT overlapping what its key holds was taken: {to_sql(ops)}"
            except QueryRefused as exc:
                if not overlap:
                    refused_sql.append(index)
                    continue
                assert "WITHOUT OVERLAPS" in exc.reason, exc
                apply_batch(by_sql, Batch([parse_operation(dict(op), n) for n, op in enumerate(ops, start=1)]),
                            principal=PRINCIPAL, reason="twin")  # `apply add` extends: the ledgers stay comparable
            except LedgerError:
                refused_sql.append(index)
        return dump(by_apply), dump(by_sql), refused_apply, refused_sql
    finally:
        by_apply.close()
        by_sql.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=histories(max_transactions=8, max_ops=3))
def test_sql_writes_equal_apply(history) -> None:
    with tempfile.TemporaryDirectory(prefix="factledger-dml-") as folder:
        want, got, refused_apply, refused_sql = write_both(Path(folder), history)
    assert refused_sql == refused_apply
    for table in TABLES:
        assert got[table] == want[table], table
