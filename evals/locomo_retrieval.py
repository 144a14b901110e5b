"""LoCoMo turn-level retrieval: factledger recall against a plain BM25 over the same turns, same run.

Every turn of each conversation is written through the normal ledger write path as a claim (scope = the
conversation, subject = the speaker, `many` predicate `said`, value = the text plus the image caption,
valid_from = the session's date, source = the turn's dia_id); each question is searched in its own
conversation and the returned sources are scored against the gold evidence.

    .venv/bin/python evals/locomo_retrieval.py [--data ../shared/datasets/locomo-dev.json] [--config balanced]
        [--set neighbour_share=0.3 ...] [--json]

Prints recall@1/3/5/10, hit@k and nDCG@10 per category and overall for categories 1-4 (5 apart).
The dataset is read from ../shared and never copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

from factledger.ledger import Ledger
from factledger.recall import Recall, RecallConfig

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT / ".." / "shared" / "datasets" / "locomo-dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS = (1, 3, 5, 10)

# The baseline's stop words: the common English list (NLTK's), so the baseline is the plain one the
# dataset README describes, independent of what factledger's own query analysis does.
BASELINE_STOP = frozenset(
    """i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her
    hers herself it its itself they them their theirs themselves what which who whom this that these those
    am is are was were be been being have has had having do does did doing a an the and but if or because
    as until while of at by for with about against between into through during before after above below to
    from up down in out on off over under again further then once here there when where why how all any
    both each few more most other some such no nor not only own same so than too very s t can will just
    don should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn
    shan shouldn wasn weren won wouldn""".split()
)
_TOKEN = re.compile(r"[a-z0-9]+")


def parse_session_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware datetime (UTC: the dataset gives no zone)."""
    cleaned = " ".join(text.replace(",", ", ").split()).replace(" ,", ",")
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    raise ValueError(f"unrecognised session date {text!r}")


_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


def parse_evidence(items: list, known: set[str]) -> set[str]:
    """Gold dia_ids, tolerating packed strings ('D8:6; D9:17'), 'D30:05', 'D:11:26'; unknown ids dropped."""
    found = set()
    for item in items or []:
        for match in _EVIDENCE.finditer(str(item)):
            dia = f"D{int(match.group(1))}:{int(match.group(2))}"
            if dia in known:
                found.add(dia)
    return found


def turn_text(turn: dict) -> str:
    text = str(turn.get("text", "")).strip()
    caption = turn.get("blip_caption")
    if caption:
        text = f"{text} [image: {caption}]".strip()
    return text


def sessions(conversation: dict) -> list[tuple[datetime, list[dict]]]:
    out = []
    numbers = sorted(int(k.split("_")[1]) for k in conversation if re.fullmatch(r"session_\d+", k))
    for n in numbers:
        turns = conversation.get(f"session_{n}") or []
        when = conversation.get(f"session_{n}_date_time")
        if not turns or not when:
            continue
        out.append((parse_session_date(when), turns))
    return out


def load_conversation(ledger: Ledger, scope: str, conversation: dict) -> dict[str, str]:
    """Write every turn as a claim, one transaction per session; returns dia_id -> "speaker: text"
    (the baseline's documents: with the speaker, as the dataset README's reference BM25 has them)."""
    texts: dict[str, str] = {}
    with ledger.transaction(principal="import:locomo", reason=f"{scope} predicates") as tx:
        tx.define("said", "many", template="{subject} said: {value}")
    for when, turns in sessions(conversation):
        with ledger.transaction(principal="import:locomo", reason=f"{scope} session", sources=[scope]) as tx:
            for turn in turns:
                text = turn_text(turn)
                dia = str(turn.get("dia_id", "")).strip()
                if not text or not dia:
                    continue
                texts[dia] = f"{turn['speaker']}: {text}"
                tx.add(scope, str(turn["speaker"]), "said", text, valid_from=when, source=dia)
    return texts


# -- the baseline -----------------------------------------------------------------------------------


class BM25:
    def __init__(self, docs: dict[str, str], k1: float = 1.2, b: float = 0.75):
        self.ids = list(docs)
        self.tf = [Counter(self.tokens(docs[i])) for i in self.ids]
        self.len = [sum(tf.values()) for tf in self.tf]
        self.avg = sum(self.len) / max(len(self.len), 1)
        df = Counter(t for tf in self.tf for t in tf)
        n = len(self.ids)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self.k1, self.b = k1, b

    @staticmethod
    def tokens(text: str) -> list[str]:
        return [t for t in _TOKEN.findall(text.lower()) if t not in BASELINE_STOP]

    def search(self, query: str, k: int) -> list[str]:
        terms = set(self.tokens(query))
        scores = []
        for i, tf in enumerate(self.tf):
            s = 0.0
            for t in terms:
                f = tf.get(t)
                if f:
                    s += self.idf[t] * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * self.len[i] / self.avg))
            if s > 0:
                scores.append((s, i))
        scores.sort(key=lambda p: (-p[0], p[1]))
        return [self.ids[i] for _, i in scores[:k]]


