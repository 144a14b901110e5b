"""What factledger costs a Hermes turn: the provider's hot-path calls against their library baselines in
the same process, and a whole Hermes turn with and without the provider.

    .venv/bin/python evals/bench_hermes.py [--users 2000 | --claims 100000] [--path DIR] [--queries 200]
        [--spread] [--turns 8] [--cold 10] [--prefetch-only] [--json]

Figures:
- prefetch: `provider.prefetch(query)` (what Hermes calls before each turn; wall and process CPU time)
  vs `Recall.prompt_block` on the same scopes, and vs `prompt_block` searching the indexes alone
  (`local_scan_items=0`: the search before issue 13's steady-prefetch work; the blocks are compared), over a ledger of `users` x 5 facts in as many durable scopes (`--claims N`: N / 5
  users); with `--path DIR` the built Hermes home (ledger and vector index) is kept in DIR and reused by
  later runs, each of which works on a fresh copy, so repeats measure the same ledger;
- sync_turn: `provider.sync_turn(user, assistant)` vs two bare `Journal.append` calls;
- digest lag: wall time from 16 journaled turns to their facts being in the ledger and the vector index
  (the worker's flush), i.e. how soon a fact said in a turn is recalled;
- turn: a full Hermes `run_conversation` turn against the scripted model, with factledger selected and
  with no memory provider, to show the share of a turn that memory takes;
- cold start (`--cold N`): the first prefetch of N fresh processes (initialize, then one prefetch at once),
  against the same first block computed waiting for the vector lane, each in a fresh process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import shutil
import tempfile
import time
from pathlib import Path

import yaml

CITIES = ["Berlin", "Lisbon", "Oslo", "Lyon", "Krakow", "Seville", "Porto", "Turin", "Bergen", "Utrecht", "Graz", "Bilbao"]
HOBBIES = ["hiking", "baking bread", "chess", "sailing", "climbing", "knitting", "birdwatching", "the cello", "poetry"]
QUERIES = ["where do I live", "what are my hobbies", "do I like sailing", "which city", "my job", "what do I play",
           "tell me about chess", "where do I work", "anything about Oslo", "penguins in Antarctica"]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def timed(fn, repeat: int) -> list[float]:
    out = []
    for i in range(repeat):
        start = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - start) * 1000)
    return out


def summary(ms: list[float]) -> dict[str, float]:
    return {"p50_ms": round(statistics.median(ms), 3), "p95_ms": round(percentile(ms, 0.95), 3)}


def user_facts(n: int) -> list[tuple[str, str]]:
    return ([("lives_in", CITIES[n % len(CITIES)]), ("works_in", CITIES[(n + 3) % len(CITIES)])]
            + [("likes", HOBBIES[(n + k) % len(HOBBIES)]) for k in range(3)])


def populate(ledger_path: Path, scopes: list[str], *, spread: bool = False) -> int:
    """Five facts per user scope, each user's together; with `spread`, written round by round (every
    user's first fact, then every user's second, ...), so a user's facts lie far apart in id order, as
    facts learnt over months of a gateway's life do."""
    from factledger.ledger import Ledger

    order = [(n, k) for k in range(5) for n in range(len(scopes))] if spread else \
            [(n, k) for n in range(len(scopes)) for k in range(5)]
    with Ledger.open(ledger_path) as ledger:
        with ledger.transaction(principal="import:bench") as tx:
            tx.define("lives_in", "one", template="{subject} lives in {value}")
            tx.define("works_in", "one", template="{subject} works in {value}")
            tx.define("likes", "many", template="{subject} likes {value}")
            for n, k in order:
                predicate, value = user_facts(n)[k]
                tx.add(scopes[n], "user", predicate, value, valid_from="2024-01-01")
        return ledger.storage.one("SELECT COUNT(*) FROM claims")[0]


def identity(n: int) -> dict:
    return dict(platform="telegram", agent_identity="default", agent_workspace="hermes", user_id=f"user{n}",
                chat_id=f"chat{n}", chat_type="dm")


