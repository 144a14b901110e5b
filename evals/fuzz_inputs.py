"""Fuzz every input surface and count how each case ended: a result, a clear error, or a traceback.

    .venv/bin/python evals/fuzz_inputs.py                 # 2,500 apply / journal, 500 search, 1,500 sql, ...
    .venv/bin/python evals/fuzz_inputs.py --cases 200     # every surface 200 cases (quick look)
    .venv/bin/python evals/fuzz_inputs.py --surface sql --show 5   # print five tracebacks of one surface

Surfaces (the strategies are tests/fuzz_strategies.py, shared with tests/*/test_fuzz_*.py):
- apply: JSON Lines files for `factledger apply` (half with --all-or-nothing), through the CLI;
- journal: JSON Lines files for `factledger journal add`, through the CLI;
- search: queries for `factledger search` (CLI, lexical configuration) and `Recall.search` (library,
  the default configuration with the vector lane);
- sql: queries for `factledger sql`, through the CLI;
- tools: tool calls for `MemorySession.call_tool` (the Hermes provider's tools);
- settings: settings files for `ProviderSettings.load`.

A CLI case is a *clear error* when it exits with status 2 and prints `error: …` (or click's usage
error), a *result* when it exits 0, a *traceback* when an exception escapes the command. A library case
is a clear error when it raises a factledger error (LedgerError). For every refused write the ledger
file is hashed before and after: `changed` counts refused writes that changed a byte (must be 0).
No case is shrunk: hypothesis only generates (phases=[generate]).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
import traceback
from collections import Counter
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for tests.fuzz_strategies

from factledger.cli.main import cli  # noqa: E402
from factledger.hermes_plugin.memory import MemorySession  # noqa: E402
from factledger.hermes_plugin.paths import HermesPaths  # noqa: E402
from factledger.hermes_plugin.scope import HermesIdentity  # noqa: E402
from factledger.hermes_plugin.settings import ProviderSettings  # noqa: E402
from factledger.ledger import Ledger, LedgerError  # noqa: E402
from factledger.recall import Recall  # noqa: E402
from tests import fuzz_strategies as fz  # noqa: E402

DEFAULT_CASES = {"apply": 2500, "journal": 2500, "search": 500, "sql": 1500, "tools": 1000, "settings": 1000}
SEED = [
    {"op": "define", "predicate": "lives_in", "cardinality": "one", "template": "{subject} lives in {value}", "tx": "d"},
    {"op": "define", "predicate": "likes", "cardinality": "many", "tx": "d"},
    {"op": "add", "scope": "s", "subject": "Ann", "predicate": "lives_in", "value": "Paris", "valid_from": "2024-01-01"},
    {"op": "add", "scope": "s", "subject": "Ann", "predicate": "likes", "value": "jazz", "valid_from": "2024-01-01"},
]


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    for suffix in ("", "-wal"):
        part = Path(str(path) + suffix)
        if part.exists():
            digest.update(part.read_bytes())
    return digest.hexdigest()


class Tally:
    def __init__(self, name: str):
        self.name = name
        self.counts: Counter[str] = Counter()
        self.changed = 0
        self.examples: list[str] = []

    def traceback(self, exc: BaseException, case: object) -> None:
        self.counts["traceback"] += 1
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)[-3:])
        self.examples.append(f"case: {case!r:.300}\n{text}")

    def row(self) -> dict:
        total = sum(self.counts.values())
        return {"surface": self.name, "cases": total, "traceback": self.counts["traceback"],
                "clear error": self.counts["error"], "result": self.counts["result"], "refused write changed db": self.changed}


def run_cli(runner: CliRunner, tally: Tally, args: list[str], case: object, *, db: Path | None = None,
            refused_must_not_write: bool = False) -> None:
    before = file_hash(db) if db is not None else None
    try:
        result = runner.invoke(cli, args, catch_exceptions=True)
    except Exception as exc:  # the runner itself failed (output encoding): still a traceback
        tally.traceback(exc, case)
        return
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        tally.traceback(result.exception, case)
    elif result.exit_code == 0:
        tally.counts["result"] += 1
    elif result.exit_code == 2:
        tally.counts["error"] += 1
    else:
        tally.counts[f"exit {result.exit_code}"] += 1
    if db is not None and refused_must_not_write and result.exit_code != 0 and file_hash(db) != before:
        tally.changed += 1


def _seed(db: Path) -> None:
    seed = db.parent / "seed.jsonl"
    seed.write_text("".join(json.dumps(line) + "\n" for line in SEED))
    result = CliRunner().invoke(cli, ["--db", str(db), "--principal", "operator:fuzz", "apply", str(seed)])
    assert result.exit_code == 0, result.output


def _given(strategy, cases: int):
    return lambda body: settings(max_examples=cases, database=None, deadline=None, phases=[Phase.generate],
                                 suppress_health_check=list(HealthCheck))(given(strategy)(body))


def fuzz_apply(work: Path, cases: int) -> Tally:
    tally, runner, db = Tally("apply"), CliRunner(), work / "apply.db"
    _seed(db)
    count = [0]

    @_given(fz.apply_inputs(), cases)
    def case(data: bytes) -> None:
        count[0] += 1
        path = work / "ops.jsonl"
        path.write_bytes(data)
        whole = count[0] % 2 == 0
        args = ["--db", str(db), "--principal", "operator:fuzz", "apply", str(path)] + (["--all-or-nothing"] if whole else [])
        single = len([line for line in data.splitlines() if line.strip()]) <= 1
        run_cli(runner, tally, args, data, db=db, refused_must_not_write=whole or single)

    case()
    return tally


def fuzz_journal(work: Path, cases: int) -> Tally:
    tally, runner, db = Tally("journal add"), CliRunner(), work / "journal.db"
    _seed(db)

    @_given(fz.journal_inputs(), cases)
    def case(data: bytes) -> None:
        path = work / "turns.jsonl"
        path.write_bytes(data)
        run_cli(runner, tally, ["--db", str(db), "journal", "add", str(path)], data, db=db, refused_must_not_write=True)

    case()
    return tally


def fuzz_search(work: Path, cases: int) -> list[Tally]:
    cli_tally, lib_tally, runner, db = Tally("search (CLI)"), Tally("Recall.search"), CliRunner(), work / "search.db"
    _seed(db)

    @_given(fz.search_queries(), cases)
    def case(query: str) -> None:
        args = ["--db", str(db), "search", query, "--scope", "s", "--config", "lexical", "--json"]
        run_cli(runner, cli_tally, args, query, db=db, refused_must_not_write=True)

    case()
    with Ledger.open(db) as ledger:
        recall = Recall(ledger, work / "search.lance")
        try:

            @_given(fz.search_queries(), cases)
            def library_case(query: str) -> None:
                try:
                    recall.search(query, ["s"])
                    lib_tally.counts["result"] += 1
                except LedgerError:
                    lib_tally.counts["error"] += 1
                except Exception as exc:
                    lib_tally.traceback(exc, query)

            library_case()
        finally:
            recall.close()
    return [cli_tally, lib_tally]


def fuzz_sql(work: Path, cases: int) -> Tally:
    tally, runner, db = Tally("sql"), CliRunner(), work / "sql.db"
    _seed(db)

    @_given(fz.sql_queries(), cases)
    def case(query: str) -> None:
        run_cli(runner, tally, ["--db", str(db), "sql", query, "--json"], query, db=db, refused_must_not_write=True)

    case()
    return tally


def fuzz_tools(work: Path, cases: int) -> Tally:
    tally = Tally("tools")
    session = MemorySession(HermesPaths(work / "hermes"), HermesIdentity.from_kwargs("fuzz", {"platform": "cli"}), ProviderSettings())
    try:

        @_given(fz.tool_calls(), cases)
        def case(call: tuple[str, object]) -> None:
            tool, args = call
            try:
                json.dumps(session.call_tool(tool, args), ensure_ascii=False).encode("utf-8")
                tally.counts["result"] += 1
            except LedgerError:
                tally.counts["error"] += 1
            except Exception as exc:
                tally.traceback(exc, call)

        case()
    finally:
        session.close()
    return tally


def fuzz_settings(work: Path, cases: int) -> Tally:
    tally = Tally("settings")
    path = work / "config.yaml"

    @_given(fz.settings_files(), cases)
    def case(data: bytes) -> None:
        path.write_bytes(data)
        try:
            ProviderSettings.load(path)
            tally.counts["result"] += 1
        except LedgerError:
            tally.counts["error"] += 1
        except Exception as exc:
            tally.traceback(exc, data)

    case()
    return tally


SURFACES = {
    "apply": fuzz_apply, "journal": fuzz_journal, "search": fuzz_search, "sql": fuzz_sql, "tools": fuzz_tools,
    "settings": fuzz_settings,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=None, help="Cases per surface (default: see DEFAULT_CASES).")
    parser.add_argument("--surface", action="append", choices=sorted(SURFACES), help="Only this surface (repeatable).")
    parser.add_argument("--show", type=int, default=0, help="Print this many traceback examples per surface.")
    parser.add_argument("--json", action="store_true", help="Print the table as JSON.")
    args = parser.parse_args()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    rows: list[dict] = []
    work = Path(tempfile.mkdtemp(prefix="factledger-fuzz-"))
    try:
        for name in args.surface or list(SURFACES):
            cases = args.cases or DEFAULT_CASES[name]
            result = SURFACES[name](work, cases)
            for tally in result if isinstance(result, list) else [result]:
                rows.append(tally.row())
                if not args.json:
                    print(json.dumps(tally.row()), flush=True)
                for example in tally.examples[: args.show]:
                    print(example, file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print()
    print(f"{'surface':<16}{'cases':>7}{'traceback':>11}{'clear error':>13}{'result':>8}{'changed db':>12}")
    for r in rows:
        print(f"{r['surface']:<16}{r['cases']:>7}{r['traceback']:>11}{r['clear error']:>13}{r['result']:>8}"
              f"{r['refused write changed db']:>12}")


if __name__ == "__main__":
    main()
