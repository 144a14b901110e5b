"""Knowledge update through the Hermes capture path: does what a user says in everyday words become the
right fact, now and as of the past, and does the prompt block show it?

    .venv/bin/python evals/knowledge_update.py [--data FILE ...] [--only ID ...] [--verbose] [--json]

Data: by default `../shared/datasets/styles-dev.json` (ten scenarios written for this project
independently of its extractor; read from ../shared, never copied here) and
`evals/data/knowledge_scenarios.json` (24 more in the same styles, written and committed before the
extractor work they judge). Both are development sets: expect the product to be measured on others like
them.

Each scenario is replayed exactly as Hermes feeds a memory provider: for every session a fresh
`FactledgerMemoryProvider` lifecycle (initialize in a CLI DM, one `sync_turn` per user/assistant pair,
`on_session_end`, `shutdown`), the default digest (the offline rules when no model is configured), the
provider's clock at each turn's moment. Then one more lifecycle asks the questions a day after the last
session:
- **block**: for a question about now, what `prefetch` returns (the text Hermes puts in the prompt); for a
  question about the past, `Recall.prompt` as of (valid_at, known_at).
- **facts**: recall's fact search (kind fact, 5 best) at the same (valid_at, known_at): what the ledger's
  current / as-of truth answers for the question.

Scoring, per question (mention = case-insensitive, whole words; a `re:` value is a regular expression):
- facts right: with an expected value, a returned fact mentions it, and no returned fact of the same slot
  (subject, predicate) as the one that carries it mentions a stale value (another slot may name a stale
  word for its own reason: "Priya is on the platform team" is not a claim about the manager). With no
  expected value ("nothing any more"), no returned fact mentions a stale value.
- block right: with an expected value, the block mentions it (in a fact or in an excerpt), and no fact
  line shown as current (a fact hit of the slot carrying the value, or any fact hit when none carries it)
  mentions a stale value. With no expected value: no fact shown mentions a stale value. A stale value is
  looked for in a fact's statement, not in the times it holds ("since 2025-05-28" is not "28").
- never (kind never, nothing of the kind was said): the block must be empty, and so must the fact search.
  An empty answer, not an absent word.

Figures: facts right / questions with an answer (kinds current and past), blocks right / current and past
questions, never-said empty / never questions (and, beside it, the block alone empty), and stale shown as
current (blocks), per data set and overall. The rules extractor always runs; when FACTLEDGER_DIGEST_MODEL (and FACTLEDGER_DIGEST_BASE_URL,
key) are set, the model's digest runs on the same scenarios in the same process (`--model-only` skips
the rules).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from factledger.hermes_plugin.provider import FactledgerMemoryProvider
from factledger.ledger.times import format_time, parse_time, to_datetime

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets" / "styles-dev.json"
OWN = Path(__file__).parent / "data" / "knowledge_scenarios.json"
TURN_GAP = timedelta(seconds=30)
FACTS_SEARCHED = 5


class ReplayClock:
    """The conversation's own time, set to each turn's moment as it is replayed."""

    def __init__(self, now: str) -> None:
        self.now = now

    def __call__(self) -> str:
        return self.now


def mentions(text: str, value: str) -> bool:
    if value.startswith("re:"):
        return re.search(value[3:], text, re.I) is not None
    return re.search(rf"(?i)(?<!\w){re.escape(value)}(?!\w)", text) is not None


def expected_values(question: dict) -> list[str]:
    expect = question.get("expect")
    if expect is None:
        return []
    return [expect] if isinstance(expect, str) else list(expect)


def load(path: Path) -> list[dict]:
    data = json.loads(path.read_text("utf-8"))
    scenarios = data["scenarios"] if isinstance(data, dict) else data
    for s in scenarios:
        for name in ("id", "sessions", "questions"):
            if name not in s:
                raise ValueError(f"{path.name}: scenario {s.get('id', '?')}: missing {name!r}")
        for q in s["questions"]:
            if q.get("kind") not in ("current", "past", "never"):
                raise ValueError(f"{path.name}: scenario {s['id']}: question {q.get('q')!r}: kind must be current, past or never")
        # The questions are asked a day after the last session, and the ledger refuses a transaction time
        # ahead of the real clock: a scenario dated later than yesterday would lose every write it makes.
        latest = max(to_datetime(parse_time(session["at"])) for session in s["sessions"])
        if latest + timedelta(days=1) > datetime.now(timezone.utc):
            raise ValueError(f"{path.name}: scenario {s['id']}: a session at {format_time(latest)} is less than a day "
                             "before now; the ledger refuses writes timed ahead of the real clock")
    return scenarios


@dataclass
class Outcome:
    dataset: str
    scenario: str
    kind: str
    question: str
    expect: list[str]
    facts_right: bool
    block_right: bool
    stale_shown: list[str]
    facts: list[str] = field(default_factory=list)
    block: str = ""


def _settings(home: Path) -> None:
    state = home / "factledger"
    state.mkdir(parents=True, exist_ok=True)
    # each question is scored on its own, not as the next turn after the previous question's block
    (state / "config.yaml").write_text("recall:\n  repeat_after_turns: 0\ndigest:\n  exit_wait_seconds: 120\n", "utf-8")


def _identity(scenario_id: str) -> dict:
    return dict(platform="cli", agent_context="primary", agent_identity="default", user_id=f"user-{scenario_id}",
                user_name="User", chat_type="dm", chat_id=f"dm-{scenario_id}")


def replay(home: Path, scenario: dict, clock: ReplayClock) -> None:
    """One provider lifecycle per session, as Hermes runs one `hermes chat` per session."""
    for session in scenario["sessions"]:
        start = to_datetime(parse_time(session["at"]))
        clock.now = format_time(start)
        provider = FactledgerMemoryProvider(clock=clock)
        provider.initialize(str(session["id"]), hermes_home=str(home), **_identity(scenario["id"]))
        pending: dict[str, str] = {}
        for index, turn in enumerate(session["turns"]):
            clock.now = format_time(start + TURN_GAP * index)
            role = turn["role"]
            if role in pending or (role == "user" and pending):
                provider.sync_turn(pending.pop("user", ""), pending.pop("assistant", ""))
            pending[role] = turn["text"]
            if role == "assistant":
                provider.sync_turn(pending.pop("user", ""), pending.pop("assistant", ""))
        if pending:
            provider.sync_turn(pending.pop("user", ""), pending.pop("assistant", ""))
        clock.now = format_time(start + TURN_GAP * (len(session["turns"]) + 1))
        provider.on_session_end([])
        provider.shutdown()


def _slot(hit) -> tuple[str, str]:
    return (hit.claim.subject_key, hit.claim.predicate)


def judge(hits: list, text: str, question: dict) -> tuple[bool, list[str]]:
    """(right, stale values shown as current) for fact hits and the text they appear in."""
    expect = expected_values(question)
    stale = list(question.get("stale") or [])
    if expect:
        carriers = [h for h in hits if any(mentions(h.sentence, v) for v in expect)]
        found = bool(carriers) or any(mentions(text, v) for v in expect)
        slots = {_slot(h) for h in carriers}
        judged = [h for h in hits if _slot(h) in slots] if slots else hits
    else:
        found, judged = True, hits
    # A stale value is a fact's value, not a figure of the time it holds ("since 2025-05-28" names no "28").
    shown = sorted({v for h in judged for v in stale if mentions(h.text, v)})
    return found and not shown, shown


def ask(home: Path, scenario: dict, clock: ReplayClock, dataset: str) -> list[Outcome]:
    last = max(to_datetime(parse_time(s["at"])) for s in scenario["sessions"])
    clock.now = format_time(last + timedelta(days=1))
    provider = FactledgerMemoryProvider(clock=clock)
    provider.initialize(f"{scenario['id']}-questions", hermes_home=str(home), **_identity(scenario["id"]))
    session = provider.session
    assert session is not None, "the provider did not start"
    # The questions come a day later: turns an exit left undigested (the next session digests them as it
    # opens, in the background) are digested by then, not while the questions are asked.
    assert session.digest_pending(wait=True), "the digest did not finish"
    recall, scopes = session.recall, session.scopes.readable
    outcomes = []
    try:
        for question in scenario["questions"]:
            kind = question["kind"]
            valid_at = question.get("valid_at") if kind == "past" else None
            known_at = question.get("known_at") if kind == "past" else None
            if kind == "past":
                block = recall.prompt(question["q"], scopes, valid_at=valid_at, known_at=known_at)
                text, shown_facts = block.text, list(block.facts)
            else:
                text = provider.prefetch(question["q"])
                block = recall.prompt(question["q"], scopes)
                shown_facts = list(block.facts) if block.text == text else []
            facts = recall.search(question["q"], scopes, valid_at=valid_at, known_at=known_at, limit=FACTS_SEARCHED, kinds="fact")
            if kind == "never":
                facts_right = not facts
                block_right = text == ""
                stale_shown: list[str] = []
            else:
                facts_right, _ = judge(facts, "", question)
                block_right, stale_shown = judge(shown_facts, text, question)
            outcomes.append(Outcome(dataset, scenario["id"], kind, question["q"], expected_values(question), facts_right,
                                    block_right, stale_shown, [h.sentence for h in facts], text))
    finally:
        provider.shutdown()
    return outcomes


def run_scenario(scenario: dict, folder: Path, dataset: str) -> list[Outcome]:
    home = folder / f"home-{dataset}-{scenario['id']}"
    _settings(home)
    first = min(to_datetime(parse_time(s["at"])) for s in scenario["sessions"])
    clock = ReplayClock(format_time(first))
    replay(home, scenario, clock)
    return ask(home, scenario, clock, dataset)


def figures(items: list[Outcome]) -> dict:
    answered = [o for o in items if o.kind != "never"]
    never = [o for o in items if o.kind == "never"]

    def share(good: int, n: int) -> float | None:
        return round(good / n, 3) if n else None

    return {
        "questions": len(items),
        "facts_right": share(sum(o.facts_right for o in answered), len(answered)),
        "blocks_right": share(sum(o.block_right for o in answered), len(answered)),
        "never_empty": share(sum(o.block_right and o.facts_right for o in never), len(never)),
        "never_block_empty": share(sum(o.block_right for o in never), len(never)),
        "stale_shown_as_current": sum(bool(o.stale_shown) for o in answered),
        "answered": len(answered),
        "never": len(never),
    }


def evaluate(datasets: list[tuple[str, list[dict]]], label: str) -> dict:
    started = time.perf_counter()
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="factledger-ku-") as folder:
        for name, scenarios in datasets:
            for scenario in scenarios:
                outcomes.extend(run_scenario(scenario, Path(folder), name))
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[o.dataset].append(o)
        groups[f"{o.dataset}: {o.kind}"].append(o)
    return {
        "digest": label,
        "overall": figures(outcomes),
        "groups": {name: figures(items) for name, items in sorted(groups.items())},
        "failures": [asdict(o) for o in outcomes if not (o.facts_right and o.block_right)],
        "seconds": round(time.perf_counter() - started, 1),
    }


def print_report(report: dict, verbose: bool) -> None:
    print(f"digest: {report['digest']}  ({report['seconds']} s)")
    print(f"  {'set':<28} {'questions':>9} {'facts right':>12} {'blocks right':>13} {'never empty':>12} {'(block only)':>13} {'stale shown':>12}")

    def cell(value: float | None) -> str:
        return "—" if value is None else f"{value:.3f}"

    for name, f in [("overall", report["overall"]), *report["groups"].items()]:
        print(f"  {name:<28} {f['questions']:>9} {cell(f['facts_right']):>12} {cell(f['blocks_right']):>13}"
              f" {cell(f['never_empty']):>12} {cell(f['never_block_empty']):>13} {f['stale_shown_as_current']:>12}")
    if verbose:
        for o in report["failures"]:
            marks = []
            if not o["facts_right"]:
                marks.append("facts")
            if not o["block_right"]:
                marks.append("block")
            print(f"\n  FAIL [{'/'.join(marks)}] {o['dataset']} {o['scenario']} ({o['kind']}) {o['question']!r}"
                  f" expect {o['expect'] or 'nothing'}" + (f", stale shown {o['stale_shown']}" if o["stale_shown"] else ""))
            for sentence in o["facts"]:
                print(f"      fact: {sentence}")
            for line in o["block"].splitlines()[1:]:
                print(f"      block| {line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, nargs="*", help=f"scenario files (default: {SHARED} if present, and {OWN})")
    parser.add_argument("--only", nargs="*", help="scenario ids")
    parser.add_argument("--verbose", action="store_true", help="print each failing question with what was returned")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--model-only", action="store_true", help="only the model's digest (FACTLEDGER_DIGEST_MODEL)")
    args = parser.parse_args(argv)
    paths = args.data if args.data else [p for p in (SHARED, OWN) if p.exists()]
    datasets = []
    for path in paths:
        scenarios = load(path)
        if args.only:
            scenarios = [s for s in scenarios if s["id"] in set(args.only)]
        if scenarios:
            datasets.append((path.stem, scenarios))
    runs: list[tuple[str, dict[str, str]]] = []
    model = os.environ.get("FACTLEDGER_DIGEST_MODEL")
    if not args.model_only:
        runs.append(("rules", {"FACTLEDGER_DIGEST_MODEL": ""}))
    if model:
        runs.append((f"model {model}", {}))
    reports = []
    for label, env in runs:
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            reports.append(evaluate(datasets, label))
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    if args.json:
        print(json.dumps(reports if len(reports) > 1 else reports[0], indent=2))
        return 0
    for report in reports:
        print_report(report, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
