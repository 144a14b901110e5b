"""Temporal writes in SQL (SQL:2011 / PostgreSQL 19 / XTDB), translated to the ledger's own operations.

    INSERT INTO claims (scope, subject, predicate, value[, valid_from][, valid_to][, source]) VALUES (…), …
        → one `add` per row; a row overlapping a version its key holds (the same value, or in a `one`
          slot any value) is refused, as PostgreSQL's WITHOUT OVERLAPS key refuses it (`apply add`
          extends a value held again instead: ledger/portion.py)
    UPDATE claims [FOR PORTION OF VALID_TIME FROM a [TO b] | (tstzrange(a, b))] SET value = v[, source = s]
        WHERE scope = … AND subject = … AND predicate = … [AND value = old]
        → for every version the WHERE and the portion match, a `supersede` over the part of it inside
          the portion (SQL:2011: an UPDATE changes what exists; a gap stays a gap). `v` may read the old
          value: SET value = value || '*'.
    DELETE FROM claims [FOR PORTION OF VALID_TIME …] WHERE … [AND value = v] → `retract` over [a, b)
    DELETE FROM claims FOR ALL VALID_TIME WHERE … → `retract` with all_valid_time ("never true")
    SUPERSEDE claims [FOR PORTION OF VALID_TIME …] SET value = v WHERE … [AND value = old]
        → one `supersede` over the whole portion: the slot holds v there, whatever it held (`apply`'s word)
    ERASE FROM claims WHERE … [AND value = v] → the operator's erase (composed by the caller)

A WHERE names slots with `=`, `IN (…)` or `OR` of equalities on one column, joined by AND; a key it
leaves out (or no WHERE) means every slot holding a version under the keys it gives. Every slot it
names is written in the one transaction. Bounds are constants evaluated at the transaction time
(bounds.py): NULL, 'infinity', '-infinity', MINVALUE and MAXVALUE are unbounded. Without a portion an
UPDATE or DELETE runs from now (the transaction time) to the end of time, XTDB's default. A statement
that matches nothing reports 0 rows and writes nothing. Anything that is not one of these shapes is
refused with the line, column and text of the part at fault. What an UPDATE or DELETE does depends on
what the slot holds, so it is resolved inside the ledger transaction (or, for a dry run, against the
committed state) into `factledger apply` lines (ledger/ops.py), applied in that one transaction.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sqlglot.errors
from sqlglot import exp

from factledger.ledger.errors import LedgerError, PermissionDenied, ValidationError
from factledger.ledger.keys import key, predicate_key
from factledger.ledger.model import TxResult
from factledger.ledger.ops import LineError, parse_operation
from factledger.ledger.portion import Portion, Span, overlaps
from factledger.ledger.store import Ledger
from factledger.ledger.times import UNKNOWN_START, display, next_after

from .bounds import BoundError, TimeTerm, ends, range_terms, time_term
from .dialect import DIALECT, Erase, Supersede, TemporalClause, TemporalSpec
from .errors import QueryRefused, position
from .guard import Guard, node_offset
from .params import Params, bind
from .rewrite import _literal_text, canonical_time

KEYS = ("scope", "subject", "predicate")
INSERT_COLUMNS = KEYS + ("value", "valid_from", "valid_to", "source")
_NOW_FUNCTIONS = (exp.CurrentTimestamp, exp.CurrentDate)
_STATEMENTS = (exp.Insert, exp.Update, exp.Delete, Erase, Supersede)
_STATEMENT_WORDS = "one INSERT, UPDATE, DELETE, SUPERSEDE or ERASE on claims"

Held = Callable[[str, str, str], "tuple[str, list[Span]] | None"]  # (scope, subject, predicate) → (cardinality, versions)
Slots = Callable[[str | None, str | None, str | None], list[tuple[str, str, str]]]  # the slots holding versions, by key


@dataclass(frozen=True)
class ValueTerm:
    """What SET value = … gives: text pieces, None standing for the row's old value (value || '*')."""

    parts: tuple[str | None, ...]

    @property
    def constant(self) -> str | None:
        return None if None in self.parts else "".join(p for p in self.parts if p is not None)

    def of(self, old: str) -> str:
        return "".join(old if p is None else p for p in self.parts)


