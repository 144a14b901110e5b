"""Hypothesis strategies for random ledger operation histories, shared by the ledger and sql tests.

A *history* is a list of transactions over a few fixed slots of both cardinalities. Every operation is a
dict in the `factledger apply` JSON Lines form; every transaction carries an explicit, strictly
increasing `tx_time` on a small grid; valid times are drawn from the same grid (written in several ISO
spellings of the same instants), with open ends, defaulted starts (the transaction time) and
`all_valid_time` retracts. Histories are not filtered for validity: conflicts, supersedes of nothing and
the like occur, and `apply_history` skips (and records) the transactions the ledger refuses.

The API (keep it small; other test suites rely on it):

- `SLOTS`: the `Slot`s histories write to (scope, subject, predicate, cardinality); `SCOPES`, `PREDICATES`.
- `GRID`: the canonical UTC instants (text) that valid and transaction times are drawn from, in order.
  `PROBE_TIMES`: GRID plus instants before, between and after them, for as-of probes.
- `canonical(text)`: the canonical UTC text of any time this module emits (independent of the ledger).
- `DEFINE_LINES`: the `define` operations; `History.lines()` starts with them as transaction 0,
  at `SETUP_TX_TIME` (before GRID).
- `operations(slot=None, *, explicit_start=False)`: one operation dict for a slot (random slot if None);
  with explicit_start=False some omit valid_from (it then defaults to the transaction time).
- `histories(max_transactions=8, max_ops=3)`: a `History`: `.transactions` (each a `Tx` with
  `.tx_time` and `.ops`), `.lines()` (JSON-able dicts with `tx` labels, `tx_time` on each first line)
  and `.jsonl()` (text ready for `factledger apply`).
- `apply_history(ledger, history, principal=...) -> Applied`: applies every transaction through the
  library's apply path (`factledger.ledger.ops`), one ledger transaction each; `.committed` holds
  (transaction index, TxResult), `.refused` holds (transaction index, LedgerError). Index 0 is the
  define transaction, which always commits on an empty ledger.

Values come from small pools and sometimes differ from each other only in case or spacing ("Paris",
"PARIS"): compare `value_key` (normalised), not display text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from factledger.ledger import LedgerError, TxResult
from factledger.ledger.ops import Batch, apply_batch, parse_operation

_START = datetime(2024, 1, 1, tzinfo=timezone.utc)
_STEP = timedelta(hours=12)
_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def _fmt(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime(_FORMAT)


GRID: tuple[str, ...] = tuple(_fmt(_START + k * _STEP) for k in range(12))
SETUP_TX_TIME = _fmt(_START - timedelta(days=1))
PROBE_TIMES: tuple[str, ...] = tuple(
    sorted(
        {_fmt(_START - timedelta(days=3))}
        | set(GRID)
        | {_fmt(_START + k * _STEP + timedelta(hours=6)) for k in range(12)}
        | {_fmt(_START + k * _STEP - timedelta(microseconds=1)) for k in range(12)}
    )
)


@dataclass(frozen=True)
class Slot:
    scope: str
    subject: str
    predicate: str
    cardinality: str


PREDICATES: dict[str, str] = {"lives_in": "one", "works_at": "one", "likes": "many", "has_pet": "many"}
SLOTS: tuple[Slot, ...] = (
    Slot("home", "Ann", "lives_in", "one"),
    Slot("home", "Ann", "likes", "many"),
    Slot("home", "Bob", "works_at", "one"),
    Slot("work", "Ann", "has_pet", "many"),
)
SCOPES: tuple[str, ...] = tuple(sorted({s.scope for s in SLOTS}))
VALUES: dict[str, tuple[str, ...]] = {
    "lives_in": ("Paris", "Rome", "Oslo", "PARIS"),
    "works_at": ("Acme", "Initech", "acme "),
    "likes": ("jazz", "blues", "folk", "Jazz"),
    "has_pet": ("cat", "dog", "CAT"),
}
DEFINE_LINES: tuple[dict[str, Any], ...] = tuple(
    {"op": "define", "predicate": name, "cardinality": card, "template": "{subject} " + name.replace("_", " ") + " {value}"}
    for name, card in PREDICATES.items()
)


def canonical(text: str) -> str:
    """The canonical UTC text of a time this module emits (a date, or a datetime with Z or an offset)."""
    if len(text) == 10:
        return f"{text}T00:00:00.000000Z"
    return _fmt(datetime.fromisoformat(text.replace("Z", "+00:00")))


@st.composite
def spelled_time(draw: st.DrawFn, instant: str) -> str:
    """One instant written in one of the ISO spellings the ledger accepts."""
    moment = datetime.strptime(instant, _FORMAT).replace(tzinfo=timezone.utc)
    forms = [instant, moment.strftime("%Y-%m-%dT%H:%M:%SZ"), moment.astimezone(timezone(timedelta(hours=2))).isoformat()]
    if moment.hour == moment.minute == moment.second == moment.microsecond == 0:
        forms.append(moment.strftime("%Y-%m-%d"))
    return draw(st.sampled_from(forms))


@st.composite
def interval(draw: st.DrawFn, *, explicit_start: bool = True) -> dict[str, Any]:
    """valid_from / valid_to fields: a grid interval, an open end, or (sometimes) a defaulted start."""
    fields: dict[str, Any] = {}
    start = draw(st.integers(0, len(GRID) - 1))
    if explicit_start or draw(st.booleans()):
        fields["valid_from"] = draw(spelled_time(GRID[start]))
        if start + 1 < len(GRID) and draw(st.booleans()):
            fields["valid_to"] = draw(spelled_time(GRID[draw(st.integers(start + 1, len(GRID) - 1))]))
    elif draw(st.integers(0, 7)) == 0:  # a defaulted start with an end that may precede it: refused
        fields["valid_to"] = draw(spelled_time(GRID[start]))
    return fields


@st.composite
def operations(draw: st.DrawFn, slot: Slot | None = None, *, explicit_start: bool = False) -> dict[str, Any]:
    """One add / supersede / retract line for `slot` (a random one of SLOTS when None)."""
    slot = slot or draw(st.sampled_from(SLOTS))
    values = VALUES[slot.predicate]
    line: dict[str, Any] = {"scope": slot.scope, "subject": slot.subject, "predicate": slot.predicate}
    kind = draw(st.sampled_from(("add", "add", "add", "add", "supersede", "supersede", "retract", "retract_all")))
    if kind == "retract_all":
        line["op"] = "retract"
        if slot.cardinality == "many" or draw(st.booleans()):
            line["value"] = draw(st.sampled_from(values))
        line["all_valid_time"] = True
        return line
    line["op"] = kind
    if kind == "retract":
        if draw(st.booleans()):
            line["value"] = draw(st.sampled_from(values))
    else:
        line["value"] = draw(st.sampled_from(values))
    if kind == "supersede":
        # `many` supersedes name what they replace, except now and then (refused); `one` may name it.
        if draw(st.integers(0, 9)) < (8 if slot.cardinality == "many" else 2):
            line["replaces"] = draw(st.sampled_from(values))
    line.update(draw(interval(explicit_start=explicit_start)))
    if draw(st.integers(0, 4)) == 0:
        line["source"] = f"test:{draw(st.integers(1, 99))}"
    return line


@dataclass
class Tx:
    tx_time: str  # canonical
    ops: list[dict[str, Any]]


@dataclass
class History:
    transactions: list[Tx]

    def lines(self) -> list[dict[str, Any]]:
        """Every line, define transaction first; each transaction's lines share a `tx` label."""
        out: list[dict[str, Any]] = []
        groups = [Tx(SETUP_TX_TIME, [dict(d) for d in DEFINE_LINES])] + self.transactions
        for index, tx in enumerate(groups):
            for position, op in enumerate(tx.ops):
                line = dict(op, tx=f"t{index}")
                if position == 0:
                    line["tx_time"] = tx.tx_time
                out.append(line)
        return out

    def jsonl(self) -> str:
        return "".join(json.dumps(line) + "\n" for line in self.lines())


