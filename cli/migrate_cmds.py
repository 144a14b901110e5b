"""`factledger migrate`: copy a ledger to the other engine (SQLite file ↔ PostgreSQL) and prove the copy.

ledger/migrate.py copies and proves what the ledger holds (as-of answers, chain heads, every table's
rows); this command adds what needs the other parts, which the ledger may not import: recall's answers
to the same queries on both sides, and `verify` of the target."""

from __future__ import annotations

from pathlib import Path

import click

from factledger.ledger import Ledger
from factledger.ledger.chain_key import ChainKey
from factledger.ledger.migrate import DEFAULT_PAIRS, MigrationReport, migrate
from factledger.ledger.verify import Check, verify_ledger
from factledger.recall import Recall
from factledger.recall.config import PRESETS
from factledger.recall.verify import verify_recall

from .app import AppContext, LedgerLocation, emit_json, emit_table, pass_app

QUERIES = 5  # recall queries compared: values of the source's current facts, spread over its scopes


def _lexical(ledger: Ledger) -> Recall:
    # The lexical and exact lanes: the target's vector folder is its own, built from the ledger on first use.
    return Recall(ledger, config=PRESETS["lexical"])


def _search_keys(recall: Recall, queries: list[str], scopes: list[str]) -> list[list[tuple[str, int]]]:
    return [[h.key for h in recall.search(q, scopes, limit=10)] for q in queries]


def compare_recall(source: str, target: str, queries: int = QUERIES) -> tuple[bool, list[str]]:
    """Search both ledgers for a few of the source's own values (every scope, now): the same hits in the
    same order on both sides. Returns (agreed, the queries asked)."""
    with Ledger.open(source, read_only=True) as a, Ledger.open(target, read_only=True) as b:
        scopes = a.scopes()
        values = sorted({v.value for v in a.current(scopes)}) if scopes else []
        asked = values[:: max(1, len(values) // queries)][:queries]
        with _lexical(a) as left, _lexical(b) as right:
            return _search_keys(left, asked, scopes) == _search_keys(right, asked, scopes), asked


def verify_target(target: str, key: ChainKey | None = None) -> list[Check]:
    """`factledger verify` of the copy, the same checks (ledger with the source's chain key, and recall:
    outbox, lexical, vectors). The target's vector companion is built first, as its first search would
    (the copy's triggers filled its outbox), so that a `verify` run after the migrate agrees with what the
    migrate printed."""
    with Ledger.open(target, chain_key=key) as ledger, Recall(ledger) as recall:
        recall.rebuild()
    with Ledger.open(target, read_only=True, chain_key=None) as ledger:
        report = verify_ledger(ledger, chain_key=key)
        with Recall(ledger) as recall:
            return [*report.checks, *verify_recall(recall)]


def prove_parts(report: MigrationReport, source: str, target: str, key: ChainKey | None = None) -> list[Check]:
    agreed, _ = compare_recall(source, target)
    checks = verify_target(target, key)
    report.checks["recall"] = agreed
    report.checks["verify"] = all(c.ok for c in checks)
    return checks


@click.command("migrate")
@click.option("--from", "source", required=True, type=LedgerLocation(dir_okay=False),
              help="The ledger to copy: a SQLite file or a postgresql:// URL.")
@click.option("--to", "target", required=True, type=LedgerLocation(dir_okay=False),
              help="An empty ledger to copy into: a SQLite file (created) or a postgresql:// URL (the database must exist).")
@click.option("--pairs", type=click.IntRange(min=1), default=DEFAULT_PAIRS, show_default=True,
              help="Random (valid_at, known_at) pairs whose as-of answers must agree on both sides.")
@click.option("--seed", type=int, default=None, help="Seed for the random pairs (to repeat a check).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_app
def migrate_cmd(app: AppContext, source: str, target: str, pairs: int, seed: int | None, as_json: bool) -> None:
    """Copy a ledger exactly into an empty one, SQLite ↔ PostgreSQL, in one transaction on the target:
    every transaction, claim version, hash and chain row, provenance, predicate, journal entry (speaker,
    redactions, digest state), proposal, rejection, confirmation, tombstone, erased-text rule, export
    record, expired digest lease, the ledger secret and the chain start, with ids, times and sources as
    stored. Erased ledgers too: the schema's migrate gate, open only on an empty ledger and only for this
    copy, writes the hash rows erase left. Recall's lexical rows are rebuilt by the target's triggers;
    its vector folder is the target's own, built from the ledger before the target is verified.

    Refused, writing nothing: a non-empty target, a source whose digest leases are held.

    Then the proof: as-of answers at random (valid_at, known_at) pairs, the chain heads, every table's row
    count and content digest, recall's hits for a few of the source's values, and `verify` of the target
    (the same checks as `factledger verify`). The chain key is the source's (--chain-key / --chain-key-env,
    or the key file beside a SQLite source); it is written beside a SQLite target that has none, since the
    copy's links are keyed with it. Exit status 1 if any of them differs or fails."""
    report = migrate(str(source), str(target), pairs=pairs, seed=seed, chain_key=app.chain_key())
    checks = prove_parts(report, str(source), str(target), report.chain_key)
    keyed = report.chain_key_note
    if as_json:
        emit_json(report.to_dict())
    else:
        emit_table(["table", "rows", "digest"],
                   [(name, t.target_rows, ("equal " if t.ok else "DIFFERS ") + t.target_digest[:16])
                    for name, t in sorted(report.tables.items())],
                   title=f"copied {report.source} -> {report.target}")
        if report.not_copied:
            click.echo(f"not copied (empty on the source, no table on the target): {', '.join(report.not_copied)}")
        click.echo(f"as-of answers: {report.agreed} of {report.pairs} random (valid_at, known_at) pairs agreed")
        click.echo(f"chain head: {report.source_chain_head or '(none)'} -> {report.target_chain_head or '(none)'}")
        if keyed:
            click.echo(keyed)
        click.echo(f"recall: {'the same hits' if report.checks['recall'] else 'DIFFERENT hits'} on both sides")
        failed = [c for c in checks if not c.ok]
        click.echo("verify of the target: " + ("ok" if not failed else "FAILED: " + ", ".join(f"{c.name} ({c.details})" for c in failed)))
    if not report.ok:
        click.get_current_context().exit(1)


COMMANDS = [migrate_cmd]