def build_home(home: Path, users: int, spread: bool = False) -> int:
    """A Hermes home whose ledger holds `users` x 5 facts, with its vector index built."""
    from factledger.hermes_plugin.scope import HermesIdentity, derive_scopes
    from factledger.ledger import Ledger
    from factledger.recall import Recall

    scopes = [derive_scopes(HermesIdentity.from_kwargs(f"s{n}", identity(n))).durable for n in range(users)]
    ledger_path = home / "factledger" / "ledger.db"
    ledger_path.parent.mkdir(parents=True, exist_ok=True)
    claims = populate(ledger_path, scopes, spread=spread)
    with Ledger.open(ledger_path) as ledger, Recall(ledger) as recall:
        recall.rebuild()  # the provider's warm-up would do it, but inside the digest's timeout
    return claims


def prepare_home(kept: Path | None, users: int, spread: bool = False) -> Path:
    """A fresh Hermes home for this run: built in place, or copied from the one kept at `kept` (built
    there first when missing), so every run starts from the same ledger."""
    home = Path(tempfile.mkdtemp(prefix="bench-hermes-"))
    if kept is None:
        build_home(home, users, spread)
        return home
    marker = kept / "bench-users.json"
    layout = {"users": users, "spread": spread}
    if marker.is_file() and {"spread": False, **json.loads(marker.read_text())} != layout:
        raise SystemExit(f"{kept} holds another ledger ({marker.read_text()}), not {layout}")
    if not marker.is_file():
        if kept.exists() and any(kept.iterdir()):
            raise SystemExit(f"{kept} is not empty and holds no benchmark ledger; name a new folder")
        kept.mkdir(parents=True, exist_ok=True)
        build_home(kept, users, spread)
        marker.write_text(json.dumps(layout))
    shutil.copytree(kept / "factledger", home / "factledger")
    return home


