"""The first stage of a search: retrievers, each turning a query into its hits, best first.

``dense`` asks the vector store (cosine), ``sparse`` the BM25 index. A hit carries the row
it was read with when the retriever read one (the store returns text, metadata and cosine),
so later stages need not read it again; nothing is left behind on the query.
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
from ragloom.types import SearchResult

#: (id, the retriever's raw score), best first.
Ranking = list[tuple[str, float]]


@dataclass(frozen=True)
class Query:
    """One query as every stage sees it: text, its vector, filters compiled once."""

    text: str
    vector: np.ndarray
    filters: Filters | None = None
    conditions: list[Node] = field(default_factory=list)
    #: ``filters`` as the vector store takes them (globs resolved when it cannot match
    #: them; MATCHES_NOTHING when a glob matches nothing).
    store_filters: Filters | None = None


@dataclass(frozen=True)
class Hit:
    """One candidate a retriever found: its id and the retriever's raw score, and the row
    (text, metadata, cosine) when the retriever read it; None when it read ids alone (BM25)."""

    id: str
    score: float
    row: SearchResult | None = None


def ranking(hits: Sequence[Hit]) -> Ranking:
    """``hits`` as (id, score) pairs, for fusion."""
    return [(hit.id, hit.score) for hit in hits]


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
    """Finds the ``k`` best candidates for a query by its own measure (the searcher's
    ``dense`` and ``sparse``)."""

    name: str

    def retrieve(self, query: Query, k: int) -> list[Hit]: ...


class DenseRetriever:
    """Nearest chunks by cosine in the vector store (filters applied by the store)."""

    name = "dense"

    def __init__(self, store: VectorStore) -> None:
        self.store = store

    def retrieve(self, query: Query, k: int) -> list[Hit]:
        if query.store_filters is MATCHES_NOTHING:
            return []
        results = stable_top(lambda n: self.store.query(query.vector, n, query.store_filters), k,
                             lambda result: tie_key(result.id, result.score))
        return [Hit(result.id, result.score, result) for result in results]


class SparseRetriever:
    """BM25 over the chunk texts (with optional RM3-style query feedback)."""

    name = "sparse"

    def __init__(self, sparse: SparseBackend, settings: RetrievalConfig) -> None:
        self.sparse = sparse
        self.settings = settings

    def retrieve(self, query: Query, k: int) -> list[Hit]:
        settings = self.settings
        found = stable_top(lambda n: self.sparse.search(
            query.text, n, query.conditions,
            feedback_docs=settings.feedback_docs if settings.feedback else 0,
            feedback_terms=settings.feedback_terms, feedback_weight=settings.feedback_weight),
            k, lambda pair: tie_key(*pair))
        return [Hit(doc_id, score) for doc_id, score in found]


def timed_retrieve(retriever: Retriever, request: Query, pool: int) -> tuple[list[Hit], float]:
    """``retriever``'s hits for ``request`` and the milliseconds it took."""
    started = time.perf_counter()
    hits = retriever.retrieve(request, pool)
    return hits, (time.perf_counter() - started) * 1000
