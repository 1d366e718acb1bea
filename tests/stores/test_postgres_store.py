"""The Postgres store against a real server: conformance, layout, credentials, identity."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from ragloom.errors import IndexLockedError, IndexMismatchError, IndexNotFoundError, StoreError
from ragloom.stores.base import EmbeddingSpec, VectorStore
from ragloom.stores.postgres import PostgresSettings, Tables
from ragloom.stores.postgres.store import PostgresStore
from ragloom.stores.registry import vector_stores
from ragloom.testing.stores import DIM, StoreConformance, sample_rows, unit

SPEC = EmbeddingSpec("hash/test", DIM)


@pytest.fixture
def open_store(postgres_server: Any, postgres_schema: str) -> Iterator[Callable[..., PostgresStore]]:
    opened: list[PostgresStore] = []

    def build(spec: EmbeddingSpec = SPEC, **settings: Any) -> PostgresStore:
        store = PostgresStore(postgres_server.url, Tables(postgres_schema, "chunks"), spec,
                              PostgresSettings(**settings))
        opened.append(store)
        return store

    yield build
    for store in opened:
        store.close()


class TestPostgresConformance(StoreConformance):
    persistent = True

    @pytest.fixture
    def backend(self):
        return vector_stores.get("postgres")

    @pytest.fixture
    def store_factory(self, open_store: Callable[..., PostgresStore]) -> Callable[[], VectorStore]:
        return open_store


def test_table_layout_is_the_documented_one(open_store, postgres_server, postgres_schema) -> None:
    store = open_store()
    ids, vectors, texts, metadatas = sample_rows()
    store.upsert(ids, vectors, texts, metadatas)
    columns = postgres_server.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        f"WHERE table_schema = '{postgres_schema}' AND table_name = 'chunks' ORDER BY ordinal_position")
    assert [c[0] for c in columns] == ["id", "source", "chunk_index", "text", "embedding",
                                       "metadata", "content_hash", "model"]
    row = postgres_server.execute(
        f"SELECT source, chunk_index, text, metadata->>'language', model, vector_dims(embedding) "
        f'FROM "{postgres_schema}".chunks WHERE id = \'a1\'')
    assert row == [("src/a.py", 1, "alpha one", "python", "hash/test", DIM)]
    indexes = postgres_server.execute(
        f"SELECT indexdef FROM pg_indexes WHERE schemaname = '{postgres_schema}' "
        "AND tablename = 'chunks'")
    assert any("hnsw" in d[0] and "vector_cosine_ops" in d[0] for d in indexes)


def test_model_change_is_refused_and_nothing_dropped(open_store) -> None:
    store = open_store()
    ids, vectors, texts, metadatas = sample_rows()
    store.upsert(ids, vectors, texts, metadatas)
    store.close()
    for other in (EmbeddingSpec("hash/other", DIM), EmbeddingSpec("hash/test", 32)):
        with pytest.raises(StoreError, match=r"built with hash/test \(16-d\).*never drops it"):
            open_store(other)
    assert open_store().count() == 4


def test_model_change_offers_a_rebuild_on_purpose(open_store) -> None:
    store = open_store()
    ids, vectors, texts, metadatas = sample_rows()
    store.upsert(ids, vectors, texts, metadatas)
    store.close()
    with pytest.raises(IndexMismatchError) as refused:
        open_store(EmbeddingSpec("hash/test", 32))
    writer = open_store()  # a writer holds the index: the rebuild is refused, nothing dropped
    with pytest.raises(IndexLockedError, match="being written by another process: not rebuilt"):
        refused.value.discard()
    writer.close()
    refused.value.discard()  # what RAGEngine(..., rebuild=True) calls
    rebuilt = open_store(EmbeddingSpec("hash/test", 32))
    assert rebuilt.count() == 0
    rebuilt.upsert(["x"], np.ones((1, 32), dtype=np.float32), ["t"], [{}])
    assert [r.id for r in rebuilt.query(np.ones(32, dtype=np.float32), top_k=3)] == ["x"]
    rebuilt.close()
    with pytest.raises(IndexMismatchError) as reading:
        PostgresStore(rebuilt.writer.url, rebuilt.tables, SPEC, read_only=True)
    assert reading.value.discard is None and "reading never rebuilds" in str(reading.value)


def test_create_false_refuses_to_create(open_store, postgres_server, postgres_schema) -> None:
    with pytest.raises(StoreError, match=r"create = false"):
        open_store(create=False)
    assert postgres_server.execute(f"SELECT to_regclass('\"{postgres_schema}\".chunks')") == [(None,)]


def test_reader_needs_an_existing_index(postgres_server, postgres_schema) -> None:
    with pytest.raises(IndexNotFoundError, match="no ragloom index"):
        PostgresStore(postgres_server.url, Tables(postgres_schema, "chunks"), SPEC, read_only=True)


def test_foreign_table_is_left_alone(open_store, postgres_server, postgres_schema) -> None:
    postgres_server.execute(f'CREATE TABLE "{postgres_schema}".chunks (id text)')
    postgres_server.execute(f'CREATE TABLE "{postgres_schema}".chunks_info (key text, value text)')
    with pytest.raises(StoreError, match="not created by ragloom"):
        open_store()


def test_glob_filters_match_in_sql(open_store) -> None:
    store = open_store()
    ids, vectors, texts, metadatas = sample_rows()
    store.upsert(ids, vectors, texts, metadatas)
    store.upsert(["d0"], unit(1).reshape(1, -1), ["odd"], [{"path": "src/x_y%z.py"}])

    def found(pattern: str) -> set[str]:
        return {r.id for r in store.query(unit(1), top_k=10, filters={"path": {"$glob": pattern}})}

    assert found("src/x_y%z.py") == {"d0"}
    assert found("src/x?y%z.py") == {"d0"}
    assert found("src/a_*.py") == set()  # '_' is literal, not LIKE's any-character
    assert found("**/*.md") == {"b0"}
    assert found("src/[ab].py") == {"a0", "a1"}


def test_filter_keys_and_values_are_data_not_sql(open_store) -> None:
    store = open_store()
    store.upsert(["q"], unit(1).reshape(1, -1), ["t"], [{"it's": "a'b", "n": 3}])
    assert [r.id for r in store.query(unit(1), 5, {"it's": "a'b"})] == ["q"]
    assert [r.id for r in store.query(unit(1), 5, {"it's": {"$in": ["x", "a'b"]}})] == ["q"]
    assert store.query(unit(1), 5, {"n": {"$gt": 3}}) == []
    assert store.query(unit(1), 5, {"it's": {"$gt": 1}}) == []  # a string is not a number
