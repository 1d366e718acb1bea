"""The optional stage after fusion: a reranker rescores the best fused candidates.

A reranker is one method, ``score(query, results) -> one float per result`` (higher is
better), e.g. a cross-encoder. ragloom ships none (a good one needs a model this package
does not bundle); plugins add them with ``ragloom.rerankers`` entry points and
``[rag.retrieval] reranker = "name"`` selects one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol

from ragloom._registry import Registry
from ragloom.config import RAGConfig
from ragloom.types import RetrieverHit, SearchResult


class Reranker(Protocol):
    """Scores how well each result answers the query; the pipeline reorders by it."""

    def score(self, query: str, results: Sequence[SearchResult]) -> Sequence[float]: ...


RerankerFactory = Callable[[RAGConfig], Reranker]

#: Reranker name -> factory; filled from ``ragloom.rerankers`` entry points.
rerankers: Registry[RerankerFactory] = Registry("reranker", "retrieval.reranker", "ragloom.rerankers")


def rerank(reranker: Reranker, query: str, results: list[SearchResult]) -> list[SearchResult]:
    """``results`` best first by the reranker's score (ties keep the fused order), as new
    results with ``rank_score`` = that score and the hit recorded under
    ``retrievers["rerank"]`` (the ones handed in are left as they were)."""
    if not results:
        return results
    scores = [float(value) for value in reranker.score(query, results)]
    if len(scores) != len(results):
        raise ValueError(f"reranker {type(reranker).__name__} returned {len(scores)} scores "
                         f"for {len(results)} results")
    order = sorted(range(len(results)), key=lambda i: -scores[i])
    return [replace(results[index], rank_score=scores[index],
                    retrievers={**results[index].retrievers, "rerank": RetrieverHit(rank, scores[index])})
            for rank, index in enumerate(order, start=1)]
