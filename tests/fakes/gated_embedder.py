"""An embedding provider (``[rag.embedding] provider = "gated_embedder:factory"``) that embeds like
the hash provider but holds a query containing ``hold`` until a file appears: a search that
stays in flight as long as a test wants, without sleeps. The folder of the signal files is
``$RAGLOOM_TEST_GATE``: ``started`` is written when a held query arrives, ``release`` lets it go."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from ragloom.config import RAGConfig
from ragloom.embeddings.base import EmbeddingTask
from ragloom.embeddings.hashing import DEFAULT_HASH_DIMENSION, HashEmbeddingProvider


class GatedEmbedder(HashEmbeddingProvider):
    """The hash provider (same identity, so it reads a hash-built index)."""

    def _embed_batch(self, texts: list[str], task: EmbeddingTask) -> np.ndarray:
        if task == "query" and any("hold" in text for text in texts):
            gate = Path(os.environ["RAGLOOM_TEST_GATE"])
            (gate / "started").touch()
            while not (gate / "release").exists():
                time.sleep(0.01)
        return super()._embed_batch(texts, task)


def factory(config: RAGConfig) -> GatedEmbedder:
    return GatedEmbedder(config.embedding.dim or DEFAULT_HASH_DIMENSION)
