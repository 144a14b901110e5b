"""Issue 11: the digest's SQL lives in its two recorder modules; every other digest module calls them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import factledger.digest as digest

ENGINE_MODULES = {"sqlite_recorder.py", "pg_recorder.py"}
STATEMENT = re.compile(
    r"\b(SELECT\s+.+\s+FROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX)|PRAGMA)\b",
    re.IGNORECASE | re.DOTALL,
)


def _strings(path: Path) -> list[tuple[int, str]]:
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(path.read_text("utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def test_the_pattern_finds_a_statement():
    assert STATEMENT.search("SELECT * FROM journal WHERE id = ?")
    assert STATEMENT.search("delete from proposals")
    assert not STATEMENT.search("select the proposals to review")


def test_no_sql_text_outside_the_recorder_modules():
    folder = Path(digest.__file__).parent
    found = [
        f"{path.relative_to(folder)}:{line}: {text[:60]!r}"
        for path in sorted(folder.rglob("*.py")) if path.name not in ENGINE_MODULES
        for line, text in _strings(path) if STATEMENT.search(text)
    ]
    assert found == []