# -- scoring ----------------------------------------------------------------------------------------


def score(ranked: list[str], gold: set[str]) -> dict[str, float]:
    out = {}
    for k in KS:
        top = set(ranked[:k])
        out[f"recall@{k}"] = len(top & gold) / len(gold)
        out[f"hit@{k}"] = 1.0 if top & gold else 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranked[:10]) if d in gold)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), 10)))
    out["ndcg@10"] = dcg / ideal
    return out


def mean_table(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {}
    return {key: round(sum(r[key] for r in rows) / len(rows), 4) for key in rows[0]}


def ranked_sources(hits) -> list[str]:
    seen: list[str] = []
    for hit in hits:
        for ref in hit.claim.source:
            if ref not in seen:
                seen.append(ref)
    return seen


def parse_overrides(items: list[str]) -> dict[str, float]:
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        out[name.strip()] = float(value) if "." in value or "e" in value else int(value)
    return out


def run(data_path: Path, config: RecallConfig) -> dict:
    samples = json.loads(data_path.read_text("utf-8"))
    results: dict[str, dict[int, list[dict[str, float]]]] = {"factledger": defaultdict(list), "bm25": defaultdict(list)}
    skipped = 0
    latencies: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger.open(Path(tmp) / "locomo.db")
        recall = Recall(ledger, config=config)
        for sample in samples:
            scope = str(sample.get("sample_id") or f"conv-{len(results)}")
            texts = load_conversation(ledger, scope, sample["conversation"])
            recall.sync()
            baseline = BM25(texts)
            for qa in sample.get("qa", []):
                gold = parse_evidence(qa.get("evidence"), set(texts))
                category = int(qa.get("category", 0))
                if not gold or category not in CATEGORIES:
                    skipped += 1
                    continue
                question = str(qa["question"])
                started = time.perf_counter()
                hits = recall.search(question, [scope], limit=10)
                latencies.append(time.perf_counter() - started)
                results["factledger"][category].append(score(ranked_sources(hits), gold))
                results["bm25"][category].append(score(baseline.search(question, 10), gold))
        recall.close()
        ledger.close()
    report: dict = {"config": config.to_dict(), "skipped_questions": skipped, "systems": system_tables(results)}
    latencies.sort()
    report["search_ms_p50"] = round(1000 * latencies[len(latencies) // 2], 2) if latencies else None
    return report


def system_tables(results: dict[str, dict[int, list[dict[str, float]]]]) -> dict[str, dict]:
    """Per system: the mean scores per category, and over categories 1-4 together (5 is apart)."""
    tables = {}
    for system, by_cat in results.items():
        table = {CATEGORIES[c]: mean_table(rows) | {"n": len(rows)} for c, rows in sorted(by_cat.items())}
        overall = [r for c, rows in by_cat.items() if c in (1, 2, 3, 4) for r in rows]
        table["overall 1-4"] = mean_table(overall) | {"n": len(overall)}
        tables[system] = table
    return tables


def print_systems(systems: dict[str, dict], cols: list[str]) -> None:
    for system, table in systems.items():
        print(f"\n{system}")
        print(f"{'category':<14}{'n':>5}" + "".join(f"{c:>11}" for c in cols))
        for name, row in table.items():
            print(f"{name:<14}{row['n']:>5}" + "".join(f"{row.get(c, 0):>11.3f}" for c in cols))


def cli(description: str, run_report, print_report_fn, argv: list[str] | None = None) -> int:
    """The evals' shared command line: --data, --config, --set name=value, --json."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--config", default="balanced", help="RecallConfig preset name")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="override a config field: name=value")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    if not args.data.is_file():
        print(f"error: no dataset at {args.data}", file=sys.stderr)
        return 2
    config = RecallConfig.preset(args.config)
    if args.overrides:
        config = config.but(**parse_overrides(args.overrides))
    report = run_report(args.data, config)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report_fn(report)
    return 0


def print_report(report: dict) -> None:
    cols = ["recall@1", "recall@3", "recall@5", "recall@10", "hit@5", "hit@10", "ndcg@10"]
    print(f"config: {report['config']['name']}  (questions skipped for no usable evidence: {report['skipped_questions']})")
    print_systems(report["systems"], cols)
    ours = report["systems"]["factledger"]["overall 1-4"]
    base = report["systems"]["bm25"]["overall 1-4"]
    print(
        f"\noverall 1-4 gain over BM25: recall@5 {ours['recall@5'] - base['recall@5']:+.3f},"
        f" recall@10 {ours['recall@10'] - base['recall@10']:+.3f}  (target +0.10 each)"
        f"; search p50 {report['search_ms_p50']} ms"
    )


def main(argv: list[str] | None = None) -> int:
    return cli("LoCoMo turn-level retrieval: factledger vs BM25", run, print_report, argv)


if __name__ == "__main__":
    sys.exit(main())
