"""Dense retrieval: embed the query, ask the store for its nearest chunks."""

from __future__ import annotations

from ragloom.embeddings.base import EmbeddingProvider
from ragloom.stores.base import VectorStore
from ragloom.stores.filters import Filters
from ragloom.types import RetrieverHit, SearchResult


class DenseRetriever:
    """Top-k by cosine similarity between the query vector and stored chunk vectors."""

    name = "dense"

    def __init__(self, provider: EmbeddingProvider, store: VectorStore) -> None:
        self.provider = provider
        self.store = store

    def retrieve(self, query: str, top_k: int, filters: Filters | None = None) -> list[SearchResult]:
        vector = self.provider.embed_query(query)
        results = self.store.query(vector, top_k, filters)
        for rank, result in enumerate(results, start=1):
            result.retrievers[self.name] = RetrieverHit(rank=rank, score=result.score)
        return results