@dataclass(frozen=True)
class Resolution:
    """A statement against what the ledger holds: the `apply` lines and the rows it matched."""

    lines: list[dict[str, Any]]
    rows: int


@dataclass(frozen=True)
class WritePlan:
    """What one statement says, before it meets the ledger's state (`resolve`)."""

    statement: str
    operations: list[dict[str, Any]] = field(default_factory=list)  # INSERT: the `add` lines
    row_offsets: tuple[int, ...] = ()  # INSERT: where each row of VALUES starts in the statement
    erase: dict[str, Any] | None = None
    keys: tuple[tuple[str, ...] | None, ...] = (None, None, None)  # scope, subject, predicate texts the WHERE names (None: any)
    values: tuple[str, ...] | None = None  # the WHERE's value = … / IN (…), if any
    start: TimeTerm | None = None  # None: from the transaction time
    end: TimeTerm | None = None  # None: no end
    all_valid_time: bool = False
    new_value: ValueTerm | None = None
    source: Any = None
    sql: str = ""

    def lines(self) -> list[dict[str, Any]]:
        """The `apply` lines of a statement that needs no ledger state (INSERT, ERASE as op "erase");
        an UPDATE, DELETE or SUPERSEDE is resolved against the ledger (execute_write, dry_run=True)."""
        if self.erase is not None:
            return [{"op": "erase", **self.erase}]
        if self.statement != "INSERT":
            raise ValidationError(
                f"what a {self.statement} does depends on what the slot holds: dry-run it against the ledger", field="query"
            )
        return [dict(line) for line in self.operations]

    # -- against the ledger's state ---------------------------------------------------------------

    @property
    def targets(self) -> tuple[tuple[str, str, str], ...]:
        """The slots named by all three keys (SUPERSEDE and ERASE name them so)."""
        if any(k is None for k in self.keys):
            return ()
        return tuple(itertools.product(*self.keys))  # type: ignore[arg-type]

    def slots(self, slots: Slots) -> list[tuple[str, str, str]]:
        """Every slot the WHERE names: the product of its keys, and where it leaves a key out, each slot
        holding a current version under the keys it gives."""
        if all(k is not None for k in self.keys):
            return list(self.targets)
        found: dict[tuple[str, str, str], None] = {}
        for combo in itertools.product(*((None,) if k is None else k for k in self.keys)):
            found.update(dict.fromkeys(slots(*combo)))
        return list(found)

    def resolve(self, now: str, held: Held, slots: Slots) -> Resolution:
        """The lines and row count at transaction time `now`: `held` gives a slot's versions, `slots` the
        slots a partial key names."""
        if self.statement == "INSERT":
            self._check_overlaps(now, held)
            return Resolution([dict(line) for line in self.operations], len(self.operations))
        start, end = self._portion(now)
        if self.statement == "SUPERSEDE":
            return self._supersede(start, end, held)
        empty = start is not None and end is not None and not start < end
        lines: list[dict[str, Any]] = []
        rows = 0
        wanted = None if self.values is None else {key(v, "value") for v in self.values}
        for scope, subject, predicate in self.slots(slots):
            found = held(scope, subject, predicate)
            if found is None or empty:
                continue
            cardinality, spans = found
            matched = sorted(
                (s for s in spans if _overlaps(s, start, end) and (wanted is None or s.value_key in wanted)),
                key=lambda s: (s.valid_from, s.value_key),
            )
            rows += len(matched)
            slot = {"scope": scope, "subject": subject, "predicate": predicate}
            if self.statement == "UPDATE":
                assert self.new_value is not None
                for span in matched:
                    line = {"op": "supersede", **slot, "subject": span.subject or subject, "value": self.new_value.of(span.value),
                            "valid_from": max(start, span.valid_from) if start is not None else span.valid_from,
                            "replaces": span.value}
                    stop = _min_end(end, span.valid_to)
                    if stop is not None:
                        line["valid_to"] = stop
                    if self.source is not None:
                        line["source"] = self.source
                    lines.append(line)
                continue
            if not matched:
                continue
            interval = {"all_valid_time": True} if self.all_valid_time else _interval(start, end)
            if wanted is None:
                lines.append({"op": "retract", **slot, **interval})
            else:
                for value in dict.fromkeys(s.value for s in matched):
                    lines.append({"op": "retract", **slot, "value": value, **interval})
        return Resolution(lines, rows)

    def _check_overlaps(self, now: str, held: Held) -> None:
        """Refuse a row that overlaps what its key holds, or an earlier row of the statement: the same
        value (a `many` slot's key is slot and value), or any value in a `one` slot (SQL:2011's WITHOUT
        OVERLAPS; PostgreSQL's exclusion constraint). A row the ledger refuses for another reason is left
        to `add`, which names it."""
        earlier: dict[tuple[str, str, str], list[tuple[Span, int]]] = {}
        cardinalities: dict[tuple[str, str, str], str] = {}
        for number, line in enumerate(self.operations, start=1):
            try:
                slot = (line["scope"].strip(), key(line["subject"], "subject"), predicate_key(line["predicate"]))
                portion = Portion(line.get("valid_from", now), line.get("valid_to"))
                value_key = key(line["value"], "value")
                if slot not in cardinalities:
                    found = held(line["scope"], line["subject"], line["predicate"])
                    cardinalities[slot] = "many" if found is None else found[0]  # unregistered: add registers it `many`
                    earlier[slot] = [(s, 0) for s in ([] if found is None else found[1])]
            except LedgerError:
                continue
            one = cardinalities[slot] == "one"
            for span, row in earlier[slot]:
                if (one or span.value_key == value_key) and overlaps(span, portion):
                    self._overlap(number, portion, span, row)
            earlier[slot].append((Span(value_key, line["value"], portion.start, portion.end), number))  # type: ignore[arg-type]

    def _overlap(self, number: int, portion: Portion, span: Span, row: int) -> None:
        what = f"row {row}'s {span.describe()}" if row else f"{span.describe()}, which the slot holds"
        own = f"row {number} " if len(self.operations) > 1 else ""
        offset = self.row_offsets[number - 1] if number <= len(self.row_offsets) else 0
        line, column = position(self.sql, offset)
        raise QueryRefused(
            f"{own}[{display(portion.start)}, {display(portion.end)}) overlaps {what}: the key is WITHOUT OVERLAPS, as"
            " PostgreSQL's exclusion constraint refuses it; INSERT only the part not held, UPDATE or SUPERSEDE"
            " … FOR PORTION OF to change it (`factledger apply`'s add extends a value held again)",
            line=line, column=column, text="",
        )

    def _supersede(self, start: str | None, end: str | None, held: Held) -> Resolution:
        (scope, subject, predicate), = self.targets
        assert self.new_value is not None and self.new_value.constant is not None
        line: dict[str, Any] = {"op": "supersede", "scope": scope, "subject": subject, "predicate": predicate,
                                "value": self.new_value.constant}
        if self.source is not None:
            line["source"] = self.source
        if self.values:
            line["replaces"] = self.values[0]
        if self.start is not None and not (self.start.base == "now" and not self.start.shifts):
            line["valid_from"] = start if start is not None else UNKNOWN_START
        if end is not None:
            line["valid_to"] = end
        found = held(scope, subject, predicate)
        replaced = None if not self.values else key(self.values[0], "value")
        rows = 0 if found is None else sum(
            1 for s in found[1] if _overlaps(s, start, end) and (replaced is None or s.value_key == replaced)
        )
        return Resolution([line], rows)

    def _portion(self, now: str) -> tuple[str | None, str | None]:
        """[start, end) at `now`; a None start is -infinity, a None end +infinity. An end before its start
        is refused; an empty portion (an end at its start, a start at +infinity) matches nothing."""
        if self.all_valid_time:
            return None, None
        try:
            start = now if self.start is None else self.start.at(now)
            end = None if self.end is None else self.end.at(now)
        except BoundError as exc:
            line, column = position(self.sql, node_offset(exc.node, 0))
            raise QueryRefused(f"the portion's bound {exc.reason}", line=line, column=column, text=_shown(exc.node)) from None
        if self.start is not None and self.start.base == "max":
            return now, now  # from +infinity: empty
        if self.end is not None and self.end.base == "min":
            return now, now  # to -infinity: empty
        if start is not None and end is not None and end < start:
            node = self.end.node if self.end is not None else None
            offset = node_offset(node, 0) if node is not None else 0
            line, column = position(self.sql, offset)
            raise QueryRefused(
                f"the portion's end ({end}) is before its start ({start})", line=line, column=column,
                text=_shown(node) if node is not None else "",
            )
        return start, end


