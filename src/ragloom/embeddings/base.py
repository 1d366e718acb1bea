"""The embedding provider interface: implement ``_embed_batch``; the base does the rest."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar, Literal

import numpy as np

from ragloom.errors import EmbeddingError

EmbeddingTask = Literal["document", "query"]


class EmbeddingProvider(ABC):
    """Turns texts into float32 vectors of ``dimension`` columns.

    Documents and queries are embedded separately because some models (Gemini) encode
    them differently. Subclasses implement ``_embed_batch`` for at most
    ``max_texts_per_call`` texts; ``embed`` splits longer lists and checks the shapes.
    """

    provider_name: ClassVar[str]
    max_texts_per_call: ClassVar[int] = 10_000
    #: The model the vectors come from (part of the embedding cache key); set by __init__.
    model_name: str
    #: Length of every vector this provider returns; set by __init__.
    dimension: int

    @abstractmethod
    def _embed_batch(self, texts: list[str], task: EmbeddingTask) -> np.ndarray:
        """Embed at most ``max_texts_per_call`` texts; one row per text, in order."""

    def embed(self, texts: Sequence[str], task: EmbeddingTask = "document") -> np.ndarray:
        """Embed ``texts`` for ``task``, returning a (len(texts), dimension) float32 array."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = [
            self._embed_batch(texts[start:start + self.max_texts_per_call], task)
            for start in range(0, len(texts), self.max_texts_per_call)
        ]
        vectors = np.asarray(np.concatenate(parts), dtype=np.float32)
        if vectors.shape != (len(texts), self.dimension):
            raise EmbeddingError(
                f"{self.provider_name} model {self.model_name!r} returned shape {vectors.shape}, "
                f"expected ({len(texts)}, {self.dimension})"
            )
        return vectors

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts, "document")

    def embed_query(self, text: str) -> np.ndarray:
        """One query's vector, shape (dimension,)."""
        return self.embed([text], "query")[0]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model_name!r}, dimension={self.dimension})"


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; all-zero rows stay zero."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
