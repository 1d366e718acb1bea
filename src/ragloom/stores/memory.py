"""An in-memory exact-cosine store, for tests and for engines that need no persistence."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from ragloom.embeddings.base import l2_normalize
from ragloom.filters import Filters, compile_filters, matches_all
from ragloom.stores.base import StoreDefaults, check_upsert_arguments, require_stored
from ragloom.top_k import top_k_indices
from ragloom.types import Chunk, Metadata, SearchResult


class MemoryVectorStore(StoreDefaults):
    """Keeps unit vectors in a dict and scores every candidate exactly; nothing is persisted."""

    name = "memory"
    concurrent_readers = True
    hands_out_vectors = True
    glob_filters = True

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._vectors: dict[str, np.ndarray] = {}
        self._texts: dict[str, str] = {}
        self._metadatas: dict[str, Metadata] = {}
        self._matrix: np.ndarray | None = None
        self._matrix_ids: list[str] = []

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str],
               metadatas: Sequence[Metadata]) -> None:
        matrix = l2_normalize(check_upsert_arguments(ids, vectors, texts, metadatas))
        with self._lock:
            for row, chunk_id in enumerate(ids):
                self._vectors[chunk_id] = matrix[row]
                self._texts[chunk_id] = texts[row]
                self._metadatas[chunk_id] = dict(metadatas[row])
            self._matrix = None

    def delete(self, ids: Sequence[str]) -> None:
        with self._lock:
            for chunk_id in ids:
                self._vectors.pop(chunk_id, None)
                self._texts.pop(chunk_id, None)
                self._metadatas.pop(chunk_id, None)
            self._matrix = None

    def query(self, vector: np.ndarray, top_k: int,
              filters: Filters | None = None) -> list[SearchResult]:
        conditions = compile_filters(filters)
        with self._lock:
            if self._matrix is None:
                self._matrix_ids = list(self._vectors)
                self._matrix = (np.stack([self._vectors[i] for i in self._matrix_ids])
                                if self._matrix_ids else np.zeros((0, len(vector)), np.float32))
            ids, matrix = self._matrix_ids, self._matrix
            if conditions:
                rows = [r for r, cid in enumerate(ids) if matches_all(self._metadatas[cid], conditions)]
                ids = [ids[r] for r in rows]
                matrix = matrix[rows]
            if not ids or top_k <= 0:
                return []
            query = l2_normalize(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]
            scores = matrix @ query
            order = top_k_indices(scores, top_k)
            return [
                SearchResult(id=ids[r], text=self._texts[ids[r]], metadata=dict(self._metadatas[ids[r]]),
                             score=float(scores[r]), distance=float(1.0 - scores[r]))
                for r in order
            ]

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        with self._lock:
            return [Chunk(cid, self._texts[cid], dict(self._metadatas[cid]))
                    for cid in ids if cid in self._texts]

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        with self._lock:
            require_stored(ids, self._vectors)
            if not ids:
                return np.zeros((0, 0), dtype=np.float32)
            return np.stack([self._vectors[cid] for cid in ids])

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._vectors)

    def count(self) -> int:
        with self._lock:
            return len(self._vectors)

    def reset(self) -> None:
        with self._lock:
            self._vectors.clear()
            self._texts.clear()
            self._metadatas.clear()
            self._matrix = None

    def persist(self) -> None:
        """Nothing to do: this store lives in memory."""

    def close(self) -> None:
        """Nothing to release."""
