"""The vector index folder's record of what wrote it (embedder, dimension, layout), readable without
LanceDB: status lines read it where loading LanceDB (about two seconds) would cost more than the answer.

`quick_status` is the index's state from the ledger and that record alone; it imports neither numpy nor
the search engine, so `factledger status` pays for neither (Recall.status(quick=True) is the same call).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .model import EPISODE, FACT

if TYPE_CHECKING:
    from .recorder import RecallRecorder

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


@dataclass(frozen=True)
class IndexStatus:
    folder: str
    embedder: str | None
    recorded_embedder: str | None
    rows: int | None  # None: not counted (`status(quick=True)` does not load LanceDB)
    claim_versions: int
    episodes: int
    pending: int
    needs_repair: bool
    reason: str
    vector_index: bool

    @property
    def state(self) -> str:
        if self.recorded_embedder is None:
            return "missing"
        if self.embedder is not None and self.recorded_embedder != self.embedder:
            return "stale-embedder"
        if self.needs_repair:
            return "needs-repair"
        if self.pending:
            return "behind"
        return "ok"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "state": self.state}


def index_home(recorder: "RecallRecorder") -> Path:
    """The vector folder the ledger records (relative to the ledger's folder when recorded so), else the
    default one (for SQLite: `<ledger file>.lance`, so a copy or backup of the file has its own)."""
    recorded = recorder.index_state().folder
    if not recorded:
        return recorder.default_folder()
    path = Path(recorded)
    base = recorder.folder_base()
    return path if path.is_absolute() or base is None else base / path


def quick_status(recorder: "RecallRecorder", folder: Path | None = None) -> IndexStatus:
    """The index's state from the ledger and the folder's record only, loading neither LanceDB nor the
    embedder (no row count, no embedder comparison, no ANN-index check)."""
    home = index_home(recorder) if folder is None else folder
    state = recorder.index_state()
    counts = recorder.item_counts()
    meta = read_meta(home)
    return IndexStatus(
        folder=str(home), embedder=None, recorded_embedder=meta.get("embedder") if meta else None,
        rows=None, claim_versions=counts[FACT], episodes=counts[EPISODE], pending=recorder.outbox_count(),
        needs_repair=state.needs_repair, reason=state.reason, vector_index=False,
    )
