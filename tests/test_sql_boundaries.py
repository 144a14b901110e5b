"""No SQL outside the engine modules (issue 11): every statement the parts run lives in a recorder
module of its engine (or the connection layers, or the DuckDB analytics engine, whose SQL is the
analysts' interface itself). A string constant that reads like a statement anywhere else fails this."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("api", "cli", "digest", "hermes_plugin", "ledger", "mcp_server", "recall")

# Modules allowed to hold SQL text, and why.
ENGINE_MODULES = {
    "ledger/storage.py": "the SQLite connection layer",
    "ledger/pg_storage.py": "the PostgreSQL connection layer",
}
ENGINE_MODULE_NAMES = re.compile(r"(^|/)(sqlite|pg)_[a-z_]*recorder\.py$|(^|/)migrate_(sqlite|pg)\.py$")
ANALYTICS = "ledger/analytics/"  # DuckDB: temporal SQL is the analysts' interface (DESIGN §6)

# A statement's shape (any case): prose such as "With --write: …" or "select the proposals" does not match.
_STATEMENT = re.compile(
    r"\b(SELECT\s+.+\s+FROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|REPLACE\s+INTO"
    r"|CREATE\s+(TEMP\s+)?(TABLE|INDEX|TRIGGER|VIEW)|DROP\s+(TABLE|INDEX|TRIGGER|VIEW)|ALTER\s+TABLE"
    r"|PRAGMA\s+\w+|BEGIN\s+(IMMEDIATE|TRANSACTION)|VACUUM|SAVEPOINT\s+\w+)\b",
    re.IGNORECASE | re.DOTALL,
)
# Temporal SQL shown to analysts (the demo's examples) is the DuckDB interface, not storage.
_ANALYST_SQL = re.compile(r"\bFOR (VALID|SYSTEM)_TIME\b")


def _allowed(relative: str) -> bool:
    return relative in ENGINE_MODULES or bool(ENGINE_MODULE_NAMES.search(relative)) or relative.startswith(ANALYTICS)


def _sql_strings(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    found = []
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value
            if _ANALYST_SQL.search(text):
                continue
            if _STATEMENT.search(text):
                found.append((node.lineno, " ".join(text.split())[:80]))
        elif isinstance(node, ast.JoinedStr):
            # A formatted value stands for a name (a table, a column): read it as one word.
            head = "".join(v.value if isinstance(v, ast.Constant) else "x" for v in node.values)
            if _STATEMENT.search(head):
                found.append((node.lineno, " ".join(head.split())[:80]))
    return found


def _modules() -> list[Path]:
    """Every module of the parts but the engine modules."""
    found = (p for part in PARTS for p in (ROOT / part).rglob("*.py"))
    return sorted(p for p in found if not _allowed(str(p.relative_to(ROOT))))


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('s.query("SELECT id FROM journal WHERE scope = ?", ("a",))', True),
        ('s.execute("delete from proposals")', True),
        ('s.execute(f"UPDATE {table} SET x = 1")', True),
        ('s.one("PRAGMA data_version")', True),
        ('print("select the proposals to review")', False),
        ('print("With --write: why (recorded on the transaction).")', False),
        ("EXAMPLE = \"SELECT * FROM claims FOR VALID_TIME AS OF '2024-05-01'\"", False),  # analysts' SQL
        ('def f():\n    """Run SELECT x FROM t for the caller."""', False),  # a docstring
    ],
)
def test_the_checker(tmp_path: Path, source: str, found: bool) -> None:
    sample = tmp_path / "caller.py"
    sample.write_text(source + "\n")
    assert bool(_sql_strings(sample)) is found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_sql_outside_engine_modules(path: Path) -> None:
    relative = str(path.relative_to(ROOT))
    assert _sql_strings(path) == [], f"{relative} holds SQL text; move it into its part's engine recorder"
