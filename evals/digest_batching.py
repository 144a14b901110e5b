"""Digest batching: model calls per eligible turn when the LoCoMo dev conversations go through the journal
and the batched LLM extractor, counted at a real OpenAI-speaking HTTP server on 127.0.0.1.

    .venv/bin/python evals/digest_batching.py [--data ../shared/datasets/locomo-dev.json] [--window 10] [--json]

Each conversation is journaled as the capture path does it (user = the first speaker, assistant = the
second; each turn said at its session's date plus 7 seconds per turn; one scope per conversation, one
journal session per LoCoMo session), then digested by `Digester(ledger, LLMExtractor(config))`. The
model is `ScriptedModelServer` (factledger.hermes_plugin.scripted_model) answering every request with a
stand-in: it reads the NEW user turns from the prompt and returns what the offline rules extractor finds
in each, tagged with its turn number, so proposals flow through grounding and the ledger as they would
from a real model. What is measured is the number of chat completion requests the server received; the
same run digests the same journal with windows of one turn (the previous, per-entry digest: one call per
user turn) as the baseline. Target (issue 9): at most one call per five eligible turns.
The dataset is read from ../shared and never copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo_retrieval import DEFAULT_DATA, sessions, turn_text  # noqa: E402

from factledger.digest import DigestConfig, Digester, Journal, Turn  # noqa: E402
from factledger.digest.extractor import ExtractionRequest  # noqa: E402
from factledger.digest.llm import LLMExtractor  # noqa: E402
from factledger.digest.model import JournalEntry  # noqa: E402
from factledger.digest.rules import RulesExtractor  # noqa: E402
from factledger.hermes_plugin.scripted_model import ChatRequest, ModelReply, ScriptedModelServer  # noqa: E402
from factledger.ledger import Ledger  # noqa: E402
from factledger.ledger.times import format_time  # noqa: E402

_NEW_TURN = re.compile(r"^\[T(?P<n>\d+) (?P<role>user|assistant)[^,\]]*, said at (?P<at>[^\]]+)\] (?P<text>.*)$", re.M)
_RULES = RulesExtractor()


def stand_in_model(request: ChatRequest) -> ModelReply:
    """A deterministic model: the rules extractor's findings in each NEW user turn, tagged with the turn."""
    prompt = request.last_user_text()
    claims = []
    for m in _NEW_TURN.finditer(prompt.split("NEW turns", 1)[-1]):
        if m["role"] != "user":
            continue
        entry = JournalEntry(id=int(m["n"]), scope="x", session=None, role="user", text=m["text"], said_at=m["at"])
        for draft in _RULES.extract(ExtractionRequest(entry=entry)):
            if draft.drop_reason:
                continue
            claims.append({
                "turn": int(m["n"]), "op": draft.op, "subject": draft.subject, "predicate": draft.predicate,
                "cardinality": draft.cardinality, "template": draft.template, "value": draft.value,
                "replaces": draft.replaces, "quote": draft.quote,
            })
    return ModelReply.call("Extraction", {"claims": claims})


def journal_conversation(ledger: Ledger, scope: str, conversation: dict) -> int:
    journal = Journal(ledger)
    speakers: list[str] = []
    stored = 0
    for number, (when, turns) in enumerate(sessions(conversation), start=1):
        for i, turn in enumerate(turns):
            speaker = str(turn.get("speaker", ""))
            if speaker and speaker not in speakers:
                speakers.append(speaker)
            role = "user" if speakers and speaker == speakers[0] else "assistant"
            said = format_time(when + timedelta(seconds=7 * i))
            outcome = journal.append(Turn(scope=scope, session=f"session_{number}", role=role, text=turn_text(turn), said_at=said))
            stored += outcome.status in ("stored", "redacted")
    return stored


def measure(samples: list[dict], window: int) -> dict:
    ledger = Ledger.open(":memory:")
    try:
        eligible = sum(journal_conversation(ledger, str(s.get("sample_id", i)), s["conversation"]) for i, s in enumerate(samples))
        users = ledger.storage.one("SELECT COUNT(*) FROM journal WHERE role = 'user'")[0]
        with ScriptedModelServer([stand_in_model] * (eligible + 1)) as server:
            config = DigestConfig(base_url=server.base_url, model="stand-in", api_key="sk-local", window_turns=window,
                                  transient_retries=0, validation_retries=0)
            started = time.perf_counter()
            report = Digester(ledger, LLMExtractor(config)).run()
            seconds = time.perf_counter() - started
            calls = len(server.requests)
        return {
            "window_turns": window,
            "eligible_turns": eligible,
            "user_turns": users,
            "model_calls": calls,
            "calls_per_eligible_turn": calls / eligible if eligible else 0.0,
            "eligible_turns_per_call": eligible / calls if calls else 0.0,
            "entries_digested": report.entries_digested,
            "entries_failed": report.entries_failed,
            "proposals": report.to_dict()["proposals"],
            "seconds": round(seconds, 2),
        }
    finally:
        ledger.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--window", type=int, default=DigestConfig().window_turns, help="turns per model call")
    parser.add_argument("--limit", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    samples = json.loads(args.data.read_text())[: args.limit]
    result = {"batched": measure(samples, args.window), "baseline_per_entry": measure(samples, 1), "target_calls_per_turn": 0.2}
    result["within_target"] = result["batched"]["calls_per_eligible_turn"] <= 0.2
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"LoCoMo dev ({len(samples)} conversations) through the journal and the batched LLM extractor")
    for name in ("batched", "baseline_per_entry"):
        r = result[name]
        print(
            f"  {name:<20} window={r['window_turns']:<3} eligible turns={r['eligible_turns']} (user {r['user_turns']})"
            f"  model calls={r['model_calls']}  calls/turn={r['calls_per_eligible_turn']:.3f}"
            f"  turns/call={r['eligible_turns_per_call']:.1f}  digested={r['entries_digested']} failed={r['entries_failed']}"
            f"  applied={r['proposals']['applied']}  {r['seconds']} s"
        )
    print(f"  target: at most 0.2 calls per eligible turn -> {'met' if result['within_target'] else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
