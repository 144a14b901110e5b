"""No module imports a module that imports it back: each part's interface module imports no engine's
implementation (ledger/engines.py maps engine -> recorder), and an interface the implementations
import chooses none of them. Imports inside functions count; `if TYPE_CHECKING:` blocks do not (they
never run)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _packages() -> dict[str, str]:
    """factledger's package name -> its folder, as pyproject.toml's package-dir maps them."""
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    return dict(setup["package-dir"])


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in _packages().items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = [p for p in path.relative_to(ROOT / folder).with_suffix("").parts if p != "__init__"]
            name = ".".join([package, *parts])
            found.setdefault(name, path)
    return found


def _runtime_imports(tree: ast.Module):
    """Import nodes outside `if TYPE_CHECKING:` blocks."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets = set()
        for node in _runtime_imports(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name in modules)
                continue
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{module}.{alias.name}"
                if full in modules:
                    targets.add(full)
                elif module in modules:
                    targets.add(module)
        targets.discard(name)
        edges[name] = targets
    return edges


def test_the_checker_sees_a_circle():
    edges = {"a": {"b"}, "b": {"a"}, "c": {"a"}}
    assert _circles(edges) == [("a", "b")]


def _circles(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted({tuple(sorted((a, b))) for a, targets in edges.items() for b in targets if a in edges.get(b, ())})


def test_no_module_imports_a_module_that_imports_it_back():
    modules = _modules()
    assert "factledger.ledger.engines" in modules and "factledger.recall.recorder" in modules
    edges = _imports(modules)
    assert "factledger.ledger.sqlite_recorder" in edges["factledger.ledger.engines"]  # function-level imports count
    assert _circles(edges) == []
