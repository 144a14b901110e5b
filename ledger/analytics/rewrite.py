"""Turn temporal clauses into predicates on the interval columns.

Every reference to `claims` (or to a temporal view over it) is replaced by a subquery over raw.claims
filtered on the text interval columns (the ledger's fixed-width UTC text compares like time, and the
filter then runs on the columns as stored: cheap, and pushable into the SQLite scan):

    AS OF t             from <= t AND (to IS NULL OR to > t)
    FROM a TO b         a < b AND from < b AND (to IS NULL OR to > a)       overlaps [a, b)
    BETWEEN a AND b     a <= b AND from <= b AND (to IS NULL OR to > a)     overlaps [a, b]
    ALL                 (no condition)

for valid time (valid_from, valid_to) and system time (tx_from, tx_to). Without a VALID_TIME clause,
valid time is AS OF now (fixed once per query); without a SYSTEM_TIME clause, the latest knowledge
(tx_to IS NULL). So a bare `claims` is current truth, the same rows as Ledger.current().

Time values: a string literal or TIMESTAMP '…' literal is normalised here to the ledger's UTC text
(offsets honoured; a datetime without an offset is read as UTC); any other expression (now() - INTERVAL
7 DAY, a scalar subquery) is converted by DuckDB with strftime at run time.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlglot import exp

from factledger.ledger.errors import ValidationError
from factledger.ledger.keys import key, predicate_key
from factledger.ledger.times import format_time, parse_time

from .dialect import TemporalClause, TemporalSpec, parse_one
from .errors import QueryRefused, SqlError, position
from .guard import node_offset
from .views import CLAIMS_PROJECTION, TIME_FORMAT, MacroDef, ViewDef

_COLUMNS = {"valid": ("valid_from", "valid_to"), "system": ("tx_from", "tx_to")}
_TIME_TYPES = {
    exp.DataType.Type.TIMESTAMP, exp.DataType.Type.TIMESTAMPNTZ, exp.DataType.Type.TIMESTAMPTZ,
    exp.DataType.Type.TIMESTAMPLTZ, exp.DataType.Type.DATE, exp.DataType.Type.DATETIME,
}


def canonical_time(text: str) -> str | None:
    """The ledger's UTC text for an ISO date/datetime; naive datetimes are UTC. None if not a time."""
    try:
        return parse_time(text, "time")
    except ValidationError:
        pass
    candidate = text.strip()
    if candidate.endswith(("Z", "z")):
        candidate = candidate[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(candidate)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return format_time(moment)


def _literal_text(node: exp.Expression) -> str | None:
    """The text of a string literal, or of TIMESTAMP '…' / DATE '…' / CAST('…' AS TIMESTAMP)."""
    if isinstance(node, exp.Literal) and node.is_string:
        return node.this
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_string:
        target = node.args.get("to")
        if isinstance(target, exp.DataType) and target.this in _TIME_TYPES:
            return node.this.this
    return None


class Rewriter:
    """Rewrites one checked query tree. `views`/`macros` are those registered for this ledger."""

    def __init__(
        self, sql: str, *, now: str, views: dict[str, ViewDef], macros: dict[str, MacroDef], typed_source: bool = False,
        interval_ends: tuple[str, dict[str, str]] | None = None,
    ):
        self.sql = sql
        self.now = now
        self.views = views
        self.macros = macros
        # Live: filter raw.claims on its text columns. Snapshot: claim_versions is a typed in-memory
        # table, filtered on its TIMESTAMP columns (integer compares, the fastest DuckDB has).
        self.typed_source = typed_source
        # The companion: (its claim table, {end column: its column with open ends as 'infinity'}).
        # Against a literal time (always finite) `end > t` alone is the same condition as
        # `end IS NULL OR end > t`, and DuckDB filters it in the scan.
        self.interval_ends = interval_ends

    def error(self, reason: str, node: exp.Expression, *, kind: type[SqlError] = QueryRefused, text: str | None = None) -> SqlError:
        line, column = position(self.sql, node_offset(node, 0))
        return kind(reason, line=line, column=column, text=node.sql(dialect="duckdb") if text is None else text)

    # -- time values ----------------------------------------------------------------------------

    def time_value(self, node: exp.Expression) -> exp.Expression:
        """The time `node` denotes, as the source's interval columns hold it (UTC text, or TIMESTAMP)."""
        text = _literal_text(node)
        if text is not None:
            stamp = canonical_time(text)
            if stamp is None:
                raise self.error("not a timestamp (use ISO-8601, e.g. '2025-03-01' or '2025-03-01T10:00:00Z')", node)
            return self._stamp(stamp)
        if isinstance(node, exp.Literal) or isinstance(node, exp.Null):
            raise self.error("a time must be a timestamp, e.g. '2025-03-01' or TIMESTAMP '2025-03-01 10:00'", node)
        typed = exp.cast(node, exp.DataType.Type.TIMESTAMPTZ)
        return typed if self.typed_source else exp.func("strftime", typed, exp.Literal.string(TIME_FORMAT))

    def _stamp(self, stamp: str) -> exp.Expression:
        literal = exp.Literal.string(stamp)
        return exp.cast(literal, exp.DataType.Type.TIMESTAMPTZ) if self.typed_source else literal

    def clause_condition(self, dimension: str, clause: TemporalClause | None) -> exp.Expression | None:
        start_col, end_col = (exp.column(name, table="c") for name in _COLUMNS[dimension])
        if clause is None and dimension == "system":
            # No SYSTEM_TIME clause: as the ledger knows it latest (every committed transaction, even
            # one stamped ahead of the clock), like Ledger.current().
            return exp.Is(this=end_col, expression=exp.Null())
        if clause is None:
            kind, values = "AS OF", [self._stamp(self.now)]
        else:
            kind = clause.args["kind"]
            values = [self.time_value(v) for v in clause.expressions]
        if kind == "ALL":
            return None
        if kind == "AS OF":
            (at,) = values
            return exp.and_(exp.LTE(this=start_col, expression=at), self._open_or_after(end_col, at.copy()))
        low, high = values
        if kind == "FROM":  # closed-open: overlaps [low, high)
            return exp.and_(
                exp.LT(this=low, expression=high),
                exp.LT(this=start_col, expression=high.copy()),
                self._open_or_after(end_col, low.copy()),
            )
        return exp.and_(  # BETWEEN, closed: overlaps [low, high]
            exp.LTE(this=low, expression=high),
            exp.LTE(this=start_col, expression=high.copy()),
            self._open_or_after(end_col, low.copy()),
        )

    def _open_or_after(self, end: exp.Column, at: exp.Expression) -> exp.Expression:
        """`end` is open (NULL) or after `at`."""
        if self.interval_ends is None:
            return exp.Paren(this=exp.or_(exp.Is(this=end.copy(), expression=exp.Null()), exp.GT(this=end.copy(), expression=at)))
        ended = exp.column(self.interval_ends[1][end.name], table="c")
        after = exp.GT(this=ended, expression=at)
        if isinstance(at, exp.Cast) and isinstance(at.this, exp.Literal) and at.this.is_string:
            return after
        # A time computed at run time might itself be 'infinity': then only the open ends are after it.
        infinity = exp.cast(exp.Literal.string("infinity"), exp.DataType.Type.TIMESTAMPTZ)
        return exp.Paren(this=exp.or_(after, exp.EQ(this=ended.copy(), expression=infinity)))

    # -- the tree -------------------------------------------------------------------------------

    def rewrite(self, tree: exp.Expression) -> exp.Expression:
        # Innermost first, so a table inside a time expression is rewritten before the clause using it.
        for node in reversed(list(tree.walk(bfs=False))):
            if isinstance(node, exp.Table):
                replacement = self._table(node)
                if replacement is not None:
                    if node is tree:
                        tree = replacement
                    else:
                        node.replace(replacement)
        return tree

    def _table(self, table: exp.Table) -> exp.Expression | None:
        target = table.this
        spec = table.args.get("version")
        if isinstance(target, exp.Func):
            name = str(target.name if isinstance(target, exp.Anonymous) else target.sql_name()).lower()
            if name in self.macros:
                self._macro_arguments(self.macros[name], target)
            if spec is not None:
                raise self._misplaced(spec, name)
            return None
        name = table.name.lower()
        local = table.db.lower() in ("", "main") and table.catalog.lower() in ("", "memory")
        if local and name in self.views:
            return self.expand(self.views[name], spec if isinstance(spec, TemporalSpec) else TemporalSpec(), table)
        if spec is not None:
            raise self._misplaced(spec, table.sql(dialect="duckdb") if not local else name)
        return None

    def _misplaced(self, spec: exp.Expression, name: str) -> SqlError:
        clause = spec.args.get("valid") or spec.args.get("system") or spec
        temporal = ", ".join(sorted(self.views)) or "claims"
        return self.error(
            f"FOR VALID_TIME / FOR SYSTEM_TIME apply to the claims views ({temporal}), not to {name}", clause, text="FOR"
        )

    def expand(self, view: ViewDef, spec: TemporalSpec, table: exp.Table) -> exp.Expression:
        if view.name == "claims":
            if self.interval_ends is not None:
                table_name, ends = self.interval_ends
                query = parse_one(f"SELECT * EXCLUDE ({', '.join(ends.values())}) FROM {table_name} AS c")
            else:
                query = parse_one("SELECT * FROM main.claim_versions AS c" if self.typed_source else CLAIMS_PROJECTION)
            conditions = [
                c for c in (self.clause_condition("valid", spec.args.get("valid")), self.clause_condition("system", spec.args.get("system"))) if c is not None
            ]
            if conditions:
                query = query.where(exp.and_(*conditions), copy=False)
        else:
            query = parse_one(view.sql)
            for inner in list(query.find_all(exp.Table)):
                if inner.name.lower() == "claims" and inner.args.get("version") is None:
                    inner.set("version", spec.copy())
            query = self.rewrite(query)
        alias = table.args.get("alias")
        if alias is None:
            alias = exp.TableAlias(this=exp.to_identifier(table.name))
        subquery = exp.Subquery(this=query, alias=alias.copy())
        for arg in ("pivots", "joins", "sample"):
            if table.args.get(arg):
                subquery.set(arg, table.args[arg])
        return subquery

    def _macro_arguments(self, macro: MacroDef, call: exp.Func) -> None:
        args = list(call.expressions)
        for index in macro.time_args:
            if index < len(args):
                text = _literal_text(args[index])
                if text is not None:
                    stamp = canonical_time(text)
                    if stamp is None:
                        raise self.error(f"argument {index + 1} of {macro.name} is not a timestamp", args[index])
                    args[index].replace(exp.Literal.string(stamp))
        for index in macro.key_args:
            if index < len(args) and isinstance(args[index], exp.Literal) and args[index].is_string:
                normal = (key if index == 0 else predicate_key)(args[index].this, "subject" if index == 0 else "predicate")
                args[index].replace(exp.Literal.string(normal))

