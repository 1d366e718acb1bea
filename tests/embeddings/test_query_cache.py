"""Questions asked twice are paid once: query vectors come from memory or the embedding
cache (a restart keeps them), never a document vector for a query, and reading never writes."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from fakes.counting_embedder import TaskCountingProvider
from helpers import write
from ragloom import RAGConfig, RAGEngine
from ragloom.embeddings import CachedEmbedder, EmbeddingCache
from ragloom.embeddings.query_cache import QueryEmbedder


def config(**overrides: object) -> RAGConfig:
    data = {"embedding": {"provider": "hash"}, "relevance_gate": 0.0,
            "vector_store": {"provider": "turboquant"}, **overrides}
    return RAGConfig.model_validate(data)


def indexed_project(root: Path) -> Path:
    write(root, "docs/guide.md", "# Guide\n\nRockets launch satellites into orbit.\n")
    write(root, "src/parser.py", "def parse_config(text):\n    return text.split('=')\n")
    with RAGEngine(config(), root, embedding_provider=TaskCountingProvider()) as engine:
        engine.index_directory()
    return root


def files_under(root: Path) -> dict[str, tuple[int, int]]:
    return {str(Path(folder, name).relative_to(root)): (Path(folder, name).stat().st_mtime_ns,
                                                        Path(folder, name).stat().st_size)
            for folder, _, files in os.walk(root) for name in files}


def ids(results) -> list[str]:
    return [result.id for result in results]


def test_the_second_identical_search_makes_no_embedding_call_also_after_reopening(tmp_path: Path) -> None:
    root = indexed_project(tmp_path)
    provider = TaskCountingProvider()
    with RAGEngine(config(), root, embedding_provider=provider) as engine:
        first = engine.search("rockets and orbit")
        assert provider.embedded == {"document": 0, "query": 1}
        assert ids(engine.search("rockets and orbit")) == ids(first)
        assert engine.search_detailed("rockets and orbit", mode="sparse").results
        assert provider.embedded == {"document": 0, "query": 1}
        engine.search("parse config")
        assert provider.embedded["query"] == 2
    reopened = TaskCountingProvider()
    with RAGEngine(config(), root, embedding_provider=reopened) as engine:
        assert ids(engine.search("rockets and orbit")) == ids(first)
        engine.search("parse config")
        assert reopened.embedded == {"document": 0, "query": 0}


def test_a_read_only_engine_reads_a_writers_query_from_disk_and_writes_nothing(tmp_path: Path) -> None:
    root = indexed_project(tmp_path)
    with RAGEngine(config(), root, embedding_provider=TaskCountingProvider()) as engine:
        expected = ids(engine.search("satellites"))
    before = files_under(root)
    provider = TaskCountingProvider()
    with RAGEngine(config(), root, embedding_provider=provider, read_only=True) as engine:
        assert ids(engine.search("satellites")) == expected
        assert provider.embedded["query"] == 0
        engine.search("a question nobody asked")
        engine.search("a question nobody asked")  # from memory the second time
        assert provider.embedded["query"] == 1
    assert files_under(root) == before
    again = TaskCountingProvider()
    with RAGEngine(config(), root, embedding_provider=again, read_only=True) as engine:
        engine.search("a question nobody asked")  # a reader's query was never written
        assert again.embedded["query"] == 1


def test_a_read_only_engine_without_a_cache_file_creates_none(tmp_path: Path) -> None:
    root = indexed_project(tmp_path)
    (root / ".ragloom" / "embeddings.sqlite").unlink()
    before = files_under(root)
    provider = TaskCountingProvider()
    with RAGEngine(config(), root, embedding_provider=provider, read_only=True) as engine:
        engine.search("orbit")
        engine.search("orbit")
    assert provider.embedded["query"] == 1
    assert files_under(root) == before


def test_without_the_embedding_cache_every_search_embeds_its_query(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "Rockets launch satellites.\n")
    provider = TaskCountingProvider()
    with RAGEngine(config(embedding={"provider": "hash", "cache": False}), tmp_path,
                   embedding_provider=provider) as engine:
        engine.index_directory()
        engine.search("rockets")
        engine.search("rockets")
    assert provider.embedded["query"] == 2
    assert not (tmp_path / ".ragloom" / "embeddings.sqlite").exists()


def test_document_and_query_vectors_of_one_text_are_cached_apart(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "embeddings.sqlite")
    provider = TaskCountingProvider(flip_queries=True)
    document = CachedEmbedder(provider, cache).embed(["orbit"], "document").vectors[0]
    queries = QueryEmbedder(provider, cache)
    query = queries.embed_query("orbit")
    queries.flush()
    assert provider.embedded == {"document": 1, "query": 1}
    assert np.array_equal(query, -document)
    launch = CachedEmbedder(provider, cache).embed(["launch"], "query").vectors[0]
    assert np.array_equal(QueryEmbedder(provider, cache, memory=0).embed_query("launch"), launch)
    assert CachedEmbedder(provider, cache).embed(["launch"], "document").computed == 1
    assert provider.embedded == {"document": 2, "query": 2}
    assert cache.count() == 4


def test_the_memory_keeps_the_most_recent_queries_only() -> None:
    provider = TaskCountingProvider()
    queries = QueryEmbedder(provider, None, memory=2)
    for text in ("a", "b", "a", "c"):  # "a" was used again, so "b" is the oldest
        queries.embed_query(text)
    assert len(queries) == 2 and provider.embedded["query"] == 3
    queries.embed_query("a")
    queries.embed_query("c")
    assert provider.embedded["query"] == 3
    queries.embed_query("b")
    assert provider.embedded["query"] == 4 and queries.computed == 4


def test_a_returned_vector_may_be_changed_without_changing_the_cache() -> None:
    queries = QueryEmbedder(TaskCountingProvider(), None)
    first = queries.embed_query("orbit")
    expected = first.copy()
    first[:] = 0
    assert np.array_equal(queries.embed_query("orbit"), expected)


def test_searches_from_several_threads_share_the_cache(tmp_path: Path) -> None:
    provider = TaskCountingProvider()
    cache = EmbeddingCache(tmp_path / "embeddings.sqlite")
    queries = QueryEmbedder(provider, cache)
    texts = [f"question {number}" for number in range(40)]
    expected = {text: provider.embed([text], "query")[0] for text in texts}
    provider.embedded["query"] = 0
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(queries.embed_query, texts * 4))
    assert all(np.array_equal(vector, expected[text]) for vector, text in zip(answers, texts * 4))
    assert len(queries) == 40 and provider.embedded["query"] >= 40
    paid = provider.embedded["query"]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(queries.embed_query, texts))
    queries.flush()
    fresh = TaskCountingProvider()
    list(map(QueryEmbedder(fresh, cache).embed_query, texts))
    assert provider.embedded["query"] == paid and fresh.embedded["query"] == 0


def test_new_query_vectors_are_written_a_batch_at_a_time_and_at_flush(tmp_path: Path) -> None:
    """One synced transaction per query would slow every new search down (20 ms): writes
    wait for ``write_batch`` vectors or ``flush`` (the engine flushes when it closes)."""
    cache = EmbeddingCache(tmp_path / "embeddings.sqlite")
    queries = QueryEmbedder(TaskCountingProvider(), cache, write_batch=3)
    for text in ("a", "b"):
        queries.embed_query(text)
    assert cache.count() == 0
    queries.embed_query("a")  # from memory: nothing new to write
    assert cache.count() == 0
    queries.embed_query("c")
    assert cache.count() == 3
    queries.embed_query("d")
    queries.flush()
    fresh = TaskCountingProvider()
    for text in ("a", "b", "c", "d"):
        QueryEmbedder(fresh, cache).embed_query(text)
    assert cache.count() == 4 and fresh.embedded["query"] == 0


def test_a_query_waiting_to_be_written_is_served_even_when_memory_keeps_none(tmp_path: Path) -> None:
    provider = TaskCountingProvider()
    queries = QueryEmbedder(provider, EmbeddingCache(tmp_path / "embeddings.sqlite"), memory=0)
    queries.embed_query("orbit")
    queries.embed_query("orbit")
    assert provider.embedded["query"] == 1 and len(queries) == 0
