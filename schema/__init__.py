"""SQL text for every engine: DDL migrations and the one visibility predicate.

This package holds data, not logic: the ledger's storage layer applies the migrations and splices the
visibility predicate into every read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

_MIGRATION_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations(engine: str = "sqlite") -> list[Migration]:
    """Every migration for `engine`, in version order (files named NNNN_name.sql)."""
    found = []
    for entry in resources.files(__name__).joinpath(engine).iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), match.group(2), entry.read_text("utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"duplicate migration versions for {engine}: {versions}")
    return found


def sql_text(engine: str, name: str) -> str:
    """A named SQL fragment, e.g. sql_text('sqlite', 'visible')."""
    return resources.files(__name__).joinpath(engine, f"{name}.sql").read_text("utf-8")


def visibility_predicate(engine: str = "sqlite") -> str:
    """The visibility predicate over a claims row aliased `c`, without its comment lines."""
    lines = [ln for ln in sql_text(engine, "visible").splitlines() if not ln.lstrip().startswith("--")]
    return " ".join(" ".join(lines).split())
