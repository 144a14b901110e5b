"""Eight processes write conflicting operations to the same slots of one PostgreSQL ledger at once.

Afterwards: every transaction a writer saw commit is there once (nothing lost, nothing duplicated), every
refusal was a ledger error, no two current versions of a slot overlap, the hash chain verifies, and the
final state is exactly what applying the committed transactions one by one, in commit order, gives on a
fresh SQLite ledger: the writes were serialised, none applied blind.
"""

from __future__ import annotations

import multiprocessing
import random
from collections import Counter

import pytest

from factledger.ledger import Ledger, LedgerError, chain

WRITERS = 8
OPS_PER_WRITER = 20
PREDICATES = {"lives_in": "one", "works_at": "one", "likes": "many"}
SUBJECTS = ("Ann", "Bob")
VALUES = ("Paris", "Rome", "Oslo")
YEARS = ("2020-01-01", "2021-01-01", "2022-01-01", "2023-01-01", None)


def _setup(ledger: Ledger) -> None:
    with ledger.transaction(principal="operator:setup") as tx:
        for name, cardinality in PREDICATES.items():
            tx.define(name, cardinality)


def _random_op(rng: random.Random) -> dict:
    predicate = rng.choice(sorted(PREDICATES))
    start, end = sorted(rng.sample(range(len(YEARS)), 2))
    op = {
        "op": rng.choice(("add", "add", "supersede", "retract")),
        "subject": rng.choice(SUBJECTS),
        "predicate": predicate,
        "value": rng.choice(VALUES),
        "valid_from": YEARS[start],
        "valid_to": YEARS[end],
    }
    if op["op"] == "supersede" and PREDICATES[predicate] == "many":
        op["replaces"] = rng.choice(VALUES)
    return op


def _apply(tx, op: dict) -> None:
    common = {"valid_from": op["valid_from"], "valid_to": op["valid_to"]}
    if op["op"] == "add":
        tx.add("s", op["subject"], op["predicate"], op["value"], **common)
    elif op["op"] == "supersede":
        tx.supersede("s", op["subject"], op["predicate"], op["value"], replaces=op.get("replaces"), **common)
    else:
        tx.retract("s", op["subject"], op["predicate"], op["value"], **common)


def _writer(url: str, seed: int, start, results) -> None:
    """One process: a stream of one-operation transactions; reports each outcome."""
    rng = random.Random(seed)
    outcomes = []
    with Ledger.open(url) as ledger:
        start.wait()
        for _ in range(OPS_PER_WRITER):
            op = _random_op(rng)
            try:
                with ledger.transaction(principal=f"agent:w{seed}", reason=repr(op)) as tx:
                    _apply(tx, op)
                outcomes.append(("committed", tx.id, op))
            except LedgerError as exc:
                outcomes.append(("refused", type(exc).__name__, str(exc)))
            except Exception as exc:  # not a ledger error: the test fails on it
                outcomes.append(("crashed", type(exc).__name__, repr(exc)))
    results.put(outcomes)


def _open_versions(ledger: Ledger) -> list[tuple]:
    rows = ledger.storage.query(
        "SELECT subject_key, predicate, value_key, valid_from, valid_to FROM claims WHERE tx_to IS NULL"
    )
    return sorted(tuple(r) for r in rows)


@pytest.mark.slow
def test_eight_processes_on_shared_slots_are_serialised_or_refused(postgres_url):
    with Ledger.open(postgres_url) as ledger:
        _setup(ledger)
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    results = context.Queue()
    writers = [context.Process(target=_writer, args=(postgres_url, seed, start, results)) for seed in range(WRITERS)]
    for process in writers:
        process.start()
    start.set()
    outcomes = [o for _ in writers for o in results.get(timeout=300)]
    for process in writers:
        process.join(timeout=60)
        assert process.exitcode == 0

    assert [o for o in outcomes if o[0] == "crashed"] == []
    committed = sorted((o[1], o[2]) for o in outcomes if o[0] == "committed")
    refusals = Counter(o[1] for o in outcomes if o[0] == "refused")
    assert len(committed) + sum(refusals.values()) == WRITERS * OPS_PER_WRITER
    assert committed and refusals, "the workload should both commit and conflict"
    assert set(refusals) <= {"ConflictError", "NotFoundError"}, refusals

    with Ledger.open(postgres_url) as ledger:
        stored = ledger.storage.query("SELECT id, reason FROM transactions WHERE id > 1 ORDER BY id")
        # Nothing lost, nothing duplicated: exactly the committed transactions, each once.
        assert [(r["id"], r["reason"]) for r in stored] == [(tx_id, repr(op)) for tx_id, op in committed]
        times = [r[0] for r in ledger.storage.query("SELECT tx_time FROM transactions ORDER BY id")]
        assert times == sorted(set(times))  # strictly increasing with the ids
        problems, count, _ = chain.check(ledger.storage)
        assert problems == [] and count == len(committed) + 1
        pg_state = _open_versions(ledger)

    # No overlap among the current versions of a `one` slot, nor of one value in a `many` slot.
    end = "9999-12-31T23:59:59.999999Z"
    for a in pg_state:
        for b in pg_state:
            same_run = a[:2] == b[:2] and (PREDICATES[a[1]] == "one" or a[2] == b[2])
            if a is not b and same_run:
                assert not (a[3] < (b[4] or end) and b[3] < (a[4] or end)), (a, b)

    # Serialised: the committed transactions, replayed one by one in commit order, give the same state.
    with Ledger.open(":memory:") as replay:
        _setup(replay)
        for _, op in committed:
            with replay.transaction(principal="agent:replay") as tx:
                _apply(tx, op)
        assert _open_versions(replay) == pg_state
