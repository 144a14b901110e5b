"""Errors of the SQL path. Each carries where in the query text it happened (1-based line and column)
and the offending text, so the CLI can point at it; all derive from LedgerError (CLI exit status 2)."""

from __future__ import annotations

from factledger.ledger.errors import LedgerError


class SqlError(LedgerError):
    """A query that cannot run: `line`, `column` (1-based) and `text` say where and what."""

    def __init__(self, reason: str, *, line: int, column: int, text: str):
        self.reason = reason
        self.line = line
        self.column = column
        self.text = text
        shown = f": {text!r}" if text else ""
        super().__init__(f"line {line}, column {column}: {reason}{shown}", field="query")

    def to_dict(self) -> dict[str, object]:
        return {"error": type(self).__name__, "reason": self.reason, "line": self.line, "column": self.column, "text": self.text}


class SqlSyntaxError(SqlError):
    """The text is not valid SQL in our dialect (DuckDB's, with temporal clauses)."""


class QueryRefused(SqlError):
    """Valid SQL that is not a read-only query over the ledger: DDL, DML, ATTACH, COPY, file access, …"""


class SqlExecutionError(LedgerError):
    """DuckDB could not run an accepted query (an unknown column, a type mismatch, …)."""

    def __init__(self, message: str):
        super().__init__(message, field="query")


def memory_message(limit: str | None, detail: str = "") -> str:
    """The error of a query stopped at its memory limit: which limit, and how to raise it."""
    said = f": {detail}" if detail else ""
    return (f"the query needed more memory than the limit of {limit} and was stopped"
            f" (raise it with --memory-limit, or memory_limit= in Python){said}")


def time_message(timeout: float | None) -> str:
    """The error of a query stopped at its time limit: which limit, and how to raise it."""
    return (f"the query ran longer than {timeout:g} s and was stopped"
            " (raise it with --timeout, or timeout= in Python)")


def position(sql: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset in `sql`."""
    offset = max(0, min(offset, len(sql)))
    line = sql.count("\n", 0, offset) + 1
    column = offset - (sql.rfind("\n", 0, offset) + 1) + 1
    return line, column
