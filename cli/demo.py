"""`factledger demo`: replay a small bundled history through the real apply path and show what a
bitemporal ledger answers."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import click

from factledger.digest import Digester, Journal, RulesExtractor, Turn, list_proposals, reject
from factledger.ledger import Ledger
from factledger.ledger.analytics import Analytics
from factledger.ledger.ops import apply_batch, group_transactions, read_operations
from factledger.recall import Recall

from factledger.ledger.times import display

from .app import emit_json, emit_table, interval

SCOPE = "demo"


CHAT_SCOPE = "demo:chat"


def _data_lines(name: str) -> list[str]:
    return resources.files("factledger.cli").joinpath("data", name).read_text("utf-8").splitlines()


def history_lines() -> list[str]:
    return _data_lines("demo_history.jsonl")


def replay(ledger: Ledger) -> int:
    """Apply the bundled history; returns the number of transactions."""
    count = 0
    for batch in group_transactions(read_operations(history_lines())):
        apply_batch(ledger, batch, principal="import:demo")
        count += 1
    return count


@click.command("demo")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("factledger-demo"),
    show_default=True,
    help="Directory for the demo ledger (recreated on each run).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the first three answers (or the Hermes report) as JSON.")
@click.option(
    "--hermes",
    "with_hermes",
    is_flag=True,
    help="Instead, run a scripted Hermes Agent conversation against a local fake model (needs factledger[hermes]).",
)
@click.pass_context
def demo_cmd(ctx: click.Context, directory: Path, as_json: bool, with_hermes: bool) -> None:
    """Replay a small history (a move, a job change, a corrected date, a retraction) and show current
    truth, one slot's history, an as-of answer, the digest with rejection memory, recall and SQL."""
    if with_hermes:
        from .hermes_cmds import demo_cmd as hermes_demo  # imports Hermes only when asked

        ctx.invoke(hermes_demo, directory=directory, as_json=as_json)
        return
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    db = directory / "ledger.db"
    with Ledger.open(db) as ledger:
        transactions = replay(ledger)
        current = ledger.current([SCOPE])
        history = ledger.history([SCOPE], subject="Maya", predicate="lives_in")
        believed = ledger.as_of([SCOPE], valid_at="2024-05-01", known_at="2024-07-01", subject="Maya", predicate="lives_in")
        known_now = ledger.as_of([SCOPE], valid_at="2024-05-01", subject="Maya", predicate="lives_in")
        if as_json:
            emit_json(
                {
                    "ledger": str(db),
                    "transactions": transactions,
                    "current": [v.to_dict() for v in current],
                    "history": [e.to_dict() for e in history],
                    "as_of": {
                        "valid_at": "2024-05-01",
                        "known_at_2024_07_01": [v.to_dict() for v in believed],
                        "known_now": [v.to_dict() for v in known_now],
                    },
                }
            )
            return
        preds = {p.name: p for p in ledger.predicates()}
        click.echo(f"Replayed {transactions} transactions about Maya into {db}\n")
        click.echo("1. Current truth (valid now, as known now): one sentence per claim")
        for v in current:
            click.echo(f"   - {preds[v.predicate].render(v.subject, v.value)}  (since {display(v.valid_from)})")
        click.echo("   Miso is gone: Maya said the cat was never hers (retracted for all valid time).\n")
        click.echo("2. History of Maya / lives_in: every version, never edited in place")
        emit_table(
            ["value", "valid", "known", "opened by", "why"],
            [
                [e.version.value, interval(e.version.valid_from, e.version.valid_to), interval(e.version.tx_from, e.version.tx_to), e.opened.principal, e.opened.reason]
                for e in history
            ],
        )
        click.echo("\n3. As-of: where did Maya live on 2024-05-01?")
        click.echo(f"   as believed on 2024-07-01: {', '.join(v.value for v in believed) or '(nothing)'}")
        click.echo(f"   as known now:              {', '.join(v.value for v in known_now) or '(nothing)'}")
        click.echo("   The answer changed because the move date was corrected on 2024-10-05; both beliefs are kept.")
        _digest_section(ledger)
        _recall_section(ledger)
    _sql_section(db)
    click.echo(f"\nTry: factledger --db {db} history --subject Maya --predicate works_at")
    click.echo(f"     factledger --db {db} search \"what music does Maya like\" --scope demo")


def _digest_section(ledger: Ledger) -> None:
    """Conversation turns become claims through the journal and the offline rules extractor; a value a
    reviewer rejected does not come back when it is said again."""
    journal = Journal(ledger)
    for line in _data_lines("demo_turns.jsonl"):
        journal.append(Turn(**json.loads(line)))
    Digester(ledger, RulesExtractor()).run()
    click.echo("\n4. Digest: three turns in the journal become claims (offline rules, no model needed)")
    preds = {p.name: p for p in ledger.predicates()}
    for v in ledger.current([CHAT_SCOPE]):
        click.echo(f"   - {preds[v.predicate].render(v.subject, v.value)}  (since {display(v.valid_from)}; from {', '.join(v.source)})")
    click.echo("   'I moved to Porto last month', said on 2025-06-10, superseded Lisbon from 2025-05-01.")

    journal.append(Turn(scope=CHAT_SCOPE, text="I work at Initech", said_at="2025-06-11T10:00:00Z"))
    Digester(ledger, RulesExtractor(), policy="strict").run()
    held = list_proposals(ledger, status="pending", scope=CHAT_SCOPE)
    for proposal in held:
        reject(ledger, proposal.id, principal="operator:demo-reviewer", reason="a running joke, not a job")
    journal.append(Turn(scope=CHAT_SCOPE, text="Seriously, I work at Initech", said_at="2025-06-20T10:00:00Z"))
    Digester(ledger, RulesExtractor()).run()
    again = list_proposals(ledger, status="rejected_again", scope=CHAT_SCOPE)
    click.echo("   'I work at Initech' was held for review (strict policy) and rejected by operator:demo-reviewer;")
    click.echo(
        f"   said again nine days later, it was proposed again and not applied: {len(again)} proposal(s) "
        f"marked rejected_again, works_at still {'empty' if not ledger.current([CHAT_SCOPE], predicate='works_at') else 'SET'}."
    )


def _recall_section(ledger: Ledger) -> None:
    """Hybrid recall over current claims, as the agent sees it before a turn."""
    recall = Recall(ledger)
    try:
        recall.sync()
        block = recall.prompt_block("where does Maya live now?", [SCOPE])
        empty = recall.prompt_block("qwzx 7f3a9c1e", [SCOPE])
    finally:
        recall.close()
    click.echo("\n5. Recall: the block the agent gets for 'where does Maya live now?'")
    for line in block.splitlines():
        click.echo(f"   | {line}")
    click.echo(f"   and for a query that matches nothing ('qwzx 7f3a9c1e'): {'(empty)' if not empty else repr(empty)}")


def _sql_section(db: Path) -> None:
    """Analysts' SQL through DuckDB with temporal clauses."""
    query = (
        "SELECT subject, predicate, value FROM claims "
        "FOR VALID_TIME AS OF '2024-05-01' FOR SYSTEM_TIME AS OF '2024-07-01' "
        "WHERE scope = 'demo' ORDER BY predicate"
    )
    with Analytics(db) as analytics:
        rows = analytics.sql(query).fetchall()
    click.echo("\n6. SQL for analysts (DuckDB, read-only): what we believed on 2024-07-01 about 2024-05-01")
    click.echo(f"   factledger sql \"{query}\"")
    for row in rows:
        click.echo(f"   {' | '.join(str(c) for c in row)}")
