"""factledger: a bitemporal, ledger-first knowledge store (long-term memory for Hermes Agent).

The front door for embedding it::

    import factledger

    with factledger.open("memory.db") as db:
        db.define("lives_in", "one", template="{subject} lives in {value}")
        db.add("user:alice", "user", "lives_in", "Paris", valid_from="2024-01-01")
        print(db.current("user:alice"))

`open` returns a `Database` (factledger.database). The parts stay importable on their own:
factledger.ledger, factledger.recall, factledger.digest, factledger.schema.

Importing this package is cheap: the parts load when `open` is first called, so `import factledger.ledger`
does not pull in recall or the digest.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .database import Database, UndeclaredPredicateWarning

__all__ = ["Database", "UndeclaredPredicateWarning", "open"]


def open(  # noqa: A001 - the front door is named like sqlite3.connect's and io.open's
    path: str | Path,
    *,
    principal: str | None = None,
    create: bool = True,
    read_only: bool = False,
    index_dir: str | Path | None = None,
    strict_predicates: bool = False,
) -> "Database":
    """Open (or create) the ledger at `path` and return a `Database` over it. `path` is a SQLite file, or a
    `postgresql://user:password@host/dbname` URL for the PostgreSQL engine (the database must exist; a
    database without factledger's tables is migrated, unless create=False or read_only=True refuse it).

    principal: who writes (operator:<name>, agent:<id>, digest:<extractor>, import:<source>); default
    operator:<login name>. create=False refuses a missing file (NotFoundError) instead of creating it;
    read_only=True never creates or writes. index_dir: the vector index folder, for a ledger that records
    none yet (default: `<path>.lance`). strict_predicates=True refuses writes naming a predicate that was
    never defined (otherwise it is registered as 'many' and listed in the TxResult's `undeclared`). path ":memory:" is a ledger in memory (no SQL: DuckDB needs a file).
    """
    from .database import Database

    return Database(
        path, principal=principal, create=create, read_only=read_only, index_dir=index_dir, strict_predicates=strict_predicates
    )


def __getattr__(name: str) -> Any:
    if name in ("Database", "UndeclaredPredicateWarning"):
        from . import database

        return getattr(database, name)
    raise AttributeError(f"module 'factledger' has no attribute {name!r}")