def _overlaps(span: Span, start: str | None, end: str | None) -> bool:
    return (span.valid_to is None or start is None or start < span.valid_to) and (end is None or span.valid_from < end)


def _min_end(a: str | None, b: str | None) -> str | None:
    if a is None:
        return b
    return a if b is None else min(a, b)


def _interval(start: str | None, end: str | None) -> dict[str, Any]:
    if start is None and end is None:
        return {"all_valid_time": True}
    fields: dict[str, Any] = {"valid_from": start if start is not None else UNKNOWN_START}
    if end is not None:
        fields["valid_to"] = end
    return fields


def _shown(node: exp.Expression | None) -> str:
    """The SQL text of a node for an error, with any temporal clause left out (DuckDB cannot print it)."""
    if node is None:
        return ""
    copy = node.copy()
    for spec in list(copy.find_all(TemporalSpec)):
        spec.pop()
    try:
        return copy.sql(dialect=DIALECT)
    except (ValueError, sqlglot.errors.SqlglotError):
        return ""


@dataclass(frozen=True)
class WriteOutcome:
    plan: WritePlan
    result: TxResult | None = None  # the transaction; None for a dry run or a statement that matched nothing
    erased: Any = None  # what the erase function returned
    operations: list[dict[str, Any]] = field(default_factory=list)  # the `apply` lines it ran (or would run)
    rows: int = 0  # the rows the statement matched (an INSERT: the rows given), as a peer's command tag says

    def lines(self) -> list[dict[str, Any]]:
        if self.plan.erase is not None:
            return self.plan.lines()
        return [dict(line) for line in self.operations]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"statement": self.plan.statement, "rows": self.rows, "operations": self.lines()}
        if self.result is not None:
            data["transaction"] = self.result.to_dict()
        if self.erased is not None:
            data["erased"] = self.erased.to_dict() if hasattr(self.erased, "to_dict") else self.erased
        return data


