"""A ledger for the page's tests: a slot with a supersede, a correction and a retract; a stored
`<script>` value; a held proposal and a value rejected and proposed again."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from factledger.digest import Digester, Journal, RulesExtractor, Turn, list_proposals, reject
from factledger.ledger import Ledger

SCRIPT = "<script>document.title='owned'</script>"


def seed(db: Path) -> dict[str, int]:
    """Returns ids the tests need: the held proposal, the rejected-again proposal and its rejection."""
    with Ledger.open(db) as ledger:
        journal = Journal(ledger)

        def say(text: str, at: str) -> None:
            journal.append(Turn(scope="chat", text=text, said_at=at, session="s1"))

        say("I live in Lisbon", "2026-01-01T10:00:00Z")
        say("I moved to Paris in March", "2026-04-01T10:00:00Z")  # a supersede
        Digester(ledger, RulesExtractor()).run()
        with ledger.transaction(principal="operator:ann", reason="correction") as tx:  # a correction of the past
            tx.supersede("chat", "user", "lives_in", "Porto", valid_from="2026-02-01", valid_to="2026-03-01")
        with ledger.transaction(principal="operator:ann", reason="retract") as tx:  # a retract
            tx.retract("chat", "user", "lives_in", "Paris", valid_from="2026-06-01")
        with ledger.transaction(principal="operator:ann") as tx:
            tx.add("chat", "user", "likes", SCRIPT)
        say("I love jazz", "2026-07-01T10:00:00Z")
        say("I live in Berlin", "2026-07-02T10:00:00Z")
        Digester(ledger, RulesExtractor(), policy="strict").run()
        jazz = next(p for p in list_proposals(ledger) if p.value == "jazz")
        rejected = reject(ledger, jazz.id, principal="operator:ann", reason="not a fan")
        say("I love jazz!", "2026-07-03T10:00:00Z")
        Digester(ledger, RulesExtractor(), policy="strict").run()
        again = next(p for p in list_proposals(ledger, status="rejected_again"))
        berlin = next(p for p in list_proposals(ledger) if p.value == "Berlin")
        return {"berlin": berlin.id, "again": again.id, "rejection": rejected.rejection_id}


def seed_backlog(db: Path, count: int, *, scope: str = "chat") -> list[int]:
    """`count` held proposals (strict policy) of `likes` values, said over two sessions: the first half
    in "s-a", the rest in "s-b"; values thing0, thing1, …. Returns their ids, oldest first."""
    with Ledger.open(db) as ledger:
        journal = Journal(ledger)
        for i in range(count):
            session = "s-a" if i < count // 2 else "s-b"
            journal.append(Turn(scope=scope, text=f"I love thing{i}", said_at=f"2026-08-01T10:{i // 60:02d}:{i % 60:02d}Z", session=session))
        Digester(ledger, RulesExtractor(), policy="strict").run()
        held = [p for p in list_proposals(ledger, status="pending", scope=scope, limit=count + 100) if p.value and p.value.startswith("thing")]
        return sorted(p.id for p in held)


@contextmanager
def serving(app, *, log_level: str = "warning") -> Iterator[int]:
    """`app` under uvicorn in a thread, on a loopback socket bound and listening before the server starts:
    the kernel picks the port and it is never released, so parallel test workers cannot race for it, and a
    request made before uvicorn is ready waits in the queue instead of being refused. Yields the port."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    srv = uvicorn.Server(uvicorn.Config(app, log_level=log_level))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 120
        while not srv.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert srv.started, "uvicorn did not start serving the page"
        yield sock.getsockname()[1]
    finally:
        srv.should_exit = True
        thread.join(timeout=30)
        sock.close()


AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"


def axe_violations(driver, *, impacts: tuple[str, ...] = ("serious", "critical")) -> list[str]:
    """axe-core (vendored, see vendor/axe-core/README.md) run in the page the Selenium `driver` shows:
    its violations of the given impacts, each as "rule-id (impact): help: the first nodes' selectors"."""
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(AXE.read_text(encoding="utf-8"))
    driver.set_script_timeout(120)
    found = driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(function (r) {"
        "  done(r.violations.map(function (v) { return {id: v.id, impact: v.impact, help: v.help,"
        "    nodes: v.nodes.slice(0, 3).map(function (n) { return n.target.join(' '); })}; }));"
        "}, function (e) { done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]); });"
    )
    return [f"{v['id']} ({v['impact']}): {v['help']}: {', '.join(v['nodes'])}" for v in found if v["impact"] in impacts]
