"""Writing a query result as CSV, JSON or Parquet (the CLI's --format), with the ledger's time form.

The one CSV dialect of factledger, for `sql --format csv` and `export --format csv` alike (both write
through `CsvWriter`, so the same rows give the same bytes):
- a header row of the column names; one row per record, lines ending in "\n", UTF-8;
- a field is quoted ("…", a quote inside doubled) only when it holds a comma, a quote or a line break;
- a timestamp as the ledger's UTC text, 2024-01-10T00:00:00.000000Z; a date or time in ISO form;
- a list (or a struct) as its JSON text, ["turn:1","turn:7"], so that it reads back as one value;
- NULL as an empty field; a boolean as true or false (JSON's spelling).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from datetime import date, datetime, time, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

from factledger.ledger.errors import ValidationError
from factledger.ledger.times import FORMAT

FORMATS = ("table", "csv", "json", "parquet")


def plain(value: Any) -> Any:
    """A JSON-able form: timestamps (UTC, naive from DuckDB) in the ledger's text form, lists kept."""
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return moment.astimezone(timezone.utc).strftime(FORMAT)
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def write_json(columns: Sequence[str], rows: Sequence[Sequence[Any]], stream: TextIO) -> None:
    records = [{name: plain(v) for name, v in zip(columns, row)} for row in rows]
    stream.write(json.dumps(records, ensure_ascii=False) + "\n")


def csv_cell(value: Any) -> str:
    """One field of the CSV dialect above, before quoting."""
    value = plain(value)
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


class CsvWriter:
    """Rows to `stream` in the CSV dialect above; the header is written first."""

    def __init__(self, stream: TextIO, columns: Sequence[str]):
        self._writer = csv.writer(stream, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        self._writer.writerow(list(columns))
        self.rows = 0

    def write(self, rows: Iterable[Sequence[Any]]) -> None:
        for row in rows:
            self._writer.writerow([csv_cell(v) for v in row])
            self.rows += 1


def write_csv(columns: Sequence[str], rows: Sequence[Sequence[Any]], stream: TextIO) -> None:
    CsvWriter(stream, columns).write(rows)


def write_parquet(arrow_table: Any, path: Path) -> None:
    import pyarrow.parquet as pq  # only when asked: pyarrow is heavy to import

    pq.write_table(arrow_table, str(path))


def render_text(fmt: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """CSV or JSON text of a result."""
    buffer = io.StringIO()
    if fmt == "csv":
        write_csv(columns, rows, buffer)
    elif fmt == "json":
        write_json(columns, rows, buffer)
    else:
        raise ValidationError(f"{fmt!r} is not a text format; use csv or json", field="format")
    return buffer.getvalue()
