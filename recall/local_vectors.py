"""The vector lane over a small visible set: an exact cosine scan in this process.

When the searched scopes hold few items (a gateway user's own facts and turns among a hundred
thousand), the nearest of them are found by comparing the query with each one's vector here, which
costs well under a millisecond; asking LanceDB costs one or two queries of several milliseconds each
(its filter narrows the whole table to those few rows first). The result is what LanceDB's exact
pre-filtered search returns: the same embedder, the same sentences (the ones the vector index embeds),
cosine similarity, best first.

The vectors are kept per process, keyed by item and a digest of its sentence, so an item is embedded
once (a changed sentence is embedded again). The key holds the digest, not the text: a long-lived
process keeps no copy of a value in memory after the ledger erased it, only a vector that no later
search can reach (an erased item is never in the visible set the scan is given).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .model import VectorHit

if TYPE_CHECKING:
    import numpy as np

    from .embedders import Embedder

class LocalVectors:
    """A bounded cache of item vectors and the exact scan over them."""

    # 20,000 vectors of the default 256 dimensions hold ~20 MB: fifty users' scopes at the scan limit.
    def __init__(self, capacity: int = 20_000):
        self._capacity = capacity
        self._vectors: OrderedDict[tuple[str, int, bytes], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._identity: str | None = None

    def _rows(self, embedder: Embedder, keys: list[tuple[str, int, bytes]], texts: list[str]) -> np.ndarray:
        with self._lock:
            if self._identity != embedder.identity:  # another embedder: every cached vector is wrong
                self._vectors.clear()
                self._identity = embedder.identity
            missing = [i for i, k in enumerate(keys) if k not in self._vectors]
        import numpy as np  # with the embedder, on the vector lane's first use

        if missing:
            fresh = embedder.embed([texts[i] for i in missing])
            with self._lock:
                self._vectors.update(zip((keys[i] for i in missing), fresh))
        with self._lock:
            rows = [self._vectors.get(k) for k in keys]
            for k in keys:
                if k in self._vectors:
                    self._vectors.move_to_end(k)
            while len(self._vectors) > self._capacity:
                self._vectors.popitem(last=False)
        if any(r is None for r in rows):  # evicted by a concurrent search meanwhile: embed those again
            again = [i for i, r in enumerate(rows) if r is None]
            for i, vector in zip(again, embedder.embed([texts[i] for i in again])):
                rows[i] = vector
        return np.stack(rows) if rows else np.zeros((0, embedder.dim), dtype=np.float32)

    def search(
        self, embedder: Embedder, query: np.ndarray, items: Mapping[str, Mapping[int, str]], limit: int
    ) -> list[VectorHit]:
        """The `limit` items nearest to `query` (a unit vector) among `items` (kind -> id -> sentence)."""
        pairs = [(kind, item, text) for kind, texts in items.items() for item, text in texts.items()]
        if not pairs:
            return []
        keys = [(kind, item, hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()) for kind, item, text in pairs]
        rows = self._rows(embedder, keys, [text for _, _, text in pairs])
        import numpy as np

        similarity = rows @ np.asarray(query, dtype=np.float32)
        # A zero vector (a sentence the model knows nothing of) has no direction: never a neighbour.
        usable = np.flatnonzero(np.any(rows != 0, axis=1))
        best = usable[np.argsort(-similarity[usable], kind="stable")][:limit]
        return [VectorHit(keys[i][0], keys[i][1], float(similarity[i])) for i in best]
