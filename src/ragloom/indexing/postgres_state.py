"""The index state of a Postgres store: manifest, BM25 postings, embedding cache and
writer lock, all in the index's database (see ``stores.postgres``)."""

from __future__ import annotations

from ragloom.chunking.context import IndexedText
from ragloom.indexing.postgres_manifest import PostgresManifest
from ragloom.indexing.state import IndexState
from ragloom.retrieval.postgres_bm25 import PostgresSparseIndex
from ragloom.retrieval.tokenize import Tokenizer
from ragloom.stores.base import VectorStore
from ragloom.stores.postgres.cache import PostgresEmbeddingCache
from ragloom.stores.postgres.connection import Database
from ragloom.stores.postgres.store import PostgresStore


def open_index_state(store: VectorStore, tokenizer: Tokenizer, text_of: IndexedText,
                     read_only: bool) -> IndexState:
    """Parts on the store's connections: one transaction per window of files joins the
    chunks, postings and manifest records; the cache commits on a connection of its own."""
    assert isinstance(store, PostgresStore)
    sparse = PostgresSparseIndex(store.writer, store.sparse_reader, store.tables, tokenizer, text_of,
                                 read_only, text_search=store.settings.sparse == "pg_textsearch",
                                 may_create=store.settings.create)
    cache = None if read_only else PostgresEmbeddingCache(
        Database(store.writer.url, "ragloom embedding cache"), store.tables)
    return IndexState(PostgresManifest(store.writer, store.tables), sparse, cache, store.lock)
