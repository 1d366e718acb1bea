"""Opening an index: the writer's process lock, every part on disk, recovery of an
interrupted write, and reconciling the index with the settings it was built with.

A writer takes the lock before the store opens (the store may rebuild files another
process owns); a reader writes nothing and refuses a store that cannot be read beside
its writer."""

from __future__ import annotations

import json
import logging
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from ragloom.chunking.context import IndexedText, text_to_index
from ragloom.chunking.sizing import ChunkSizing, resolve_chunk_sizing
from ragloom.config import RAGConfig
from ragloom.embeddings.base import EmbeddingProvider
from ragloom.embeddings.cache import EmbeddingCache
from ragloom.errors import IndexLockedError, StoreError
from ragloom.indexing.consistency import recover_interrupted
from ragloom.indexing.manifest import Manifest
from ragloom.indexing.state import IndexLock, owned_state
from ragloom.locking import ProcessLock, ReadWriteLock, SnapshotLock
from ragloom.ownership import INDEX_MARKER, claim_folder
from ragloom.retrieval.sparse import SparseIndex
from ragloom.retrieval.tokenize import Tokenizer
from ragloom.stores.base import EmbeddingSpec, VectorStore, searches_text
from ragloom.stores.registry import (
    create_vector_store,
    store_is_persistent,
    store_owns_index_state,
)

#: Bumped when chunk metadata gains a field (2: ``source_type``); an index made by an
#: older version is then re-chunked once on open (embeddings come from the cache).
CHUNK_METADATA_VERSION = 2

logger = logging.getLogger("ragloom")


@dataclass
class IndexParts:
    """What an open index is made of; ``process_lock`` is held until the engine closes."""

    store: VectorStore
    cache: EmbeddingCache | None
    manifest: Manifest
    sparse: SparseIndex
    sizing: ChunkSizing
    text_of: IndexedText
    process_lock: IndexLock | None = None
    #: The store keeps manifest, BM25 index, cache and lock itself: no files, no file locks.
    owns_state: bool = False


