"""`stream_import` (what `factledger import` runs) checks a whole history first, then applies it as it
is read a second time, in one database transaction: no transaction waits for the rest of the file, a
refusal anywhere writes nothing, and a history out of tx-time order is still applied in that order."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from factledger.cli.main import cli
from factledger.ledger import Ledger, ValidationError
from factledger.ledger.ops import LineError, import_history, parse_operation, plan_import, scan_history, stream_import

pytestmark = pytest.mark.both_engines  # the import is the ledger's own transactions: the same on either engine


def _lines(count: int, *, refused_at: int | None = None, order: list[int] | None = None) -> list[dict]:
    lines = [{"op": "define", "predicate": "lives_in", "cardinality": "one"}]
    for n in order if order is not None else range(count):
        city = "Oslo" if n == refused_at else f"city {n}"
        op = "add" if n in (0, refused_at) else "supersede"
        lines.append({"op": op, "scope": "s", "subject": "Ann", "predicate": "lives_in", "value": city,
                      "valid_from": f"{2000 + n}-01-01", "tx_time": f"2024-01-{n + 1:02d}T00:00:00Z"})
    return lines


class Reader:
    """A history read anew on each call, counting the operations each pass has handed out."""

    def __init__(self, lines: list[dict]):
        self.lines = lines
        self.handed: list[int] = []

    def __call__(self):
        self.handed.append(0)
        for number, line in enumerate(self.lines, start=1):
            self.handed[-1] += 1
            yield parse_operation(line, number)


def test_each_transaction_is_applied_before_the_rest_is_read(fresh_ledger) -> None:
    reader = Reader(_lines(20))
    handed_at_progress: list[int] = []
    count = stream_import(fresh_ledger, reader, principal="import:test",
                          progress=lambda: handed_at_progress.append(reader.handed[1] if len(reader.handed) > 1 else 0))
    assert count == 21 and len(reader.handed) == 2 and reader.handed[0] == 21  # checked whole, then read again
    # The definitions lead (nothing of the second pass read yet); then each add or supersede is applied
    # once its line and the next one (which ends its transaction) have been read.
    assert handed_at_progress[0] == 0
    assert handed_at_progress[1:] == [min(n + 2, 21) for n in range(1, 21)]
    assert [c.value for c in fresh_ledger.as_of()] == ["city 19"]


def test_it_writes_what_import_history_writes(new_ledger_location) -> None:
    lines = _lines(8)
    results = {}
    for name in ("stream", "plan"):
        with Ledger.open(new_ledger_location()) as ledger:
            if name == "stream":
                got = []
                stream_import(ledger, Reader(lines), principal="import:test", on_result=got.append)
            else:
                got = import_history(ledger, plan_import(Reader(lines)()), principal="import:test")
            results[name] = [(r.tx_time, [v.value for v in r.opened], list(r.closed)) for r in got]
    assert results["stream"] == results["plan"] and len(results["stream"]) == 9


def test_a_history_out_of_order_is_applied_in_tx_time_order(fresh_ledger) -> None:
    reader = Reader(_lines(5, order=[0, 3, 1, 4, 2]))
    scan = scan_history(reader())
    assert not scan.in_order and scan.transactions == 6 and scan.earliest == "2024-01-01T00:00:00.000000Z"
    times = []
    stream_import(fresh_ledger, reader, principal="import:test", scan=scan, on_result=lambda r: times.append(r.tx_time))
    assert times == sorted(times) and [c.value for c in fresh_ledger.as_of()] == ["city 4"]


def test_a_refusal_late_in_the_history_writes_nothing(fresh_ledger) -> None:
    seen: list[int] = []
    with pytest.raises(LineError) as raised:
        stream_import(fresh_ledger, Reader(_lines(6, refused_at=4)), principal="import:test", progress=lambda: seen.append(1))
    assert raised.value.line == 6 and len(seen) == 5
    assert fresh_ledger.as_of() == [] and fresh_ledger.last_tx_time() is None


@pytest.mark.parametrize("lines, line, field, words", [
    ([{"op": "add", "scope": "s", "subject": "A", "predicate": "p", "value": "v", "tx_time": "2024-01-01"},
      {"op": "add", "scope": "s", "subject": "B", "predicate": "p", "value": "v", "tx_time": "2024-01-01T00:00:00Z"}],
     2, "tx_time", "is also the tx_time of line 1"),
    ([{"op": "add", "scope": "s", "subject": "A", "predicate": "p", "value": "v"}], 1, "tx_time", "required on each transaction"),
    ([{"op": "add", "scope": "s", "subject": "A", "predicate": "p", "value": "v", "tx_time": "2024-02-30"}], 1, "tx_time", ""),
])
def test_the_scan_refuses_what_plan_import_refuses(lines, line, field, words) -> None:
    for check in (scan_history, plan_import):
        with pytest.raises(LineError) as raised:
            check(Reader(lines)())
        assert (raised.value.line, raised.value.field) == (line, field) and words in str(raised.value)


def test_a_history_of_definitions_only_is_refused() -> None:
    with pytest.raises(ValidationError) as raised:
        scan_history(Reader([{"op": "define", "predicate": "p"}])())
    assert raised.value.field == "tx_time"


def test_the_command_reads_a_file_twice_and_prints_after_the_commit(tmp_path) -> None:
    history = tmp_path / "history.jsonl"
    # A BOM, CRLF line ends and a comment, as read_input takes them.
    history.write_bytes(b"\xef\xbb\xbf# exported\r\n" + "".join(json.dumps(line) + "\r\n" for line in _lines(4)).encode())
    db = tmp_path / "l.db"
    result = CliRunner().invoke(cli, ["--db", str(db), "import", str(history), "--progress"])
    assert result.exit_code == 0, result.output
    printed = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(printed) == 5 and {p["principal"] for p in printed} == {"import:history"}
    assert [v["value"] for p in printed for v in p["opened"] if v["valid_to"] is None] == [f"city {n}" for n in range(4)]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(history.read_bytes() + b'{"op": "define", "predicate": "caf\xe9"}\n')
    refused = CliRunner().invoke(cli, ["--db", str(tmp_path / "m.db"), "import", str(bad)])
    assert refused.exit_code != 0 and "line 7: line: not valid UTF-8 (byte 0xe9 at column 35)" in refused.stderr
    assert not (tmp_path / "m.db").exists()


def test_the_command_gives_the_collector_its_threshold_back(tmp_path) -> None:
    # The import runs Python's cyclic collector less often while it works; the process's setting after
    # it, whether it committed or refused, is the one it had before.
    import gc

    history = tmp_path / "history.jsonl"
    history.write_text("".join(json.dumps(line) + "\n" for line in _lines(3)))
    before = gc.get_threshold()
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "l.db"), "import", str(history)])
    assert result.exit_code == 0, result.output
    assert gc.get_threshold() == before
    refused = CliRunner().invoke(cli, ["--db", str(tmp_path / "l.db"), "import", str(history)])  # not later: refused
    assert refused.exit_code != 0 and gc.get_threshold() == before
