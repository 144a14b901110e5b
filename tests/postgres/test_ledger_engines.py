"""The ledger on PostgreSQL beside SQLite: one history gives the same answers and the same hash chain on
both engines, and the chain's tables refuse raw edits on PostgreSQL as they do on SQLite."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings

from factledger.ledger import BusyError, Ledger, StorageError, chain
from factledger.ledger.engines import ledger_recorder
from tests.strategies import GRID, PROBE_TIMES, SLOTS, apply_history, histories

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install -e '.[postgres]')")


def _answers(ledger: Ledger) -> tuple:
    """Everything a reader can ask, in engine-neutral form."""
    as_of = [
        [v.to_dict() for v in ledger.as_of(valid_at=valid_at, known_at=known_at)]
        for valid_at in PROBE_TIMES[::5]
        for known_at in GRID[::3]
    ]
    histories_ = [
        [e.to_dict() for e in ledger.history(subject=s.subject, predicate=s.predicate)] for s in SLOTS
    ]
    return ledger.scopes(), ledger.current(), as_of, histories_, ledger.slots(), ledger.slots(search="a")


@pytest.mark.parametrize("ledger_engine", ["postgres"])
def test_one_history_gives_the_same_answers_and_chain_on_both_engines(new_ledger_location, monkeypatch):
    @settings(max_examples=12, deadline=None)
    @given(histories())
    def check(history) -> None:
        results = []
        for location in (":memory:", new_ledger_location()):
            salts = itertools.count()
            monkeypatch.setattr(chain, "new_salt", lambda: f"{next(salts):032x}")  # the one random input
            with Ledger.open(location) as ledger:
                applied = apply_history(ledger, history)
                problems, count, head = chain.check(ledger.storage)
                assert problems == [] and count == len(applied.committed)
                links = ledger_recorder(ledger.storage).chain_links()
                results.append((_answers(ledger), links, head, [r.tx_time for _, r in applied.committed]))
        sqlite, postgres = results
        assert postgres == sqlite

    check()


@pytest.fixture
def chained(postgres_url):
    """A ledger with two transactions (a supersede), and a raw second client on the same database."""
    with Ledger.open(postgres_url) as ledger:
        with ledger.transaction(principal="operator:t") as tx:
            tx.define("lives_in", "one")
            tx.add("s", "Ann", "lives_in", "Paris", valid_from="2020-01-01")
        with ledger.transaction(principal="operator:t") as tx:
            tx.supersede("s", "Ann", "lives_in", "Rome", valid_from="2022-01-01")
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        yield conn


CHAIN_REFUSALS = [
    ("editing a chain row", "UPDATE tx_chain SET chain_hash = repeat('0', 64) WHERE tx_id = 1", "append-only"),
    ("deleting a chain row", "DELETE FROM tx_chain WHERE tx_id = 2", "append-only"),
    ("truncating the chain", "TRUNCATE tx_chain CASCADE", "append-only"),
    ("a chain row out of order", "INSERT INTO tx_chain (tx_id, chain_hash) VALUES (1, repeat('0', 64))", "in order"),
    ("editing a version hash", "UPDATE version_hashes SET content_hash = repeat('0', 64) WHERE claim_id = 1",
     "closed or erased"),
    ("dropping a salt outside erase", "UPDATE version_hashes SET salt = NULL WHERE claim_id = 2", "closed or erased"),
    ("erasing by a non-latest transaction",
     "UPDATE version_hashes SET erased_by = 1, salt = NULL WHERE claim_id = 2", "closed or erased"),
    ("deleting a version hash", "DELETE FROM version_hashes WHERE claim_id = 1", "never deleted"),
    ("moving the chain start", "UPDATE chain_start SET legacy_through = 5", "fixed"),
    ("deleting the chain start", "DELETE FROM chain_start", "fixed"),
]


@pytest.mark.parametrize("what,statement,fragment", CHAIN_REFUSALS, ids=[r[0] for r in CHAIN_REFUSALS])
def test_the_chain_tables_refuse_raw_edits(chained, what, statement, fragment):
    before = chained.execute("SELECT array_agg(chain_hash ORDER BY tx_id) FROM tx_chain").fetchone()
    with pytest.raises(psycopg.errors.IntegrityConstraintViolation) as caught:
        chained.execute(statement)
    assert fragment in str(caught.value)
    assert chained.execute("SELECT array_agg(chain_hash ORDER BY tx_id) FROM tx_chain").fetchone() == before


def test_closing_a_version_is_mirrored_into_its_hash_row(chained):
    rows = chained.execute("SELECT claim_id, opened_by, closed_by FROM version_hashes ORDER BY claim_id").fetchall()
    assert rows == [(1, 1, 2), (2, 2, None), (3, 2, None)]


def test_a_version_written_outside_factledger_is_found_by_the_chain(postgres_url):
    with Ledger.open(postgres_url) as ledger:
        with ledger.transaction(principal="operator:t") as tx:
            tx.add("s", "Ann", "likes", "tea")
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            # A second client disables the hash table's guard for its own session, as an owner could.
            conn.execute("SET session_replication_role = replica")
            conn.execute("UPDATE claims SET value = 'coffee' WHERE id = 1")
        problems, count, _ = chain.check(ledger.storage)
    assert count == 1 and [p.problem for p in problems] == ["content differs from its recorded hash: edited in place"]


def test_open_takes_a_url_and_read_only_refuses_writes(postgres_url):
    with Ledger.open(postgres_url) as writer:
        with writer.transaction(principal="operator:t") as tx:
            tx.add("s", "Ann", "likes", "tea")
    with Ledger.open(postgres_url, read_only=True) as reader:
        assert reader.storage.engine == "postgres"
        assert [v.value for v in reader.current()] == ["tea"]
        with pytest.raises(StorageError, match="read-only"):
            with reader.transaction(principal="operator:t") as tx:
                tx.add("s", "Ann", "likes", "cake")


def test_a_writer_waiting_past_the_timeout_for_the_head_is_busy_and_writes_nothing(postgres_url):
    with Ledger.open(postgres_url) as holder, Ledger.open(postgres_url, timeout=0.2) as waiter:
        with holder.transaction(principal="operator:a") as tx:
            tx.add("s", "Ann", "likes", "tea")
            with pytest.raises(BusyError):
                with waiter.transaction(principal="operator:b") as other:
                    other.add("s", "Ann", "likes", "cake")
        assert [v.value for v in waiter.current()] == ["tea"]
        with waiter.transaction(principal="operator:b") as other:  # the turn is free again
            other.add("s", "Ann", "likes", "cake")
        assert sorted(v.value for v in holder.current()) == ["cake", "tea"]
