"""The vector companion: one LanceDB table keyed by (kind, id) — claim versions ("fact") and journal
turns ("episode"). The only module importing lancedb.

Each row mirrors its item's scope and time columns, so the search can prefilter with the same
terms as the visibility predicate; the ledger stays the judge (every hit is re-read from it). The
folder holds nothing the ledger does not: deleting it loses nothing, `rebuild` writes it again.
"""

from __future__ import annotations

import asyncio
import errno
import fcntl
import json
import shutil
import threading
import warnings
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import BTree, HnswSq

from factledger.ledger import StorageError, ValidationError

from .index_meta import META_FILE, read_meta
from .model import VectorHit

TABLE = "items"
# The table's layout; a folder written with another one is rebuilt (layout 1 held claim versions only).
LAYOUT = 2
# Below this many rows a flat scan is as fast as an index and needs no training.
INDEX_MIN_ROWS = 5000


@dataclass(frozen=True)
class VectorRow:
    kind: str  # "fact" (a claim version id) or "episode" (a journal id)
    id: int
    scope: str
    valid_from: str
    valid_to: str | None
    tx_from: str
    tx_to: str | None
    vector: np.ndarray


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class _Loop:
    """One private event loop on a daemon thread: LanceDB's async API in one round trip per call
    (its synchronous wrapper costs several, which is most of a query's time at this size)."""

    _shared: "_Loop | None" = None
    _guard = threading.Lock()

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        thread = threading.Thread(target=self.loop.run_forever, name="factledger-lancedb", daemon=True)
        thread.start()

    @classmethod
    def get(cls) -> "_Loop":
        with cls._guard:
            if cls._shared is None:
                cls._shared = cls()
            return cls._shared

    def run(self, coro):
        try:
            return asyncio.run_coroutine_threadsafe(coro, self.loop).result()
        except (OSError, RuntimeError) as exc:
            # LanceDB reports a full disk as a RuntimeError ("os error 28"): a clear error, like SQLite's.
            if getattr(exc, "errno", None) == errno.ENOSPC or "os error 28" in str(exc) or "No space left" in str(exc):
                raise StorageError("the vector index could not be written: no space left on device") from None
            raise


