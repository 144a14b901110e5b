"""`factledger mcp` driven by the MCP SDK's own client, over stdio, against a real server process.

One server process per engine (module fixture: SQLite, then PostgreSQL on the throwaway cluster),
started with two served scopes and the journal tool; every test talks to it through one ClientSession
held open in an anyio portal. The ledger is seeded through the front door before the server starts and
read back through it afterwards, so a test checks what the server really stored.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from anyio.from_thread import BlockingPortal, start_blocking_portal  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.shared.exceptions import McpError  # noqa: E402
from mcp.types import CallToolResult  # noqa: E402

import factledger  # noqa: E402
from factledger.digest import confirm, list_proposals, reject  # noqa: E402

FACTLEDGER = Path(sys.executable).with_name("factledger")
OPERATOR = "operator:test"
TOOLS = {"search", "current", "as_of", "history", "remember", "forget", "profile", "journal"}


@dataclass
class Served:
    location: str
    portal: BlockingPortal
    session: ClientSession

    def call(self, tool: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        return self.portal.call(self.session.call_tool, tool, arguments or {})

    def ok(self, tool: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = self.call(tool, arguments)
        assert not result.isError, result.content
        assert result.structuredContent is not None
        # The text content is the same object as JSON (clients without structured output read it).
        assert json.loads(result.content[0].text) == result.structuredContent  # type: ignore[union-attr]
        return result.structuredContent

    def error(self, tool: str, arguments: dict[str, Any]) -> str:
        result = self.call(tool, arguments)
        assert result.isError, result.structuredContent
        return result.content[0].text  # type: ignore[union-attr]


def _seed(location: str) -> None:
    with factledger.open(location, principal=OPERATOR) as db:
        db.define("lives_in", "one", template="{subject} lives in {value}")
        db.define("works_at", "one", template="{subject} works at {value}")
        db.define("likes", "many", template="{subject} likes {value}")
        db.define("uses", "many", template="{subject} uses {value}")
        db.add("alice", "user", "lives_in", "Paris", valid_from="2024-01-01")
        db.supersede("alice", "user", "lives_in", "Berlin", valid_from="2024-06-01")
        db.add("alice", "user", "works_at", "Acme", valid_from="2023-01-01")
        db.add("alice", "user", "likes", "green tea", valid_from="2024-02-01")
        db.add("team", "project", "uses", "PostgreSQL", valid_from="2024-03-01")
        db.add("bob", "user", "lives_in", "Oslo", valid_from="2024-01-01")  # not served: must never show
        confirm(db.ledger, db.current(["alice"], predicate="works_at")[0].id, principal=OPERATOR)


@asynccontextmanager
async def _client(location: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=str(FACTLEDGER),
        args=["--db", location, "mcp", "--scope", "alice", "--scope", "team", "--agent", "claude", "--journal"],
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def _postgres_location(request: pytest.FixtureRequest) -> str:
    from tests.conftest import _drop_postgres_database, _fresh_postgres_database

    cluster = request.getfixturevalue("postgres_cluster")
    name = _fresh_postgres_database(cluster, request.getfixturevalue("postgres_template"))
    request.addfinalizer(lambda: _drop_postgres_database(cluster, name))
    return cluster.url(name)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    if request.param == "sqlite":
        location = str(tmp_path_factory.mktemp("mcp") / "ledger.db")
    else:
        location = _postgres_location(request)
    _seed(location)
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(_client(location)) as session:
        yield Served(location, portal, session)


def test_lists_typed_described_tools_and_the_prompt(served: Served) -> None:
    listed = served.portal.call(served.session.list_tools).tools
    assert {t.name for t in listed} == TOOLS
    for tool in listed:
        assert tool.description and tool.outputSchema, tool.name
        properties = tool.inputSchema["properties"]
        assert all(p.get("description") for p in properties.values()), tool.name
    search = next(t for t in listed if t.name == "search")
    assert search.inputSchema["required"] == ["query"]
    assert search.annotations is not None and search.annotations.readOnlyHint
    assert "'alice', 'team'" in search.inputSchema["properties"]["scope"]["description"]
    prompts = served.portal.call(served.session.list_prompts).prompts
    assert [p.name for p in prompts] == ["recalled"]


def test_search_labels_facts_and_reads_only_served_scopes(served: Served) -> None:
    answer = served.ok("search", {"query": "where does the user live"})
    facts = [r for r in answer["results"] if r["kind"] == "fact"]
    assert facts and facts[0]["value"] == "Berlin"
    assert {r["scope"] for r in answer["results"]} <= {"alice", "team"}
    assert all(r["value"] != "Oslo" for r in facts)  # bob's scope is not served
    then = served.ok("search", {"query": "where does the user live", "valid_at": "2024-03-01", "kinds": ["fact"]})
    assert [r["value"] for r in then["results"] if r["predicate"] == "lives_in"] == ["Paris"]


def test_current_as_of_history_profile(served: Served) -> None:
    now = served.ok("current", {"subject": "user", "predicate": "lives_in"})
    assert [f["value"] for f in now["facts"]] == ["Berlin"] and now["total"] == 1
    march = served.ok("as_of", {"valid_at": "2024-03-01", "predicate": "lives_in"})
    assert [f["value"] for f in march["facts"]] == ["Paris"]
    team = served.ok("current", {"scope": "team"})
    assert [f["value"] for f in team["facts"]] == ["PostgreSQL"]
    history = served.ok("history", {"subject": "user", "predicate": "lives_in"})
    values = [(v["value"], v["current_belief"]) for v in history["versions"]]
    assert ("Paris", False) in values and ("Berlin", True) in values and all(v != "Oslo" for v, _ in values)
    profile = served.ok("profile", {"limit": 2})
    assert len(profile["facts"]) == 2 and profile["total"] >= 4 and profile["more"] == profile["total"] - 2
    assert all(f["subject"] == "user" for f in profile["facts"])
    empty = served.ok("current", {"predicate": "lives_inn"})
    assert empty["facts"] == [] and any("lives_in" in n for n in empty["notes"])


def test_bad_arguments_name_the_field_and_the_server_stays_up(served: Served) -> None:
    assert served.error("search", {}).startswith("query:")
    assert served.error("search", {"query": "x", "limit": 500}).startswith("limit:")
    assert served.error("search", {"query": "x", "valid_at": "last tuesday"}).startswith("valid_at:")
    assert served.error("current", {"subject": "user", "principal": "operator:me"}).startswith("principal: unknown argument")
    assert served.error("as_of", {}).startswith("valid_at:")
    assert served.error("remember", {"subject": "user", "predicate": "likes", "value": "x", "cardinality": "few"}).startswith("cardinality:")
    assert served.error("forget", {"subject": "user", "predicate": "pet"}).startswith("predicate: nothing to forget")
    result = served.portal.call(served.session.call_tool, "accept", {"proposal": 1})
    assert result.isError and result.content[0].text.startswith("tool:")  # type: ignore[union-attr]
    assert served.ok("current", {"predicate": "lives_in"})["total"] == 1  # still answering


def test_a_scope_not_served_is_refused_for_reads_and_writes(served: Served) -> None:
    for tool, arguments in [
        ("search", {"query": "where does the user live", "scope": "bob"}),
        ("current", {"scope": "bob"}),
        ("history", {"subject": "user", "predicate": "lives_in", "scope": "bob"}),
        ("remember", {"subject": "user", "predicate": "likes", "value": "skiing", "scope": "bob"}),
    ]:
        message = served.error(tool, arguments)
        assert message.startswith("scope: 'bob' is not served here"), (tool, message)
    with factledger.open(served.location, principal=OPERATOR) as db:
        assert [c.value for c in db.current(["bob"])] == ["Oslo"]  # nothing written there


def test_remember_goes_through_the_review_policy(served: Served) -> None:
    saved = served.ok("remember", {"subject": "user", "predicate": "likes", "value": "jazz", "reason": "said so"})
    assert saved["status"] == "applied" and saved["scope"] == "alice" and saved["tx"]
    # An operator-confirmed value: the model's change is held, never applied by itself.
    held = served.ok("remember", {"subject": "user", "predicate": "works_at", "value": "Initech"})
    assert held["status"] == "held" and held["tx"] is None
    with factledger.open(served.location, principal=OPERATOR) as db:
        assert [c.value for c in db.current(["alice"], predicate="works_at")] == ["Acme"]
        jazz = db.history("user", "likes", scopes=["alice"])
        assert any(e.version.value == "jazz" and e.opened.principal == "agent:claude" for e in jazz)
        reject(db.ledger, held["proposal_id"], principal=OPERATOR, reason="not true")
    again = served.ok("remember", {"subject": "user", "predicate": "works_at", "value": "Initech"})
    assert again["status"] == "rejected" and "rejected" in again["message"]
    found = served.ok("search", {"query": "jazz", "kinds": ["fact"]})
    assert any(r["value"] == "jazz" for r in found["results"])


def test_forget_retracts_and_an_erase_is_only_a_request(served: Served) -> None:
    served.ok("remember", {"subject": "user", "predicate": "likes", "value": "durian", "valid_from": "2024-01-01"})
    gone = served.ok("forget", {"subject": "user", "predicate": "likes", "value": "durian", "reason": "changed taste"})
    assert gone["status"] == "applied"
    request = served.ok("forget", {"subject": "user", "predicate": "likes", "value": "green tea", "erase": True,
                                   "reason": "private"})
    assert request["status"] == "held" and request["tx"] is None
    with factledger.open(served.location, principal=OPERATOR) as db:
        likes = {c.value for c in db.current(["alice"], predicate="likes")}
        assert "durian" not in likes and "green tea" in likes  # the erase request changed nothing
        pending = {p.id: p for p in list_proposals(db.ledger, status="pending")}
        assert "erase requested by agent:claude" in pending[request["proposal_id"]].reason
    assert served.error("forget", {"subject": "user", "predicate": "likes", "value": "green tea", "erase": True,
                                   "valid_from": "2024-01-01"}).startswith("valid_from:")


def test_journal_gives_episodes_and_digested_facts(served: Served) -> None:
    answer = served.ok("journal", {"text": "I have a dog named Rex.", "session": "chat-1", "said_at": "2025-01-05"})
    assert answer["status"] == "stored" and answer["digested"] == 1 and answer["proposals"].get("applied", 0) >= 1
    found = served.ok("search", {"query": "dog named Rex"})
    kinds = {r["kind"] for r in found["results"]}
    assert kinds == {"fact", "said"}, found
    said = next(r for r in found["results"] if r["kind"] == "said")
    assert said["session"] == "chat-1" and said["scope"] == "alice"
    refused = served.ok("journal", {"text": "my api key is sk-" + "a" * 40})
    assert refused["status"] in ("refused", "redacted") and "a" * 40 not in json.dumps(refused)


def test_recalled_prompt_is_the_bounded_block(served: Served) -> None:
    prompt = served.portal.call(served.session.get_prompt, "recalled", {"query": "where does the user live?"})
    text = prompt.messages[0].content.text  # type: ignore[union-attr]
    assert "Berlin" in text and "Oslo" not in text
    nothing = served.portal.call(served.session.get_prompt, "recalled", {"query": "quantum chromodynamics lecture"})
    assert nothing.messages[0].content.text == ""  # type: ignore[union-attr]
    with pytest.raises(McpError, match="scope: 'bob' is not served here"):
        served.portal.call(served.session.get_prompt, "recalled", {"query": "where does the user live?", "scope": "bob"})


def test_hermes_mcp_client_configuration_drives_the_server(served: Served, tmp_path: Path) -> None:
    """Hermes's own MCP client (tools.mcp_tool), configured by config.yaml's mcp_servers, in a subprocess."""
    pytest.importorskip("tools.mcp_tool")
    if not served.location.endswith(".db") and os.environ.get("FACTLEDGER_THOROUGH") != "1":
        # Hermes is only a client here (the engine behind the server is the SDK tests' business): the
        # PostgreSQL run of this test costs a Hermes import and a server start, so it is opt-in.
        pytest.skip("Hermes's MCP client on PostgreSQL: set FACTLEDGER_THOROUGH=1")
    probe = Path(__file__).parents[1] / "support" / "hermes_mcp_client.py"
    done = subprocess.run([sys.executable, str(probe), str(tmp_path), str(FACTLEDGER), served.location],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(report["expected"]) == len(TOOLS - {"journal"}) and set(report["expected"]) <= set(report["tools"])
    current = json.loads(report["calls"]["current"])
    assert "Berlin" in json.dumps(current) and "Oslo" not in json.dumps(current)
    remembered = json.loads(report["calls"]["remember"])
    assert "applied" in json.dumps(remembered)
    assert "is not served here" in report["calls"]["other_scope"]
    with factledger.open(served.location, principal=OPERATOR) as db:
        sailing = db.history("user", "likes", scopes=["alice"])
        assert any(e.version.value == "sailing" and e.opened.principal == "agent:hermes" for e in sailing)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_needs_the_token_and_its_own_host_name(tmp_path: Path) -> None:
    """--http on loopback: the page's token and Host rules, then the SDK's streamable HTTP client (SQLite)."""
    import httpx
    from mcp.client.streamable_http import streamable_http_client

    from factledger.cli.ui.security import write_token_file

    location = str(tmp_path / "ledger.db")
    _seed(location)
    token_file = tmp_path / "token"
    write_token_file(token_file, "s3cret-token-for-the-test")
    port = _free_port()
    server = subprocess.Popen([str(FACTLEDGER), "--db", location, "mcp", "--scope", "alice", "--http", "--port", str(port),
                               "--token-file", str(token_file)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        with httpx.Client(timeout=5) as http:
            for _ in range(300):  # until it listens (no fixed sleep: each try waits only for the refusal)
                try:
                    anonymous = http.post(url, json={})
                    break
                except httpx.ConnectError:
                    assert server.poll() is None, server.stderr.read().decode()  # type: ignore[union-attr]
                    time.sleep(0.05)
            assert anonymous.status_code == 401 and anonymous.text.startswith("authorization:")
            rebound = http.post(url, json={}, headers={"Host": "attacker.example", "Authorization": "Bearer s3cret-token-for-the-test"})
            assert rebound.status_code == 421 and rebound.text.startswith("host:")

        async def drive() -> dict[str, Any]:
            headers = {"Authorization": "Bearer s3cret-token-for-the-test"}
            async with httpx.AsyncClient(headers=headers, timeout=30) as client, \
                    streamable_http_client(url, http_client=client) as (read, write, _), ClientSession(read, write) as session:
                await session.initialize()
                assert {t.name for t in (await session.list_tools()).tools} == TOOLS - {"journal"}
                result = await session.call_tool("current", {"predicate": "lives_in"})
                assert not result.isError and result.structuredContent is not None
                return result.structuredContent

        with start_blocking_portal() as portal:
            answer = portal.call(drive)
        assert [f["value"] for f in answer["facts"]] == ["Berlin"]
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.parametrize(("args", "message"), [
    (["mcp"], "Missing option '--scope'"),
    (["mcp", "--scope", " "], "error: scope: must be a non-empty string"),
    (["mcp", "--scope", "a", "--scope", "a"], "error: scope: a scope is named twice"),
    (["mcp", "--scope", "a", "--agent", ""], "error: principal:"),
    (["mcp", "--scope", "a", "--token-file", "t"], "error: token-file: --token-file and --allow-host apply only with --http"),
])
def test_the_command_refuses_bad_options_before_serving(tmp_path: Path, args: list[str], message: str) -> None:
    from click.testing import CliRunner

    from factledger.cli.main import cli

    location = tmp_path / "ledger.db"
    result = CliRunner().invoke(cli, ["--db", str(location), *args])
    assert result.exit_code == 2 and message in result.output, result.output
    assert not location.exists()  # refused before the ledger was opened or created
