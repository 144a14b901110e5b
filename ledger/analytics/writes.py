"""Temporal writes in SQL (SQL:2011 / XTDB), translated to the ledger's own operations.

    INSERT INTO claims (scope, subject, predicate, value[, valid_from][, valid_to][, source]) VALUES (…), …
        → one `add` per row
    UPDATE claims [FOR PORTION OF VALID_TIME FROM a [TO b | TO NULL]] SET value = v[, source = s]
        WHERE scope = … AND subject = … AND predicate = … [AND value = old]
        → `supersede` over [a, b) (old: the value replaced, which a `many` slot needs)
    DELETE FROM claims [FOR PORTION OF VALID_TIME FROM a [TO b]] WHERE … [AND value = v]
        → `retract` over [a, b)
    DELETE FROM claims FOR ALL VALID_TIME WHERE … → `retract` with all_valid_time ("never true")
    ERASE FROM claims WHERE … [AND value = v] → the operator's erase (composed by the caller)

Without a portion an UPDATE or DELETE runs from now (the transaction time) to the end of time, XTDB's
default; `CURRENT_TIMESTAMP` / `now()` as a start also means the transaction time. Anything that is not
exactly one of these shapes is refused with the line, column and text of the part at fault. The plan is
a list of `factledger apply` lines (ledger/ops.py), applied as one ledger transaction, so SQL writes
pass the same validation, slot algebra, hash chain and triggers as every other write.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from factledger.ledger.errors import LedgerError, PermissionDenied
from factledger.ledger.model import TxResult
from factledger.ledger.ops import Batch, LineError, apply_batch, parse_operation
from factledger.ledger.store import Ledger

from .dialect import Erase, TemporalClause, TemporalSpec
from .errors import QueryRefused, position
from .guard import Guard, node_offset
from .params import Params, bind
from .rewrite import _literal_text, canonical_time

KEYS = ("scope", "subject", "predicate")
INSERT_COLUMNS = KEYS + ("value", "valid_from", "valid_to", "source")
_NOW_FUNCTIONS = (exp.CurrentTimestamp, exp.CurrentDate)
_STATEMENTS = (exp.Insert, exp.Update, exp.Delete, Erase)


@dataclass(frozen=True)
class WritePlan:
    """What one statement does: `operations` as `apply` lines, or `erase` (scope, subject, predicate, value)."""

    statement: str
    operations: list[dict[str, Any]] = field(default_factory=list)
    erase: dict[str, Any] | None = None

    def lines(self) -> list[dict[str, Any]]:
        """The dry-run output: `apply` JSON lines (an erase, which apply has no line for, as op "erase")."""
        if self.erase is not None:
            return [{"op": "erase", **self.erase}]
        return [dict(line) for line in self.operations]


@dataclass(frozen=True)
class WriteOutcome:
    plan: WritePlan
    result: TxResult | None = None  # the transaction of an INSERT/UPDATE/DELETE; None for a dry run
    erased: Any = None  # what the erase function returned

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"statement": self.plan.statement, "operations": self.plan.lines()}
        if self.result is not None:
            data["transaction"] = self.result.to_dict()
        if self.erased is not None:
            data["erased"] = self.erased.to_dict() if hasattr(self.erased, "to_dict") else self.erased
        return data


EraseFunction = Callable[..., Any]


class Translator:
    """Turns one parsed write statement into a WritePlan, refusing with positions."""

    def __init__(self, sql: str):
        self.sql = sql

    def refuse(self, reason: str, node: exp.Expression | None, *, text: str | None = None, keyword: str = "") -> QueryRefused:
        offset = node_offset(node, 0) if node is not None else 0
        if keyword:  # clause nodes carry no position of their own: point at their keyword
            found = self.sql.upper().rfind(keyword, 0, offset + 1)
            offset = found if found >= 0 else offset
        line, column = position(self.sql, offset)
        shown = text if text is not None else ("" if node is None or isinstance(node, TemporalClause) else node.sql(dialect="duckdb"))
        return QueryRefused(reason, line=line, column=column, text=shown if len(shown) <= 60 else shown[:59] + "…")

    # -- the statement --------------------------------------------------------------------------

    def translate(self, tree: exp.Expression) -> WritePlan:
        if isinstance(tree, exp.Insert):
            return self.insert(tree)
        if isinstance(tree, exp.Update):
            return self.update(tree)
        if isinstance(tree, exp.Delete):
            return self.delete(tree)
        if isinstance(tree, Erase):
            return self.erase(tree)
        raise self.refuse("--write takes one INSERT, UPDATE, DELETE or ERASE on claims", tree)

    def _extras(self, tree: exp.Expression, allowed: set[str]) -> None:
        for name, value in tree.args.items():
            if name in allowed or value in (None, False, [], ""):
                continue
            node = value[0] if isinstance(value, list) else value
            part = f"OR {value}" if name == "alternative" else name.rstrip("_").upper()
            raise self.refuse(
                f"{part} cannot be expressed as a ledger operation",
                node if isinstance(node, exp.Expression) else tree,
                keyword="FROM" if isinstance(node, exp.From) else "",
            )

    def _claims(self, table: Any, statement: exp.Expression) -> TemporalClause | None:
        """Check the target is `claims`; return its VALID_TIME clause, if any."""
        if not isinstance(table, exp.Table) or not isinstance(table.this, exp.Identifier):
            raise self.refuse("writes go to claims", table if isinstance(table, exp.Expression) else statement)
        if table.name.lower() != "claims" or table.db or table.catalog:
            raise self.refuse(f"writes go to claims, not {table.sql(dialect='duckdb')}", table, text=table.sql(dialect="duckdb"))
        if table.args.get("joins"):
            raise self.refuse("a write names one table", table.args["joins"][0])
        spec = table.args.get("version")
        if spec is None:
            return None
        if not isinstance(spec, TemporalSpec):
            raise self.refuse("not a clause a write can take", spec)
        if spec.args.get("system") is not None:
            raise self.refuse("system time is the ledger's own: a write cannot set it", spec.args["system"], text="FOR SYSTEM_TIME")
        return spec.args.get("valid")

    def insert(self, tree: exp.Insert) -> WritePlan:
        self._extras(tree, {"this", "expression"})
        target = tree.this
        if not isinstance(tree.expression, exp.Values):
            keyword = "SELECT" if isinstance(tree.expression, exp.Select) else ""
            raise self.refuse("INSERT takes VALUES (…); a query's rows cannot be written", tree.expression or tree, keyword=keyword)
        if not isinstance(target, exp.Schema):
            raise self.refuse(f"name the columns: INSERT INTO claims ({', '.join(INSERT_COLUMNS[:6])}) VALUES …", target)
        self._claims(target.this, tree)
        if target.this.args.get("version") is not None:
            raise self.refuse("INSERT takes the interval as valid_from / valid_to columns", target.this.args["version"], text="FOR")
        columns: list[str] = []
        for ident in target.expressions:
            name = ident.name.lower()
            if name not in INSERT_COLUMNS:
                raise self.refuse(f"claims has no writable column {ident.name!r} (writable: {', '.join(INSERT_COLUMNS)})", ident)
            if name in columns:
                raise self.refuse(f"column {name} named twice", ident)
            columns.append(name)
        missing = [c for c in ("scope", "subject", "predicate", "value") if c not in columns]
        if missing:
            raise self.refuse(f"INSERT needs the column(s) {', '.join(missing)}", target)
        values = tree.expression
        operations = []
        for row in values.expressions:
            cells = list(row.expressions) if isinstance(row, exp.Tuple) else [row]
            if len(cells) != len(columns):
                raise self.refuse(f"{len(cells)} value(s) for {len(columns)} column(s)", row)
            line: dict[str, Any] = {"op": "add"}
            for name, cell in zip(columns, cells):
                value = self.cell(name, cell)
                if value is not None:
                    line[name] = value
            operations.append(line)
        return WritePlan("INSERT", operations)

    def update(self, tree: exp.Update) -> WritePlan:
        self._extras(tree, {"this", "expressions", "where"})
        interval = self.portion(self._claims(tree.this, tree), "UPDATE", allow_all=False)
        line: dict[str, Any] = {"op": "supersede"}
        for assignment in tree.expressions:
            if not isinstance(assignment, exp.EQ) or not isinstance(assignment.this, exp.Column):
                raise self.refuse("SET takes value = … (and source = …)", assignment)
            name = assignment.this.name.lower()
            if name not in ("value", "source"):
                raise self.refuse(f"only value and source can be set, not {name} (the slot is named in WHERE)", assignment.this)
            if name in line:
                raise self.refuse(f"{name} set twice", assignment)
            line[name] = self.cell(name, assignment.expression)
        if "value" not in line or line["value"] is None:
            raise self.refuse("UPDATE needs SET value = …", tree)
        keys = self.where(tree, value_field="replaces")
        line = {"op": "supersede", **keys, **{k: v for k, v in line.items() if k != "op" and v is not None}}
        line.update(interval)
        return WritePlan("UPDATE", [line])

    def delete(self, tree: exp.Delete) -> WritePlan:
        self._extras(tree, {"this", "where"})
        interval = self.portion(self._claims(tree.this, tree), "DELETE", allow_all=True)
        line = {"op": "retract", **self.where(tree, value_field="value"), **interval}
        return WritePlan("DELETE", [line])

    def erase(self, tree: Erase) -> WritePlan:
        clause = self._claims(tree.this, tree)
        if clause is not None:
            raise self.refuse("ERASE removes every version of the value; it takes no time clause", clause, text="FOR")
        target = self.where(tree, value_field="value")
        return WritePlan("ERASE", erase={"value": None, **target})

    # -- parts ----------------------------------------------------------------------------------

    def where(self, tree: exp.Expression, *, value_field: str) -> dict[str, Any]:
        """`scope = … AND subject = … AND predicate = … [AND value = …]`, in any order."""
        where = tree.args.get("where")
        if where is None:
            raise self.refuse("name the slot: WHERE scope = … AND subject = … AND predicate = …", tree)
        found: dict[str, Any] = {}
        pending = [where.this]
        while pending:
            node = pending.pop(0)
            if isinstance(node, exp.Paren):
                pending.insert(0, node.this)
                continue
            if isinstance(node, exp.And):
                pending[:0] = [node.this, node.expression]
                continue
            if not isinstance(node, exp.EQ) or not isinstance(node.this, exp.Column):
                raise self.refuse(
                    "WHERE names one slot with equalities joined by AND: scope = …, subject = …, predicate = …, value = …", node
                )
            name = node.this.name.lower()
            if name not in KEYS + ("value",):
                raise self.refuse(f"WHERE may name scope, subject, predicate and value, not {node.this.name}", node.this)
            if name in found:
                raise self.refuse(f"{name} named twice", node)
            text = self.text(node.expression, name)
            found[name] = text
        missing = [k for k in KEYS if k not in found]
        if missing:
            raise self.refuse(f"WHERE must name {', '.join(missing)}", where, keyword="WHERE")
        out = {k: found[k] for k in KEYS}
        if "value" in found:
            out[value_field] = found["value"]
        return out

    def portion(self, clause: TemporalClause | None, statement: str, *, allow_all: bool) -> dict[str, Any]:
        """The interval fields of the operation (none: from the transaction time on)."""
        if clause is None:
            return {}
        kind = clause.args.get("kind")
        if kind == "ALL":
            if not allow_all:
                raise self.refuse(
                    f"{statement} FOR ALL VALID_TIME cannot be expressed: give FOR PORTION OF VALID_TIME FROM … [TO …]", clause, text="FOR"
                )
            return {"all_valid_time": True}
        if kind != "PORTION":
            raise self.refuse(f"{statement} takes FOR PORTION OF VALID_TIME FROM … [TO …] (or no clause)", clause, text="FOR")
        start, *rest = clause.expressions
        fields: dict[str, Any] = {}
        begin = self.time(start, "valid_from", allow_now=True)
        if begin is not None:
            fields["valid_from"] = begin
        if rest:
            end = self.time(rest[0], "valid_to", allow_now=False)
            if end is not None:
                fields["valid_to"] = end
        return fields

    def cell(self, name: str, node: exp.Expression) -> Any:
        if name in ("valid_from", "valid_to"):
            return self.time(node, name, allow_now=name == "valid_from", allow_null=True)
        if name == "source":
            if isinstance(node, exp.Null):
                return None
            if isinstance(node, exp.Array):
                return [self.text(v, "source") for v in node.expressions]
        return self.text(node, name)

    def text(self, node: exp.Expression, name: str) -> str:
        if isinstance(node, exp.Literal) and node.is_string:
            return node.this
        if isinstance(node, exp.Null):
            raise self.refuse(f"{name} cannot be NULL", node, text="NULL")
        raise self.refuse(f"{name} must be a text literal ('…') or a parameter", node)

    def time(self, node: exp.Expression, name: str, *, allow_now: bool, allow_null: bool = True) -> str | None:
        """Canonical UTC text; None for NULL (an open end, or the default start) and, as a start, for now."""
        if isinstance(node, exp.Null) and allow_null:
            return None
        if isinstance(node, _NOW_FUNCTIONS) or (isinstance(node, exp.Anonymous) and node.name.lower() == "now"):
            if allow_now:
                return None  # the transaction time, which is what the ledger defaults a start to
            raise self.refuse(f"{name} cannot be now: give a time, or NULL for no end", node)
        text = _literal_text(node)
        if text is None:
            raise self.refuse(f"{name} must be a timestamp literal, e.g. '2025-03-01' or TIMESTAMP '2025-03-01 10:00'", node)
        stamp = canonical_time(text)
        if stamp is None:
            raise self.refuse(f"{name} is not a timestamp (use ISO-8601, e.g. '2025-03-01T10:00:00Z')", node)
        return stamp


def plan_write(sql: str, params: Params = None) -> WritePlan:
    """Parse one write statement and translate it to ledger operations (nothing is written)."""
    if not isinstance(sql, str):
        raise QueryRefused("the statement must be text", line=1, column=1, text="")
    guard = Guard(sql, table_functions=set(), reserved_names=set())
    tokens = guard.one_statement("one INSERT, UPDATE, DELETE or ERASE")
    tree = guard.parse()
    translator = Translator(sql)
    if not isinstance(tree, _STATEMENTS):
        raise guard.refuse("--write takes one INSERT, UPDATE, DELETE or ERASE on claims", tokens[0].start, " ".join(t.text for t in tokens[:2]))
    tree = bind(tree, params, sql)
    return translator.translate(tree)


def execute_write(
    ledger: Ledger,
    sql: str,
    *,
    principal: str,
    reason: str = "",
    params: Params = None,
    dry_run: bool = False,
    erase: EraseFunction | None = None,
) -> WriteOutcome:
    """Run one SQL write as one ledger transaction (operator principals only).

    `erase` performs an ERASE: called as erase(ledger, scope=, subject=, predicate=, value=, principal=,
    reason=) — the CLI passes the erase composed across ledger, digest and recall; asking for the
    confirmation is the caller's. With `dry_run` nothing is written and the plan is returned."""
    if not isinstance(principal, str) or not principal.startswith("operator:"):
        raise PermissionDenied("SQL writes are for an operator principal (operator:…)", field="principal")
    plan = plan_write(sql, params)
    if dry_run:
        return WriteOutcome(plan)
    if plan.erase is not None:
        if erase is None:
            raise PermissionDenied("ERASE needs the erase function that reaches every part (factledger sql --write passes it)", field="erase")
        return WriteOutcome(plan, erased=erase(ledger, **plan.erase, principal=principal, reason=reason))
    batch = Batch([parse_operation(line, row) for row, line in enumerate(plan.operations, start=1)])
    try:
        result = apply_batch(ledger, batch, principal=principal, reason=reason)
    except LineError as exc:
        error: LedgerError = exc.error
        if len(batch.ops) > 1:  # say which row of VALUES; one statement, so nothing was written
            error = type(error)(f"row {exc.line}: {error.message}", field=error.field)
        raise error from None
    return WriteOutcome(plan, result)
