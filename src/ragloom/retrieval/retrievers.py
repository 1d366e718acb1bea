"""The first stage of a search: retrievers, each turning a query into a ranking of ids.

``dense`` asks the vector store (cosine), ``sparse`` the BM25 index. A retriever that read
whole results from the store leaves them in ``Query.loaded`` so later stages need not
read them again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import numpy as np

from ragloom.config.tables import RetrievalConfig
from ragloom.filters import MATCHES_NOTHING, Filters, Node
from ragloom.retrieval.fusion import tie_key
from ragloom.retrieval.sparse_base import SparseBackend
from ragloom.stores.base import VectorStore
from ragloom.types import Chunk, RetrieverHit, SearchResult

#: (id, the retriever's raw score), best first.
Ranking = list[tuple[str, float]]


class ChunkSource(Protocol):
    """Where chunks BM25 holds but the store does not yet come from (``indexing.unembedded``)."""

    def get(self, ids: Sequence[str]) -> list[Chunk]: ...


@dataclass
class Query:
    """One query as every stage sees it: text, its vector, filters compiled once."""

    text: str
    vector: np.ndarray
    filters: Filters | None = None
    conditions: list[Node] = field(default_factory=list)
    #: ``filters`` as the vector store takes them (globs resolved when it cannot match
    #: them; MATCHES_NOTHING when a glob matches nothing).
    store_filters: Filters | None = None
    #: Results already read from the store, by id (with their ``retrievers`` hits).
    loaded: dict[str, SearchResult] = field(default_factory=dict)
    #: Ids of loaded results with no vector yet (progressive indexing): cosine unknown, 0.
    unembedded: set[str] = field(default_factory=set)


Item = TypeVar("Item")


def stable_top(fetch: Callable[[int], list[Item]], k: int,
               key: Callable[[Item], tuple[float, str]]) -> list[Item]:
    """The first ``k`` of ``fetch(n)`` in ``key`` order (score, then id), whatever order the
    backend returns ties in and whichever tied items it keeps at its cut: more are fetched
    until the last one fetched no longer ties with the k-th."""
    if k <= 0:
        return []
    extra = 10
    while True:
        found = sorted(fetch(k + extra), key=key)
        if len(found) < k + extra or key(found[k - 1])[0] != key(found[-1])[0]:
            return found[:k]
        extra *= 2


class Retriever(Protocol):
    """Finds the ``k`` best candidates for a query by its own measure."""

    name: str

    def retrieve(self, query: Query, k: int) -> Ranking: ...


class DenseRetriever:
    """Nearest chunks by cosine in the vector store (filters applied by the store)."""

    name = "dense"

    def __init__(self, store: VectorStore) -> None:
        self.store = store

    def retrieve(self, query: Query, k: int) -> Ranking:
        if query.store_filters is MATCHES_NOTHING:
            return []
        results = stable_top(lambda n: self.store.query(query.vector, n, query.store_filters), k,
                             lambda result: tie_key(result.id, result.score))
        for rank, result in enumerate(results, start=1):
            result.retrievers[self.name] = RetrieverHit(rank, result.score)
            query.loaded[result.id] = result
        return [(result.id, result.score) for result in results]


class SparseRetriever:
    """BM25 over the chunk texts (with optional RM3-style query feedback)."""

    name = "sparse"

    def __init__(self, sparse: SparseBackend, settings: RetrievalConfig) -> None:
        self.sparse = sparse
        self.settings = settings

    def retrieve(self, query: Query, k: int) -> Ranking:
        settings = self.settings
        return stable_top(lambda n: self.sparse.search(
            query.text, n, query.conditions,
            feedback_docs=settings.feedback_docs if settings.feedback else 0,
            feedback_terms=settings.feedback_terms, feedback_weight=settings.feedback_weight),
            k, lambda pair: tie_key(*pair))


def timed_retrieve(retriever: Retriever, request: Query, pool: int) -> tuple[Ranking, float]:
    """``retriever``'s ranking of ``request`` and the milliseconds it took."""
    started = time.perf_counter()
    ranking = retriever.retrieve(request, pool)
    return ranking, (time.perf_counter() - started) * 1000
