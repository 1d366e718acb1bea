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


def test_a_garbage_cache_is_set_aside_and_a_new_one_started(tmp_path: Path) -> None:
    """The cache is disposable: a damaged file never blocks a write; it is renamed beside
    (never deleted) and the cache starts empty."""
    path = tmp_path / "embeddings.sqlite"
    garbage = b"this is not a database " * 500
    path.write_bytes(garbage)
    cache = EmbeddingCache(path)
    embedder = CachedEmbedder(HashEmbeddingProvider(), cache)
    assert embedder.embed(["hello"]).computed == 1
    assert embedder.embed(["hello"]).computed == 0
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("embeddings.sqlite.corrupt-")]
    assert len(aside) == 1 and aside[0].read_bytes() == garbage
    cache.close()


def test_a_cache_damaged_while_open_is_set_aside_on_the_next_use(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.sqlite"
    cache = EmbeddingCache(path)
    embedder = CachedEmbedder(HashEmbeddingProvider(), cache)
    embedder.embed([f"text {i}" for i in range(300)])
    cache.close()
    data = bytearray(path.read_bytes())
    data[4096:] = b"\xff" * (len(data) - 4096)  # every page after the first
    path.write_bytes(bytes(data))
    cache = EmbeddingCache(path)
    embedder = CachedEmbedder(HashEmbeddingProvider(), cache)
    assert embedder.embed(["text 1", "new"]).computed == 2
    assert embedder.embed(["text 1", "new"]).computed == 0
    assert any(p.name.startswith("embeddings.sqlite.corrupt-") for p in tmp_path.iterdir())
    cache.close()


def test_vectors_are_stored_compactly(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    CachedEmbedder(CountingProvider(384), cache).embed([f"chunk {i}" for i in range(3000)])
    cache.close()
    with_wal = sum(f.stat().st_size for f in tmp_path.iterdir())
    assert with_wal / 3000 < 1800