class IndexOpener:
    """Opens the index of one engine (config, folder, embedder) for writing or reading."""

    def __init__(self, config: RAGConfig, base_dir: Path, index_dir: Path,
                 provider: EmbeddingProvider, vector_store: VectorStore | None) -> None:
        self.config = config
        self.base_dir = base_dir
        self.index_dir = index_dir
        self.provider = provider
        self.vector_store = vector_store

    def for_writing(self, readers_writer: ReadWriteLock) -> IndexParts:
        """Take the index lock, open every part, finish an interrupted write, adopt new
        settings (``readers_writer`` is held while a changed model empties the store)."""
        lock: IndexLock | None = None
        if self._persistent() and not self._owns_state():  # else the store holds its lock
            claim_folder(self.index_dir, INDEX_MARKER, "index_dir", _holds_index_files)
            lock = ProcessLock(self.index_dir / "lock")
            lock.acquire()
        parts: IndexParts | None = None
        try:
            parts = self._open_parts(read_only=False)
            lock = parts.process_lock = parts.process_lock or lock
            self._reconcile_signature(parts, readers_writer)
            recover_interrupted(parts.store, parts.sparse, parts.manifest)
            if not searches_text(parts.store):  # a remote index keeps its own BM25
                parts.sparse.sync_with(parts.store)
        except BaseException:
            if parts is not None and self._owns_state():
                parts.store.close()
            if lock is not None:
                lock.release()
            raise
        return parts

    def for_reading(self, snapshot_lock: SnapshotLock) -> IndexParts:
        """Load the last persisted state without writing anything. Several readers may run
        while a writer holds the index; a store that cannot be read beside a writer
        (embedded Chroma) is refused while one has it open. A store that keeps its own index
        state serves readers beside its writer by itself (no folder, no lock)."""
        if self._owns_state():
            parts = self._open_parts(read_only=True)
            try:
                self._check_signature(parts)
                parts.sparse.sync_with(parts.store)
            except BaseException:
                parts.store.close()
                raise
            return parts
        if self._persistent():
            claim_folder(self.index_dir, INDEX_MARKER, "index_dir", _holds_index_files, create=False)
        probe = ProcessLock(self.index_dir / "lock")
        writer_active = False
        if self.index_dir.is_dir():
            try:
                probe.acquire(shared=True)
            except IndexLockedError:
                writer_active = True
        parts: IndexParts | None = None
        try:
            with snapshot_lock.reading() if self.index_dir.is_dir() else nullcontext():
                parts = self._open_parts(read_only=True)
            if not parts.store.concurrent_readers:
                if writer_active:
                    raise IndexLockedError(
                        f"index at {self.index_dir} is open for writing by another process, and "
                        f"a {parts.store.name} store cannot be read beside its writer; close that "
                        f"engine first or use a Chroma server (vector_store.url)")
                parts.process_lock = probe  # held shared: no writer opens while we read
            else:
                probe.release()
            self._check_signature(parts)
            if not searches_text(parts.store):  # a remote index keeps its own BM25
                parts.sparse.sync_with(parts.store)
        except BaseException:
            if parts is not None:
                parts.store.close()  # a reader wrote nothing; let Chroma drop its handles
            probe.release()
            raise
        return parts

    def _owns_state(self) -> bool:
        """Whether the store keeps manifest, BM25 index, cache and lock itself (in its
        database), known before it opens."""
        if self.vector_store is not None:
            return bool(getattr(self.vector_store, "index_state", None))
        return store_owns_index_state(self.config)

    def _persistent(self) -> bool:
        """Whether the store keeps its data on disk or a server, known before it opens."""
        if self.vector_store is not None:
            return self.vector_store.persistent
        return store_is_persistent(self.config)

    def _open_parts(self, read_only: bool) -> IndexParts:
        """Store, cache, manifest and BM25 index."""
        config, provider = self.config, self.provider
        sizing = resolve_chunk_sizing(config, provider.token_measure())
        store = self.vector_store or create_vector_store(
            config, self.base_dir,
            EmbeddingSpec(f"{provider.provider_name}/{provider.model_name}", provider.dimension),
            read_only)
        retrieval = config.retrieval
        text_of = text_to_index(config.chunking.embed_header, sizing.measure)
        tokenizer = Tokenizer(retrieval.stemming, retrieval.stopwords, retrieval.split_identifiers)
        use_cache = config.embedding_cache and not read_only
        state = owned_state(store, tokenizer, text_of, read_only)
        if state is not None:  # the store keeps them (e.g. in its database)
            if state.cache is not None and not use_cache:
                state.cache.close()
            return IndexParts(store, state.cache if use_cache else None, state.manifest,
                              state.sparse, sizing, text_of, state.lock, owns_state=True)
        cache = EmbeddingCache(self.index_dir / "embeddings.sqlite") if use_cache else None
        manifest = Manifest(self.beside_store(store, "manifest", "sqlite"), read_only)
        sparse = SparseIndex(self.beside_store(store, "bm25", "npz"), tokenizer, read_only, text_of)
        return IndexParts(store, cache, manifest, sparse, sizing, text_of)

    def beside_store(self, store: VectorStore, kind: str, suffix: str) -> Path | None:
        """``<index_dir>/<kind>_<store>_<collection>.<suffix>`` for a persistent store."""
        if not store.persistent:
            return None
        return self.index_dir / (f"{kind}_{store.name}_"
                                 f"{self.config.vector_store.collection_name}.{suffix}")

    def embedding_signature(self) -> str:
        return json.dumps([self.provider.provider_name, self.provider.model_name,
                           self.provider.dimension])

    def _check_signature(self, parts: IndexParts) -> None:
        """For reading: the index must have been built by this embedding model (only a
        write rebuilds it)."""
        built = parts.manifest.get_setting("embedding")
        if built is not None and built != self.embedding_signature():
            provider, model, dimension = json.loads(built)
            raise StoreError(
                f"the index at {self.index_dir} was built with {provider}/{model} ({dimension}-d), "
                f"not {self.provider.provider_name}/{self.provider.model_name} "
                f"({self.provider.dimension}-d); run 'ragloom index' to rebuild it")

    def _reconcile_signature(self, parts: IndexParts, readers_writer: ReadWriteLock) -> None:
        """Start afresh when the embedding model changed; re-chunk when chunking changed."""
        manifest = parts.manifest
        embedding = self.embedding_signature()
        chunking = json.dumps([parts.sizing.signature(),
                               self.config.chunking.model_dump(mode="json"),
                               self.config.redact_secrets, self.config.source_types,
                               CHUNK_METADATA_VERSION], sort_keys=True)
        old_embedding = manifest.get_setting("embedding")
        if old_embedding is not None and old_embedding != embedding:
            logger.warning("embedding model changed from %s to %s: the index is rebuilt",
                           old_embedding, embedding)
            with readers_writer.writing():
                parts.store.reset()
                parts.sparse.clear()
            manifest.clear()
        elif len(manifest) and parts.store.count() == 0:
            logger.warning("the store is empty but the manifest lists files: re-indexing them")
            manifest.clear()
        old_chunking = manifest.get_setting("chunking")
        if old_chunking is not None and old_chunking != chunking:
            logger.info("chunking settings changed: every file will be re-chunked")
            manifest.forget_versions()
        manifest.set_setting("embedding", embedding)
        manifest.set_setting("chunking", chunking)


def _holds_index_files(folder: Path) -> bool:
    """An index folder written before ownership markers existed."""
    return any(folder.glob("manifest_*.sqlite")) or (folder / "embeddings.sqlite").is_file()
