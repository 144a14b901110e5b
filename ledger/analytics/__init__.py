"""factledger.ledger.analytics: as-of and audit SQL over the ledger through DuckDB, and SQL writes
translated to ledger operations (writes.py).

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
    postgres_scanner_path,
    scanner_path,
    sqlite_scanner_path,
)
from .errors import QueryRefused, SqlError, SqlExecutionError, SqlSyntaxError
from .guard import check_query
from .writes import WriteOutcome, WritePlan, execute_write, plan_write

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
    "WriteOutcome",
    "WritePlan",
    "check_query",
    "execute_write",
    "export_snapshot",
    "plan_write",
    "postgres_scanner_path",
    "scanner_path",
    "sqlite_scanner_path",
]
