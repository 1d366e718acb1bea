"""The vector store interface every backend implements."""

from __future__ import annotations

from collections.abc import Container, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Protocol, TypeGuard

import numpy as np

from ragloom.errors import StoreError
from ragloom.filters import Filters
from ragloom.top_k import top_k_indices as top_k_indices  # plugins import it from here
from ragloom.types import Chunk, Metadata, SearchResult


@dataclass(frozen=True)
class EmbeddingSpec:
    """What produced the vectors a store holds; a store built for another spec is rebuilt."""

    model: str
    dimension: int


class VectorStore(Protocol):
    """Keeps chunk vectors with their text and metadata and finds the nearest by cosine.

    This is all a backend implements; which chunks belong to which file is the manifest's
    business (``indexing/``), so a new backend is one small file.

    ``query`` returns results best first with ``score`` = cosine similarity and
    ``distance`` = 1 - score. Upserting an existing id replaces it entirely.

    A store that keeps its own keyword index (a database with a text index, say) may
    define ``sparse_index(read_only: bool) -> SparseBackend`` (``retrieval.sparse_base``):
    the engine then searches and updates that instead of a BM25 folder beside the store.

    A store whose ``query`` waits on another process (a database server) may say
    ``queries_elsewhere = True``: a hybrid search then runs BM25 while it waits, so
    ``query`` must be safe to call from another thread than the one that opened the store.
    Such a store reading on several connections defines ``read_snapshot()``, a context
    manager every read of one search runs in, so they all see the same committed version.
    """

    name: str
    #: Whether the store keeps its data on disk or a server (and needs the index lock).
    persistent: bool
    #: Whether other processes may read while one process writes.
    concurrent_readers: bool
    #: Whether ``get_vectors`` works (MMR and scoring BM25-only hits need it).
    hands_out_vectors: bool
    #: Whether ``query`` matches ``$glob`` filters itself; if not, the searcher turns each
    #: glob into ``$in`` of the matching values the BM25 index knows.
    glob_filters: bool

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str],
               metadatas: Sequence[Metadata]) -> None: ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def query(self, vector: np.ndarray, top_k: int,
              filters: Filters | None = None) -> list[SearchResult]: ...

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """The stored chunks among ``ids``, in the order given; unknown ids are left out."""
        ...

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``ids`` as rows, in the order given; unknown ids raise KeyError
        (a store that cannot says ``hands_out_vectors = False`` and raises StoreError)."""
        ...

    def ids(self) -> list[str]:
        """Every stored id (order unspecified)."""
        ...

    def count(self) -> int: ...

    def reset(self) -> None:
        """Remove every chunk."""
        ...

    def persist(self) -> None: ...

    def close(self) -> None: ...


class TextSearchStore(VectorStore, Protocol):
    """A store whose index lives elsewhere and is searched by text (the MCP bridge): it
    says ``searches_text = True``; the engine then neither embeds, indexes nor keeps BM25."""

    searches_text: bool

    def query_text(self, text: str, top_k: int, filters: Filters | None = None) -> list[SearchResult]:
        """The remote index's results for ``text``, best first."""
        ...

    def read_only_error(self) -> Exception:
        """The error an attempt to write raises (naming where the index lives)."""
        ...


def searches_text(store: VectorStore) -> TypeGuard[TextSearchStore]:
    """Whether ``store`` searches a remote index by text."""
    return bool(getattr(store, "searches_text", False))


def queries_elsewhere(store: VectorStore) -> bool:
    """Whether ``store``'s queries run in another process, so other work may overlap them."""
    return bool(getattr(store, "queries_elsewhere", False))


class DataRejectedError(StoreError):
    """The store cannot hold these values (a character it cannot store, a value too large
    for its index): the indexer skips the file with this reason and the run goes on."""


def read_snapshot(store: VectorStore) -> AbstractContextManager[object]:
    """What every read of one search runs in, so they all see one committed version: a
    store reading on several connections at once (Postgres) shares one snapshot between
    them; a store that needs nothing gets a no-op."""
    snapshot = getattr(store, "read_snapshot", None)
    return snapshot() if callable(snapshot) else nullcontext()


def check_upsert_arguments(ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str],
                           metadatas: Sequence[Metadata], dimension: int | None = None) -> np.ndarray:
    """Validate an upsert's columns (equal lengths, 2-d finite vectors of ``dimension``
    columns when given, unique ids) and return the vectors as float32."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != len(ids):
        raise ValueError(f"vectors must have shape ({len(ids)}, dim), got {matrix.shape}")
    if dimension is not None and len(ids) and matrix.shape[1] != dimension:
        raise ValueError(f"vectors have dimension {matrix.shape[1]}, the store holds {dimension}")
    if len(texts) != len(ids) or len(metadatas) != len(ids):
        raise ValueError(
            f"ids, texts and metadatas differ in length: {len(ids)}, {len(texts)}, {len(metadatas)}"
        )
    if len(set(ids)) != len(ids):
        raise ValueError("upsert got the same id more than once")
    if not np.isfinite(matrix.sum(axis=1)).all():  # NaN and infinity survive the sums
        raise ValueError("vectors contain NaN or infinity")
    return matrix


def require_stored(ids: Sequence[str], stored: Container[str]) -> None:
    """KeyError naming (up to five of) the ids that are not stored."""
    missing = [chunk_id for chunk_id in ids if chunk_id not in stored]
    if missing:
        raise KeyError(f"no vectors stored for ids {missing[:5]}")


