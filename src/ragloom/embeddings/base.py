"""The embedding provider interface: implement ``_embed_batch``; the base does the rest."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np

from ragloom.errors import EmbeddingError

if TYPE_CHECKING:
    from ragloom.chunking.measure import TokenMeasure

EmbeddingTask = Literal["document", "query"]
#: Called as each batch is embedded: (position of its first text, its vectors).
BatchCallback = Callable[[int, np.ndarray], None]


class EmbeddingProvider(ABC):
    """Turns texts into float32 vectors of ``dimension`` columns.

    Documents and queries are embedded separately because some models (Gemini) encode
    them differently. Subclasses implement ``_embed_batch`` for at most
    ``max_texts_per_call`` texts; ``embed`` splits longer lists (running up to
    ``max_concurrency`` batches at once), reports each finished batch, and checks shapes.
    """

    provider_name: ClassVar[str]
    max_texts_per_call: ClassVar[int] = 10_000
    #: Batches embedded at once (remote APIs); the model's own threads do the rest locally.
    max_concurrency: int = 1
    #: The model the vectors come from: with ``provider_name`` and ``dimension`` the identity
    #: of the vector space an index is built in (a store built in another is refused); set by
    #: __init__.
    model_name: str
    #: Length of every vector this provider returns; set by __init__.
    dimension: int
    #: The default relevance gate: a query none of whose results reaches this cosine is
    #: taken as unrelated to the corpus and gets no results. Measured per model with
    #: bench/relevance_gate.py; None when not measured (no gate).
    default_relevance_gate: float | None = None

    @abstractmethod
    def _embed_batch(self, texts: list[str], task: EmbeddingTask) -> np.ndarray:
        """Embed at most ``max_texts_per_call`` texts; one row per text, in order."""

    def embed(self, texts: Sequence[str], task: EmbeddingTask = "document",
              on_batch: BatchCallback | None = None) -> np.ndarray:
        """Embed ``texts`` for ``task``, returning a (len(texts), dimension) float32 array.

        ``on_batch`` gets every batch as soon as it is embedded, so a caller can keep what
        was paid for (the embedding cache does) even if a later batch fails.
        """
        texts = list(texts)
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        starts = range(0, len(texts), self.max_texts_per_call)

        def run(start: int) -> np.ndarray:
            part = np.asarray(self._embed_batch(texts[start:start + self.max_texts_per_call], task),
                              dtype=np.float32)
            expected = (min(self.max_texts_per_call, len(texts) - start), self.dimension)
            if part.shape != expected:
                raise EmbeddingError(
                    f"{self.provider_name} model {self.model_name!r} returned shape {part.shape}, "
                    f"expected {expected}")
            return part

        def finished(start: int, part: np.ndarray) -> None:
            vectors[start:start + len(part)] = part
            if on_batch is not None:
                on_batch(start, part)

        if self.max_concurrency <= 1 or len(starts) <= 1:
            for start in starts:
                finished(start, run(start))
            return vectors
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(starts)),
                                thread_name_prefix=f"ragloom-{self.provider_name}") as pool:
            futures = {pool.submit(run, start): start for start in starts}
            try:
                for future in as_completed(futures):
                    finished(futures[future], future.result())
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
        return vectors

    def vector_settings(self) -> str:
        """Every other setting that changes the vectors (how the model runs, truncation,
        normalization), for the embedding cache key; not part of the index identity, since
        vectors of one model under other settings still live in one space."""
        return ""

    def token_measure(self) -> TokenMeasure | None:
        """Counts texts in this model's tokens, with the model's window, when the tokenizer
        is available locally; None otherwise (chunks are then sized in characters)."""
        return None

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