@st.composite
def histories(draw: st.DrawFn, max_transactions: int = 8, max_ops: int = 3) -> History:
    """Up to `max_transactions` transactions of 1..`max_ops` operations, tx times increasing on GRID."""
    count = draw(st.integers(1, min(max_transactions, len(GRID))))
    times = sorted(draw(st.lists(st.sampled_from(GRID), min_size=count, max_size=count, unique=True)))
    return History([Tx(t, draw(st.lists(operations(), min_size=1, max_size=max_ops))) for t in times])


@dataclass
class Applied:
    committed: list[tuple[int, TxResult]] = field(default_factory=list)
    refused: list[tuple[int, LedgerError]] = field(default_factory=list)


def apply_history(ledger: Any, history: History, *, principal: str = "import:strategies") -> Applied:
    """Apply each transaction through the library's apply path; refused ones are skipped and recorded."""
    applied = Applied()
    lines = history.lines()
    labels: list[str] = []
    for line in lines:
        if line["tx"] not in labels:
            labels.append(line["tx"])
    for index, label in enumerate(labels):
        group = [line for line in lines if line["tx"] == label]
        try:
            batch = Batch([parse_operation(line, number) for number, line in enumerate(group, start=1)])
            applied.committed.append((index, apply_batch(ledger, batch, principal=principal)))
        except LedgerError as exc:
            applied.refused.append((index, exc))
    return applied
