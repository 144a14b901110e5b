"""Bound parameters: `$name` (a mapping) or `?` / `$1` (a sequence) in a query or write statement.

Values are put into the parsed tree as literal nodes, never spliced into the text, so a value is only
ever data (a `'; DROP …` stays a string). Binding happens before the rewrite, which is why a parameter
in a temporal clause (`FOR VALID_TIME AS OF $t`) is normalised with the ledger's own time parser like a
literal written in place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any

from sqlglot import exp

from factledger.ledger.errors import ValidationError
from factledger.ledger.times import parse_time

from .errors import QueryRefused, position
from .guard import node_offset

Params = Mapping[str, Any] | Sequence[Any] | None


def literal(value: Any, name: str) -> exp.Expression:
    """The SQL literal for one parameter value (text, number, boolean, NULL, a time, or a list of those)."""
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, (int, float)):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValidationError(f"{value!r} is not a number SQL can hold", field=f"param {name}")
        return exp.Literal.number(repr(value) if isinstance(value, float) else str(value))
    if isinstance(value, str):
        return exp.Literal.string(value)
    if isinstance(value, (datetime, date)):
        return exp.Literal.string(parse_time(value, f"param {name}"))
    if isinstance(value, (list, tuple)):
        return exp.Array(expressions=[literal(v, name) for v in value])
    raise ValidationError(f"a parameter must be text, a number, a boolean, a time, None or a list, not {type(value).__name__}", field=f"param {name}")


def bind(tree: exp.Expression, params: Params, sql: str) -> exp.Expression:
    """Replace every placeholder in `tree` by its value; refuses a missing, unused or unnamed one."""
    # In the order they stand in the text (a walk is breadth-first: `(a = ? AND b = ?) AND c = ?` would
    # give c the first value); the parser records each placeholder's offset (dialect.py).
    holders = sorted((node for node in tree.walk() if isinstance(node, exp.Placeholder)), key=lambda n: n.meta.get("start", 0))
    if params is None:
        params = {}
    if isinstance(params, (str, bytes)) or not isinstance(params, (Mapping, Sequence)):
        raise ValidationError("parameters are a mapping of names to values, or a list of values", field="params")
    named = isinstance(params, Mapping)
    used: set[Any] = set()
    positional = 0
    for node in holders:
        name = "" if node.name in ("", "?") else node.name
        if named:
            if (not name or name.isdigit()) and not params:
                number = name or str(positional + 1)
                raise _refuse(sql, node, f"no value for parameter {number} (give --param {number}=…, or a list of values in Python)")
            if not name or name.isdigit():
                raise _refuse(sql, node, "this placeholder is positional; with named parameters write $name")
            if name not in params:
                raise _refuse(sql, node, f"no value for parameter {name!r} (give --param {name}=…)")
            key: Any = name
        else:
            if name and not name.isdigit():
                raise _refuse(sql, node, f"${name} is named; give the parameters as a mapping")
            key = int(name) - 1 if name else positional
            positional += 0 if name else 1
            if not 0 <= key < len(params):
                raise _refuse(sql, node, f"no value for parameter {key + 1} ({len(params)} given)")
        value = params[key]
        used.add(key)
        replacement = literal(value, str(name or key + 1))
        if node is tree:
            return replacement
        node.replace(replacement)
    unused = [k for k in (params if named else range(len(params))) if k not in used]
    if unused:
        shown = ", ".join(str(k) if named else str(k + 1) for k in unused)
        raise ValidationError(f"parameter(s) {shown} given but not used in the query", field="params")
    return tree


def _refuse(sql: str, node: exp.Expression, reason: str) -> QueryRefused:
    line, column = position(sql, node_offset(node, 0))
    return QueryRefused(reason, line=line, column=column, text=node.sql(dialect="duckdb"))
