"""factledger.ledger.analytics: read-only, as-of and audit SQL over the ledger through DuckDB.

The only place in factledger that imports duckdb and sqlglot. See engine.Analytics for the entry point,
dialect.py for the temporal clauses, rewrite.py for their meaning, guard.py for what is refused and
views.py for what the analyst sees.
"""

from .engine import (
    DEFAULT_MAX_ROWS,
    DEFAULT_MEMORY_LIMIT,
    DEFAULT_TIMEOUT,
    Analytics,
    ExportedTable,
    ExportReport,
    QueryResult,
    export_snapshot,
    sqlite_scanner_path,
)
from .errors import QueryRefused, SqlError, SqlExecutionError, SqlSyntaxError
from .guard import check_query

__all__ = [
    "DEFAULT_MAX_ROWS",
    "DEFAULT_MEMORY_LIMIT",
    "DEFAULT_TIMEOUT",
    "Analytics",
    "ExportReport",
    "ExportedTable",
    "QueryRefused",
    "QueryResult",
    "SqlError",
    "SqlExecutionError",
    "SqlSyntaxError",
    "check_query",
    "export_snapshot",
    "sqlite_scanner_path",
]
