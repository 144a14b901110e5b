"""Tombstones, rejections and confirmations are keyed with a per-ledger secret (migration 0007), so a
stored hash cannot confirm a guessed value without the secret; ledgers made before 0007 are keyed."""

from __future__ import annotations

import sqlite3

import pytest

from factledger.digest.memory import active_rejection, record_rejection
from factledger.ledger import ErasedError, Ledger, ScopeFamily, ValidationError
from factledger.ledger.keys import keyed_hash, unkeyed_content_hash
from factledger.schema import migrations

from .erase_engines import engine_ledger  # noqa: F401 (a fixture)


def _seed(ledger: Ledger) -> None:
    with ledger.transaction(principal="operator:test") as tx:
        tx.define("lives_in", "one")
        tx.add("s", "Ann", "lives_in", "Paris", valid_from="2020-01-01")


@pytest.fixture(params=["sqlite", "postgres"])
def two_locations(request, tmp_path):
    """Two ledgers, each migrated on its first open (so each draws its own secret; a copy of the test
    template database would share the template's)."""
    if request.param == "sqlite":
        yield [tmp_path / "a.db", tmp_path / "b.db"]
        return
    import psycopg

    cluster = request.getfixturevalue("postgres_cluster")
    first = request.getfixturevalue("empty_postgres_url")
    name = f"factledger_keyed_{tmp_path.name.lower().replace('-', '_')}"[:60]
    with psycopg.connect(cluster.dsn(), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    yield [first, cluster.url(name)]
    with psycopg.connect(cluster.dsn(), autocommit=True) as admin:
        admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


def test_a_tombstone_does_not_confirm_a_guess_without_the_secret(two_locations):
    hashes = []
    locations = two_locations
    for location in locations:
        with Ledger.open(location) as ledger:
            _seed(ledger)
            result = ledger.erase(scope="s", subject="Ann", predicate="lives_in", value="Paris", principal="operator:dpo")
            guess = unkeyed_content_hash("s", "ann", "lives_in", "paris")
            stored = [r[0] for r in ledger.storage.query("SELECT content_hash FROM tombstones")]
            assert stored == result.tombstones and guess not in stored
            assert stored == [keyed_hash(ledger.secret, guess)]
            hashes.append(stored[0])
    assert hashes[0] != hashes[1]  # another ledger, another secret


def test_the_secret_is_fixed(fresh_ledger, ledger_path):
    assert len(fresh_ledger.secret) == 64
    raw = sqlite3.connect(ledger_path)
    try:
        for statement in ("UPDATE ledger_secret SET secret = hex(zeroblob(32))", "DELETE FROM ledger_secret"):
            with pytest.raises(sqlite3.IntegrityError, match="secret"):
                raw.execute(statement)
    finally:
        raw.close()


def test_a_reason_that_names_the_value_is_refused_and_nothing_is_erased(engine_ledger):
    fresh_ledger = engine_ledger
    _seed(fresh_ledger)
    with pytest.raises(ValidationError) as info:
        fresh_ledger.erase(scope="s", subject="Ann", predicate="lives_in", value="Paris", principal="operator:dpo", reason="she left PARIS")
    assert info.value.field == "reason"
    assert [c.value for c in fresh_ledger.current(["s"])] == ["Paris"]
    assert fresh_ledger.storage.one("SELECT COUNT(*) FROM tombstones")[0] == 0


def test_a_family_prefix_covers_scopes_opened_after_the_erase(engine_ledger):
    fresh_ledger = engine_ledger
    _seed(fresh_ledger)
    family = ScopeFamily(exact=("s",), prefixes=("s/chat/",))
    fresh_ledger.erase(scope="s", subject="Ann", predicate="lives_in", value="Paris", principal="operator:dpo", family=family)
    with pytest.raises(ErasedError):
        with fresh_ledger.transaction(principal="agent:hermes") as tx:
            tx.add("s/chat/new", "Ann", "lives_in", "paris", valid_from="2024-01-01")
    assert fresh_ledger.redact_erased("s/chat/new", "Paris, again") == ("[erased], again", 1)
    assert fresh_ledger.redact_erased("t", "Paris, again") == ("Paris, again", 0)  # not the person's scope
    with fresh_ledger.transaction(principal="agent:hermes") as tx:  # another slot, another scope: allowed
        tx.add("s/chat/new", "Bob", "lives_in", "Paris", valid_from="2024-01-01")
        tx.add("t", "Ann", "lives_in", "Paris", valid_from="2024-01-01")


def test_rejections_are_keyed(fresh_ledger):
    rejection = record_rejection(
        fresh_ledger, scope="s", subject="Ann", predicate="likes", value="Jazz", principal="operator:dpo", reason="", proposal_id=None
    )
    stored = fresh_ledger.storage.one("SELECT content_hash FROM rejections WHERE id = ?", (rejection.id,))[0]
    assert stored == fresh_ledger.content_key("s", "ann", "likes", "jazz")
    assert stored != unkeyed_content_hash("s", "ann", "likes", "jazz")
    assert active_rejection(fresh_ledger, "s", "ANN", "likes", " jazz ") == rejection


def test_a_ledger_made_before_0007_is_keyed(tmp_path):
    path = tmp_path / "old.db"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)")
    for migration in migrations("sqlite"):
        if migration.version < 7:
            raw.executescript(migration.sql)
            raw.execute("INSERT INTO schema_migrations VALUES (?, ?, '2025-01-01T00:00:00.000000Z')", (migration.version, migration.name))
    legacy = unkeyed_content_hash("s", "ann", "lives_in", "paris")
    raw.execute("INSERT INTO tombstones VALUES (?, '2025-01-01T00:00:00.000000Z', 'operator:dpo', '')", (legacy,))
    raw.execute(
        "INSERT INTO rejections (content_hash, scope, subject_key, predicate, value_key, value, rejected_by, rejected_at)"
        " VALUES (?, 's', 'ann', 'likes', 'jazz', 'jazz', 'operator:dpo', '2025-01-01T00:00:00.000000Z')",
        (unkeyed_content_hash("s", "ann", "likes", "jazz"),),
    )
    raw.commit()
    raw.close()
    with Ledger.open(path) as ledger:
        # The keyed twin is what is looked up; the old row stays (tombstones are append-only).
        assert {r[0] for r in ledger.storage.query("SELECT content_hash FROM tombstones")} == {legacy, keyed_hash(ledger.secret, legacy)}
        assert ledger.is_erased("s", "Ann", "lives_in", "Paris")
        assert active_rejection(ledger, "s", "Ann", "likes", "Jazz") is not None
        with pytest.raises(ErasedError):
            with ledger.transaction(principal="agent:hermes") as tx:
                tx.define("lives_in", "one")
                tx.add("s", "Ann", "lives_in", "Paris", valid_from="2024-01-01")
