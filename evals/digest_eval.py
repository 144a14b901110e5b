"""Digest evaluation: precision and recall of the extractors on labelled dialogues.

    .venv/bin/python evals/digest_eval.py [--data evals/data/digest_dialogues.jsonl] [--limit N] [--verbose] [--json]
                                          [--throughput TURNS]

Each dialogue (written for this project) is journaled into a fresh in-memory ledger and digested; every
proposal the extractor emits (applied, held, dropped or rejected alike) is compared with the claims the
dialogue should yield. A proposal matches an expected claim when the subject, predicate, value
(normalised: case, spaces, a leading article) and kind (assert = add/supersede, or retract) agree.
precision = matched / emitted, recall = matched / expected. Among matches with a labelled valid_from,
"time" is the share whose resolved valid_from has the labelled date.

The rules extractor always runs. When FACTLEDGER_DIGEST_MODEL (and FACTLEDGER_DIGEST_BASE_URL, API key)
are set, the LLM extractor runs on the same dialogues in the same process, so its figures are read
against the rules extractor as the baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from factledger.digest import DigestConfig, Digester, Journal, Turn, build_extractor, list_proposals
from factledger.digest.extractor import Extractor
from factledger.digest.rules import RulesExtractor
from factledger.ledger import Ledger
from factledger.ledger.keys import normalise
from factledger.ledger.times import format_time, parse_time, to_datetime

DATA = Path(__file__).parent / "data" / "digest_dialogues.jsonl"


@dataclass(frozen=True)
class Labelled:
    kind: str  # "assert" | "retract"
    subject: str
    predicate: str
    value: str
    valid_from: str | None = None  # YYYY-MM-DD


@dataclass
class Dialogue:
    id: str
    split: str  # "dev": the rules were tuned while looking at these; "holdout": written after, never tuned on
    said_at: str
    turns: list[tuple[str, str]]
    expect: list[Labelled]

    @property
    def category(self) -> str:
        return self.id.split("-")[0]


@dataclass
class Score:
    emitted: int = 0
    expected: int = 0
    matched: int = 0
    timed: int = 0
    timed_right: int = 0
    seconds: float = 0.0
    errors: int = 0
    by_category: dict[str, Counter] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)
    false_positives: list[str] = field(default_factory=list)
    time_errors: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.matched / self.emitted if self.emitted else 1.0

    @property
    def recall(self) -> float:
        return self.matched / self.expected if self.expected else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict:
        return {
            "emitted": self.emitted,
            "expected": self.expected,
            "matched": self.matched,
            "precision": round(self.precision, 3),
            "recall": round(self.recall, 3),
            "f1": round(self.f1, 3),
            "time_accuracy": round(self.timed_right / self.timed, 3) if self.timed else None,
            "extractor_errors": self.errors,
            "seconds": round(self.seconds, 2),
            "by_category": {k: dict(v) for k, v in sorted(self.by_category.items())},
        }


def _value(text: str) -> str:
    return re.sub(r"^(?:a|an|the)\s+", "", normalise(text)).strip(" .!")


def load(path: Path) -> list[Dialogue]:
    dialogues = []
    for line in path.read_text("utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        expect = [
            Labelled(
                "retract" if e["op"] == "retract" else "assert",
                normalise(e.get("subject", "user")),
                e["predicate"],
                _value(e["value"]),
                e.get("valid_from"),
            )
            for e in raw["expect"]
        ]
        dialogues.append(Dialogue(raw["id"], raw.get("split", "dev"), raw["said_at"], [(t["role"], t["text"]) for t in raw["turns"]], expect))
    return dialogues


def run_dialogue(dialogue: Dialogue, extractor: Extractor) -> tuple[list[Labelled], int]:
    """Journal and digest one dialogue in a fresh ledger; return what the extractor emitted."""
    ledger = Ledger.open(":memory:")
    try:
        journal = Journal(ledger)
        start = to_datetime(parse_time(dialogue.said_at))
        for i, (role, text) in enumerate(dialogue.turns):
            said = format_time(start + timedelta(minutes=i))
            journal.append(Turn(scope="eval", text=text, role=role, session="d", said_at=said))  # type: ignore[arg-type]
        report = Digester(ledger, extractor).run()
        emitted = [
            Labelled(
                "retract" if p.op == "retract" else "assert",
                normalise(p.subject),
                p.predicate,
                _value(p.value or ""),
                (p.valid_from or "")[:10] or None,
            )
            for p in reversed(list_proposals(ledger, status=None, limit=1000))
            if not p.reason.startswith("not proposed:")  # an extractor's receipt (why it proposed nothing)
        ]
        return emitted, report.entries_failed
    finally:
        ledger.close()


def evaluate(dialogues: list[Dialogue], extractor: Extractor) -> Score:
    score = Score()
    started = time.perf_counter()
    for dialogue in dialogues:
        emitted, failed = run_dialogue(dialogue, extractor)
        score.errors += failed
        remaining = list(dialogue.expect)
        counts = score.by_category.setdefault(dialogue.category, Counter())
        counts["expected"] += len(dialogue.expect)
        counts["emitted"] += len(emitted)
        for got in emitted:
            match = next(
                (e for e in remaining if (e.kind, e.subject, e.predicate, e.value) == (got.kind, got.subject, got.predicate, got.value)),
                None,
            )
            if match is None:
                score.false_positives.append(f"{dialogue.id}: {got.kind} {got.subject} {got.predicate} {got.value!r}")
                continue
            remaining.remove(match)
            score.matched += 1
            counts["matched"] += 1
            if match.valid_from:
                score.timed += 1
                score.timed_right += int(got.valid_from == match.valid_from)
                if got.valid_from != match.valid_from:
                    score.time_errors.append(f"{dialogue.id}: {match.predicate} {match.value!r} from {got.valid_from}, labelled {match.valid_from}")
        score.misses.extend(f"{dialogue.id}: {e.kind} {e.subject} {e.predicate} {e.value!r}" for e in remaining)
        score.emitted += len(emitted)
        score.expected += len(dialogue.expect)
    score.seconds = time.perf_counter() - started
    return score


def throughput(dialogues: list[Dialogue], turns: int) -> dict:
    """Hot-path and digest speed on `turns` user turns cycled from the dialogues (each in its own scope so
    facts do not collide), against a baseline in the same process: the same number of one-claim ledger
    transactions written directly."""
    import tempfile

    texts = [text for d in dialogues for role, text in d.turns if role == "user"]
    with tempfile.TemporaryDirectory() as folder:
        ledger = Ledger.open(Path(folder) / "digest.db")
        journal = Journal(ledger)
        start = to_datetime(parse_time("2026-01-01"))
        t0 = time.perf_counter()
        for i in range(turns):
            said = format_time(start + timedelta(seconds=i))
            journal.append(Turn(scope=f"u{i // 8}", text=texts[i % len(texts)], session="s", said_at=said))
        append_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        report = Digester(ledger, RulesExtractor()).run()
        digest_seconds = time.perf_counter() - t0
        applied = report.proposals.get("applied", 0)
        ledger.close()
        base = Ledger.open(Path(folder) / "baseline.db")
        t0 = time.perf_counter()
        for i in range(applied):
            with base.transaction(principal="import:bench") as tx:
                tx.add(f"u{i}", "user", "likes", f"thing {i}", valid_from="2026-01-01")
        baseline_seconds = time.perf_counter() - t0
        base.close()
    return {
        "turns": turns,
        "journal_appends_per_s": round(turns / append_seconds),
        "digested_entries_per_s": round(report.entries_digested / digest_seconds),
        "claims_applied": applied,
        "digest_seconds": round(digest_seconds, 2),
        "baseline_direct_tx_seconds": round(baseline_seconds, 2),
        "digest_vs_direct_writes": round(digest_seconds / baseline_seconds, 1) if baseline_seconds else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--limit", type=int, default=None, help="Only the first N dialogues.")
    parser.add_argument("--verbose", action="store_true", help="List misses and false positives.")
    parser.add_argument("--json", action="store_true", help="Print one JSON object.")
    parser.add_argument("--throughput", type=int, default=0, metavar="TURNS", help="Also time the journal and the rules digest on TURNS turns.")
    args = parser.parse_args(argv)
    dialogues = load(args.data)[: args.limit]
    splits = {"all": dialogues}
    for split in sorted({d.split for d in dialogues}):
        splits[split] = [d for d in dialogues if d.split == split]
    extractors: list[tuple[str, Extractor]] = [("rules", RulesExtractor())]
    config = DigestConfig.from_env(os.environ)
    if config.uses_model:
        extractors.append((f"llm:{config.model}", build_extractor(config)))
    results: dict[str, object] = {"dialogues": len(dialogues)}
    for name, extractor in extractors:
        for split, subset in splits.items():
            if subset:
                results[f"{name} [{split}]"] = evaluate(subset, extractor)
    if args.throughput:
        results["throughput"] = throughput(dialogues, args.throughput)
    if args.json:
        print(json.dumps({k: (v.to_dict() if isinstance(v, Score) else v) for k, v in results.items()}, indent=2))
        return 0
    print(f"digest eval: {len(dialogues)} dialogues, {sum(len(d.expect) for d in dialogues)} labelled claims")
    print(f"{'extractor':<28}{'emitted':>8}{'matched':>8}{'precision':>10}{'recall':>8}{'f1':>7}{'time':>7}{'errors':>7}{'sec':>7}")
    for name, score in results.items():
        if not isinstance(score, Score):
            continue
        baseline = results[f"rules [{name.split(' [')[1]}"]
        timing = f"{score.timed_right}/{score.timed}" if score.timed else "-"
        print(
            f"{name:<28}{score.emitted:>8}{score.matched:>8}{score.precision:>10.3f}{score.recall:>8.3f}{score.f1:>7.3f}"
            f"{timing:>7}{score.errors:>7}{score.seconds:>7.2f}"
        )
        if score is not baseline and isinstance(baseline, Score) and baseline.recall:
            print(f"{'':<28}recall vs rules: x{score.recall / baseline.recall:.2f}; precision vs rules: x{score.precision / baseline.precision:.2f}")
        if args.verbose:
            for line in score.false_positives:
                print(f"    false positive  {line}")
            for line in score.misses:
                print(f"    missed          {line}")
            for line in score.time_errors:
                print(f"    wrong time      {line}")
    if "throughput" in results:
        t = results["throughput"]
        print(
            f"throughput: {t['turns']} turns; journal {t['journal_appends_per_s']} appends/s; rules digest "
            f"{t['digested_entries_per_s']} entries/s ({t['claims_applied']} claims applied in {t['digest_seconds']} s; "
            f"the same number of direct one-claim transactions: {t['baseline_direct_tx_seconds']} s, "
            f"ratio x{t['digest_vs_direct_writes']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
