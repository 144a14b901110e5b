"""Our SQL dialect: DuckDB's, plus the SQL:2011 / XTDB temporal clauses on a table reference.

sqlglot's base parser already reads one `FOR SYSTEM_TIME …` phrase after a table name (its
`_parse_version`, producing `exp.Version`), but it knows nothing of VALID_TIME, takes a single phrase,
and does not read `FOR ALL SYSTEM_TIME`. We replace that hook in a parser subclass so that, after a table
name (and, for convenience, after its alias), up to two clauses are read, one per time dimension, in
either order:

    FOR VALID_TIME AS OF t            FOR SYSTEM_TIME AS OF t
    FOR VALID_TIME FROM t1 TO t2      (closed-open)
    FOR VALID_TIME BETWEEN t1 AND t2  (closed)
    FOR ALL VALID_TIME                FOR VALID_TIME ALL

and, for UPDATE and DELETE (writes.py), SQL:2011's portion, with XTDB's open end:

    FOR PORTION OF VALID_TIME FROM t1 [TO t2 | TO NULL]
    FOR PORTION OF VALID_TIME (tstzrange(t1, t2))      PostgreSQL 19's direct target; also ('[t1,t2)')

and `SUPERSEDE claims …` (an UPDATE's shape: the ledger's replace-over-the-portion), `ERASE FROM claims …`.

The result is a `TemporalSpec` node in the table's `version` argument. It is never turned back into SQL:
`rewrite.py` replaces every table reference carrying one with a filtered subquery.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from sqlglot import exp
from sqlglot.dialects.duckdb import DuckDB
from sqlglot.errors import ErrorLevel
from sqlglot.parsers.duckdb import DuckDBParser
from sqlglot.tokens import Token, TokenType

DIMENSIONS = ("VALID_TIME", "SYSTEM_TIME")


class TemporalClause(exp.Expression):
    """One clause. this: VALID_TIME | SYSTEM_TIME; kind: AS OF | FROM | BETWEEN | ALL | PORTION | TARGET;
    expressions: the time expressions (one for AS OF, two for FROM/BETWEEN, none for ALL, one or two
    for PORTION: no second one is an open end; one range for TARGET, PostgreSQL 19's
    `FOR PORTION OF p (range)`)."""

    arg_types = {"this": True, "kind": True, "expressions": False, "period": False}


class Erase(exp.Expression):
    """`ERASE FROM claims WHERE …`: our statement for the operator's hard removal (writes.py)."""

    arg_types = {"this": True, "where": False}


class Supersede(exp.Expression):
    """`SUPERSEDE claims [FOR PORTION OF VALID_TIME …] SET value = … WHERE …`: the ledger's own word for
    "within the portion the slot now holds this value", whatever it held (writes.py). `this`: the
    UPDATE the rest of the statement reads as."""

    arg_types = {"this": True}


class TemporalSpec(exp.Expression):
    """The clauses given on one table reference: at most one per dimension."""

    arg_types = {"valid": False, "system": False}