EraseFunction = Callable[..., Any]


class Translator:
    """Turns one parsed write statement into a WritePlan, refusing with positions."""

    def __init__(self, sql: str, *, period: str | None = None):
        self.sql = sql
        self.periods = {"valid_time"} | ({period.casefold()} if period else set())

    def refuse(self, reason: str, node: exp.Expression | None, *, text: str | None = None, keyword: str = "") -> QueryRefused:
        offset = node_offset(node, 0) if node is not None else 0
        if keyword:  # clause nodes carry no position of their own: point at their keyword
            found = self.sql.upper().rfind(keyword, 0, offset + 1)
            offset = found if found >= 0 else offset
        line, column = position(self.sql, offset)
        shown = text if text is not None else ("" if node is None or isinstance(node, TemporalClause) else _shown(node))
        return QueryRefused(reason, line=line, column=column, text=shown if len(shown) <= 60 else shown[:59] + "…")

    # -- the statement --------------------------------------------------------------------------

    def translate(self, tree: exp.Expression) -> WritePlan:
        if isinstance(tree, exp.Insert):
            return self.insert(tree)
        if isinstance(tree, Supersede):
            return self.update(tree.this, statement="SUPERSEDE")
        if isinstance(tree, exp.Update):
            return self.update(tree, statement="UPDATE")
        if isinstance(tree, exp.Delete):
            return self.delete(tree)
        if isinstance(tree, Erase):
            return self.erase(tree)
        raise self.refuse(f"--write takes {_STATEMENT_WORDS}", tree)

    def _extras(self, tree: exp.Expression, allowed: set[str]) -> None:
        for name, value in tree.args.items():
            if name in allowed or value in (None, False, [], ""):
                continue
            node = value[0] if isinstance(value, list) else value
            part = f"OR {value}" if name == "alternative" else name.rstrip("_").upper()
            why = {
                "RETURNING": ": the statement reports its rows and `apply` lines (--json); read them back with a query",
                "WITH": ": a write takes constants, not a query's rows",
                "FROM": ": a write takes constants, not another table's rows",
                "USING": ": a write takes constants, not another table's rows",
                "OR REPLACE": ": INSERT refuses a row overlapping what its key holds; SUPERSEDE holds a value over a whole portion",
                "OR IGNORE": ": a statement is all or nothing",
                "CONFLICT": ": INSERT refuses a row overlapping what its key holds; UPDATE … FOR PORTION OF changes what is"
                            " held, SUPERSEDE holds a value over a whole portion",
            }.get(part, "")
            raise self.refuse(
                f"{part} cannot be expressed as a ledger operation{why}",
                node if isinstance(node, exp.Expression) else tree,
                keyword="FROM" if isinstance(node, exp.From) else part if part in ("RETURNING", "ORDER", "LIMIT") or name == "alternative" else "",
            )

    def _claims(self, table: Any, statement: exp.Expression) -> TemporalClause | None:
        """Check the target is `claims`; return its VALID_TIME clause, if any."""
        if not isinstance(table, exp.Table) or not isinstance(table.this, exp.Identifier):
            raise self.refuse("writes go to claims", table if isinstance(table, exp.Expression) else statement)
        if table.name.upper() == "IGNORE" and table.alias:
            raise self.refuse("UPDATE IGNORE cannot be expressed: a statement is all or nothing", table, text="IGNORE")
        if table.name.lower() != "claims" or table.db or table.catalog:
            named = ".".join(p for p in (table.catalog, table.db, table.name) if p)
            raise self.refuse(f"writes go to claims, not {named}", table, text=named)
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
        offsets = []
        for row in values.expressions:
            first = node_offset(row, 0)  # the row's first value: point at its "(" when it has one
            paren = self.sql.rfind("(", 0, first)
            offsets.append(paren if isinstance(row, exp.Tuple) and paren >= 0 and not self.sql[paren + 1 : first].strip() else first)
            cells = list(row.expressions) if isinstance(row, exp.Tuple) else [row]
            if len(cells) != len(columns):
                raise self.refuse(f"{len(cells)} value(s) for {len(columns)} column(s)", row)
            line: dict[str, Any] = {"op": "add"}
            for name, cell in zip(columns, cells):
                value = self.cell(name, cell)
                if value is not None:
                    line[name] = value
            operations.append(line)
        return WritePlan("INSERT", operations, row_offsets=tuple(offsets), sql=self.sql)

    def update(self, tree: exp.Update, *, statement: str) -> WritePlan:
        self._extras(tree, {"this", "expressions", "where"})
        clause = self._claims(tree.this, tree)
        if clause is not None and clause.args.get("kind") == "ALL":
            raise self.refuse(
                f"{statement} FOR ALL VALID_TIME cannot be expressed: give FOR PORTION OF VALID_TIME FROM … [TO …]", clause, text="FOR"
            )
        start, end = self.portion(clause, statement)
        new_value: ValueTerm | None = None
        source: Any = None
        named: set[str] = set()
        for assignment in tree.expressions:
            if not isinstance(assignment, exp.EQ) or not isinstance(assignment.this, exp.Column):
                raise self.refuse("SET takes value = … (and source = …)", assignment)
            name = assignment.this.name.lower()
            if name in named:
                raise self.refuse(f"{name} set twice", assignment)
            named.add(name)
            if name == "value":
                new_value = self.value_term(assignment.expression, constant=statement == "SUPERSEDE")
            elif name == "source":
                source = self.cell("source", assignment.expression)
            elif name in ("valid_from", "valid_to"):
                raise self.refuse(
                    f"{name} is the portion's: name the part with FOR PORTION OF VALID_TIME (to move a period,"
                    " DELETE it FOR PORTION OF the old one and INSERT it at the new one)", assignment.this)
            elif name in KEYS:
                raise self.refuse(
                    f"{name} names the slot (in WHERE) and cannot be set: to move a portion to another slot, DELETE it"
                    " here and INSERT it there", assignment.this)
            else:
                raise self.refuse(f"only value and source can be set, not {name}", assignment.this)
        if new_value is None:
            raise self.refuse(f"{statement} needs SET value = …", tree)
        keys, values = self.where(tree)
        if statement == "SUPERSEDE" and (any(k is not None and len(k) != 1 for k in keys) or (values is not None and len(values) != 1)):
            raise self.refuse("SUPERSEDE names one slot (and at most one value it replaces) with =", tree.args["where"], keyword="WHERE")
        if statement == "SUPERSEDE":
            self.whole_keys(tree, keys)
        return WritePlan(statement, keys=keys, values=values, start=start, end=end, new_value=new_value,
                         source=source, sql=self.sql)

    def delete(self, tree: exp.Delete) -> WritePlan:
        self._extras(tree, {"this", "where"})
        clause = self._claims(tree.this, tree)
        every = clause is not None and clause.args.get("kind") == "ALL"
        start, end = (None, None) if every else self.portion(clause, "DELETE")
        keys, values = self.where(tree)
        return WritePlan("DELETE", keys=keys, values=values, start=start, end=end, all_valid_time=every, sql=self.sql)

    def erase(self, tree: Erase) -> WritePlan:
        clause = self._claims(tree.this, tree)
        if clause is not None:
            raise self.refuse("ERASE removes every version of the value; it takes no time clause", clause, text="FOR")
        keys, values = self.where(tree)
        self.whole_keys(tree, keys)
        if any(len(k) != 1 for k in keys) or (values is not None and len(values) != 1):  # type: ignore[arg-type]
            raise self.refuse("ERASE names one slot (and at most one value) with =", tree.args["where"], keyword="WHERE")
        (scope,), (subject,), (predicate,) = keys  # type: ignore[misc]
        target = {"scope": scope, "subject": subject, "predicate": predicate, "value": values[0] if values else None}
        return WritePlan("ERASE", erase=target, sql=self.sql)

    # -- parts ----------------------------------------------------------------------------------

    def whole_keys(self, tree: exp.Expression, keys: tuple[tuple[str, ...] | None, ...]) -> None:
        """SUPERSEDE and ERASE name their slot whole."""
        where = tree.args.get("where")
        if where is None:
            raise self.refuse("name the slot: WHERE scope = … AND subject = … AND predicate = …", tree)
        missing = [k for k, given in zip(KEYS, keys) if given is None]
        if missing:
            raise self.refuse(f"WHERE must name {', '.join(missing)}", where, keyword="WHERE")

    def where(self, tree: exp.Expression) -> tuple[tuple[tuple[str, ...] | None, ...], tuple[str, ...] | None]:
        """Conditions joined by AND, each `col = …`, `col IN (…)` or an OR of those on one column, over
        scope, subject, predicate and value. Returns each key's texts (None: not named, any) and the
        values. No WHERE names every slot."""
        where = tree.args.get("where")
        if where is None:
            return (None, None, None), None
        found: dict[str, list[str]] = {}
        pending = [where.this]
        while pending:
            node = pending.pop(0)
            if isinstance(node, exp.Paren) and not isinstance(node.this, exp.Or):
                pending.insert(0, node.this)
                continue
            if isinstance(node, exp.And):
                pending[:0] = [node.this, node.expression]
                continue
            name, texts = self.condition(node)
            if name in found:
                raise self.refuse(f"{name} named twice", node)
            found[name] = texts
        keys = tuple(tuple(dict.fromkeys(found[k])) if k in found else None for k in KEYS)
        values = tuple(dict.fromkeys(found["value"])) if "value" in found else None
        return keys, values

    def condition(self, node: exp.Expression) -> tuple[str, list[str]]:
        """One column's condition: = literal, IN (literals), or equalities/INs on it joined by OR."""
        if isinstance(node, exp.Paren):
            return self.condition(node.this)
        if isinstance(node, exp.Or):
            one_column = "OR joins conditions on one column (scope, subject, predicate or value): write each slot's keys with AND"
            try:
                left, right = self.condition(node.this), self.condition(node.expression)
            except QueryRefused:
                raise self.refuse(one_column, node) from None
            if left[0] != right[0]:
                raise self.refuse(one_column, node)
            return left[0], left[1] + right[1]
        if isinstance(node, exp.In) and isinstance(node.this, exp.Column) and not node.args.get("query"):
            name = self.column(node.this)
            return name, [self.text(v, name) for v in node.expressions]
        if isinstance(node, exp.EQ) and isinstance(node.this, exp.Column):
            name = self.column(node.this)
            return name, [self.text(node.expression, name)]
        raise self.refuse(
            "WHERE names slots with scope = …, subject = …, predicate = … (and value = …), or IN (…), joined by AND", node
        )

    def column(self, node: exp.Column) -> str:
        name = node.name.lower()
        if name not in KEYS + ("value",):
            raise self.refuse(f"WHERE may name scope, subject, predicate and value, not {node.name}", node)
        return name

    def portion(self, clause: TemporalClause | None, statement: str) -> tuple[TimeTerm | None, TimeTerm | None]:
        """The portion's bounds (None, None: from the transaction time on)."""
        if clause is None:
            return None, None
        kind = clause.args.get("kind")
        period = clause.args.get("period")
        if period is not None and period.casefold() not in self.periods:
            offset = clause.meta.get("period_start") or node_offset(clause, 0)
            line, column = position(self.sql, offset)
            raise QueryRefused(
                f"the ledger's one application-time period is VALID_TIME (valid_from, valid_to): write FOR PORTION OF"
                f" VALID_TIME, or declare {period} as its name (--period {period}; period= in Python)",
                line=line, column=column, text=period,
            )
        if kind not in ("PORTION", "TARGET"):
            raise self.refuse(f"{statement} takes FOR PORTION OF VALID_TIME FROM … [TO …] (or no clause)", clause, text="FOR")
        try:
            if kind == "TARGET":
                return range_terms(clause.expressions[0])
            first, *rest = clause.expressions
            start = time_term(first)
            end = time_term(rest[0]) if rest else TimeTerm("null")
        except BoundError as exc:
            query = isinstance(exc.node, (exp.Subquery, exp.Select))
            raise self.refuse(f"the portion's bound {exc.reason}", exc.node, keyword="SELECT" if query else "") from None
        return ends(start, end)

    def value_term(self, node: exp.Expression, *, constant: bool) -> ValueTerm:
        """SET value = 'text' | value || 'text' | 'text' || value (chains too)."""
        parts: list[str | None] = []
        pending = [node]
        while pending:
            part = pending.pop(0)
            if isinstance(part, exp.DPipe) and not constant:
                pending[:0] = [part.this, part.expression]
            elif isinstance(part, exp.Column) and part.name.lower() == "value" and not constant:
                parts.append(None)
            elif isinstance(part, exp.Paren):
                pending.insert(0, part.this)
            else:
                parts.append(self.text(part, "value"))
        return ValueTerm(tuple(parts))

    def cell(self, name: str, node: exp.Expression) -> Any:
        if name in ("valid_from", "valid_to"):
            return self.time(node, name)
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

    def time(self, node: exp.Expression, name: str) -> str | None:
        """An INSERT's valid_from / valid_to: canonical UTC text; None for NULL (an open end, or the
        default start) and, as a start, for now; 'infinity' as an end is an open end."""
        if isinstance(node, exp.Null):
            return None
        if isinstance(node, _NOW_FUNCTIONS) or (isinstance(node, exp.Anonymous) and node.name.lower() == "now"):
            if name == "valid_from":
                return None  # the transaction time, which is what the ledger defaults a start to
            raise self.refuse(f"{name} cannot be now: give a time, or NULL for no end", node)
        text = _literal_text(node)
        if text is None:
            raise self.refuse(f"{name} must be a timestamp literal, e.g. '2025-03-01' or TIMESTAMP '2025-03-01 10:00'", node)
        if text.strip().lower() in ("infinity", "+infinity"):
            if name == "valid_to":
                return None
            raise self.refuse("valid_from cannot be infinity", node)
        if text.strip().lower() == "-infinity":
            raise self.refuse(f"{name} cannot be -infinity: an INSERT states when the value began", node)
        stamp = canonical_time(text)
        if stamp is None:
            raise self.refuse(f"{name} is not a timestamp (use ISO-8601, e.g. '2025-03-01T10:00:00Z')", node)
        return stamp


