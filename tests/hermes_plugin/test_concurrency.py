"""Several provider instances in one process (Hermes's gateway): concurrent turns, tool writes and
prefetches on one ledger file; each instance's facts land in its own scope and nothing is lost."""

from __future__ import annotations

import json
import threading
import time

import pytest

from factledger.hermes_plugin import shared_recall
from factledger.hermes_plugin.paths import HermesPaths
from factledger.hermes_plugin.provider import FactledgerMemoryProvider
from factledger.hermes_plugin.settings import ProviderSettings
from factledger.ledger import Ledger

pytestmark = pytest.mark.both_engines  # and with database_url on PostgreSQL: one pool for every instance

CITIES = ["Paris", "Rome", "Oslo", "Lima", "Quito", "Cairo"]


def open_provider(home, user: str, chat: str) -> FactledgerMemoryProvider:
    provider = FactledgerMemoryProvider()
    provider.initialize(
        f"session-{user}-{chat}", hermes_home=str(home), platform="slack", agent_context="primary",
        agent_identity="default", agent_workspace="hermes", user_id=user, chat_id=chat, chat_type="dm",
    )
    return provider


@pytest.fixture
def provider_home(request, tmp_path, ledger_engine):
    """A Hermes home whose settings name a fresh PostgreSQL database on the postgres run."""
    if ledger_engine == "postgres":
        paths = HermesPaths(tmp_path)
        paths.state_dir.mkdir(parents=True)
        paths.settings_path.write_text(f"database_url: '{request.getfixturevalue('postgres_url')}'\n", "utf-8")
    return tmp_path


def server_connections(url: str, *, settle: float = 5.0) -> list:
    """The server's connections to this test's database but the one asking, once any just closed have
    gone (a backend leaves pg_stat_activity a moment after its client closes)."""
    import psycopg

    deadline = time.monotonic() + settle
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            rows = conn.execute("SELECT state, query FROM pg_stat_activity WHERE datname = current_database()"
                                " AND pid <> pg_backend_pid()").fetchall()
            if not rows or time.monotonic() > deadline:
                return rows
            time.sleep(0.05)


def test_concurrent_instances_keep_their_facts_apart(hermes_runtime, provider_home):
    tmp_path = provider_home
    location = ProviderSettings.load(HermesPaths(tmp_path).settings_path).ledger_location(HermesPaths(tmp_path).ledger_path)
    users = ["u0", "u1", "u2", "u3"]
    providers = {(u, c): open_provider(tmp_path, u, c) for u in users for c in ("a", "b")}
    pool = shared_recall.pool_for(location)
    assert (pool is not None) == isinstance(location, str)  # PostgreSQL: every instance on one pool
    errors: list[BaseException] = []
    start = threading.Barrier(len(providers))

    def converse(user: str, chat: str, provider: FactledgerMemoryProvider) -> None:
        try:
            start.wait()
            offset = users.index(user) + (0 if chat == "a" else 3)
            for step in range(3):
                city = CITIES[(offset + step) % len(CITIES)]
                provider.prefetch(f"where do I live {step}")
                provider.sync_turn(f"I live in {city}.", "Noted.")
                reply = json.loads(provider.handle_tool_call(
                    "factledger_remember", {"subject": "user", "predicate": "likes", "value": f"{user}-{chat}-song-{step}"}
                ))
                assert reply["status"] == "applied", reply
                if step == 1:
                    provider.on_pre_compress([])
        except BaseException as exc:  # collected: an assert in a thread would otherwise vanish
            errors.append(exc)

    threads = [threading.Thread(target=converse, args=(u, c, p)) for (u, c), p in providers.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    scopes = {key: p.session.scopes for key, p in providers.items()}
    sessions = [p.session for p in providers.values()]
    for provider in providers.values():
        provider.on_session_end([])
        provider.shutdown()
    assert [s.worker.failures for s in sessions] == [0] * len(sessions), [s.worker.last_error for s in sessions]
    assert [s.prefetch_failures for s in sessions] == [0] * len(sessions)
    if pool is not None:  # the last instance's shutdown closed the pool: no connection left behind
        assert shared_recall.pool_for(location) is None and pool.status().size == 0
        assert server_connections(location) == []

    with Ledger.open(location, read_only=True) as ledger:
        for user in users:
            durable = scopes[(user, "a")].durable
            assert durable == scopes[(user, "b")].durable
            likes = {c.value for c in ledger.current([durable], predicate="likes")}
            assert likes == {f"{user}-{chat}-song-{step}" for chat in "ab" for step in range(3)}
            lives = ledger.current([durable], predicate="lives_in")
            assert len(lives) == 1 and lives[0].value in CITIES
        backlog = ledger.storage.one("SELECT COUNT(*) FROM journal WHERE digested_at IS NULL")[0]
        assert backlog == 0
        assert len({c.scope for c in ledger.current()}) == len(users)
