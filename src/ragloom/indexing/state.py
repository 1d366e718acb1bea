"""The parts of an index a store may keep itself: manifest, BM25 index, embedding cache
and writer lock. A store whose backend says ``owns_index_state`` (``stores.backend``)
keeps them, e.g. in its database, so any number of processes on any number of machines
share one index with no local files; the engine asks the backend for them and never
checks which store it has."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ragloom.embeddings.cache import VectorCache
from ragloom.indexing.manifest import ManifestStore
from ragloom.retrieval.sparse_base import SparseBackend


class IndexLock(Protocol):
    """The writer's lock between processes (``locking.ProcessLock`` has this shape)."""

    def acquire(self, shared: bool = False, blocking: bool = False) -> None: ...

    def release(self) -> None: ...


@dataclass
class IndexState:
    """What the store supplies, each part with the interface of the local one it replaces
    (``Manifest``, ``SparseIndex``, ``EmbeddingCache``); ``lock`` is held by a writer and
    ``cache`` is None for a reader."""

    manifest: ManifestStore
    sparse: SparseBackend
    cache: VectorCache | None
    lock: IndexLock | None

