"""A deterministic feature-hashing embedder for tests and offline logic checks.

Each lowercase word and its character trigrams are hashed (blake2b, so the result is the
same in every process and under any PYTHONHASHSEED) to a signed bucket; texts sharing
words share directions, so search order is meaningful yet fully predictable.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import ClassVar

import numpy as np

from ragloom.embeddings.base import EmbeddingProvider, EmbeddingTask, l2_normalize

_WORD = re.compile(r"\w+", re.UNICODE)
_EMPTY_TEXT_FEATURE = "\x00empty"
DEFAULT_HASH_DIMENSION = 384


@lru_cache(maxsize=200_000)
def _bucket(feature: str, dimension: int) -> tuple[int, float]:
    digest = int.from_bytes(hashlib.blake2b(feature.encode("utf-8", "surrogatepass"),
                                            digest_size=8).digest(), "little")
    return digest % dimension, (1.0 if (digest >> 63) & 1 else -1.0)


def _features(text: str) -> list[tuple[str, float]]:
    """Words (weight 1) and their character trigrams (weight 0.5)."""
    features: list[tuple[str, float]] = []
    for word in _WORD.findall(text.lower()):
        features.append((word, 1.0))
        padded = f"<{word}>"
        features.extend((padded[i:i + 3], 0.5) for i in range(len(padded) - 2))
    return features or [(_EMPTY_TEXT_FEATURE, 1.0)]


class HashEmbeddingProvider(EmbeddingProvider):
    """L2-normalized signed feature hashing; queries and documents embed the same way."""

    provider_name: ClassVar[str] = "hash"

    def __init__(self, dimension: int = DEFAULT_HASH_DIMENSION) -> None:
        if dimension < 1:
            raise ValueError(f"dimension must be positive, got {dimension}")
        self.model_name = "feature-hash-v1"
        self.dimension = dimension

    def _embed_batch(self, texts: list[str], task: EmbeddingTask) -> np.ndarray:
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                column, sign = _bucket(feature, self.dimension)
                vectors[row, column] += sign * weight
        return l2_normalize(vectors)
