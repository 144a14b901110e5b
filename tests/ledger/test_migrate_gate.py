"""The migrate gate (schema/sqlite/0014, schema/postgres/0007) against a second client: raw sqlite3 and raw
psycopg, no factledger code. It cannot be used to forge into a non-empty ledger: it opens only on an
empty one; the secret and chain start move only before the first transaction; a hole (the hash row of
an erased version) is written only by the latest, operator's transaction before its chain row; a copy
that committed leaves nothing it could be used for. On PostgreSQL it works only in the transaction that
opened it and cannot be committed open."""

from __future__ import annotations

import sqlite3

import pytest

from factledger.ledger.migrate import migrate
from factledger.ledger.times import utc_now
from tests.cli.migrate_fixtures import build_full_ledger, canonical_dump

T1 = "2025-01-01T00:00:00.000000Z"
T2 = "2025-01-02T00:00:00.000000Z"
HASH = "a" * 64
SECRET = "0" * 64


class Raw:
    """One raw connection: `refused(statements)` runs them in one transaction, expects the last to fail
    with `message`, and rolls back; `run` commits."""

    def __init__(self, engine: str, location):
        self.engine = engine
        if engine == "sqlite":
            self.conn = sqlite3.connect(location, isolation_level=None)
            self.errors = (sqlite3.IntegrityError,)
        else:
            psycopg = pytest.importorskip("psycopg")
            self.conn = psycopg.connect(location, autocommit=True)
            self.errors = (psycopg.errors.IntegrityConstraintViolation,)

    def one(self, sql: str):
        return self.conn.execute(sql).fetchone()[0]

    def _begin(self):
        self.conn.execute("BEGIN")

    def run(self, statements: list[str]) -> None:
        self._begin()
        for sql in statements:
            self.conn.execute(sql)
        self.conn.execute("COMMIT")

    def refused(self, statements: list[str], message: str, *, at_commit: bool = False) -> None:
        self._begin()
        try:
            with pytest.raises(self.errors, match=message):
                for sql in statements:
                    self.conn.execute(sql)
                if at_commit:
                    self.conn.execute("COMMIT")
        finally:
            if not at_commit:
                self.conn.execute("ROLLBACK")


@pytest.fixture(scope="module")
def full_ledger(tmp_path_factory):
    path = tmp_path_factory.mktemp("gate") / "full.db"
    build_full_ledger(path)
    return path


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request):
    return request.param


@pytest.fixture
def copied(engine, full_ledger, tmp_path, request):
    """A committed copy of the full ledger (erased versions included) on `engine`."""
    target = tmp_path / "copy.db" if engine == "sqlite" else request.getfixturevalue("postgres_url")
    assert migrate(full_ledger, target, pairs=10, seed=1).ok
    return target


@pytest.fixture
def empty(engine, tmp_path, request):
    """A fresh, empty ledger on `engine`, created by factledger (every migration applied)."""
    if engine == "postgres":
        return request.getfixturevalue("postgres_url")
    from factledger.ledger import Ledger

    Ledger.open(tmp_path / "empty.db").close()
    return tmp_path / "empty.db"


def _gate(engine: str, through: int) -> str:
    return f"INSERT INTO migrate_gate (id, through_tx) VALUES (1, {through})"


def _hole(claim_id: int, opened_by: int, erased_by: int, salt: str = "NULL") -> str:
    return ("INSERT INTO version_hashes (claim_id, opened_by, closed_by, erased_by, salt, content_hash)"
            f" VALUES ({claim_id}, {opened_by}, NULL, {erased_by}, {salt}, '{HASH}')")


