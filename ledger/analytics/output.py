"""Writing a query result as CSV, JSON or Parquet (the CLI's --format), with the ledger's time form."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
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


def write_csv(columns: Sequence[str], rows: Sequence[Sequence[Any]], stream: TextIO) -> None:
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        cells = []
        for value in row:
            value = plain(value)
            if isinstance(value, (list, dict)):
                value = json.dumps(value, ensure_ascii=False)
            cells.append("" if value is None else value)
        writer.writerow(cells)


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
