"""Latency of each `factledger mcp` tool call, beside the same read through the CLI and the same call
in process, all in one run over one ledger.

    .venv/bin/python evals/bench_mcp.py [--users 200] [--repeat 30] [--cli-repeat 5] [--db URL] [--json]

Columns, per tool (milliseconds, p50 / p95):
- mcp: one `call_tool` round trip to a running `factledger mcp` server over stdio, through the SDK's
  ClientSession (JSON-RPC, argument validation, the tool, the structured result);
- client check: the part of `mcp` that is the Python SDK client's own validation of each structured
  result against the tool's output schema (jsonschema, which re-checks the schema every call; other
  clients may not validate at all). The server skips that check on its side: its results are the
  pydantic models the schemas were made from;
- in-process: the tool's body (`mcp_server.server.Tools`) called directly on a Database in this
  process: the baseline the server adds its transport and validation to;
- cli: the equivalent `factledger … --json` command as a script would run it (a process per call, so
  interpreter start and imports count; writes have no CLI equivalent through the review policy: '-').

The ledger: `users` scopes x 5 facts (one superseded) and 4 journal turns each; the server serves one
of those scopes, as a client would use it. `--db postgresql://…` runs it on PostgreSQL (the database
must exist and be empty).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FACTLEDGER = Path(sys.executable).with_name("factledger")
CITIES = ["Berlin", "Lisbon", "Oslo", "Lyon", "Krakow", "Seville", "Porto", "Turin"]
HOBBIES = ["hiking", "chess", "sailing", "climbing", "knitting", "the cello", "poetry"]


def build(location: str, users: int) -> None:
    import factledger

    with factledger.open(location, principal="operator:bench") as db:
        db.define("lives_in", "one", template="{subject} lives in {value}")
        db.define("works_at", "one", template="{subject} works at {value}")
        db.define("likes", "many", template="{subject} likes {value}")
        turns = []
        for u in range(users):
            scope = f"user{u}"
            with db.transaction(reason="bench") as tx:
                tx.add(scope, "user", "lives_in", CITIES[u % len(CITIES)], valid_from="2024-01-01")
                tx.add(scope, "user", "works_at", f"Company {u}", valid_from="2023-01-01")
                tx.add(scope, "user", "likes", HOBBIES[u % len(HOBBIES)], valid_from="2024-02-01")
                tx.add(scope, "user", "likes", HOBBIES[(u + 3) % len(HOBBIES)], valid_from="2024-02-01")
            db.supersede(scope, "user", "lives_in", CITIES[(u + 1) % len(CITIES)], valid_from="2024-06-01")
            turns += [{"scope": scope, "text": f"I went {HOBBIES[(u + i) % len(HOBBIES)]} with my sister on day {i}.",
                       "role": "user", "session": f"s{u}", "said_at": f"2025-01-0{i + 1}"} for i in range(4)]
        db.journal_many(turns)
        db.recall.sync()


# tool -> (arguments, CLI arguments or None)
CALLS: dict[str, tuple[dict[str, Any], list[str] | None]] = {
    "search": ({"query": "where do I live"}, ["search", "where do I live", "--scope", "{scope}", "--limit", "8"]),
    "current": ({"subject": "user"}, ["current", "--scope", "{scope}", "--subject", "user"]),
    "as_of": ({"valid_at": "2024-03-01"}, ["as-of", "--scope", "{scope}", "--valid-at", "2024-03-01"]),
    "history": ({"subject": "user", "predicate": "lives_in"},
                ["history", "--scope", "{scope}", "--subject", "user", "--predicate", "lives_in"]),
    "profile": ({}, ["memories", "--scope", "{scope}"]),
    "remember": ({"subject": "user", "predicate": "likes", "value": "tea #{i}"}, None),
    "forget": ({"subject": "user", "predicate": "likes", "value": "tea #{i}"}, None),
}


def _fill(value: Any, i: int, scope: str) -> Any:
    if isinstance(value, str):
        return value.replace("{i}", str(i)).replace("{scope}", scope)
    if isinstance(value, dict):
        return {k: _fill(v, i, scope) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, i, scope) for v in value]
    return value


def timed(fn: Callable[[int], Any], repeat: int) -> list[float]:
    out = []
    for i in range(repeat):
        start = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - start) * 1000)
    return out


def figures(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {"p50_ms": round(statistics.median(ms), 2), "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2)}


def in_process(location: str, scope: str, repeat: int) -> dict[str, dict[str, float]]:
    from factledger.database import Database
    from factledger.mcp_server.server import ServerOptions, Tools

    db = Database(location, principal="agent:bench")
    tools = Tools(db, ServerOptions(scopes=(scope,), principal="agent:bench"))
    bodies: dict[str, Callable[[dict[str, Any]], Any]] = {
        "search": lambda a: tools.search(a["query"], valid_at=None, known_at=None, limit=8, scope=None, kinds=("fact", "episode")),
        "current": lambda a: tools.facts(subject="user", predicate=None, valid_at=None, known_at=None, limit=30, scope=None),
        "as_of": lambda a: tools.facts(subject=None, predicate=None, valid_at="2024-03-01", known_at=None, limit=30, scope=None),
        "history": lambda a: tools.history("user", "lives_in", scope=None),
        "profile": lambda a: tools.profile(limit=30, scope=None),
        "remember": lambda a: tools.remember("user", "likes", a["value"], valid_from=None, valid_to=None, cardinality=None,
                                             reason="", scope=None),
        "forget": lambda a: tools.forget("user", "likes", value=a["value"], valid_from=None, all_valid_time=False,
                                         erase=False, reason="", scope=None),
    }
    try:
        bodies["search"]({"query": "warm up"})  # the vector lane loads on first use, in both columns
        return {name: figures(timed(lambda i, n=name: bodies[n](_fill(CALLS[n][0], i, scope) | {"value": f"inproc {i}"}), repeat))
                for name in CALLS}
    finally:
        db.close()


def over_mcp(location: str, scope: str, repeat: int) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    import anyio
    import jsonschema
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def run() -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
        params = StdioServerParameters(command=str(FACTLEDGER), args=["--db", location, "mcp", "--scope", scope, "--agent", "bench"])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            schemas = {t.name: t.outputSchema for t in (await session.list_tools()).tools}
            await session.call_tool("search", {"query": "warm up"})
            out, checks = {}, {}
            for name, (arguments, _) in CALLS.items():
                ms, check = [], []
                for i in range(repeat):
                    start = time.perf_counter()
                    result = await session.call_tool(name, _fill(arguments, i, scope))
                    ms.append((time.perf_counter() - start) * 1000)
                    assert not result.isError, (name, result.content)
                    # What the SDK's client does with each result, timed alone: jsonschema.validate, which
                    # checks the schema itself against the metaschema every time.
                    start = time.perf_counter()
                    jsonschema.validate(result.structuredContent, schemas[name])
                    check.append((time.perf_counter() - start) * 1000)
                out[name], checks[name] = figures(ms), figures(check)
            return out, checks

    return anyio.run(run)


def over_cli(location: str, scope: str, repeat: int) -> dict[str, dict[str, float] | None]:
    out: dict[str, dict[str, float] | None] = {}
    for name, (_, cli) in CALLS.items():
        if cli is None:
            out[name] = None
            continue
        command = [str(FACTLEDGER), "--db", location, *_fill(cli, 0, scope), "--json"]

        def once(_: int, command: list[str] = command) -> None:
            subprocess.run(command, check=True, capture_output=True)

        out[name] = figures(timed(once, repeat))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--cli-repeat", type=int, default=5)
    parser.add_argument("--db", default=None, help="a postgresql:// URL of an empty database (default: a SQLite file)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        location = args.db or str(Path(tmp) / "ledger.db")
        started = time.perf_counter()
        build(location, args.users)
        built = time.perf_counter() - started
        scope = f"user{args.users // 2}"
        mcp, client_check = over_mcp(location, scope, args.repeat)
        report = {
            "ledger": {"engine": "postgresql" if args.db else "sqlite", "users": args.users, "build_s": round(built, 1)},
            "mcp": mcp,
            "client_check": client_check,
            "in_process": in_process(location, scope, args.repeat),
            "cli": over_cli(location, scope, args.cli_repeat),
        }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    ledger = report["ledger"]
    print(f"{ledger['engine']} ledger: {ledger['users']} scopes x 5 facts + 4 turns (built in {ledger['build_s']} s); "
          f"mcp/in-process x{args.repeat}, cli x{args.cli_repeat}; ms p50 / p95")
    print(f"{'tool':<10} {'mcp (stdio)':>16} {'client check':>16} {'in-process':>16} {'cli (process)':>16}")
    for name in CALLS:
        cells = []
        for column in ("mcp", "client_check", "in_process", "cli"):
            f = report[column][name]
            cells.append("-" if f is None else f"{f['p50_ms']:.1f} / {f['p95_ms']:.1f}")
        print(f"{name:<10} {cells[0]:>16} {cells[1]:>16} {cells[2]:>16} {cells[3]:>16}")


if __name__ == "__main__":
    main()