class VectorIndex:
    """A LanceDB folder holding table `claims` and a small JSON file naming the embedder that filled it."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._lock = threading.RLock()
        self._loop = _Loop.get()
        self._db = None
        self._table = None

    # -- state ----------------------------------------------------------------------------------

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Serialise writers of this folder across threads, instances and processes (a file lock
        beside it), so two of them never rebuild or drain into it at once."""
        lock_path = self.folder.parent / (self.folder.name + ".lock")
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        with open(lock_path, "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def forget_handles(self) -> None:
        """Drop cached handles (after another writer replaced the table)."""
        with self._lock:
            self._table = None
            self._db = None

    def meta(self) -> dict | None:
        return read_meta(self.folder)

    def _connect(self):
        if self._db is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            # Read the latest committed state on every query: other processes write this folder too.
            try:
                self._db = self._loop.run(lancedb.connect_async(str(self.folder), read_consistency_interval=timedelta(0)))
            except ValueError as exc:  # a folder name LanceDB cannot parse (a newline, say): clear, not a traceback
                raise ValidationError(f"the vector index folder {str(self.folder)[:80]!r} cannot be used: {exc}".splitlines()[0],
                                      field="index_dir") from None
        return self._db

    def table(self):
        with self._lock:
            if self._table is None:
                db = self._connect()
                if TABLE not in self._loop.run(db.list_tables()).tables:
                    return None
                self._table = self._loop.run(db.open_table(TABLE))
            return self._table

    def usable_for(self, identity: str, dim: int) -> bool:
        meta = self.meta()
        return (
            meta is not None
            and meta.get("embedder") == identity
            and meta.get("dim") == dim
            and meta.get("layout") == LAYOUT
            and self.table() is not None
        )

    def reset(self, identity: str, dim: int) -> None:
        """An empty table for this embedder (everything else in the folder goes)."""
        with self._lock:
            self._table = None
            self._db = None
            if self.folder.exists():
                shutil.rmtree(self.folder)
            db = self._connect()
            schema = pa.schema(
                [
                    pa.field("kind", pa.string(), nullable=False),
                    pa.field("id", pa.int64(), nullable=False),
                    pa.field("scope", pa.string(), nullable=False),
                    pa.field("valid_from", pa.string(), nullable=False),
                    pa.field("valid_to", pa.string()),
                    pa.field("tx_from", pa.string(), nullable=False),
                    pa.field("tx_to", pa.string()),
                    pa.field("vector", pa.list_(pa.float32(), dim)),
                ]
            )
            self._table = self._loop.run(db.create_table(TABLE, schema=schema))
            (self.folder / META_FILE).write_text(json.dumps({"embedder": identity, "dim": dim, "layout": LAYOUT}) + "\n", "utf-8")

    # -- writes ---------------------------------------------------------------------------------

    @staticmethod
    def _arrow(rows: Sequence[VectorRow], dim: int) -> pa.Table:
        vectors = np.stack([r.vector for r in rows]).astype(np.float32).reshape(-1)
        return pa.table(
            {
                "kind": pa.array([r.kind for r in rows], pa.string()),
                "id": pa.array([r.id for r in rows], pa.int64()),
                "scope": pa.array([r.scope for r in rows], pa.string()),
                "valid_from": pa.array([r.valid_from for r in rows], pa.string()),
                "valid_to": pa.array([r.valid_to for r in rows], pa.string()),
                "tx_from": pa.array([r.tx_from for r in rows], pa.string()),
                "tx_to": pa.array([r.tx_to for r in rows], pa.string()),
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors, pa.float32()), dim),
            }
        )

    def upsert(self, rows: Sequence[VectorRow], dim: int) -> None:
        if not rows:
            return
        with self._lock:
            table = self.table()
            assert table is not None, "reset() the index first"
            builder = table.merge_insert(["kind", "id"]).when_matched_update_all().when_not_matched_insert_all()
            self._loop.run(builder.execute(self._arrow(rows, dim)))

    def append(self, rows: Sequence[VectorRow], dim: int) -> None:
        """Bulk load into a fresh table (rebuild): no key matching needed."""
        if not rows:
            return
        with self._lock:
            table = self.table()
            assert table is not None, "reset() the index first"
            self._loop.run(table.add(self._arrow(rows, dim)))

    def delete(self, kind: str, ids: Iterable[int]) -> None:
        ids = sorted(set(int(i) for i in ids))
        if not ids:
            return
        with self._lock:
            table = self.table()
            if table is not None:
                self._loop.run(table.delete(f"kind = {_quote(kind)} AND id IN ({', '.join(str(i) for i in ids)})"))

    def build_indexes(self) -> bool:
        """An HNSW (scalar-quantised) index on the vectors and B-trees on id and scope, once big enough."""
        with self._lock:
            table = self.table()
            if table is None or self._loop.run(table.count_rows()) < INDEX_MIN_ROWS:
                return False
            self._loop.run(table.create_index("vector", config=HnswSq(distance_type="cosine"), replace=True))
            self._loop.run(table.create_index("id", config=BTree(), replace=True))
            self._loop.run(table.create_index("kind", config=BTree(), replace=True))
            self._loop.run(table.create_index("scope", config=BTree(), replace=True))
            return True

    def optimize(self) -> None:
        with self._lock:
            table = self.table()
            if table is not None:
                self._loop.run(table.optimize())

    def purge_history(self) -> dict:
        """Leave no copy of deleted rows in the folder (after an erase): write every live row of every
        table into fresh files, rebuild the indexes it had, and remove every older version with the
        files only they used.

        A delete only marks rows in a deletion file; the data file keeps their bytes, and compaction
        rewrites a fragment only once a tenth of it is deleted, so one erased row in a large fragment
        would stay on disk. Older versions keep every row they ever had (`checkout` returns them).
        Readers that still hold an older version fail their next read of it and open the latest.
        """
        with self._lock:
            db = self._connect()
            rewritten = removed = 0
            for name in self._loop.run(db.list_tables()).tables:
                table = self._loop.run(db.open_table(name))
                live = self._loop.run(table.query().to_arrow())
                indexed = bool(self._loop.run(table.list_indices()))
                self._loop.run(table.delete("true"))
                if live.num_rows:
                    self._loop.run(table.add(live))
                if name == TABLE:
                    self._table = table
                    if indexed:
                        self.build_indexes()
                with warnings.catch_warnings():
                    # The warning is that older versions go: here that is the point.
                    warnings.simplefilter("ignore", UserWarning)
                    stats = self._loop.run(table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True))
                rewritten += live.num_rows
                removed += int(stats.prune.old_versions_removed)
            return {"rows_rewritten": rewritten, "versions_removed": removed}

    # -- reads ----------------------------------------------------------------------------------

    def count(self) -> int:
        table = self.table()
        return 0 if table is None else int(self._loop.run(table.count_rows()))

    def has_vector_index(self) -> bool:
        table = self.table()
        if table is None:
            return False
        return any("vector" in list(ix.columns) for ix in self._loop.run(table.list_indices()))

    def rows_state(self) -> dict[tuple[str, int], str | None]:
        """(kind, id) -> tx_to for every row (repair compares this with the ledger)."""
        table = self.table()
        if table is None:
            return {}
        data = self._loop.run(table.query().select(["kind", "id", "tx_to"]).to_arrow()).to_pydict()
        return {(k, i): t for k, i, t in zip(data["kind"], data["id"], data["tx_to"])}

    @staticmethod
    async def _query(table, vector: np.ndarray, where: str, fetch: int, keep: int, *, post: bool) -> dict:
        query = (
            table.vector_search(np.asarray(vector, dtype=np.float32))
            .column("vector")
            .distance_type("cosine")
            .where(where)
            .select(["kind", "id", "_distance"])
            .limit(fetch)
        )
        if post:
            query = query.postfilter()
        data = (await query.to_arrow()).to_pydict()
        if len(data["id"]) > keep:  # the best `keep` of the wider set
            order = sorted(range(len(data["id"])), key=lambda i: data["_distance"][i])[:keep]
            data = {name: [data[name][i] for i in order] for name in ("kind", "id", "_distance")}
        return data

    async def _search(self, table, vector: np.ndarray, where: str, limit: int) -> list[VectorHit]:
        # Post-filtering a wider candidate set is several times cheaper than pre-filtering every row;
        # when the filter removes most of them (other scopes, closed versions dominate) fall back to
        # the exact pre-filtered search.
        rows = await self._query(table, vector, where, limit * 3, limit, post=True)
        if len(rows["id"]) < limit // 2:
            rows = await self._query(table, vector, where, limit, limit, post=False)
        hits = []
        for kind, item_id, distance in zip(rows["kind"], rows["id"], rows["_distance"]):
            if distance is None or not np.isfinite(distance):
                continue  # a zero vector (a text the model knows nothing of) has no direction
            hits.append(VectorHit(str(kind), int(item_id), 1.0 - float(distance)))
        return hits

    def start_search(
        self, vector: np.ndarray, visible: str, limit: int, kinds: Sequence[str] = ("fact", "episode"), *,
        wait: bool = True,
    ) -> Future | None:
        """Begin a search on the index's event loop; the caller collects `.result()` when it needs it,
        so the SQL lanes run meanwhile. `visible` is the candidate set: the ledger's visibility predicate
        bound to the search's scopes and times, over this table's mirrored columns (the recorder renders
        it). With wait=False, None when another thread holds the index (a drain or a rebuild in
        progress) instead of waiting for it."""
        if not wait:
            if not self._lock.acquire(blocking=False):
                return None
            try:
                return self.start_search(vector, visible, limit, kinds)
            finally:
                self._lock.release()
        table = self.table()
        if table is None:
            done: Future = Future()
            done.set_result([])
            return done
        where = f"({visible})"
        if set(kinds) != {"fact", "episode"}:
            where += f" AND kind IN ({', '.join(_quote(k) for k in kinds)})"
        return asyncio.run_coroutine_threadsafe(self._search(table, vector, where, limit), self._loop.loop)

    def search(
        self, vector: np.ndarray, visible: str, limit: int, kinds: Sequence[str] = ("fact", "episode")
    ) -> list[VectorHit]:
        return self.start_search(vector, visible, limit, kinds).result()
