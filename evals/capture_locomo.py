"""What the agent really remembers: LoCoMo conversations fed through the product's own capture path.

Each dev conversation is replayed into a fresh Hermes home exactly as Hermes feeds a memory provider:
`FactledgerMemoryProvider.initialize` (a gateway DM: the first speaker is the user, named by Hermes's
`user_name`; the second is the assistant, named in the provider's settings), one `sync_turn` per
user/assistant pair, `on_session_end` after each session (the provider's background digest, with the
default extractor: the offline rules when no model is configured), the clock at each session's date.
Then every question goes through `prefetch` (the prompt block Hermes would get) and through `search`
(the ranked list the factledger_search tool returns). Evidence recall comes from the sources of what
was returned: an episode is its journal turn, a fact cites the turns it came from; journal ids map back
to LoCoMo dia_ids.

Baselines in the same run: the said-claim path (every turn written by hand as a `said` claim with its
session date: evals/locomo_retrieval.py) and a plain BM25 over the turns.

    .venv/bin/python evals/capture_locomo.py [--data ../shared/datasets/locomo-dev.json] [--config balanced]
        [--set name=value ...] [--json]

Categories 1-4 are reported together, 5 (adversarial) apart. The dataset is read from ../shared and
never copied into the repository; tune on this dev split only.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

from locomo_retrieval import (
    BM25, CATEGORIES, KS, cli, load_conversation, parse_evidence, print_systems, score, sessions, system_tables,
    turn_text,
)

from factledger.hermes_plugin.provider import FactledgerMemoryProvider
from factledger.ledger import Ledger
from factledger.ledger.times import format_time
from factledger.recall import Recall, RecallConfig

TURN_GAP = timedelta(seconds=30)  # each turn said this long after the previous one in its session


class ReplayClock:
    """The conversation's own time: set to each turn's moment as it is replayed."""

    def __init__(self) -> None:
        self.now = "2000-01-01T00:00:00.000000Z"

    def __call__(self) -> str:
        return self.now


def _settings(home: Path, assistant: str, config: RecallConfig) -> None:
    state = home / "factledger"
    state.mkdir(parents=True, exist_ok=True)
    (state / "config.yaml").write_text(
        "digest:\n  batch_size: 64\n  max_delay_seconds: 5\n"
        # each question is scored on its own, not as the next turn after the previous question's block
        "recall:\n  repeat_after_turns: 0\n"
        f"journal:\n  assistant_name: {json.dumps(assistant)}\n",
        "utf-8",
    )


def replay(home: Path, sample: dict, clock: ReplayClock) -> tuple[FactledgerMemoryProvider, dict[int, str]]:
    """Feed one conversation through the provider; returns it (open) and journal id -> dia_id."""
    conversation = sample["conversation"]
    user = conversation["speaker_a"]  # the first speaker is the user; the second is the assistant
    provider = FactledgerMemoryProvider(clock=clock)
    dia_of: dict[int, str] = {}
    ledger = None
    for number, (when, turns) in enumerate(sessions(conversation), start=1):
        session_id = f"{sample['sample_id']}-session-{number}"
        clock.now = format_time(when)
        if provider.session is None:
            provider.initialize(
                session_id, hermes_home=str(home), platform="telegram", agent_context="primary",
                agent_identity="default", user_id=f"user-{sample['sample_id']}", user_name=user, chat_type="dm",
                chat_id=f"dm-{sample['sample_id']}",
            )
            ledger = Ledger.open(home / "factledger" / "ledger.db")
        else:
            provider.on_session_switch(session_id, reset=False, reason="new_session")
        pending: dict[str, tuple[str, str]] = {}
        for index, turn in enumerate(turns):
            clock.now = format_time(when + TURN_GAP * index)
            role = "user" if turn["speaker"] == user else "assistant"
            if role in pending or (role == "user" and pending):
                _sync(provider, ledger, pending, dia_of)  # a speaker spoke twice: that turn ends alone
            pending[role] = (str(turn.get("dia_id", "")).strip(), turn_text(turn))
            if role == "assistant":
                _sync(provider, ledger, pending, dia_of)
        _sync(provider, ledger, pending, dia_of)
        provider.on_session_end([])
    assert ledger is not None
    ledger.close()
    return provider, dia_of


def _sync(provider: FactledgerMemoryProvider, ledger: Ledger | None, pending: dict, dia_of: dict[int, str]) -> None:
    if not pending:
        return
    user = pending.pop("user", ("", ""))
    assistant = pending.pop("assistant", ("", ""))
    last = ledger.storage.one("SELECT COALESCE(MAX(id), 0) FROM journal")[0] if ledger else 0
    provider.sync_turn(user[1], assistant[1])
    if ledger is None:
        return
    for row in ledger.storage.query("SELECT id, role FROM journal WHERE id > ? ORDER BY id", (last,)):
        dia = (user if row["role"] == "user" else assistant)[0]
        if dia:
            dia_of[row["id"]] = dia


def sources_to_dias(hits, dia_of: dict[int, str]) -> list[str]:
    ranked: list[str] = []
    for hit in hits:
        for ref in hit.sources:
            if ref.startswith("journal:"):
                dia = dia_of.get(int(ref.split(":", 1)[1]))
                if dia and dia not in ranked:
                    ranked.append(dia)
    return ranked


def run(data_path: Path, config: RecallConfig) -> dict:
    samples = json.loads(data_path.read_text("utf-8"))
    systems = ("capture: search", "capture: prefetch", "said-claim path", "bm25")
    results: dict[str, dict[int, list[dict[str, float]]]] = {s: defaultdict(list) for s in systems}
    stats: dict[str, float] = defaultdict(float)
    prefetch_ms: list[float] = []
    block_chars: list[int] = []
    skipped = 0
    with tempfile.TemporaryDirectory() as tmp:
        said_ledger = Ledger.open(Path(tmp) / "said.db")
        said_recall = Recall(said_ledger, config=config)
        for sample in samples:
            scope = str(sample["sample_id"])
            home = Path(tmp) / f"home-{scope}"
            _settings(home, sample["conversation"]["speaker_b"], config)
            clock = ReplayClock()
            started = time.perf_counter()
            provider, dia_of = replay(home, sample, clock)
            stats["replay_s"] += time.perf_counter() - started
            session = provider.session
            assert session is not None
            # The questions come a day later: a digest the last exit did not wait for has finished by
            # then (under load it may still run here, and would change the ledger between two reads).
            assert session.digest_pending(wait=True), "the digest did not finish"
            recall = session.recall
            recall.config = config
            scopes = session.scopes.readable
            storage = session.writer.storage
            stats["turns"] += sum(len(t) for _, t in sessions(sample["conversation"]))
            stats["episodes"] += storage.one("SELECT COUNT(*) FROM journal")[0]
            stats["facts"] += storage.one("SELECT COUNT(*) FROM claims WHERE tx_to IS NULL")[0]
            recall.sync()
            # A session past its first turns has the vector lane loaded (prefetch never waits for it):
            # the questions are asked of a warm session, so prefetch and the block use the same lanes.
            session.want_vectors()
            recall.warm()

            texts = load_conversation(said_ledger, scope, sample["conversation"])
            said_recall.sync()
            baseline = BM25(texts)
            clock.now = format_time(max(w for w, _ in sessions(sample["conversation"])) + timedelta(days=1))
            for qa in sample.get("qa", []):
                gold = parse_evidence(qa.get("evidence"), set(texts))
                category = int(qa.get("category", 0))
                if not gold or category not in CATEGORIES:
                    skipped += 1
                    continue
                question = str(qa["question"])
                hits = recall.search(question, scopes, limit=10)
                results["capture: search"][category].append(score(sources_to_dias(hits, dia_of), gold))
                begun = time.perf_counter()
                block = recall.prompt(question, scopes)
                text = provider.prefetch(question)
                prefetch_ms.append(1000 * (time.perf_counter() - begun))
                assert text == block.text, "prefetch must be the prompt block"
                block_chars.append(len(text))
                results["capture: prefetch"][category].append(score(sources_to_dias(block.hits, dia_of), gold))
                said = said_recall.search(question, [scope], limit=10)
                results["said-claim path"][category].append(score([ref for h in said for ref in h.sources], gold))
                results["bm25"][category].append(score(baseline.search(question, 10), gold))
            provider.shutdown()
        said_recall.close()
        said_ledger.close()
    report: dict = {"config": config.to_dict(), "skipped_questions": skipped, "systems": system_tables(results),
                    "capture": {k: round(v, 2) for k, v in stats.items()}}
    prefetch_ms.sort()
    report["prefetch_ms_p50"] = round(prefetch_ms[len(prefetch_ms) // 2], 2) if prefetch_ms else None
    block_chars.sort()
    report["block_chars_p50"] = block_chars[len(block_chars) // 2] if block_chars else None
    report["empty_blocks"] = sum(1 for c in block_chars if c == 0)
    return report


def print_report(report: dict) -> None:
    cols = [f"recall@{k}" for k in KS] + ["hit@5", "ndcg@10"]
    cap = report["capture"]
    print(
        f"config: {report['config']['name']}  turns {int(cap['turns'])} -> episodes {int(cap['episodes'])},"
        f" current facts {int(cap['facts'])}; replay {cap['replay_s']:.1f} s"
        f"  (questions skipped for no usable evidence: {report['skipped_questions']})"
    )
    print_systems(report["systems"], cols)
    capture = report["systems"]["capture: search"]["overall 1-4"]
    said = report["systems"]["said-claim path"]["overall 1-4"]
    bm25 = report["systems"]["bm25"]["overall 1-4"]
    print(
        f"\noverall 1-4 recall@5: capture {capture['recall@5']:.3f}, said-claim path {said['recall@5']:.3f}"
        f" (gap {capture['recall@5'] - said['recall@5']:+.3f}; target within 0.03), bm25 {bm25['recall@5']:.3f}"
        f"\nprefetch p50 {report['prefetch_ms_p50']} ms, block p50 {report['block_chars_p50']} chars,"
        f" empty blocks {report['empty_blocks']}"
    )


def main(argv: list[str] | None = None) -> int:
    return cli("LoCoMo through the capture path, with its baselines", run, print_report, argv)


if __name__ == "__main__":
    sys.exit(main())