def provider_benchmarks(home: Path, users: int, queries: int, *, prefetch_only: bool = False, build: bool = True) -> dict:
    """The provider's hot-path figures over `home`'s ledger of `users` x 5 facts (built there first
    unless `build` is False: `prepare_home` made it)."""
    from factledger.digest import Journal, Turn
    from factledger.hermes_plugin.provider import FactledgerMemoryProvider

    if build:
        build_home(home, users)

    provider = FactledgerMemoryProvider()
    provider.initialize("s0", hermes_home=str(home), **identity(0))
    session = provider.session
    assert session.digest_pending(wait=True)  # the warm-up drains the outbox into the vector index
    readable = session.scopes.readable

    # The search as it ran before small visible sets were searched from their items: the indexes alone.
    from factledger.recall import Recall

    indexes_only = Recall(session.recall.ledger, config=session.recall.config.but(local_scan_items=0))
    indexes_only.warm()
    provider.prefetch("warm up")
    session.recall.prompt_block("warm up", readable)
    indexes_only.prompt_block("warm up", readable)
    ours: list[float] = []
    ours_cpu: list[float] = []
    base: list[float] = []
    before: list[float] = []
    differ = 0
    for i in range(queries):  # interleaved, so all see the same caches and the same machine load
        query = QUERIES[i % len(QUERIES)]
        cpu = time.process_time()
        ours += timed(lambda _: provider.prefetch(query), 1)
        ours_cpu.append((time.process_time() - cpu) * 1000)
        block: list[str] = []
        base += timed(lambda _: block.append(session.recall.prompt_block(query, readable)), 1)
        before += timed(lambda _: block.append(indexes_only.prompt_block(query, readable)), 1)
        differ += block[0] != block[1]
    indexes_only.close()
    sample = provider.prefetch("where do I live")
    claims = session.recall.recorder.item_counts()["fact"]
    report = {
        "claims": claims,
        "scopes": users,
        "prefetch": {"provider": summary(ours), "provider_cpu": summary(ours_cpu), "baseline_prompt_block": summary(base),
                     "ratio_p50": round(statistics.median(ours) / statistics.median(base), 3),
                     "prompt_block_indexes_only": summary(before), "blocks_differing_from_indexes_only": differ},
        "sample_block": sample,
    }
    if prefetch_only:
        provider.shutdown()
        return report

    journal = Journal(session.writer)
    turns = max(50, queries // 2)
    sync: list[float] = []
    append: list[float] = []
    for i in range(turns):
        sync += timed(lambda _: provider.sync_turn(f"Just chatting, message {i}.", f"Reply {i}."), 1)
        append += timed(lambda _: (journal.append(Turn(scope=readable[-1], text=f"Baseline message {i}.", session="b")),
                                   journal.append(Turn(scope=readable[-1], text=f"Baseline reply {i}.", role="assistant", session="b"))), 1)
    session.digest_pending(wait=True)

    lag = []
    for round_ in range(3):
        for i in range(16):
            provider.sync_turn(f"I like {HOBBIES[i % len(HOBBIES)]} number {round_}{i}.", "Noted.")
        start = time.perf_counter()
        session.digest_pending(wait=True)
        lag.append((time.perf_counter() - start) * 1000)
    provider.shutdown()
    report.update({
        "sync_turn": {"provider": summary(sync), "baseline_two_appends": summary(append),
                      "ratio_p50": round(statistics.median(sync) / statistics.median(append), 3)},
        "digest_16_turns_ms": [round(x, 1) for x in lag],
    })
    return report


COLD_SCRIPT = """
import json, sys, time
home, user, mode = sys.argv[1], sys.argv[2], sys.argv[3]
started = time.perf_counter()
from factledger.hermes_plugin.provider import FactledgerMemoryProvider
provider = FactledgerMemoryProvider()
provider.initialize("cold", hermes_home=home, platform="telegram", user_id=user, chat_id="c-" + user, chat_type="dm")
ready = time.perf_counter()
session = provider.session
if mode == "prefetch":
    block = provider.prefetch("where do I live")
    lane = session.recall.prompt("where do I live", session.scopes.readable, vectors="if_ready").vector_lane
else:  # the baseline: the same first block, waiting for the vector lane as prefetch did before
    block = session.recall.prompt_block("where do I live", session.scopes.readable)
    lane = "waited"
done = time.perf_counter()
provider.shutdown()
print(json.dumps({"initialize_ms": (ready - started) * 1000, "first_ms": (done - ready) * 1000, "lane": lane,
                  "has_block": bool(block)}))
"""


def cold_start_benchmark(home: Path, runs: int) -> dict:
    """First prefetch of a fresh process (what the first turn after a gateway restart pays), against the
    same first block computed waiting for the vector lane, each in its own fresh process, interleaved."""
    out: dict[str, list] = {"prefetch": [], "baseline": [], "lanes": []}
    env = {**os.environ, "HERMES_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    for run in range(runs):
        for mode in ("prefetch", "baseline"):
            done = subprocess.run([sys.executable, "-c", COLD_SCRIPT, str(home), f"u{run % 50}", mode], env=env,
                                  capture_output=True, text=True, check=True)
            result = json.loads(done.stdout.strip().splitlines()[-1])
            out[mode].append(result["first_ms"])
            if mode == "prefetch":
                out["lanes"].append(result["lane"])
    return {
        "first_prefetch": summary(out["prefetch"]),
        "baseline_waiting_for_vectors": summary(out["baseline"]),
        "ratio_p95": round(percentile(out["prefetch"], 0.95) / percentile(out["baseline"], 0.95), 3),
        "vector_lane_at_first_prefetch": {lane: out["lanes"].count(lane) for lane in sorted(set(out["lanes"]))},
    }


TURN_SCRIPT = """
import json, os, sys, time
from factledger.hermes_plugin.scripted_model import ScriptedModelServer, ModelReply
turns = int(sys.argv[1])
import run_agent
with ScriptedModelServer([ModelReply.say("Noted.")] * (turns + 1)) as server:
    agent = run_agent.AIAgent(base_url=server.base_url, api_key="sk-none", model="fake-model", quiet_mode=True,
                              skip_context_files=True, enabled_toolsets=["memory"], tool_delay=0.0, platform="cli")
    messages = []
    agent.run_conversation("warm up", conversation_history=messages)
    # Steady state: the first turn starts loading the vector lane in the background (the turn itself
    # never waits for it); let that finish so the turns below measure what every later turn costs.
    for provider in getattr(agent._memory_manager, "_providers", []) if agent._memory_manager else []:
        session = getattr(provider, "session", None)
        if session is not None:
            session.recall.warm()
    out = []
    for i in range(turns):
        start = time.perf_counter()
        result = agent.run_conversation(f"I live in Oslo and I like chess, message {i}.", conversation_history=messages)
        out.append((time.perf_counter() - start) * 1000)
        messages = result["messages"]
    agent.shutdown_memory_provider(messages)
print(json.dumps(out))
"""


def turn_benchmark(turns: int, with_memory: bool) -> dict:
    """One fresh process per variant, so Hermes's import-time state cannot leak between them."""
    home = Path(tempfile.mkdtemp(prefix="bench-hermes-turn-"))
    if with_memory:
        subprocess.run([str(Path(sys.executable).parent / "factledger"), "hermes", "install", "--hermes-home", str(home),
                        "--set-provider"], check=True, capture_output=True)
    else:
        (home / "config.yaml").write_text(yaml.safe_dump({"memory": {"provider": ""}}))
    env = {**os.environ, "HERMES_HOME": str(home), "HF_HUB_OFFLINE": "1", "TIRITH_ENABLED": "0"}
    done = subprocess.run([sys.executable, "-c", TURN_SCRIPT, str(turns)], env=env, capture_output=True, text=True, check=True)
    return summary(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--claims", type=int, help="ledger size in claims (5 per user): sets --users to claims / 5")
    parser.add_argument("--path", type=Path, help="keep the built Hermes home here and reuse it in later runs")
    parser.add_argument("--spread", action="store_true", help="write each user's facts far apart in id order")
    parser.add_argument("--prefetch-only", action="store_true", help="time prefetch only (no writes, turns, cold start)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--cold", type=int, default=10, help="fresh processes timed for the first prefetch (0: skip)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    users = -(-args.claims // 5) if args.claims else args.users
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    home = prepare_home(args.path, users, args.spread)
    os.environ["HERMES_HOME"] = str(home)
    report = {"load_average_before": os.getloadavg()}
    try:
        report.update(provider_benchmarks(home, users, args.queries, prefetch_only=args.prefetch_only, build=False))
        if args.cold and not args.prefetch_only:
            report["cold_start"] = cold_start_benchmark(home, args.cold)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    if args.turns and not args.prefetch_only:
        report["turn"] = {"with_factledger": turn_benchmark(args.turns, True), "without_memory": turn_benchmark(args.turns, False)}
        report["turn"]["ratio_p50"] = round(report["turn"]["with_factledger"]["p50_ms"] / report["turn"]["without_memory"]["p50_ms"], 3)
    report["load_average_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"ledger: {report['claims']} claim versions in {report['scopes']} user scopes;"
          f" load average {report['load_average_before'][0]:.2f} before, {report['load_average_after'][0]:.2f} after")
    p = report["prefetch"]
    print(f"prefetch        p50 {p['provider']['p50_ms']:.2f} ms  p95 {p['provider']['p95_ms']:.2f} ms"
          f" (CPU p50 {p['provider_cpu']['p50_ms']:.2f} ms)"
          f"   (Recall.prompt_block p50 {p['baseline_prompt_block']['p50_ms']:.2f} ms; ratio {p['ratio_p50']})")
    print(f"                searching the indexes alone (local_scan_items=0, as before): prompt_block"
          f" p50 {p['prompt_block_indexes_only']['p50_ms']:.2f} ms  p95 {p['prompt_block_indexes_only']['p95_ms']:.2f} ms;"
          f" blocks differing: {p['blocks_differing_from_indexes_only']}")
    if args.prefetch_only:
        return
    s = report["sync_turn"]
    print(f"sync_turn       p50 {s['provider']['p50_ms']:.2f} ms  p95 {s['provider']['p95_ms']:.2f} ms"
          f"   (two Journal.append p50 {s['baseline_two_appends']['p50_ms']:.2f} ms; ratio {s['ratio_p50']})")
    print(f"digest 16 turns {', '.join(f'{x:.0f}' for x in report['digest_16_turns_ms'])} ms (worker flush, rules extractor)")
    if "cold_start" in report:
        c = report["cold_start"]
        print(f"first prefetch  p50 {c['first_prefetch']['p50_ms']:.0f} ms  p95 {c['first_prefetch']['p95_ms']:.0f} ms"
              f" in a fresh process   (waiting for the vector lane: p95 {c['baseline_waiting_for_vectors']['p95_ms']:.0f} ms;"
              f" ratio {c['ratio_p95']}; vector lane then: {c['vector_lane_at_first_prefetch']})")
    if "turn" in report:
        t = report["turn"]
        print(f"Hermes turn     p50 {t['with_factledger']['p50_ms']:.0f} ms with factledger,"
              f" {t['without_memory']['p50_ms']:.0f} ms without memory (ratio {t['ratio_p50']})")
    print("sample block for 'where do I live':")
    print("  " + report["sample_block"].replace("\n", "\n  "))


if __name__ == "__main__":
    main()
