"""Opening an index: the writer's process lock, every part on disk, recovery of an
interrupted write, and reconciling the index with the settings it was built with.

A writer takes the lock before the store opens (a rebuild may delete files another
process owns); a reader writes nothing and refuses a store that cannot be read beside
its writer. An index built with another embedding model, or a part that cannot be read, is
an error saying how to rebuild on purpose (``rebuild=True``), never dropped implicitly.
Whatever was opened before a failure is closed again (an ExitStack), so nothing leaks."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from ragloom.chunking.context import IndexedText, text_to_index
from ragloom.chunking.sizing import ChunkSizing, resolve_chunk_sizing
from ragloom.config import RAGConfig
from ragloom.embeddings.base import EmbeddingProvider
from ragloom.embeddings.cache import EmbeddingCache, VectorCache
from ragloom.embeddings.cache_reader import EmbeddingCacheReader
from ragloom.embeddings.query_cache import QueryEmbedder
from ragloom.errors import (
    REBUILD_HINT,
    ConfigError,
    IndexLockedError,
    IndexMismatchError,
    IndexNotFoundError,
    RebuildNeededError,
)
from ragloom.indexing.consistency import recover_interrupted
from ragloom.indexing.manifest import Manifest, ManifestStore
from ragloom.indexing.other_stores import other_store_note
from ragloom.indexing.source_types import DEFAULT_SOURCE_TYPES
from ragloom.indexing.tenant_state import tenant_state
from ragloom.indexing.unembedded import unembedded_of, with_unembedded
from ragloom.layout import IndexLayout
from ragloom.locking import ProcessLock, ReadWriteLock, SnapshotLock
from ragloom.ownership import INDEX_MARKER, claim_folder, refuse_case_variants
from ragloom.retrieval.sparse import SparseIndex
from ragloom.retrieval.sparse_base import SparseBackend
from ragloom.retrieval.tokenize import Tokenizer
from ragloom.stores.backend import StoreBackend
from ragloom.stores.base import EmbeddingSpec, VectorStore, searches_text
from ragloom.stores.registry import create_vector_store, store_backend, vector_stores
from ragloom.stores.tenant import TenantStore, shared_store

#: Bumped when a rule gives old chunks other metadata (2: ``source_type``; 3: SQL, stylesheet
#: rules, Rust ``#[test]`` items, programs under ``docs/``; 4-12: Go migration lists, more
#: migration types, route lines in words, option tables by entry, route files by section,
#: Python's opening imports, prose under ``spec/`` as docs, settings by setting, builders, commented
#: settings, Rust UIs): old indexes re-chunk once, embeddings cached. Source-type defaults: signature.
CHUNK_METADATA_VERSION = 12

logger = logging.getLogger("ragloom")

Part = TypeVar("Part")


@dataclass
class IndexParts:
    """What an open index is made of. ``closing`` releases all of it (the process lock
    last); the engine closes it once, even when persisting or one part's close fails."""

    store: VectorStore
    cache: VectorCache | None
    manifest: ManifestStore
    sparse: SparseBackend
    sizing: ChunkSizing
    text_of: IndexedText
    closing: ExitStack = field(default_factory=ExitStack)
    #: The store keeps manifest, BM25 index, cache and lock itself: no files, no file locks.
    owns_state: bool = False
    #: The store keeps its data on disk or a server (its backend's ``persistent``): BM25
    #: index and manifest are files beside it, and writes are persisted.
    persistent: bool = False
    #: Query vectors through memory and the embedding cache (None: memory only).
    queries: QueryEmbedder | None = None
    #: The tenant whose share of the index these parts are (None: the untenanted one).
    tenant: str | None = None


