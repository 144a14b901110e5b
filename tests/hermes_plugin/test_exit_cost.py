"""What a short session leaves for later, and that nothing of it is lost.

A one-question process (`hermes chat -q`) must exit fast, so the work that can wait does: the vector
index's rows stay in its outbox for the next process that loads the vector lane, and turns whose digest the
exit did not wait for (a process that ended first, a slow digest model, `digest.exit_wait_seconds: 0`)
stay in the journal. The next session digests them when it opens, on its worker: what the short
session said is a fact there, and its recall shows it.
"""

from __future__ import annotations

import pytest

from factledger.digest import Journal
from factledger.hermes_plugin.scripted_model import ModelReply

pytestmark = pytest.mark.both_engines  # each test also runs with database_url on PostgreSQL

CLI = dict(platform="cli")


def backlog(hermes) -> int:
    with hermes.ledger() as ledger:
        return Journal(ledger).backlog_size()


def test_a_turn_a_fast_exit_left_undigested_is_a_fact_in_the_next_session(hermes):
    # The worker would digest on its own only after a full batch or 10 minutes: within this test only
    # an exit or a start digests.
    hermes.update_settings(digest={"batch_size": 16, "max_delay_seconds": 600, "exit_wait_seconds": 0})
    server = hermes.server
    server.push(ModelReply.say("Noted, Initech."))
    first = hermes.chat(**CLI)
    first.say("I work at Initech.")
    assert first.agent._memory_manager.flush_pending(timeout=30)  # Hermes's sync_turn worker has journaled it
    durable = first.provider.session.scopes.durable
    # The process ends here, before any digest (a short session's exit that did not wait): the turn is
    # in the journal, committed, and no fact holds it yet.
    assert backlog(hermes) == 2
    with hermes.ledger() as ledger:
        assert ledger.current([durable]) == []

    server.push(lambda request: ModelReply.say(request.memory_context()))
    second = hermes.chat(**CLI)
    # Opening the next session digested what the first left, on its worker, with no turn said yet.
    assert second.provider.session.worker.wait(60)
    assert backlog(hermes) == 0
    with hermes.ledger() as ledger:
        assert [(c.subject, c.predicate, c.value) for c in ledger.current([durable])] == [("user", "works_at", "Initech")]
    second.say("Where do I work?")
    assert "user works at Initech" in server.requests[-1].memory_context()
    first.end()  # the first session's own exit, later: nothing was left for it


def test_an_exit_that_waits_for_nothing_still_loses_no_turn(hermes):
    hermes.update_settings(digest={"exit_wait_seconds": 0})
    hermes.server.push(ModelReply.say("Noted."))
    first = hermes.chat(**CLI)
    first.say("I live in Lisbon.")
    first.end()  # on_session_end and shutdown wait for no digest
    # Digested or not by now (this process lives on, so its worker may have finished), the turn is kept;
    # the next session has it as a fact either way.
    second = hermes.chat(**CLI)
    assert second.provider.session.worker.wait(60)
    with hermes.ledger() as ledger:
        assert [(c.predicate, c.value) for c in ledger.current()] == [("lives_in", "Lisbon")]
        assert Journal(ledger).backlog_size() == 0


HEAVY = ("numpy", "lancedb", "pyarrow", "instructor", "model2vec")  # the vector lane's and the digest model's


def test_a_short_session_never_imports_the_vector_lane_or_the_digest_models_modules(tmp_path):
    # Two one-question sessions in one process, as `hermes chat -q` runs them (the offline rules digest):
    # the second's prefetch recalls the first's fact from the lexical lanes, and neither start, turn nor
    # exit loads LanceDB, numpy or instructor (their rows wait in the vector outbox for a longer session).
    import subprocess
    import sys

    script = f"""
import sys
from pathlib import Path
from factledger.hermes_plugin.memory import MemorySession
from factledger.hermes_plugin.paths import HermesPaths
from factledger.hermes_plugin.scope import HermesIdentity
paths = HermesPaths(Path({str(tmp_path)!r}))
blocks = []
for number in range(2):
    session = MemorySession.open(paths, HermesIdentity.from_kwargs(f"s{{number}}", {{"platform": "cli"}}))
    session.turn_started(1)
    blocks.append(session.prefetch("Where do I work?"))
    session.record_turn("I work at Initech.", "Noted.")
    session.turn_synced()
    assert session.end_session()
    session.close()
assert blocks[0] == "" and "user works at Initech" in blocks[1], blocks
print(" ".join(name for name in {HEAVY!r} if name in sys.modules))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []


def test_a_session_loads_its_extractor_only_when_it_digests(tmp_path):
    # The rules' patterns cost ~0.5 s of CPU to import: opening a session, a prefetch and a journaled turn
    # do not load them (nor does a drain with nothing to digest); the first digest does.
    import subprocess
    import sys

    script = f"""
import sys
from pathlib import Path
from factledger.hermes_plugin.memory import MemorySession
from factledger.hermes_plugin.paths import HermesPaths
from factledger.hermes_plugin.scope import HermesIdentity
session = MemorySession.open(HermesPaths(Path({str(tmp_path)!r})), HermesIdentity.from_kwargs("s1", {{"platform": "cli"}}))
assert session.digest_pending(wait=True)  # a drain with an empty backlog
session.turn_started(1)
session.prefetch("Where do I work?")
session.record_turn("I work at Initech.", "Noted.")
session.turn_synced()
before = "factledger.digest.rules" in sys.modules
assert session.end_session()
after = "factledger.digest.rules" in sys.modules
session.close()
print(before, after)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]
