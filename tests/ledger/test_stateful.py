"""The proof that the ledger is right: random operation sequences against a pointwise reference model.

The model is written from DESIGN.md §2-3, independently of ledger/portion.py. It does not know about
versions at all: for every committed transaction it keeps, per slot and value, the set of valid-time
"cells" where the value is held. Cells are the elementary intervals between every valid-time boundary
seen so far (a new boundary splits a cell in every past state too, which changes no meaning). The
operations are pointwise: add holds the value in every cell of the portion (in a `one` slot a different
value held there is a conflict); supersede replaces what the slot (or, for `many`, the named value)
holds there; retract removes it. The expected versions at a transaction are the maximal runs of cells
per value, because the ledger coalesces same-value versions (docs/ARCHITECTURE.md).

After every step the machine compares current truth, as-of answers at random (valid_at, known_at)
pairs and scope sets, and every slot's full history (each version's value, valid interval, transaction
interval and opening/closing transactions against the model's belief at every committed transaction).

Run longer with FACTLEDGER_HYPOTHESIS=thorough.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from factledger.ledger import ConflictError, Ledger, LedgerError, NotFoundError, ValidationError
from factledger.ledger.ops import Batch, LineError, apply_batch, parse_operation
from factledger.ledger.store import MAX_CLOCK_SKEW
from tests.strategies import DEFINE_LINES, GRID, PROBE_TIMES, SETUP_TX_TIME, SLOTS, Slot, canonical, operations

PROFILES = {
    "ci": settings(max_examples=100, stateful_step_count=40, deadline=None, report_multiple_bugs=False,
                  suppress_health_check=[HealthCheck.too_slow]),
    "thorough": settings(max_examples=1500, stateful_step_count=60, deadline=None, suppress_health_check=list(HealthCheck)),
}
PG_CI_EXAMPLES = 25
FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
# Transaction times the clock and explicit tx_times are set to: the grid, midpoints, and 1 µs before.
TX_TIMES = tuple(t for t in PROBE_TIMES if t >= GRID[0])


def shift(text: str, micros: int) -> str:
    moment = datetime.strptime(text, FORMAT).replace(tzinfo=timezone.utc) + timedelta(microseconds=micros)
    return moment.strftime(FORMAT)


def value_key(text: str) -> str:
    return " ".join(text.casefold().split())


class Refused(Exception):
    def __init__(self, kind: type[LedgerError]):
        self.kind = kind


# slot -> value key -> the cells (named by their start boundary) where the value is held
State = dict[Slot, dict[str, set[str]]]


@dataclass
class Committed:
    tx_id: int
    tx_time: str
    state: State


@dataclass
class PointModel:
    boundaries: list[str] = field(default_factory=list)  # sorted; cells are [b_i, b_i+1) and [b_last, +inf)
    committed: list[Committed] = field(default_factory=list)
    working: State | None = None

    def states(self) -> list[State]:
        return [c.state for c in self.committed] + ([self.working] if self.working is not None else [])

    def boundary(self, instant: str) -> None:
        """Split the cell holding `instant` at it, in every state (meaning unchanged)."""
        if instant in self.boundaries:
            return
        before = [b for b in self.boundaries if b < instant]
        self.boundaries = sorted(self.boundaries + [instant])
        if not before:
            return  # nothing is ever held before the first boundary: every valid_from is a boundary
        parent = before[-1]
        for state in self.states():
            for held in state.values():
                for cells in held.values():
                    if parent in cells:
                        cells.add(instant)

    def cells(self, start: str | None, end: str | None) -> set[str]:
        for instant in (start, end):
            if instant is not None:
                self.boundary(instant)
        return {b for b in self.boundaries if (start is None or b >= start) and (end is None or b < end)}

    def cell_at(self, instant: str) -> str | None:
        before = [b for b in self.boundaries if b <= instant]
        return before[-1] if before else None

    @property
    def last_tx_time(self) -> str:
        return self.committed[-1].tx_time

    def state_known_at(self, known_at: str) -> State:
        known = [c.state for c in self.committed if c.tx_time <= known_at]
        return known[-1] if known else {}

    # -- one transaction ---------------------------------------------------------------------------

    def tx_time_for(self, explicit: str | None, clock_now: str, principal: str) -> str:
        """DESIGN §2 and §8: strictly increasing; explicit times only from imports, later than the last
        one and no further ahead of the clock than the skew."""
        if explicit is not None:
            if not principal.startswith("import:") or explicit <= self.last_tx_time:
                raise Refused(ValidationError)
            if explicit > shift(clock_now, int(MAX_CLOCK_SKEW.total_seconds() * 1_000_000)):
                raise Refused(ValidationError)
            return explicit
        return clock_now if clock_now > self.last_tx_time else shift(self.last_tx_time, 1)

    def apply(self, state: State, line: dict, tx_time: str) -> None:
        slot = next(s for s in SLOTS if (s.scope, s.subject, s.predicate) == (line["scope"], line["subject"], line["predicate"]))
        held = state.setdefault(slot, {})
        if line.get("all_valid_time"):
            start, end = None, None
        else:
            start = canonical(line["valid_from"]) if "valid_from" in line else tx_time
            end = canonical(line["valid_to"]) if "valid_to" in line else None
            if end is not None and end <= start:
                raise Refused(ValidationError)
        portion = self.cells(start, end)
        value = value_key(line["value"]) if "value" in line else None
        op = line["op"]
        if op == "add":
            if slot.cardinality == "one" and any(portion & cells for v, cells in held.items() if v != value):
                raise Refused(ConflictError)
            held.setdefault(value, set()).update(portion)
        elif op == "supersede":
            replaces = value_key(line["replaces"]) if "replaces" in line else None
            if slot.cardinality == "many":
                if replaces is None:
                    raise Refused(ValidationError)
                targets = [replaces]
            else:
                targets = list(held)
                if replaces is not None and not portion & held.get(replaces, set()):
                    raise Refused(NotFoundError)
            if not any(portion & held.get(v, set()) for v in targets):
                raise Refused(NotFoundError)
            for v in targets:
                held.get(v, set()).difference_update(portion)
            held.setdefault(value, set()).update(portion)
        else:  # retract
            targets = [value] if value is not None else list(held)
            if not any(portion & held.get(v, set()) for v in targets):
                raise Refused(NotFoundError)
            for v in targets:
                held.get(v, set()).difference_update(portion)

    def expected_versions(self, state: State, slot: Slot) -> set[tuple[str, str, str | None]]:
        """The maximal runs of cells per value: (value key, valid_from, valid_to)."""
        runs = set()
        index = {b: i for i, b in enumerate(self.boundaries)}
        for value, cells in state.get(slot, {}).items():
            positions = sorted(index[c] for c in cells)
            run_start = None
            for n, pos in enumerate(positions):
                if run_start is None:
                    run_start = pos
                if n + 1 == len(positions) or positions[n + 1] != pos + 1:
                    end = self.boundaries[pos + 1] if pos + 1 < len(self.boundaries) else None
                    runs.add((value, self.boundaries[run_start], end))
                    run_start = None
        return runs

    def held_at(self, state: State, slot: Slot, valid_at: str) -> set[str]:
        cell = self.cell_at(valid_at)
        return {v for v, cells in state.get(slot, {}).items() if cell is not None and cell in cells}


class Clock:
    def __init__(self, now: str):
        self.now = now

    def __call__(self) -> str:
        return self.now


slot_operations = st.sampled_from(SLOTS).flatmap(lambda slot: operations(slot))
instant_choice = st.one_of(
    st.sampled_from(PROBE_TIMES).map(lambda t: ("at", t)),
    st.tuples(st.just("tx"), st.integers(0, 40), st.sampled_from((-1, 0, 1))),
    st.tuples(st.just("boundary"), st.integers(0, 40), st.sampled_from((-1, 0, 1))),
)
scope_sets = st.sampled_from([None, ("home",), ("work",), ("home", "work"), ("elsewhere",)])


class LedgerMachine(RuleBasedStateMachine):
    # Where each example's fresh ledger lives (set per engine by the test below).
    new_location: Callable[[], object] = staticmethod(lambda: ":memory:")

    def __init__(self) -> None:
        super().__init__()
        self.clock = Clock(GRID[0])
        self.ledger = Ledger.open(self.new_location(), clock=self.clock)
        self.model = PointModel()
        batch = Batch([parse_operation(dict(line, tx_time=SETUP_TX_TIME) if n == 0 else dict(line)) for n, line in enumerate(DEFINE_LINES)])
        result = apply_batch(self.ledger, batch, principal="import:setup")
        self.model.committed.append(Committed(result.id, result.tx_time, {}))

    def teardown(self) -> None:
        self.ledger.close()

    # -- helpers -----------------------------------------------------------------------------------

    def resolve(self, choice: tuple) -> str:
        """A probe instant: a fixed time, or a committed tx time / a model boundary, give or take 1 µs."""
        if choice[0] == "at":
            return choice[1]
        _, index, offset = choice
        pool = [c.tx_time for c in self.model.committed] if choice[0] == "tx" else self.model.boundaries or list(GRID)
        return shift(pool[index % len(pool)], offset)

    def footprint(self) -> tuple:
        one = self.ledger.storage.one
        return tuple(
            one(sql)[0]
            for sql in (
                "SELECT COUNT(*) FROM claims",
                "SELECT MAX(id) FROM claims",
                "SELECT COUNT(*) FROM claims WHERE tx_to IS NULL",
                "SELECT COUNT(*) FROM transactions",
                "SELECT COUNT(*) FROM predicates",
            )
        )

    def check_as_of(self, valid_at: str, known_at: str, scopes: tuple[str, ...] | None) -> None:
        state = self.model.state_known_at(known_at)
        expected = {
            (s.scope, s.subject.casefold(), s.predicate, v)
            for s in SLOTS
            if scopes is None or s.scope in scopes
            for v in self.model.held_at(state, s, valid_at)
        }
        got = self.ledger.as_of(list(scopes) if scopes else None, valid_at=valid_at, known_at=known_at)
        assert {(v.scope, v.subject_key, v.predicate, v.value_key) for v in got} == expected, (valid_at, known_at, scopes)
        for v in got:
            assert v.valid_from <= valid_at and (v.valid_to is None or valid_at < v.valid_to)
            assert v.tx_from <= known_at and (v.tx_to is None or known_at < v.tx_to)

    # -- rules -------------------------------------------------------------------------------------

    @rule(to=st.sampled_from(TX_TIMES))
    def set_clock(self, to: str) -> None:
        """The wall clock moves to any grid time: forward, or back."""
        self.clock.now = to

    def aim(self, data: st.DataObject, line: dict) -> dict:
        """Often point a supersede or retract at a value the slot holds, so fewer are refused."""
        slot = next(s for s in SLOTS if (s.scope, s.subject, s.predicate) == (line["scope"], line["subject"], line["predicate"]))
        held = {v: cells for v, cells in self.model.committed[-1].state.get(slot, {}).items() if cells}
        if line["op"] == "add" or not held or not data.draw(st.booleans()):
            return line
        value = data.draw(st.sampled_from(sorted(held)))
        if line["op"] == "supersede" and slot.cardinality == "many":
            line["replaces"] = value
        elif line["op"] == "retract" and "value" in line:
            line["value"] = value
        if not line.get("all_valid_time") and data.draw(st.booleans()):
            line["valid_from"] = data.draw(st.sampled_from(sorted(held[value])))
            if "valid_to" in line and canonical(line["valid_to"]) <= line["valid_from"]:
                del line["valid_to"]
        return line

    @rule(
        data=st.data(),
        explicit=st.one_of(
            st.none(),
            st.none(),
            # ahead of the last tx time: 1 µs, 4 minutes (within the clock skew), 1 and 6 hours
            st.sampled_from((1, 240_000_000, 3_600_000_000, 6 * 3_600_000_000)).map(lambda micros: ("ahead", micros)),
            st.sampled_from(TX_TIMES).map(lambda t: ("at", t)),
        ),
        spelling=st.sampled_from(("canonical", "Z")),
        # Explicit tx times are for imports; from anyone else they are refused.
        principal=st.sampled_from(("import:machine", "import:machine", "agent:machine", "digest:machine")),
    )
    def transact(self, data: st.DataObject, explicit: tuple | None, spelling: str, principal: str) -> None:
        """One transaction of 1-4 operations, at the clock's time or an explicit tx_time."""
        count = data.draw(st.sampled_from((1, 1, 2, 2, 3, 4)), label="operations")
        lines = [self.aim(data, dict(data.draw(slot_operations))) for _ in range(count)]
        if explicit is not None:
            stamp = explicit[1] if explicit[0] == "at" else shift(self.model.last_tx_time, explicit[1])
            lines[0]["tx_time"] = stamp if spelling == "canonical" or not stamp.endswith(".000000Z") else stamp[:19] + "Z"
            explicit = canonical(lines[0]["tx_time"])
        self.model.working = copy.deepcopy(self.model.committed[-1].state)
        expected_error: type[LedgerError] | None = None
        try:
            tx_time = self.model.tx_time_for(explicit, self.clock.now, principal)
            for line in lines:
                self.model.apply(self.model.working, line, tx_time)
        except Refused as refused:
            expected_error = refused.kind
        before = self.footprint()
        batch = Batch([parse_operation(line, n) for n, line in enumerate(lines, start=1)])
        try:
            result = apply_batch(self.ledger, batch, principal=principal, reason="stateful")
        except LineError as exc:
            assert expected_error is not None, f"the ledger refused what the model accepts: {exc}"
            assert isinstance(exc.error, expected_error), f"expected {expected_error.__name__}, got {exc!r}"
            assert self.footprint() == before, "a refused transaction wrote something"
            self.model.working = None
            return
        assert expected_error is None, f"the ledger accepted what the model refuses ({expected_error.__name__}): {lines}"
        assert result.tx_time == tx_time
        assert result.id > self.model.committed[-1].tx_id
        self.model.committed.append(Committed(result.id, result.tx_time, self.model.working))
        self.model.working = None
        # The transaction's own report agrees with what the database holds.
        opened_now = {v.id for v in self.ledger_versions() if v.tx_from == tx_time}
        closed_now = {v.id for v in self.ledger_versions() if v.tx_to == tx_time}
        assert {v.id for v in result.opened} == opened_now
        assert set(result.closed) == closed_now

    @rule(valid_at=instant_choice, known_at=instant_choice, scopes=scope_sets)
    def probe_as_of(self, valid_at: tuple, known_at: tuple, scopes: tuple[str, ...] | None) -> None:
        self.check_as_of(self.resolve(valid_at), self.resolve(known_at), scopes)

    # -- invariants: after every step ----------------------------------------------------------------

    def ledger_versions(self):
        return [e.version for s in SLOTS for e in self.ledger.history([s.scope], subject=s.subject, predicate=s.predicate)]

    @initialize(rng=st.randoms(use_true_random=False))
    def seed_probes(self, rng) -> None:
        self.rng = rng

    @invariant()
    def as_of_matches_at_random_pairs(self) -> None:
        """Three (valid_at, known_at, scopes) probes after every step, near the interesting instants."""
        rng = getattr(self, "rng", None)
        if rng is None:
            return
        valid_pool = list(PROBE_TIMES) + self.model.boundaries
        known_pool = list(PROBE_TIMES) + [c.tx_time for c in self.model.committed]
        for _ in range(3):
            valid_at = shift(rng.choice(valid_pool), rng.choice((-1, 0, 0, 1)))
            known_at = shift(rng.choice(known_pool), rng.choice((-1, 0, 0, 1)))
            self.check_as_of(valid_at, known_at, rng.choice([None, ("home",), ("work",), ("home", "work")]))

    @invariant()
    def current_matches(self) -> None:
        latest = self.model.committed[-1].state
        expected = {(s.scope, s.predicate, v) for s in SLOTS for v in self.model.held_at(latest, s, self.clock.now)}
        got = {(v.scope, v.predicate, v.value_key) for v in self.ledger.current()}
        assert got == expected, f"current truth at {self.clock.now}"

    @invariant()
    def history_matches(self) -> None:
        times = {c.tx_time: c.tx_id for c in self.model.committed}
        for slot in SLOTS:
            entries = self.ledger.history([slot.scope], subject=slot.subject, predicate=slot.predicate)
            order = [(e.version.tx_from, e.version.valid_from, e.version.id) for e in entries]
            assert order == sorted(order), "history is in transaction order"
            for e in entries:
                v = e.version
                assert times.get(v.tx_from) == v.opened_by == e.opened.id, "opened by a committed transaction"
                if v.tx_to is None:
                    assert v.closed_by is None and e.closed is None
                else:
                    assert times.get(v.tx_to) == v.closed_by == e.closed.id and v.tx_from < v.tx_to
            for committed in self.model.committed:
                t = committed.tx_time
                believed = [e.version for e in entries if e.version.tx_from <= t and (e.version.tx_to is None or t < e.version.tx_to)]
                shapes = {(v.value_key, v.valid_from, v.valid_to) for v in believed}
                expected = self.model.expected_versions(committed.state, slot)
                assert len(shapes) == len(believed), f"duplicate versions believed at {t}"
                assert shapes == expected, f"{slot} believed at {t}"
                # A version unchanged by a transaction is kept, not closed and written again.
                for e in entries:
                    v = e.version
                    if v.tx_to == t:
                        assert (v.value_key, v.valid_from, v.valid_to) not in expected, f"{v} closed and rewritten at {t}"


@pytest.mark.slow  # 100 state-machine runs of 40 steps on SQLite, 25 on PostgreSQL
@pytest.mark.both_engines
def test_ledger_matches_reference_model(ledger_engine, new_ledger_location) -> None:
    profile = PROFILES[os.environ.get("FACTLEDGER_HYPOTHESIS", "ci")]
    if ledger_engine == "sqlite":
        machine = type("SqliteLedgerMachine", (LedgerMachine,), {})  # in memory, as fast as it gets
    else:
        machine = type("PostgresLedgerMachine", (LedgerMachine,), {"new_location": staticmethod(new_ledger_location)})
        # A database per example and a round trip per statement: fewer examples keep the default run fast
        # (FACTLEDGER_HYPOTHESIS=thorough runs the full count on both).
        if profile is PROFILES["ci"]:
            profile = settings(profile, max_examples=PG_CI_EXAMPLES)
    run_state_machine_as_test(machine, settings=profile)
