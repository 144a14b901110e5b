"""Operations as data: the JSON Lines format of `factledger apply`, parsed into typed operations and
applied as ledger transactions."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from .errors import LedgerError, ValidationError
from .model import TxResult
from .store import Ledger, LedgerTx
from .times import format_time, parse_time, to_datetime

OPS = ("define", "add", "supersede", "retract")
_COMMON = {"op", "tx", "tx_time", "principal", "reason", "source"}
_FIELDS = {
    "define": {"predicate", "cardinality", "template", "description"},
    "add": {"scope", "subject", "predicate", "value", "valid_from", "valid_to"},
    "supersede": {"scope", "subject", "predicate", "value", "valid_from", "valid_to", "replaces"},
    "retract": {"scope", "subject", "predicate", "value", "valid_from", "valid_to", "all_valid_time"},
}
_REQUIRED = {
    "define": ("predicate",),
    "add": ("scope", "subject", "predicate", "value"),
    "supersede": ("scope", "subject", "predicate", "value"),
    "retract": ("scope", "subject", "predicate"),
}


@dataclass
class Operation:
    op: str
    fields: dict[str, Any]
    line: int = 0
    tx: str | None = None
    tx_time: Any = None
    principal: str | None = None
    reason: str | None = None

    def apply(self, tx: LedgerTx) -> None:
        f = self.fields
        if self.op == "define":
            tx.define(
                f["predicate"], f.get("cardinality", "many"), template=f.get("template"), description=f.get("description")
            )
        elif self.op == "add":
            tx.add(
                f["scope"], f["subject"], f["predicate"], f["value"],
                valid_from=f.get("valid_from"), valid_to=f.get("valid_to"), source=f.get("source"),
            )
        elif self.op == "supersede":
            tx.supersede(
                f["scope"], f["subject"], f["predicate"], f["value"],
                valid_from=f.get("valid_from"), valid_to=f.get("valid_to"), replaces=f.get("replaces"),
                source=f.get("source"),
            )
        else:
            tx.retract(
                f["scope"], f["subject"], f["predicate"], f.get("value"),
                valid_from=f.get("valid_from"), valid_to=f.get("valid_to"),
                all_valid_time=bool(f.get("all_valid_time", False)), source=f.get("source"),
            )


class LineError(LedgerError):
    """An operation failed: carries the input line number and the field at fault."""

    def __init__(self, line: int, error: LedgerError):
        self.line = line
        self.error = error
        self.message = error.message
        self.field = error.field
        Exception.__init__(self, f"line {line}: {error}")


_ALLOWED = {op: frozenset(_COMMON | _FIELDS[op]) for op in OPS}
_ALLOWED_TEXT = {op: ", ".join(sorted(allowed)) for op, allowed in _ALLOWED.items()}
_TEXT_FIELDS = ("scope", "subject", "predicate", "value", "replaces", "cardinality", "template", "description")
_TRANSACTION_FIELDS = ("op", "tx", "tx_time", "principal", "reason")


def parse_operation(data: object, line: int = 0) -> Operation:
    """Validate one decoded JSON object as an operation; errors name the field at fault."""
    if not isinstance(data, dict):
        raise ValidationError("each line must be a JSON object", field="op")
    op = data.get("op")
    if op not in OPS:
        raise ValidationError(f"{op!r} is not an operation; use one of {', '.join(OPS)}", field="op")
    allowed = _ALLOWED[op]
    if not allowed.issuperset(data):  # the checks below run in the order of the old loop, for the same error
        for name in data:
            if name not in allowed:
                raise ValidationError(f"unknown field for {op!r} (allowed: {_ALLOWED_TEXT[op]})", field=name)
    for name in _REQUIRED[op]:
        if data.get(name) in (None, ""):
            raise ValidationError(f"required for {op!r}", field=name)
    for name in _TEXT_FIELDS:
        value = data.get(name)
        if value is not None and not isinstance(value, str):
            raise ValidationError(f"must be a string, got {type(value).__name__}", field=name)
    if "all_valid_time" in data and not isinstance(data["all_valid_time"], bool):
        raise ValidationError("must be true or false", field="all_valid_time")
    for name in ("tx", "principal", "reason"):
        value = data.get(name)
        if value is not None and not isinstance(value, (str, int)):
            raise ValidationError("must be a string", field=name)
    fields = {k: v for k, v in data.items() if k not in _TRANSACTION_FIELDS}
    tx = data.get("tx")
    return Operation(op, fields, line, None if tx is None else str(tx), data.get("tx_time"), data.get("principal"), data.get("reason"))


MAX_LINE_DEPTH = 32  # no operation or turn nests deeper; Python's parser would recurse until it fails


class _NotANumber(Exception):
    """NaN or Infinity met by the decoder (JSON has neither)."""


def _constant(name: str) -> Any:
    raise _NotANumber(name)


# One decoder for every line: json.loads with an argument builds a new decoder per call, a fifth of a
# history's parse time.
_DECODER = json.JSONDecoder(parse_constant=_constant)


def decode_json_line(text: str, field: str = "line") -> Any:
    """One JSON Lines line as data, or a ValidationError: malformed JSON, numbers Python will not
    convert (over 4300 digits), NaN/Infinity (not JSON), nesting deeper than MAX_LINE_DEPTH."""
    try:
        if text.startswith("\ufeff"):  # as json.loads refuses it
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        data = _DECODER.decode(text)
    except _NotANumber as exc:
        raise ValidationError(f"not valid JSON ({exc.args[0]} is not a JSON number)", field=field) from None
    except json.JSONDecodeError as exc:
        raise ValidationError(f"not valid JSON ({exc.msg} at column {exc.colno})", field=field) from None
    except RecursionError:
        raise ValidationError(f"nested deeper than {MAX_LINE_DEPTH} levels", field=field) from None
    except ValueError as exc:  # int('9' * 5000): Python's limit on integer digits
        raise ValidationError(f"not valid JSON ({exc})", field=field) from None
    if _depth(data) > MAX_LINE_DEPTH:
        raise ValidationError(f"nested deeper than {MAX_LINE_DEPTH} levels", field=field)
    return data


_NESTING = frozenset((list, dict))  # the only containers the decoder builds


def _depth(data: Any) -> int:
    if type(data) is dict and _NESTING.isdisjoint(map(type, data.values())):
        return 2 if data else 1  # the common line: one flat object
    depth, level = 0, [data]
    while level:
        depth += 1
        if depth > MAX_LINE_DEPTH:
            return depth
        level = [c for item in level if isinstance(item, (list, dict)) for c in (item.values() if isinstance(item, dict) else item)]
    return depth


def read_operations(lines: Iterable[str]) -> Iterator[Operation]:
    """Parse JSON Lines; blank lines and lines starting with '#' are skipped."""
    for number, text in enumerate(lines, start=1):
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            data = decode_json_line(stripped)
        except ValidationError as exc:
            raise LineError(number, exc) from None
        try:
            yield parse_operation(data, number)
        except LedgerError as exc:
            raise LineError(number, exc) from None


@dataclass
class Batch:
    """Consecutive operations that form one transaction."""

    ops: list[Operation] = field(default_factory=list)

    @property
    def first(self) -> Operation:
        return self.ops[0]


def group_transactions(ops: Iterable[Operation]) -> Iterator[Batch]:
    """Consecutive lines with the same `tx` label form one transaction; a line without one is its own."""
    batch: Batch | None = None
    for op in ops:
        if batch is not None and op.tx is not None and batch.first.tx == op.tx:
            batch.ops.append(op)
            continue
        if batch is not None:
            yield batch
        batch = Batch([op])
    if batch is not None:
        yield batch


def _check_transaction_fields(batch: Batch) -> None:
    """tx_time, principal and reason belong to the transaction: a later line may repeat them, not
    change them (silently using the first line's would record something the input did not say)."""
    first = batch.first

    def same(name: str, value: Any, reference: Any) -> bool:
        if name == "tx_time" and reference is not None:  # the same instant in another spelling is fine
            try:
                return parse_time(value, name) == parse_time(reference, name)
            except LedgerError:
                return False
        return value == reference

    for op in batch.ops[1:]:
        for name in ("tx_time", "principal", "reason"):
            value = getattr(op, name)
            if value is not None and not same(name, value, getattr(first, name)):
                raise LineError(
                    op.line,
                    ValidationError(
                        f"differs from the first line of transaction {first.tx!r} (line {first.line}); "
                        "give it on the transaction's first line only",
                        field=name,
                    ),
                )


def apply_batch(ledger: Ledger, batch: Batch, *, principal: str, reason: str = "") -> TxResult:
    first = batch.first
    _check_transaction_fields(batch)
    try:
        with ledger.transaction(
            principal=first.principal or principal,
            reason=first.reason if first.reason is not None else reason,
            tx_time=first.tx_time,
        ) as tx:
            tx.read_slots(_slots_to_read(batch))
            for op in batch.ops:
                try:
                    op.apply(tx)
                except LedgerError as exc:
                    raise LineError(op.line, exc) from None
    except LineError:
        raise
    except LedgerError as exc:
        raise LineError(first.line, exc) from None
    assert tx.result is not None
    return tx.result


def _slots_to_read(batch: Batch) -> list[tuple[Any, Any, Any]]:
    """The slots the batch's operations write, read at once before they run."""
    return [(op.fields.get("scope"), op.fields.get("subject"), op.fields.get("predicate")) for op in batch.ops if op.op != "define"]


def apply_all(ledger: Ledger, ops: Iterable[Operation], *, principal: str, reason: str = "") -> TxResult:
    """Every operation in one transaction (`--all-or-nothing`)."""
    ops = list(ops)
    if not ops:
        raise ValidationError("no operations", field="line")
    return apply_batch(ledger, Batch(ops), principal=principal, reason=reason)


def _import_time(batch: Batch, definitions: list[Operation]) -> str | None:
    """A history transaction's tx time, checked; None for a `define`-only transaction without one (its
    lines are added to `definitions`: they lead the import)."""
    _check_transaction_fields(batch)
    first = batch.first
    if first.tx_time is None:
        if all(op.op == "define" for op in batch.ops):
            definitions.extend(batch.ops)
            return None
        raise LineError(first.line, ValidationError(
            "required on each transaction's first line of an import (the history is ordered by it);"
            " lines without one belong to `factledger apply`",
            field="tx_time",
        ))
    try:
        return parse_time(first.tx_time, "tx_time")
    except LedgerError as exc:
        raise LineError(first.line, exc) from None


def _leading_definitions(definitions: list[Operation], earliest: str) -> Batch:
    """The `define`-only lines as one transaction one microsecond before the history's earliest tx time."""
    lead = format_time(to_datetime(earliest) - timedelta(microseconds=1))
    for op in definitions:
        op.tx_time, op.tx = lead, "definitions"
    return Batch(definitions)


def plan_import(ops: Iterable[Operation]) -> list[Batch]:
    """A history's transactions in the order of their tx times (not of the lines), checked before anything
    is written. Every transaction's first line carries `tx_time`, except transactions of `define` lines
    only: those become one leading transaction, one microsecond before the earliest tx time."""
    batches = list(group_transactions(ops))
    if not batches:
        raise ValidationError("no operations", field="line")
    timed: list[tuple[str, Batch]] = []
    definitions: list[Operation] = []
    for batch in batches:
        stamp = _import_time(batch, definitions)
        if stamp is not None:
            timed.append((stamp, batch))
    if not timed:
        raise ValidationError("no transaction has a tx_time; an import orders a history by them", field="tx_time")
    timed.sort(key=lambda item: item[0])  # stable: equal times keep their line order, and are refused below
    for (stamp, batch), (next_stamp, later) in zip(timed, timed[1:]):
        if stamp == next_stamp:
            raise LineError(later.first.line, ValidationError(
                f"{stamp} is also the tx_time of line {batch.first.line}; transactions need distinct times",
                field="tx_time",
            ))
    plan = [batch for _stamp, batch in timed]
    if definitions:
        plan.insert(0, _leading_definitions(definitions, timed[0][0]))
    return plan


def import_history(
    ledger: Ledger, plan: list[Batch], *, principal: str, reason: str = "", progress: Callable[[], None] | None = None
) -> list[TxResult]:
    """Apply a `plan_import` plan in one database transaction: any refusal writes nothing. The ledger's rules
    hold: import:<source> principals, tx times later than its last transaction. `progress` is called after
    each of the plan's transactions is applied (not yet committed: a later refusal still writes nothing)."""
    results = []
    with ledger.storage.atomic(whole=True):  # all or nothing: its transactions need no savepoints
        for batch in plan:
            results.append(apply_batch(ledger, batch, principal=principal, reason=reason))
            if progress is not None:
                progress()
    return results


@dataclass
class HistoryScan:
    """What a first pass over a history found (every line parsed and checked, nothing written): how many
    transactions it applies, its `define`-only transactions without a tx_time (they lead), and whether its
    timed transactions come in tx-time order, so a second pass can apply them as they are read."""

    transactions: int
    definitions: list[Operation]
    earliest: str
    in_order: bool


def scan_history(ops: Iterable[Operation]) -> HistoryScan:
    """Check a history as `plan_import` does, holding one transaction at a time: the same errors for the
    same lines, except that equal tx times of transactions out of order are left to `plan_import`."""
    timed, in_order = 0, True
    definitions: list[Operation] = []
    earliest: str | None = None
    previous: tuple[str, Batch] | None = None
    for batch in group_transactions(ops):
        stamp = _import_time(batch, definitions)
        if stamp is None:
            continue
        first = batch.first
        if previous is not None and in_order:
            if stamp == previous[0]:
                raise LineError(first.line, ValidationError(
                    f"{stamp} is also the tx_time of line {previous[1].first.line}; transactions need distinct times",
                    field="tx_time",
                ))
            in_order = stamp > previous[0]
        earliest = stamp if earliest is None or stamp < earliest else earliest
        previous = (stamp, Batch([first]))  # only its first line is kept
        timed += 1
    if timed == 0:
        if not definitions:
            raise ValidationError("no operations", field="line")
        raise ValidationError("no transaction has a tx_time; an import orders a history by them", field="tx_time")
    assert earliest is not None
    return HistoryScan(timed + (1 if definitions else 0), definitions, earliest, in_order)


def stream_import(
    ledger: Ledger,
    read: Callable[[], Iterable[Operation]],
    *,
    principal: str,
    reason: str = "",
    scan: HistoryScan | None = None,
    progress: Callable[[], None] | None = None,
    on_result: Callable[[TxResult], None] | None = None,
) -> int:
    """Import a history without holding it: `read` gives a fresh pass over its operations each time it is
    called (a file read again). The first pass checks every line (`scan_history`, or `scan` when the caller
    made it); the second applies each transaction as it is read, all in one database transaction (a
    refusal anywhere writes nothing), calling `progress` and `on_result` after each (not yet committed).
    So memory stays flat whatever the size of the history. A history whose transactions are out of
    tx-time order is sorted in memory instead (`plan_import`). Returns the number of transactions."""
    scan = scan_history(read()) if scan is None else scan
    if not scan.in_order:
        plan = plan_import(read())
        for result in import_history(ledger, plan, principal=principal, reason=reason, progress=progress):
            if on_result is not None:
                on_result(result)
        return len(plan)

    def applied(batch: Batch) -> None:
        result = apply_batch(ledger, batch, principal=principal, reason=reason)
        if progress is not None:
            progress()
        if on_result is not None:
            on_result(result)

    with ledger.storage.atomic(whole=True):
        if scan.definitions:
            applied(_leading_definitions(scan.definitions, scan.earliest))
        for batch in group_transactions(read()):
            if batch.first.tx_time is None:  # a define-only transaction: applied first, above
                continue
            applied(batch)
    return scan.transactions
