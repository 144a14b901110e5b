"""`factledger demo`: replay a small bundled history through the real apply path and show what a
bitemporal ledger answers."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

import click

from factledger.ledger import Ledger
from factledger.ledger.ops import apply_batch, group_transactions, read_operations

from factledger.ledger.times import display

from .app import emit_json, emit_table, interval

SCOPE = "demo"


def history_lines() -> list[str]:
    return resources.files("factledger.cli").joinpath("data", "demo_history.jsonl").read_text("utf-8").splitlines()


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
@click.option("--json", "as_json", is_flag=True, help="Print the three answers as JSON.")
def demo_cmd(directory: Path, as_json: bool) -> None:
    """Replay a small history (a move, a job change, a corrected date, a retraction) and show current
    truth, one slot's history and an as-of answer."""
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
        click.echo(f"\nTry: factledger --db {db} history --subject Maya --predicate works_at")
