"""Postgres with pgvector as the vector store: chunks in one documented table (see
``schema``), searched by an HNSW cosine index, filtered by SQL ``WHERE`` clauses.

Any number of processes on any number of machines read and write the same index: readers
see committed versions through MVCC, and a writer's change of a window of files is one
transaction. A table built for another embedding model or dimension is refused
(IndexMismatchError) unless the engine rebuilds on purpose (``rebuild=True``, ``ragloom
index --rebuild``): a shared index is never dropped implicitly.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Sequence
from contextlib import AbstractContextManager
from functools import partial
from typing import Any

import numpy as np

from ragloom.embeddings.base import l2_normalize
from ragloom.errors import (
    REBUILD_HINT,
    IndexMismatchError,
    IndexNotFoundError,
    ReadOnlyError,
    StoreError,
)
from ragloom.filters import Filters
from ragloom.stores.base import (
    DataRejectedError,
    EmbeddingSpec,
    StoreDefaults,
    check_upsert_arguments,
    require_stored,
)
from ragloom.stores.postgres import search
from ragloom.stores.postgres.collections import drop_index
from ragloom.stores.postgres.connection import Database, psycopg
from ragloom.stores.postgres.lock import DDL_KEY, PostgresIndexLock, lock_key
from ragloom.stores.postgres.objects import (
    LAYOUT_VERSION,
    check_owned,
    refuse_dependents,
)
from ragloom.stores.postgres.schema import create_statements, row_values
from ragloom.stores.postgres.settings import PostgresSettings, Tables
from ragloom.stores.postgres.snapshot import SharedSnapshot
from ragloom.stores.postgres.where import where_clause
from ragloom.types import Chunk, Metadata, SearchResult

logger = logging.getLogger("ragloom")

#: Named with pg_temp: a search_path listing pg_temp late must not reach a user's table so named.
_STAGE = ("CREATE TEMP TABLE IF NOT EXISTS pg_temp.ragloom_stage (id text, source text, chunk_index "
          "integer, text text, embedding vector, metadata jsonb, content_hash text, model text)")
_COLUMNS = "id, source, chunk_index, text, embedding, metadata, content_hash, model"
_COPY_TYPES = ["text", "text", "int4", "text", "vector", "jsonb", "text", "text"]
_INT4 = 2**31
#: The index's tables (``Tables`` properties) by the part of the index they hold.
_PARTS = {"store": ("chunks",), "bm25": ("postings", "lengths", "terms", "stats", "tokens", "symbols"),
          "manifest": ("files", "info"), "embedding_cache": ("cache",)}


class PostgresStore(StoreDefaults):
    """One ragloom index in a Postgres database (pgvector's HNSW for dense search)."""

    name = "postgres"
    concurrent_readers = True
    hands_out_vectors = True
    glob_filters = True
    #: A search waits on the server; BM25 runs meanwhile on a connection of its own.
    queries_elsewhere = True

    def __init__(self, url: str, tables: Tables, embedding: EmbeddingSpec,
                 settings: PostgresSettings | None = None, read_only: bool = False) -> None:
        self.settings = settings or PostgresSettings()
        self.tables = tables
        self.read_only = read_only
        self._embedding = embedding
        self._scopes = search.Scopes(tables.chunks)
        session = [("hnsw.ef_search", str(self.settings.ef_search)),
                   ("hnsw.iterative_scan", "strict_order")]
        role = "reader" if read_only else "writer"
        self.writer = Database(url, f"ragloom {role} {socket.gethostname()} pid {os.getpid()}",
                               session)
        self.reader = Database(url, f"ragloom reader {socket.gethostname()} pid {os.getpid()}",
                               session)
        #: BM25's reads, beside a dense query on ``reader`` (connects on first use).
        self.sparse_reader = Database(
            url, f"ragloom BM25 reader {socket.gethostname()} pid {os.getpid()}")
        #: Every read of one search runs in this: both reading connections share a snapshot.
        self._snapshot = SharedSnapshot(self.reader, self.sparse_reader)
        self.location = f"{self.writer.where} table {tables.label}"
        #: Held while a writing store is open: one writer per index, across machines.
        self.lock = None if read_only else PostgresIndexLock(url, tables)
        try:
            if self.lock is not None:  # before opening: a rebuild drops tables
                self.lock.acquire(wait_seconds=self.settings.wait_for_writer_seconds)
            self._open()
        except BaseException:
            self.close()
            raise

    # -- opening ---------------------------------------------------------------------------

    def _open(self) -> None:
        database = self.reader if self.read_only else self.writer
        with database.transaction("open"):
            if not self.read_only:  # two processes creating one index: the second waits
                database.execute("open", "SELECT pg_advisory_xact_lock(%s)",
                                 (lock_key(self.tables) ^ DDL_KEY,))
            found = check_owned(database, self.tables,  # before anything is created or written
                                writing=None if self.read_only else self.location)
            if self.tables.table not in found:
                if self.read_only:
                    raise IndexNotFoundError(f"no ragloom index at {self.location}")
                if not self.settings.create:
                    raise StoreError(f"no ragloom index at {self.location}, and [rag.vector_store."
                                     f"postgres] create = false forbids creating it")
                self._create()
            identity = dict(database.execute(  # in the transaction that checked or created it
                "open", f"SELECT key, value FROM {self.tables.info} WHERE key IN "
                "('model', 'dimension', 'layout')"))
        if not self.read_only:
            self.writer.refresh_types()
        self.reader.refresh_types()
        built = identity.get("model"), identity.get("dimension")
        if built[0] is None or identity.get("layout") != LAYOUT_VERSION:
            raise StoreError(f"the index at {self.location} has no ragloom identity in "
                             f"{self.tables.info}; ragloom will not change it: choose another "
                             f"[rag.vector_store.postgres] table")
        wanted = self._embedding.model, str(self._embedding.dimension)
        if built != wanted:
            self._model_changed(built, wanted)

    def _create(self) -> None:
        """Every table, index and function of the index, each marked as ragloom's, in the
        transaction that checked no object of these names exists."""
        for statement in create_statements(self.tables, self._embedding.dimension, self.settings):
            self.writer.execute("create", statement)
        self.writer.execute(
            "create", f"INSERT INTO {self.tables.info} VALUES ('layout', %s), ('model', %s), "
            "('dimension', %s)",
            (LAYOUT_VERSION, self._embedding.model, str(self._embedding.dimension)))

    def _model_changed(self, built: tuple[str | None, str | None],
                       wanted: tuple[str, str]) -> None:
        reading = " (reading never rebuilds)" if self.read_only else ""
        raise IndexMismatchError(
            f"the index at {self.location} was built with {built[0]} ({built[1]}-d), not "
            f"{wanted[0]} ({wanted[1]}-d): it is shared, so ragloom never drops it "
            f"implicitly{reading}; {REBUILD_HINT}",
            None if self.read_only else partial(drop_index, self.writer.url, self.tables))

    def info(self, key: str) -> str | None:
        """A value of the index's ``_info`` table (model, dimension, layout, ...)."""
        rows = self.reader.execute("read", f"SELECT value FROM {self.tables.info} WHERE key = %s",
                                   (key,))
        return rows[0][0] if rows else None

    def set_info(self, key: str, value: str) -> None:
        self._writable()
        self.writer.execute("write", f"INSERT INTO {self.tables.info} VALUES (%s, %s) ON CONFLICT "
                            "(key) DO UPDATE SET value = excluded.value", (key, value))

    # -- writing ---------------------------------------------------------------------------

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str],
               metadatas: Sequence[Metadata]) -> None:
        matrix = check_upsert_arguments(ids, vectors, texts, metadatas, self._embedding.dimension)
        self._writable()
        if not len(ids):
            return
        Jsonb = psycopg().types.json.Jsonb
        rows = []
        for chunk_id, vector, text, metadata in zip(ids, matrix, texts, metadatas):
            if "\x00" in text:
                raise DataRejectedError(f"chunk {chunk_id!r}: its text holds a NUL character, "
                                        f"which Postgres cannot store")
            source, index, digest = row_values(chunk_id, text, dict(metadata))
            if index is not None and not -_INT4 <= index < _INT4:
                index = None
            rows.append((chunk_id, source, index, text, vector, Jsonb(dict(metadata)),
                         digest, self._embedding.model))
        with self.writer.transaction("upsert"), self.writer.cursor("upsert") as cursor:
            cursor.execute(_STAGE)
            cursor.execute("TRUNCATE pg_temp.ragloom_stage")
            with cursor.copy(f"COPY pg_temp.ragloom_stage ({_COLUMNS}) FROM STDIN BINARY") as copy:
                copy.set_types(_COPY_TYPES)
                for row in rows:
                    copy.write_row(row)
            updates = ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS.split(", ")[1:])
            cursor.execute(f"INSERT INTO {self.tables.chunks} ({_COLUMNS}) SELECT {_COLUMNS} "
                           f"FROM pg_temp.ragloom_stage ON CONFLICT (id) DO UPDATE SET {updates}")

    def delete(self, ids: Sequence[str]) -> None:
        """Delete chunks with their postings (one statement per table: the BM25 statistics'
        triggers run once, not once per row as a cascade would run them)."""
        self._writable()
        if not ids:
            return
        t = self.tables
        with self.writer.transaction("delete"):
            for table in (t.postings, t.lengths, t.symbols, t.chunks):
                self.writer.execute("delete", f"DELETE FROM {table} WHERE id = ANY(%s)", (list(ids),))

    def reset(self) -> None:
        """Empty the index's own tables (never through CASCADE: a user table with a foreign
        key into them makes this a StoreError naming it)."""
        self._writable()
        t = self.tables
        with self.writer.transaction("reset"):
            check_owned(self.writer, t)
            refuse_dependents(self.writer, t, "empty", dropping=False)  # a view outlives TRUNCATE
            emptied = [t.postings, t.lengths, t.symbols, t.chunks, t.terms]
            if self.writer.execute("reset", "SELECT to_regclass(%s)", (t.tokens,))[0][0]:
                emptied.insert(0, t.tokens)
            self.writer.execute("reset", f"TRUNCATE {', '.join(emptied)} RESTRICT")
            self.writer.execute("reset", f"UPDATE {t.stats} SET documents = 0, tokens = 0")

    def read_snapshot(self) -> AbstractContextManager[object]:
        """Both reading connections share one snapshot for the reads of one search."""
        return self._snapshot()

    def persist(self) -> None:
        """Every write is committed by its transaction; nothing to flush."""

    def server_figures(self) -> tuple[str, dict[str, int]] | None:
        """Each part's tables' total size (rows, TOAST, indexes) as the server counts it."""
        names = {part: [getattr(self.tables, name) for name in members]  # Tables properties
                 for part, members in _PARTS.items()}
        everything = [name for members in names.values() for name in members]
        rows = self.reader.execute(
            "status", "SELECT name, COALESCE(pg_total_relation_size(to_regclass(name)), 0) "
            "FROM unnest(%s::text[]) AS name", (everything,))
        size = {name: int(value) for name, value in rows}
        usage = {part: sum(size.get(name, 0) for name in members) for part, members in names.items()}
        return self.tables.label, usage | {"other": 0}

    def close(self) -> None:
        self.writer.close()
        self.reader.close()
        self.sparse_reader.close()
        if self.lock is not None:
            self.lock.release()

    def _writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError(f"the Postgres store at {self.location} is open for reading only")

    # -- reading ---------------------------------------------------------------------------

    def query(self, vector: np.ndarray, top_k: int,
              filters: Filters | None = None) -> list[SearchResult]:
        where, params = where_clause(filters)
        if top_k <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self._embedding.dimension:
            raise ValueError(f"query vector has dimension {query.shape[0]}, the index holds "
                             f"{self._embedding.dimension}")
        # the vector in binary: no float formatting here nor parsing on the server
        exact = search.exact_sql(self.tables.chunks, where)
        with self.reader.cursor("search") as cursor:
            route = self._scopes.route(cursor, filters, where, params, self.settings.ef_search, top_k)
            if route.exact:  # a small tenant
                cursor.execute(exact, [query, *params, top_k])
                return _results(cursor.fetchall())
            width = route.width
            if self.reader.session.get("hnsw.ef_search") != str(width):
                cursor.execute("SELECT set_config('hnsw.ef_search', %s, false)", (str(width),))
                self.reader.session["hnsw.ef_search"] = str(width)
            # never prepared: a generic plan may sort the whole scope instead (walk_sql)
            cursor.execute(search.walk_sql(self.tables.chunks, where), [query, *params, query, top_k],
                           prepare=False)
            rows = cursor.fetchall()
            if filters and len(rows) < top_k:
                # The index walk gave up (hnsw.max_scan_tuples) before finding top_k rows the
                # filter keeps: they are few (a narrow filter), so rank them all exactly.
                cursor.execute(exact, [query, *params, top_k])
                rows = cursor.fetchall()
        return _results(rows)

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        if not ids:
            return []
        rows = self.reader.execute("get", f"SELECT id, text, metadata FROM {self.tables.chunks} "
                                   "WHERE id = ANY(%s)", (list(ids),))
        by_id = {cid: Chunk(cid, text, metadata) for cid, text, metadata in rows}
        return [by_id[cid] for cid in ids if cid in by_id]

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        if not ids:
            return np.zeros((0, self._embedding.dimension), dtype=np.float32)
        rows = self.reader.execute("get_vectors", f"SELECT id, embedding FROM {self.tables.chunks} "
                                   "WHERE id = ANY(%s)", (list(ids),))
        by_id = {cid: _array(vector) for cid, vector in rows}
        require_stored(ids, by_id)
        return l2_normalize(np.stack([by_id[cid] for cid in ids]))

    def ids(self) -> list[str]:
        return [row[0] for row in self.reader.execute("ids", f"SELECT id FROM {self.tables.chunks}")]

    def ids_where(self, filters: Filters) -> list[str] | None:
        """The ids of the chunks ``filters`` keep (a tenant's: through the metadata index)."""
        where, params = where_clause(filters)
        return [row[0] for row in self.reader.execute(
            "ids", f"SELECT id FROM {self.tables.chunks} WHERE {where}", params)]

    def count(self) -> int:
        return int(self.reader.execute("count", f"SELECT count(*) FROM {self.tables.chunks}")[0][0])


def _results(rows: list[tuple[Any, ...]]) -> list[SearchResult]:
    return [SearchResult(id=cid, text=text, metadata=metadata, score=1.0 - float(distance),
                         distance=float(distance)) for cid, text, metadata, distance in rows]


def _array(vector: Any) -> np.ndarray:
    """A vector column's value (pgvector hands out ``Vector`` or an array) as float32."""
    if hasattr(vector, "to_numpy"):
        vector = vector.to_numpy()
    return np.asarray(vector, dtype=np.float32)


__all__ = ["PostgresStore", "psycopg"]
