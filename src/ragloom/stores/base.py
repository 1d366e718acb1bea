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

    The attributes say what the store can do; the engine asks them and never checks a
    name. ``StoreDefaults`` gives the members most stores leave alone: subclass it and
    override what applies. What is known before a store opens (whether it keeps its data
    on disk or a server, its settings, where its files go) is its backend's, and only its
    backend's (``stores.backend.StoreBackend``).
    """

    name: str
    #: Whether other processes may read while one process writes.
    concurrent_readers: bool
    #: Whether ``get_vectors`` works (MMR and scoring BM25-only hits need it).
    hands_out_vectors: bool
    #: Whether ``query`` matches ``$glob`` filters itself; if not, the searcher turns each
    #: glob into ``$in`` of the matching values the BM25 index knows.
    glob_filters: bool
    #: Whether it searches a remote index by text (``TextSearchStore``): the engine then
    #: neither embeds, indexes nor keeps BM25.
    searches_text: bool
    #: Whether ``query`` waits on another process (a database server): a hybrid search then
    #: runs BM25 meanwhile, so ``query`` must be safe to call from another thread.
    queries_elsewhere: bool

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

    def read_snapshot(self) -> AbstractContextManager[object]:
        """What every read of one search runs in, so they all see one committed version (a
        store reading on several connections shares one snapshot between them)."""
        ...

    def verify_files(self) -> list[str]:
        """One message per damaged file the store keeps, checked against its checksums."""
        ...

    def id_digest(self) -> int | None:
        """A digest of the stored ids (the BM25 index compares it with its own instead of
        reading every id), or None when the store keeps none."""
        ...

    def ids_where(self, filters: Filters) -> list[str] | None:
        """The stored ids whose metadata matches ``filters``, selected by the store (an
        index lookup), or None when it cannot (the caller then reads ``ids()``)."""
        ...

    def server_figures(self) -> tuple[str, dict[str, int]] | None:
        """For ``status``: the table or collection in the server and the bytes each part of
        the index takes there (``store``, ``bm25``, ``manifest``, ``embedding_cache``,
        ``other``), or None when the server reports no sizes."""
        ...


class StoreDefaults:
    """The optional members of ``VectorStore`` for a store that has nothing to say: no
    remote text search, queries in this process, no snapshot, no files to check, no digest,
    no sizes from a server."""

    searches_text = False
    queries_elsewhere = False

    def read_snapshot(self) -> AbstractContextManager[object]:
        return nullcontext()

    def verify_files(self) -> list[str]:
        return []

    def id_digest(self) -> int | None:
        return None

    def ids_where(self, filters: Filters) -> list[str] | None:
        return None

    def server_figures(self) -> tuple[str, dict[str, int]] | None:
        return None


class TextSearchStore(VectorStore, Protocol):
    """A store whose index lives elsewhere and is searched by text (the MCP bridge): it
    says ``searches_text = True``; the engine then neither embeds, indexes nor keeps BM25."""

    def query_text(self, text: str, top_k: int, filters: Filters | None = None) -> list[SearchResult]:
        """The remote index's results for ``text``, best first."""
        ...

    def read_only_error(self) -> Exception:
        """The error an attempt to write raises (naming where the index lives)."""
        ...


def searches_text(store: VectorStore) -> TypeGuard[TextSearchStore]:
    """Whether ``store`` searches a remote index by text (narrows it for mypy)."""
    return store.searches_text


class DataRejectedError(StoreError):
    """The store cannot hold these values (a character it cannot store, a value too large
    for its index): the indexer skips the file with this reason and the run goes on."""


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