def test_a_committed_copy_cannot_be_forged_into(engine, copied):
    raw = Raw(engine, copied)
    before = canonical_dump(copied)
    latest = raw.one("SELECT MAX(id) FROM transactions")
    raw.refused([_gate(engine, latest)], "the migrate gate opens only on an empty ledger")
    raw.refused([_gate(engine, 10**6)], "the migrate gate opens only on an empty ledger")
    # without the gate: no hole, no new chain start, no new secret
    raw.refused([_hole(10**6, 1, latest)], "a version hash is written by the transaction that opened the version")
    raw.refused(["UPDATE chain_start SET legacy_through = 1000"], "the chain start is fixed")
    raw.refused([f"UPDATE ledger_secret SET secret = '{SECRET}'"], "the ledger secret never changes")
    # an operator's new transaction, the latest, cannot write a hole either (the gate is closed)
    raw.refused([f"INSERT INTO transactions (id, tx_time, principal) VALUES ({latest + 1}, '{utc_now()}',"
                 " 'operator:mallory')", _hole(10**6, 1, latest + 1)], "a version hash is written by the transaction")
    assert canonical_dump(copied) == before


def test_on_an_empty_ledger_the_gate_allows_only_the_copy_s_steps(engine, empty):
    raw = Raw(engine, empty)
    open_gate = _gate(engine, 3)
    tx = lambda i, who="operator:alice": (  # noqa: E731
        f"INSERT INTO transactions (id, tx_time, principal) VALUES ({i}, '2025-01-0{i}T00:00:00.000000Z', '{who}')")
    # the first step: the source's secret and chain start, before any transaction
    raw.refused([open_gate, tx(1), f"UPDATE ledger_secret SET secret = '{SECRET}'"], "the ledger secret never changes")
    raw.refused([open_gate, tx(1), "UPDATE chain_start SET legacy_through = 1"], "the chain start is fixed")
    raw.refused([open_gate, "UPDATE chain_start SET id = 2"], "the chain start is fixed")
    # a hole: only by the latest, operator's transaction, before its chain row, without a salt, of no claim
    raw.refused([open_gate, tx(1), tx(2, "agent:hermes"), _hole(1, 1, 2)], "a version hash is written")
    raw.refused([open_gate, tx(1), tx(2), tx(3), _hole(1, 1, 2)], "a version hash is written")
    raw.refused([open_gate, tx(1), tx(2), _hole(1, 1, 2, salt="'ab'")], "a version hash is written")
    raw.refused([open_gate, tx(1), tx(2), _hole(1, 2, 2)], "a version hash is written")
    raw.refused([open_gate, tx(1), tx(2), f"INSERT INTO tx_chain (tx_id, chain_hash) VALUES (2, '{HASH}')",
                 _hole(1, 1, 2)], "a version hash is written")
    # the copy declared its last transaction: nothing past it while the gate is open
    raw.refused([open_gate, tx(1), tx(2), tx(3), tx(4)], "the migrate gate is open")
    raw.refused([open_gate, "UPDATE migrate_gate SET through_tx = 9"], "opened and closed, never changed")
    # the gate, once something is there, does not open again
    raw.refused([tx(1), open_gate], "opens only on an empty ledger")
    # and what it does allow
    raw.run([open_gate, f"UPDATE ledger_secret SET secret = '{SECRET}'", "UPDATE chain_start SET legacy_through = 0",
             tx(1), tx(2), _hole(1, 1, 2), "DELETE FROM migrate_gate"])
    assert raw.one("SELECT secret FROM ledger_secret") == SECRET
    assert raw.one("SELECT erased_by FROM version_hashes WHERE claim_id = 1") == 2


def test_postgres_gate_is_of_its_own_transaction_and_closed_at_commit(postgres_url):
    raw = Raw("postgres", postgres_url)
    raw.refused([_gate("postgres", 1)], "the migrate gate must be closed before the copy commits", at_commit=True)
    assert raw.one("SELECT count(*) FROM migrate_gate") == 0
    raw.refused(["INSERT INTO migrate_gate (id, through_tx, opened_in) VALUES (1, 1, '1'::xid8)"],
                "opens only on an empty ledger, for the opening transaction")