def plan_write(sql: str, params: Params = None, *, period: str | None = None) -> WritePlan:
    """Parse one write statement and translate it (nothing is read or written). `period`: another name
    the statement may give the valid-time period (`FOR PORTION OF valid_at`), as a peer's table names it."""
    if period is not None and (not isinstance(period, str) or not period.isidentifier()):
        raise ValidationError("must be a plain SQL name, e.g. valid_at", field="period")
    if not isinstance(sql, str):
        raise QueryRefused("the statement must be text", line=1, column=1, text="")
    guard = Guard(sql, table_functions=set(), reserved_names=set())
    tokens = guard.one_statement(_STATEMENT_WORDS)
    first = tokens[0].text.upper() if tokens else ""
    if first in ("REPLACE", "MERGE", "UPSERT", "TRUNCATE"):
        raise guard.refuse(
            f"{first} is not taken: INSERT adds, UPDATE / DELETE … FOR PORTION OF change what the portion holds,"
            " SUPERSEDE claims FOR PORTION OF … SET value = … makes the slot hold a value over the whole portion",
            tokens[0].start, first,
        )
    tree = guard.parse()
    translator = Translator(sql, period=period)
    if not isinstance(tree, _STATEMENTS):
        raise guard.refuse(f"--write takes {_STATEMENT_WORDS}", tokens[0].start, " ".join(t.text for t in tokens[:2]))
    tree = bind(tree, params, sql)
    try:
        return translator.translate(tree)
    except (ValueError, sqlglot.errors.SqlglotError) as exc:  # a form no rule above foresaw: still a refusal
        raise translator.refuse(f"this statement cannot be expressed as a ledger operation ({exc})", tree) from None


