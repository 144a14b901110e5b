"""How many of tests/ledger/test_raw_tampering.py's forgeries the schema accepted before migration 0006.

Builds the test's ledger, then for each forgery takes a copy whose 0006 triggers are dropped (and the
0001/0004 triggers that 0006 replaced put back), runs the forgery's statements through plain sqlite3 and
counts the ones that went through. The current schema refuses every one (the test itself).

    .venv/bin/python evals/raw_tampering_baseline.py
"""

from __future__ import annotations

import re
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from factledger.schema import migrations  # noqa: E402
from tests.ledger.test_raw_tampering import FORGERIES, build  # noqa: E402


def _older_trigger(sql_by_version: dict[int, str], name: str) -> str | None:
    for version in sorted(v for v in sql_by_version if v < 6):
        found = re.search(rf"CREATE TRIGGER {name}\b.*?\nEND;", sql_by_version[version], re.S)
        if found:
            return found.group(0)
    return None


def main() -> int:
    sql_by_version = {m.version: m.sql for m in migrations("sqlite")}
    added = re.findall(r"CREATE TRIGGER (\w+)", sql_by_version[6])
    folder = Path(tempfile.mkdtemp(prefix="factledger-tamper-"))
    base = folder / "base.db"
    build(base)
    accepted = []
    for what, statements, _fragment in FORGERIES:
        copy = folder / "copy.db"
        copy.write_bytes(base.read_bytes())
        conn = sqlite3.connect(copy, isolation_level=None)
        for name in added:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
            older = _older_trigger(sql_by_version, name)
            if older:
                conn.executescript(older)
        conn.execute("BEGIN")
        try:
            for statement in statements:
                conn.execute(statement)
            accepted.append(what)
        except sqlite3.Error:
            pass
        conn.execute("ROLLBACK")
        conn.close()
    print(f"{len(accepted)} of {len(FORGERIES)} forgeries accepted by the schema before 0006 (0 after):")
    for what in accepted:
        print(f"  - {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
