"""The embedding cache: hits skip the provider, keys separate models and tasks."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ragloom.embeddings import CachedEmbedder, EmbeddingCache, HashEmbeddingProvider


class CountingProvider(HashEmbeddingProvider):
    def __init__(self, dimension: int = 16) -> None:
        super().__init__(dimension)
        self.texts_embedded = 0

    def _embed_batch(self, texts, task):
        self.texts_embedded += len(texts)
        return super()._embed_batch(texts, task)


def test_second_embedding_of_same_text_comes_from_cache(tmp_path: Path) -> None:
    provider = CountingProvider()
    embedder = CachedEmbedder(provider, EmbeddingCache(tmp_path / "cache.sqlite"))
    first = embedder.embed(["a", "b", "a"])
    assert first.computed == 2 and provider.texts_embedded == 2
    second = embedder.embed(["b", "c"])
    assert second.computed == 1 and provider.texts_embedded == 3
    assert np.array_equal(first.vectors[1], second.vectors[0])


def test_cache_persists_across_opens(tmp_path: Path) -> None:
    CachedEmbedder(CountingProvider(), EmbeddingCache(tmp_path / "c.sqlite")).embed(["x", "y"])
    provider = CountingProvider()
    again = CachedEmbedder(provider, EmbeddingCache(tmp_path / "c.sqlite")).embed(["x", "y"])
    assert again.computed == 0 and provider.texts_embedded == 0


def test_query_and_document_tasks_and_dimensions_are_separate(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    CachedEmbedder(CountingProvider(16), cache).embed(["x"], "document")
    assert CachedEmbedder(CountingProvider(16), cache).embed(["x"], "query").computed == 1
    other_dim = CachedEmbedder(CountingProvider(32), cache).embed(["x"], "document")
    assert other_dim.computed == 1 and other_dim.vectors.shape == (1, 32)
    assert cache.count() == 3


def test_without_cache_everything_is_computed() -> None:
    provider = CountingProvider()
    result = CachedEmbedder(provider, None).embed(["a", "a", "b"])
    assert result.computed == 2 and result.vectors.shape == (3, 16)
