"""The vector index folder's record of what wrote it (embedder, dimension, layout), readable without
LanceDB: status lines read it where loading LanceDB (about two seconds) would cost more than the answer."""

from __future__ import annotations

import json
from pathlib import Path

META_FILE = "factledger-index.json"


def read_meta(folder: Path) -> dict | None:
    """The folder's record, or None when there is none (or it is not readable JSON)."""
    path = folder / META_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