class _NothingMatched(Exception):
    """Raised inside the transaction when a statement matched no row: rolls it back, nothing is written."""


def execute_write(
    ledger: Ledger,
    sql: str,
    *,
    principal: str,
    reason: str = "",
    params: Params = None,
    dry_run: bool = False,
    erase: EraseFunction | None = None,
    period: str | None = None,
) -> WriteOutcome:
    """Run one SQL write as one ledger transaction (operator principals only).

    `erase` performs an ERASE: called as erase(ledger, scope=, subject=, predicate=, value=, principal=,
    reason=) — the CLI passes the erase composed across ledger, digest and recall; asking for the
    confirmation is the caller's. With `dry_run` nothing is written: the statement is resolved against
    the committed state at the clock's time and the outcome holds the lines `apply` would take. A
    statement that matches nothing (an empty portion, a key with no rows) reports 0 rows and writes
    no transaction. `period`: a declared name for the valid-time period (plan_write)."""
    if not isinstance(principal, str) or not principal.startswith("operator:"):
        raise PermissionDenied("SQL writes are for an operator principal (operator:…)", field="principal")
    plan = plan_write(sql, params, period=period)
    if plan.erase is not None:
        if dry_run:
            return WriteOutcome(plan, rows=1)
        if erase is None:
            raise PermissionDenied("ERASE needs the erase function that reaches every part (factledger sql --write passes it)", field="erase")
        return WriteOutcome(plan, erased=erase(ledger, **plan.erase, principal=principal, reason=reason), rows=1)
    if dry_run:
        now = ledger.clock()
        last = ledger.last_tx_time()
        if last is not None and now <= last:
            now = next_after(last)
        resolved = plan.resolve(now, ledger.held, ledger.held_slots)
        return WriteOutcome(plan, operations=resolved.lines, rows=resolved.rows)
    resolved = Resolution([], 0)
    try:
        with ledger.transaction(principal=principal, reason=reason) as tx:
            resolved = plan.resolve(tx.tx_time, tx.held, ledger.held_slots)
            if not resolved.lines:
                raise _NothingMatched
            for number, line in enumerate(resolved.lines, start=1):
                try:
                    parse_operation(line, number).apply(tx)
                except LedgerError as exc:
                    raise LineError(number, exc) from None
    except _NothingMatched:
        return WriteOutcome(plan, rows=0)
    except LineError as exc:
        error: LedgerError = exc.error
        if plan.statement == "INSERT" and len(resolved.lines) > 1:  # which row of VALUES; nothing was written
            error = type(error)(f"row {exc.line}: {error.message}", field=error.field)
        raise error from None
    return WriteOutcome(plan, tx.result, operations=resolved.lines, rows=resolved.rows)