class IndexOpener:
    """Opens the index of one engine (config, folder, embedder) for writing or reading."""

    def __init__(self, config: RAGConfig, base_dir: Path, index_dir: Path,
                 provider: EmbeddingProvider, vector_store: VectorStore | None,
                 rebuild: bool = False, tenant: str | None = None) -> None:
        self.config = config
        self.base_dir = base_dir
        self.index_dir = index_dir
        self.provider = provider
        self.vector_store = vector_store
        self.layout = IndexLayout(index_dir, config.vector_store.collection_name, tenant)
        #: Empty the index on purpose and start afresh: what ragloom wrote is discarded
        #: (an unreadable manifest is set aside), the source files are indexed again.
        self.rebuild = rebuild
        #: The one tenant the index is opened for: its view of the store, its own
        #: manifest, BM25 index and cache (``stores.tenant``); None: the whole index.
        self.tenant = tenant

    def for_writing(self, readers_writer: ReadWriteLock) -> IndexParts:
        """Take the index lock, open every part, finish an interrupted write, adopt new
        chunking settings (``readers_writer`` is held while a rebuild empties the store)."""
        owns_state = self._owns_state()  # then the store holds its own lock, no folder
        with ExitStack() as closing:
            if (self._persistent() or self.config.embedding.cache) and not owns_state:
                claim_folder(self.index_dir, INDEX_MARKER, "index_dir")  # both write there
                self._refuse_case_variants()
            if self._persistent() and not owns_state:
                lock = ProcessLock(self.layout.writer_lock)
                lock.acquire()
                closing.callback(lock.release)
            parts = self._open_parts(closing, read_only=False)
            if parts.persistent and not owns_state and not len(parts.manifest):
                if note := other_store_note(self.config, self.index_dir, parts.store.name):
                    logger.warning("%s", note)  # e.g. a Chroma index from the old default
            if self.rebuild:
                self._empty(parts, readers_writer)
            self._reconcile_signature(parts)
            recover_interrupted(parts.store, parts.sparse, parts.manifest)
            if not searches_text(parts.store):  # a remote index keeps its own BM25
                parts.sparse.sync_with(with_unembedded(parts.store, unembedded_of(parts.manifest)))
            parts.closing = closing.pop_all()
        return parts

    def for_reading(self, snapshot_lock: SnapshotLock) -> IndexParts:
        """Load the last persisted state without writing anything. Several readers may run
        while a writer holds the index; a store that cannot be read beside a writer
        (embedded Chroma) is refused while one has it open. A store that keeps its own index
        state serves readers beside its writer by itself (no folder, no lock)."""
        if self._owns_state():
            with ExitStack() as closing:
                parts = self._open_parts(closing, read_only=True)
                self._check_signature(parts, reading=True)
                parts.sparse.sync_with(with_unembedded(parts.store, unembedded_of(parts.manifest)))
                parts.closing = closing.pop_all()
            return parts
        if self._persistent():
            claim_folder(self.index_dir, INDEX_MARKER, "index_dir", create=False)
            self._refuse_case_variants()
        with ExitStack() as closing:
            probe = ProcessLock(self.layout.writer_lock)
            writer_active = False
            if self.index_dir.is_dir():
                try:
                    probe.acquire(shared=True)
                    closing.callback(probe.release)
                except IndexLockedError:
                    writer_active = True
            with snapshot_lock.reading() if self.index_dir.is_dir() else nullcontext():
                try:
                    parts = self._open_parts(closing, read_only=True)
                except IndexNotFoundError as missing:
                    if note := other_store_note(self.config, self.index_dir):
                        raise IndexNotFoundError(f"{missing}; {note}") from missing
                    raise
            if not parts.store.concurrent_readers:
                if writer_active:
                    raise IndexLockedError(
                        f"index at {self.index_dir} is open for writing by another process, and "
                        f"a {parts.store.name} store cannot be read beside its writer; close that "
                        f"engine first or use a Chroma server (vector_store.url)")
            else:
                probe.release()  # held shared only while no writer may open beside us
            self._check_signature(parts, reading=True)
            waiting = unembedded_of(parts.manifest)
            # While a run fills in vectors, BM25 runs ahead of the store by chunks written
            # since this reader loaded its snapshot: no rebuild here (the writer's own open
            # compares the two and the waiting chunks exactly).
            if not searches_text(parts.store) and not (waiting and waiting.count()):
                parts.sparse.sync_with(parts.store)
            parts.closing = closing.pop_all()
        return parts

    def _backend(self) -> type[StoreBackend] | None:
        """The configured store's backend; for a store the caller built, the backend
        registered under its name (None when no backend has that name)."""
        if self.vector_store is None:
            return store_backend(self.config)
        name = self.vector_store.name
        return vector_stores.get(name) if name in vector_stores else None

    def for_tenant(self, store: VectorStore, tenant: str) -> IndexParts:
        """The parts for writing as ``tenant`` beside an open writer's (its store, under
        the lock it holds): the tenant's view of the store, its manifest and BM25 index,
        an interrupted write of it finished. Closing them leaves the shared store open."""
        opener = IndexOpener(self.config, self.base_dir, self.index_dir, self.provider,
                             shared_store(store), tenant=tenant)
        with ExitStack() as closing:
            parts = opener._open_parts(closing, read_only=False, close_store=False)
            opener._reconcile_signature(parts)
            recover_interrupted(parts.store, parts.sparse, parts.manifest)
            parts.sparse.sync_with(parts.store)
            parts.closing = closing.pop_all()
        return parts

    def _owns_state(self) -> bool:
        """Whether the store keeps manifest, BM25 index, cache and lock itself (in its
        database), known before it opens."""
        backend = self._backend()
        return backend is not None and backend.owns_index_state

    def _refuse_case_variants(self) -> None:
        """No two collections' files in ``index_dir`` differ only in case (see ownership)."""
        if self._persistent():
            store = self.vector_store.name if self.vector_store is not None else None
            names = self.layout.file_names(store or self.config.vector_store.provider)
            refuse_case_variants(self.index_dir, names, self.config.vector_store.collection_name)

    def _persistent(self) -> bool:
        """Whether the store keeps its data on disk or a server, known before it opens: its
        backend's ``persistent`` (a store with no backend of its name: the default, True)."""
        return (self._backend() or StoreBackend).persistent

    def _open_parts(self, closing: ExitStack, read_only: bool, close_store: bool = True) -> IndexParts:
        """Store, cache, manifest and BM25 index, each closed by ``closing`` (the store
        unless ``close_store`` is false)."""
        config, provider = self.config, self.provider
        sizing = resolve_chunk_sizing(config, provider.token_measure())
        store = self.vector_store or self._rebuilding(lambda: create_vector_store(
            config, self.base_dir,
            EmbeddingSpec(f"{provider.provider_name}/{provider.model_name}", provider.dimension),
            read_only), shared=True)
        if close_store:
            closing.callback(store.close)
        if self.tenant is not None:
            store = self._tenant_view(store, self.tenant)
        retrieval = config.retrieval
        text_of = text_to_index(config.chunking.embed_header, sizing.measure)
        tokenizer = Tokenizer(retrieval.stemming, retrieval.stopwords, retrieval.split_identifiers)
        backend = self._backend()
        state = (backend.open_index_state(shared_store(store), tokenizer, text_of, read_only)
                 if backend is not None and backend.owns_index_state else None)
        if state is not None:  # the store keeps them (e.g. in its database)
            state = tenant_state(state, self.tenant)
            if state.cache is not None:
                closing.callback(state.cache.close)
            if state.lock is not None:
                closing.callback(state.lock.release)
            use_cache = config.embedding.cache and not read_only
            return IndexParts(store, state.cache if use_cache else None, state.manifest,
                              state.sparse, sizing, text_of, owns_state=True,
                              persistent=self._persistent(),
                              queries=self._queries(state.cache if use_cache else None, closing),
                              tenant=self.tenant)
        cache = (EmbeddingCache(self.layout.embedding_cache)
                 if config.embedding.cache and not read_only else None)
        if cache is not None:
            closing.callback(cache.close)
        queries = self._queries(cache, closing, reader=read_only)
        manifest_path = self.beside_store(store, self.layout.manifest)
        manifest = self._rebuilding(lambda: Manifest(manifest_path, read_only))
        closing.callback(manifest.close)
        sparse = SparseIndex(self.beside_store(store, self.layout.bm25), tokenizer, read_only,
                             text_of)
        return IndexParts(store, cache, manifest, sparse, sizing, text_of,
                          persistent=self._persistent(), queries=queries, tenant=self.tenant)

    def _queries(self, cache: VectorCache | None, closing: ExitStack,
                 reader: bool = False) -> QueryEmbedder:
        """Query vectors through memory and ``cache`` (a writer's, which keeps new ones,
        the last of them when the engine closes); a ``reader`` reads the cache file without
        writing it. ``[rag.embedding] cache = false`` caches no query either."""
        if not self.config.embedding.cache:
            return QueryEmbedder(self.provider, None, memory=0)
        if reader:
            file = EmbeddingCacheReader(self.layout.embedding_cache)
            closing.callback(file.close)
            return QueryEmbedder(self.provider, file, writes=False)
        queries = QueryEmbedder(self.provider, cache)
        if cache is not None:
            closing.callback(queries.flush)  # before the cache closes (registered after it)
        return queries

    def _rebuilding(self, open_part: Callable[[], Part], shared: bool = False) -> Part:
        """``open_part()``; when rebuilding on purpose, a part that says it cannot be used
        as it is (another model, a damaged file) is discarded and opened afresh, unless it
        is ``shared`` by other tenants (a tenant's engine never discards their data)."""
        try:
            return open_part()
        except RebuildNeededError as exc:
            if self.rebuild and shared and self.tenant is not None:
                raise RebuildNeededError(f"{exc}; tenant {self.tenant!r} cannot discard the store "
                                         f"every tenant shares: rebuild it with an engine "
                                         f"without a tenant") from exc
            if not self.rebuild or exc.discard is None:
                raise
            logger.warning("rebuilding on purpose: %s", exc)
            exc.discard()
        return open_part()

    def _empty(self, parts: IndexParts, readers_writer: ReadWriteLock) -> None:
        """For a rebuild on purpose: drop every chunk, BM25 entry and file record."""
        logger.warning("rebuilding the index at %s from the source files", self.index_dir)
        with readers_writer.writing():
            parts.store.reset()
            parts.sparse.clear()
        parts.manifest.clear()
        parts.manifest.set_setting("embedding", self.embedding_signature())

    def beside_store(self, store: VectorStore, part: Callable[[str], Path]) -> Path | None:
        """``part`` of the layout (manifest, BM25 index) for a persistent store, else None."""
        return part(store.name) if self._persistent() else None

    def _tenant_view(self, store: VectorStore, tenant: str) -> VectorStore:
        """The tenant's view of ``store``; a remote index searched by text has none."""
        if searches_text(store):
            raise ConfigError(f"tenant {tenant!r}: a {store.name} store searches an index "
                              f"elsewhere and cannot scope it to a tenant")
        return TenantStore(store, tenant)

    def embedding_signature(self) -> str:
        return json.dumps([self.provider.provider_name, self.provider.model_name,
                           self.provider.dimension])

    def _check_signature(self, parts: IndexParts, reading: bool) -> None:
        """The index must have been built by this embedding model: a store other processes
        or machines may share is never emptied implicitly (only ``rebuild``)."""
        built = parts.manifest.get_setting("embedding")
        if built is not None and built != self.embedding_signature():
            provider, model, dimension = json.loads(built)
            hint = " (reading never rebuilds)" if reading else ""
            raise IndexMismatchError(
                f"the index at {self.index_dir} was built with {provider}/{model} ({dimension}-d), "
                f"not {self.provider.provider_name}/{self.provider.model_name} "
                f"({self.provider.dimension}-d){hint}; {REBUILD_HINT}")

    def _reconcile_signature(self, parts: IndexParts) -> None:
        """Refuse another embedding model; re-chunk when chunking settings changed."""
        manifest = parts.manifest
        self._check_signature(parts, reading=False)
        chunking = json.dumps([parts.sizing.signature(),
                               self.config.chunking.model_dump(mode="json"),
                               self.config.redact_secrets, self.config.source_types,
                               DEFAULT_SOURCE_TYPES, CHUNK_METADATA_VERSION], sort_keys=True)
        waiting = unembedded_of(manifest)  # chunks in BM25 without vectors yet count as kept
        if len(manifest) and parts.store.count() == 0 and not (waiting and waiting.count()):
            logger.warning("the store is empty but the manifest lists files: re-indexing them")
            manifest.clear()
        old_chunking = manifest.get_setting("chunking")
        if old_chunking is not None and old_chunking != chunking:
            logger.info("chunking settings changed: every file will be re-chunked")
            manifest.forget_versions()
        manifest.set_setting("embedding", self.embedding_signature())
        manifest.set_setting("chunking", chunking)
