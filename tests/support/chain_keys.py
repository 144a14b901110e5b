"""Helpers for tests that copy a ledger file: its chain key (`<ledger>.chain-key`) is not in the file."""

from __future__ import annotations

import os
from pathlib import Path


def copy_chain_key(source: Path, target: Path) -> None:
    """Give the copy at `target` the chain key of the ledger at `source` (mode 0600)."""
    key = Path(f"{source}.chain-key")
    fd = os.open(f"{target}.chain-key", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, key.read_bytes())
    finally:
        os.close(fd)
