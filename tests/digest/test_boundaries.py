"""Module boundaries the project promises: one digest module imports instructor; digest never imports
cli, recall or hermes_plugin; config is not read at import time."""

from __future__ import annotations

import re
from pathlib import Path

DIGEST = Path(__file__).resolve().parents[2] / "digest"


def sources() -> dict[str, str]:
    return {str(p.relative_to(DIGEST)): p.read_text("utf-8") for p in DIGEST.rglob("*.py")}


def test_only_llm_module_imports_instructor() -> None:
    importers = [name for name, text in sources().items() if re.search(r"^\s*(?:import|from)\s+instructor\b", text, re.M)]
    assert importers == ["llm.py"]


def test_digest_imports_only_downwards() -> None:
    for name, text in sources().items():
        assert not re.search(r"factledger\.(?:cli|recall|hermes_plugin)\b", text), name
        assert not re.search(r"^\s*import\s+sqlite3", text, re.M), name


def test_environment_is_read_only_at_run_time() -> None:
    for name, text in sources().items():
        module_level = [line for line in text.splitlines() if line and not line[0].isspace()]
        assert not any(re.search(r"os\.environ|getenv", line) for line in module_level), name
