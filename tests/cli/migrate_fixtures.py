"""A small ledger that uses every table a migrate must copy, and a canonical dump to compare two of them.

`build_full_ledger` writes: several transactions (an import with an explicit tx_time, supersedes, a
retract, a valid-time correction), `one` and `many` slots in two scopes, provenance that adds no version,
a journal with speakers, sessions and a redacted secret, digested under the strict policy (proposals
accepted, rejected and left pending), a confirmation, an export manifest row, and an erase (tombstones,
erased-text rules, a turn redacted, the citing turn and its claim deleted: a hole in the ids)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.digest import Digester, Journal, RulesExtractor, Turn
from factledger.digest.review import accept, confirm, list_proposals, reject
from factledger.ledger import Ledger
from factledger.ledger.exports import record_export
from factledger.ledger.migrate import TABLE_ACCESS, canonical
from factledger.ledger.engines import open_storage

OPERATOR = "operator:dpo"


def build_full_ledger(path: Path) -> None:
    with Ledger.open(path) as ledger:
        with ledger.transaction(principal="import:crm", reason="first import", tx_time="2024-01-10") as tx:
            tx.define("works_at", "one")
            tx.define("likes", "many", template="{subject} likes {value}")
            tx.add("home", "Ann", "works_at", "Acme", valid_from="2023-01-01", source="turn:1")
            tx.add("home", "Ann", "likes", "jazz", valid_from="2020-01-01")
            tx.add("home", "Ann", "likes", "chess", valid_from="2021-01-01", source=["doc:a", "doc:b"])
            tx.add("work", "Bob", "works_at", "Initech", valid_from="2022-06-01")
        with ledger.transaction(principal="digest:rules", reason="moved job") as tx:
            tx.supersede("home", "Ann", "works_at", "Globex", valid_from="2024-02-01", source="turn:7")
            tx.add("home", "Ann", "likes", "chess", valid_from="2021-01-01", source="turn:8")  # provenance only
        with ledger.transaction(principal="agent:hermes", reason="summer") as tx:
            tx.add("home", "Ann", "likes", "blues", valid_from="2024-05-01", valid_to="2024-08-01")
            tx.retract("home", "Ann", "likes", "jazz", valid_from="2024-07-01")
        with ledger.transaction(principal="operator:alice", reason="correction") as tx:
            tx.supersede("home", "Ann", "works_at", "Hooli", valid_from="2024-02-15", valid_to="2024-04-01")

        journal = Journal(ledger)
        for text, speaker, minute in (
            ("I live in Lisbon", "Ann", 0),
            ("I work at Umbrella Corp", "Ann", 1),
            ("I like sailing", None, 2),
            ("I like hiking", "Ann", 3),
            ("Lisbon was sunny today, my token is ghp_abcdefghijklmnopqrstuvwxyz0123456789", "Ann", 4),
        ):
            journal.append(Turn(scope="s", text=text, session="chat-1", speaker=speaker,
                                said_at=f"2025-01-05T10:0{minute}:00Z"))
        journal.append(Turn(scope="s", text="Noted, you live in Lisbon", role="assistant", session="chat-1",
                            said_at="2025-01-05T10:05:00Z"))
        Digester(ledger, RulesExtractor(), policy="strict").run()
        pending = {p.value: p for p in list_proposals(ledger)}
        accept(ledger, pending["Lisbon"].id, principal=OPERATOR, reason="said so")
        accept(ledger, pending["Umbrella Corp"].id, principal=OPERATOR)
        reject(ledger, pending["sailing"].id, principal=OPERATOR, reason="a joke")  # "hiking" stays pending
        umbrella = next(v for v in ledger.current(["s"], predicate="works_at"))
        confirm(ledger, umbrella.id, principal=OPERATOR, reason="checked")
        record_export(ledger, directory=path.parent / "export", fmt="parquet",
                      snapshot_tx_time=ledger.last_tx_time(), tables=["claims", "transactions"])
    result = CliRunner().invoke(cli, ["--db", str(path), "--principal", OPERATOR, "erase", "--scope", "s",
                                      "--subject", "user", "--predicate", "lives_in", "--yes"])
    assert result.exit_code == 0, result.output


def canonical_dump(location: str | Path) -> dict[str, list[tuple]]:
    """Every table migrate copies, each row in its canonical form with its columns in name order, rows
    in key order: comparable across engines (whose columns may be declared in another order)."""
    storage = open_storage(location, read_only=True)
    try:
        tables = TABLE_ACCESS[storage.engine](storage)
        return {
            name: [tuple(canonical(v) for v in row) for row in tables.rows(name, sorted(columns))]
            for name, columns in sorted(tables.tables().items())
        }
    finally:
        storage.close()
