"""Knowledge update: do facts follow what the user says over several sessions, now and as of the past?

    .venv/bin/python evals/knowledge_update.py [--data evals/data/knowledge_update.jsonl] [--only ID ...] [--verbose] [--json]

Each scenario (written for this project: moves, job changes, corrected dates, retractions, preferences
that change twice, third persons, dated events) is a few sessions of turns with said-at times. They go
through the capture path: `Journal.append(Turn(...))` for every turn, then
`Digester(ledger, build_extractor(config), policy="auto").run()` after each session (the ledger's clock
at the session's time, so transaction time is when the ledger learned it). Then each question is asked
through `Recall(ledger).prompt_block(question, [scope], valid_at=..., known_at=...)`, "now" (after the
last session) or as of a past date.

Score per question: only the FACTS part of the block counts (the lines before a line starting with
"Past conversation", where dated excerpts of what was said may legitimately hold old values). A question
passes when its expected value is in the facts part (questions whose right answer is "nothing any
more" expect none) and no stale value is there (anything in the facts part is shown as valid at the asked
time, i.e. as current then). Figures per category and overall.

The rules extractor always runs; when FACTLEDGER_DIGEST_MODEL (and FACTLEDGER_DIGEST_BASE_URL, key) are
set, the LLM extractor runs on the same scenarios in the same process.
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
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from factledger.digest import DigestConfig, Digester, Journal, Turn, build_extractor
from factledger.digest.extractor import Extractor
from factledger.digest.rules import RulesExtractor
from factledger.ledger import Ledger
from factledger.ledger.times import format_time, parse_time, to_datetime
from factledger.recall import Recall
from factledger.recall.embedders import default_embedder

DATA = Path(__file__).parent / "data" / "knowledge_update.jsonl"
EVIDENCE_HEADING = "Past conversation"
TURN_GAP = timedelta(seconds=20)


class SteppedClock:
    """The ledger's clock, set by the eval: turns are journaled and digested at their own time."""

    def __init__(self, now: str):
        self.now = now

    def __call__(self) -> str:
        return self.now


def facts_part(block: str) -> str:
    """The lines of a prompt block before the evidence section (all of it when there is none)."""
    lines = []
    for line in block.splitlines():
        if line.startswith(EVIDENCE_HEADING):
            break
        lines.append(line)
    return "\n".join(lines)


def mentions(text: str, value: str) -> bool:
    return re.search(rf"(?i)(?<!\w){re.escape(value)}(?!\w)", text) is not None


@dataclass
class Outcome:
    scenario: str
    category: str
    question: str
    when: str
    expect: str | None
    found: bool
    stale_shown: list[str]
    block: str

    @property
    def passed(self) -> bool:
        return self.found and not self.stale_shown


def load(path: Path) -> list[dict]:
    scenarios = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for s in scenarios:
        for name in ("id", "category", "sessions", "questions"):
            if name not in s:
                raise ValueError(f"scenario {s.get('id', '?')}: missing {name}")
    return scenarios


def run_scenario(scenario: dict, extractor: Extractor, embedder: object, folder: Path) -> list[Outcome]:
    first = to_datetime(parse_time(scenario["sessions"][0]["at"]))
    clock = SteppedClock(format_time(first))
    ledger = Ledger.open(":memory:", clock=clock)
    scope = f"ku/{scenario['id']}"
    try:
        journal = Journal(ledger)
        last = first
        for number, session in enumerate(scenario["sessions"], start=1):
            start = to_datetime(parse_time(session["at"]))
            for i, raw in enumerate(session["turns"]):
                role, text = ("assistant", raw[3:]) if raw.startswith("A: ") else ("user", raw)
                said = start + TURN_GAP * i
                clock.now = format_time(said)
                journal.append(Turn(scope=scope, text=text, role=role, session=f"s{number}", said_at=clock.now))  # type: ignore[arg-type]
                last = said
            clock.now = format_time(last + timedelta(minutes=1))  # digested shortly after the session
            Digester(ledger, extractor, policy="auto").run()
        clock.now = format_time(last + timedelta(days=1))
        outcomes = []
        with Recall(ledger, folder / scenario["id"], embedder=embedder) as recall:  # type: ignore[arg-type]
            for question in scenario["questions"]:
                valid_at, known_at = question.get("valid_at"), question.get("known_at")
                block = recall.prompt_block(question["q"], [scope], valid_at=valid_at, known_at=known_at)
                facts = facts_part(block)
                expect = question["expect"]
                when = "now" if valid_at is None and known_at is None else f"valid {valid_at or 'now'} known {known_at or 'latest'}"
                outcomes.append(
                    Outcome(
                        scenario=scenario["id"],
                        category=scenario["category"],
                        question=question["q"],
                        when=when,
                        expect=expect,
                        found=expect is None or mentions(facts, expect),
                        stale_shown=[v for v in question["stale"] if mentions(facts, v)],
                        block=block,
                    )
                )
        return outcomes
    finally:
        ledger.close()