class FactledgerParser(DuckDBParser):
    def _parse_statement(self) -> exp.Expression | None:  # type: ignore[override]
        # ERASE is no SQL keyword: read `ERASE FROM <table> [WHERE …]` here, as DELETE is read.
        if self._curr and self._curr.text.upper() == "ERASE" and self._next and self._next.token_type == TokenType.FROM:
            start = self._curr.start
            self._advance(2)
            node = Erase(this=self._parse_table(joins=True), where=self._parse_where())
            node.meta["start"] = start
            return node
        if self._curr and self._curr.text.upper() == "SUPERSEDE" and self._next and self._next.token_type == TokenType.VAR:
            start = self._curr.start
            self._advance()
            node = Supersede(this=self._parse_update())
            node.meta["start"] = start
            return node
        return super()._parse_statement()

    def _parse_placeholder(self) -> exp.Expression | None:  # type: ignore[override]
        # A placeholder keeps where it stands: positional ones bind in text order, refusals point at them.
        start = self._curr.start if self._curr else None
        node = super()._parse_placeholder()
        if node is not None and start is not None:
            node.meta["start"] = start
        return node

    def _parse_version(self) -> exp.Expression | None:  # type: ignore[override]
        spec: dict[str, TemporalClause] = {}
        while True:
            token = self._curr
            clause = self._parse_temporal_clause()
            if clause is None:
                break
            key = "valid" if clause.this == "VALID_TIME" else "system"
            if key in spec:
                self.raise_error(f"FOR {clause.this} given twice on one table", token)
            spec[key] = clause
        if not spec:
            return None
        return TemporalSpec(**spec)

    def _parse_temporal_clause(self) -> TemporalClause | None:
        index = self._index
        first: Token | None = self._curr
        if not self._match_text_seq("FOR"):
            return None
        if self._match_text_seq("ALL"):
            dimension = self._match_dimension()
            if dimension is None:
                self._retreat(index)
                return None
            return self._clause(first, dimension, "ALL", [])
        if self._match_text_seq("PORTION", "OF"):
            return self._parse_portion(first)
        dimension = self._match_dimension()
        if dimension is None:  # some other FOR (FOR UPDATE, …): not ours
            self._retreat(index)
            return None
        if self._match_text_seq("ALL"):
            return self._clause(first, dimension, "ALL", [])
        if self._match_text_seq("AS", "OF"):
            return self._clause(first, dimension, "AS OF", [self._parse_time_expression()])
        if self._match_text_seq("FROM"):
            # `INTERVAL 7 DAY TO now()` would read as an interval span (DAY TO SECOND); not here.
            self.INTERVAL_SPANS = False
            try:
                start = self._parse_time_expression()
            finally:
                del self.INTERVAL_SPANS
            if not self._match_text_seq("TO"):
                self.raise_error(f"expected TO in FOR {dimension} FROM … TO …")
            return self._clause(first, dimension, "FROM", [start, self._parse_time_expression()])
        if self._match_text_seq("BETWEEN"):
            start = self._parse_time_expression()
            if not self._match_text_seq("AND"):
                self.raise_error(f"expected AND in FOR {dimension} BETWEEN … AND …")
            return self._clause(first, dimension, "BETWEEN", [start, self._parse_time_expression()])
        self.raise_error(f"expected AS OF, FROM, BETWEEN or ALL after FOR {dimension}")
        return None

    def _parse_portion(self, first: Token | None) -> TemporalClause:
        period, period_start = "VALID_TIME", self._curr.start if self._curr else None
        if not self._match_text_seq("VALID_TIME"):
            # Another name (PostgreSQL's valid_at, MariaDB's apptime): read here, checked by writes.py
            # against the alias the writer declared.
            named = self._curr.text if self._curr else ""
            if named.upper() == "SYSTEM_TIME":
                self.raise_error("FOR PORTION OF takes VALID_TIME: system time is the ledger's own")
            if self._curr is None or self._curr.token_type not in (TokenType.VAR, TokenType.IDENTIFIER):
                self.raise_error("expected the period's name, VALID_TIME, after FOR PORTION OF")
            period = named
            self._advance()
        if self._match(TokenType.L_PAREN):  # PostgreSQL 19's direct target: (tstzrange(a, b)) or ('[a,b)')
            target = self._parse_expression()
            if target is None or not self._match(TokenType.R_PAREN):
                self.raise_error("expected a range in FOR PORTION OF VALID_TIME (…)")
            return self._period(self._clause(first, "VALID_TIME", "TARGET", [target]), period, period_start)
        if not self._match_text_seq("FROM"):
            self.raise_error("expected FROM in FOR PORTION OF VALID_TIME FROM … [TO …]")
        self.INTERVAL_SPANS = False
        try:
            values = [self._parse_time_expression()]
        finally:
            del self.INTERVAL_SPANS
        if self._match_text_seq("TO"):  # leaving TO out is XTDB's open end; TO NULL is the same
            values.append(self._parse_time_expression())
        return self._period(self._clause(first, "VALID_TIME", "PORTION", values), period, period_start)

    def _period(self, clause: TemporalClause, period: str, start: int | None) -> TemporalClause:
        if period != "VALID_TIME":
            clause.set("period", period)
            clause.meta["period_start"] = start
        return clause

    def _match_dimension(self) -> str | None:
        for dimension in DIMENSIONS:
            if self._match_text_seq(dimension):
                return dimension
        return None

    def _parse_time_expression(self) -> exp.Expression:
        value = self._parse_bitwise()  # stops before AND / TO, unlike a full expression
        if value is None:
            self.raise_error("expected a timestamp")
        return value

    def _clause(self, first: Token | None, dimension: str, kind: str, values: list) -> TemporalClause:
        clause = TemporalClause(this=dimension, kind=kind, expressions=values)
        if first is not None:
            clause.meta["start"] = first.start
        return clause

    def _parse_table(self, *args, **kwargs):  # type: ignore[override]
        table = super()._parse_table(*args, **kwargs)
        # The standard puts the clauses right after the table name (read by the base parser through
        # _parse_version); also accept them after the alias: `FROM claims c FOR VALID_TIME AS OF …`.
        if isinstance(table, exp.Table) and table.args.get("version") is None:
            spec = self._parse_version()
            if spec is not None:
                table.set("version", spec)
        return table


class Factledger(DuckDB):
    """DuckDB's dialect with the temporal clauses."""

    class Parser(FactledgerParser):
        pass


DIALECT = Factledger()


@contextmanager
def _quiet_sqlglot() -> Iterator[None]:
    # sqlglot logs a warning when it falls back to a generic command; we refuse those with a
    # positioned error instead, so the warning is only noise on the terminal.
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def parse_statements(sql: str) -> list[exp.Expression | None]:
    """Parse `sql` (maybe several statements) with our dialect; raises sqlglot.errors.ParseError."""
    with _quiet_sqlglot():
        return DIALECT.parser(error_level=ErrorLevel.RAISE).parse(DIALECT.tokenize(sql), sql)


def parse_one(sql: str) -> exp.Expression:
    """Parse one trusted statement (our own view and template text)."""
    parsed = [p for p in parse_statements(sql) if p is not None]
    if len(parsed) != 1:
        raise ValueError(f"expected one statement, got {len(parsed)}")
    return parsed[0]


def tokenize(sql: str) -> list[Token]:
    return DIALECT.tokenize(sql)
