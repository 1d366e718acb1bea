"""The hash embedder counting the texts it embeds per task, for tests of what is paid for."""

from __future__ import annotations

import numpy as np

from ragloom.embeddings.base import EmbeddingTask
from ragloom.embeddings.hashing import HashEmbeddingProvider


class TaskCountingProvider(HashEmbeddingProvider):
    """Hash vectors; ``embedded`` counts texts per task. With ``flip_queries`` a query's
    vector differs from the same text's document vector (its sign flipped), as with Gemini."""

    def __init__(self, dimension: int = 16, flip_queries: bool = False) -> None:
        super().__init__(dimension)
        self.flip_queries = flip_queries
        self.embedded: dict[str, int] = {"document": 0, "query": 0}

    def _embed_batch(self, texts: list[str], task: EmbeddingTask) -> np.ndarray:
        self.embedded[task] += len(texts)
        vectors = super()._embed_batch(texts, task)
        return -vectors if task == "query" and self.flip_queries else vectors