def evaluate(scenarios: list[dict], extractor: Extractor, embedder: object) -> dict:
    started = time.perf_counter()
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="factledger-ku-") as folder:
        for scenario in scenarios:
            outcomes.extend(run_scenario(scenario, extractor, embedder, Path(folder)))
    by_category: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_category[o.category].append(o)
        by_category["now" if o.when == "now" else "as-of"].append(o)

    def figures(items: list[Outcome]) -> dict:
        n = len(items)
        return {
            "questions": n,
            "passed": sum(o.passed for o in items),
            "score": round(sum(o.passed for o in items) / n, 3) if n else 0.0,
            "right_value_shown": round(sum(o.found for o in items) / n, 3) if n else 0.0,
            "stale_shown_as_current": sum(bool(o.stale_shown) for o in items),
        }

    return {
        "extractor": extractor.name,
        "scenarios": len(scenarios),
        "overall": figures(outcomes),
        "by_category": {name: figures(items) for name, items in sorted(by_category.items())},
        "failures": [
            {"scenario": o.scenario, "question": o.question, "when": o.when, "expect": o.expect,
             "missing": not o.found, "stale_shown": o.stale_shown, "facts": facts_part(o.block)}
            for o in outcomes
            if not o.passed
        ],
        "seconds": round(time.perf_counter() - started, 2),
    }


def extractors() -> list[Extractor]:
    chosen: list[Extractor] = [RulesExtractor()]
    config = DigestConfig.from_env(os.environ)
    if config.uses_model:
        chosen.append(build_extractor(config))
    return chosen


def print_report(report: dict, verbose: bool) -> None:
    overall = report["overall"]
    print(f"{report['extractor']}: {report['scenarios']} scenarios, {overall['questions']} questions, {report['seconds']} s")
    print(f"  {'category':<14} {'questions':>9} {'passed':>7} {'score':>6} {'right shown':>12} {'stale shown':>12}")
    rows = [("overall", overall)] + list(report["by_category"].items())
    for name, f in rows:
        print(f"  {name:<14} {f['questions']:>9} {f['passed']:>7} {f['score']:>6.3f} {f['right_value_shown']:>12.3f} {f['stale_shown_as_current']:>12}")
    if verbose:
        for failure in report["failures"]:
            why = ("missing " + repr(failure["expect"])) if failure["missing"] else ""
            if failure["stale_shown"]:
                why += (", " if why else "") + f"stale shown {failure['stale_shown']}"
            print(f"  FAIL {failure['scenario']} [{failure['when']}] {failure['question']}: {why}")
            for line in failure["facts"].splitlines()[1:]:
                print(f"       {line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--only", nargs="*", help="scenario ids")
    parser.add_argument("--verbose", action="store_true", help="print each failing question with its facts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    scenarios = load(args.data)
    if args.only:
        scenarios = [s for s in scenarios if s["id"] in set(args.only)]
    embedder = default_embedder()
    reports = [evaluate(scenarios, extractor, embedder) for extractor in extractors()]
    if args.json:
        print(json.dumps(reports if len(reports) > 1 else reports[0], indent=2))
        return 0
    for report in reports:
        print_report(report, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
