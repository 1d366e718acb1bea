"""RAGEngine: the facade an application holds. It wires chunker, embedder, store, manifest
and retrievers together; the algorithms live in those parts."""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import asdict
from pathlib import Path
from types import TracebackType

from ragloom.chunking.registry import FileChunker
from ragloom.config import RAGConfig, load_config
from ragloom.embeddings.base import EmbeddingProvider
from ragloom.embeddings.cache import CachedEmbedder
from ragloom.embeddings.registry import create_embedding_provider
from ragloom.engine.arguments import (
    check_engine_config,
    check_flag,
    check_path,
    check_patterns,
    check_search,
    tenant_of,
)
from ragloom.engine.asynchronous import AsyncMethods
from ragloom.engine.checks import check_config, naming_the_config_file
from ragloom.engine.opening import IndexOpener, IndexParts
from ragloom.engine.preloading import PreloadMethods
from ragloom.engine.status_figures import store_figures
from ragloom.engine.syncing import SyncMethods
from ragloom.engine.texts import TextMethods
from ragloom.errors import CorruptIndexError, RagloomError, ReadOnlyError
from ragloom.filters import Filters
from ragloom.indexing.autosync import AutoSync
from ragloom.indexing.consistency import VerifyReport, damaged_file_problems, verify_index
from ragloom.indexing.discovery import Rules
from ragloom.indexing.indexer import Indexer
from ragloom.indexing.indexer_setup import IndexerParts, options_from_config
from ragloom.indexing.progress import ProgressCallback
from ragloom.indexing.skip_reasons import count_by_reason, load_skipped
from ragloom.indexing.unembedded import unembedded_of
from ragloom.locking import ReadWriteLock, SnapshotLock
from ragloom.readers.registry import FileReaders
from ragloom.retrieval.search_mode import SearchMode
from ragloom.retrieval.search_response import SearchResponse
from ragloom.retrieval.searcher import Searcher
from ragloom.stores.base import VectorStore, searches_text
from ragloom.types import IndexReport, IndexStatus, SearchResult

logger = logging.getLogger("ragloom")
#: What reading damaged bytes of a mapped array raises (bad text or JSON, a row out of range).
_DAMAGE_SYMPTOMS = (UnicodeDecodeError, json.JSONDecodeError, IndexError)

PathLike = str | os.PathLike[str]


class RAGEngine(SyncMethods, PreloadMethods, TextMethods, AsyncMethods):
    """Index a project's files and search them; one engine per project.

    Built from a RAGConfig (or ``RAGEngine.from_toml``). ``embedding_provider`` and
    ``vector_store`` may be passed ready-made to override what the config names.
    With ``enabled = false`` the engine builds nothing: searches return ``[]``.
    Every method that does I/O has an async form (``asearch``, ``aingest_text``, ...).
    """

    @naming_the_config_file
    def __init__(self, config: RAGConfig | None = None, base_dir: PathLike = ".", *,
                 embedding_provider: EmbeddingProvider | None = None,
                 vector_store: VectorStore | None = None, read_only: bool = False,
                 rebuild: bool = False, tenant: str | None = None) -> None:
        """``rebuild=True`` empties the index on purpose first (what ragloom wrote: store
        data, BM25, file records; a damaged manifest is set aside), for an index of another
        embedding model or one that cannot be read. ``tenant`` (else ``[rag] tenant``): the
        one tenant this engine reads and writes (``ragloom.tenancy``)."""
        check_engine_config(config)
        check_path("base_dir", base_dir)
        self.config = config if config is not None else RAGConfig()
        self.base_dir = Path(base_dir).resolve()
        self.index_dir = self.base_dir / self.config.index_dir
        self.read_only, self.tenant = read_only, tenant_of(self.config, tenant)
        self._write_lock = threading.RLock()
        self._readers_writer = ReadWriteLock()
        self._closed = False
        self._closing = ExitStack()
        self._owns_state = False  # the store keeps manifest, BM25, cache and lock itself
        self._snapshot_lock = SnapshotLock(self.index_dir)
        self._auto_sync: AutoSync | None = None
        if not self.config.enabled:
            return
        check_config(self.config)
        self.provider = embedding_provider or create_embedding_provider(self.config)
        if read_only and rebuild:
            raise ValueError("rebuild=True writes: it cannot be combined with read_only=True")
        self._opener = opener = IndexOpener(self.config, self.base_dir, self.index_dir,
                                            self.provider, vector_store, rebuild, self.tenant)
        parts = (opener.for_reading(self._snapshot_lock) if read_only
                 else opener.for_writing(self._readers_writer))
        self.store, self.sparse, self._manifest, self._cache, self._sizing = (
            parts.store, parts.sparse, parts.manifest, parts.cache, parts.sizing)
        self._closing, self._owns_state, self.persistent = parts.closing, parts.owns_state, parts.persistent
        try:
            self._indexer, self._searcher = self._wire(parts)
        except BaseException:
            self._closing.close()
            raise
        if self.config.auto_sync_interval_seconds and not read_only:
            self.start_auto_sync(self.config.auto_sync_interval_seconds)

    def _wire(self, parts: IndexParts) -> tuple[Indexer, Searcher]:
        """The indexer (write path) and searcher (read path) over the opened parts."""
        config = self.config
        written = IndexerParts(FileReaders(config), FileChunker(config, parts.sizing),
                               CachedEmbedder(self.provider, parts.cache), parts.store, parts.sparse,
                               parts.manifest, self._readers_writer.writing, self._persist)
        indexer = Indexer(Rules.from_config(config, self.base_dir), written,
                          options_from_config(config, parts.manifest, parts.tenant, parts.text_of))
        return indexer, Searcher(self.provider, parts.store, parts.sparse, config, parts.queries,
                                 unembedded_of(parts.manifest))

    @classmethod
    def from_toml(cls, path: PathLike, base_dir: PathLike | None = None,
                  table: str = "rag") -> RAGEngine:
        """Build from the ``[rag]`` table of a TOML file; base_dir defaults to the file's folder."""
        config = load_config(path, table)
        return cls(config, base_dir if base_dir is not None else Path(path).resolve().parent)

    # -- writing ---------------------------------------------------------------------------

    def index_directory(self, path: PathLike | None = None, include: Sequence[str] | None = None,
                        exclude: Sequence[str] | None = None,
                        progress: ProgressCallback | None = None,
                        stop: threading.Event | None = None) -> IndexReport:
        """Index the eligible files under ``path`` (default base_dir): new and changed files
        are (re)chunked and embedded, unchanged ones skipped, deleted ones removed. Setting
        ``stop`` (from another thread or a signal handler) ends the run at the next safe
        point with IndexingStopped (what was written, what is pending; a next run resumes)."""
        check_patterns("include", include)
        check_patterns("exclude", exclude)
        return self._index_directory_until(stop, path, include, exclude, progress)

    def _index_directory_until(self, stop: threading.Event | None, path: PathLike | None,
                               include: Sequence[str] | None, exclude: Sequence[str] | None,
                               progress: ProgressCallback | None) -> IndexReport:
        root = self._resolve(path)
        with self._writing():
            report = self._indexer.index_directory(root, include, exclude, progress, stop=stop)
            self._remember_root(root)
            return report

    def index_file(self, path: PathLike) -> IndexReport:
        """Index one file, replacing its previous chunks if it changed."""
        check_path("path", path)
        with self._writing():
            return self._indexer.index_file(self._resolve(path))

    def excluded_reason(self, path: PathLike) -> str | None:
        """Why indexing would pass over ``path`` (a file or a folder of the project: a
        secret file, an excluded or gitignored one, a symlink to one), or None."""
        check_path("path", path)
        target = self._resolve(path)
        rules = self._indexer.rules
        return rules.folder_excluded(target) if target.is_dir() else rules.excluded(target)

    def delete_documents_by_path(self, path: PathLike) -> int:
        """Delete every chunk of a file; returns how many were removed."""
        check_path("path", path)
        with self._writing():
            return self._indexer.remove_path(self._indexer.names.name(self._resolve(path)))

    # -- reading ---------------------------------------------------------------------------

    def search(self, query: str, top_k: int | None = None, *, filters: Filters | None = None,
               mode: str | None = None, mmr: bool | None = None, min_score: float | None = None,
               compress: bool | None = None) -> list[SearchResult]:
        """The chunks most relevant to ``query``, best first. ``filters`` select by metadata
        (see ``ragloom.filters``) before ranking; ``mode`` is "dense", "sparse" (BM25 alone)
        or "hybrid" (default: "hybrid" when ``retrieval.hybrid``, else "dense"); ``mmr``
        re-ranks for diversity; results whose cosine similarity to the query is below
        ``min_score`` are dropped, and a query none of whose results reaches the relevance
        gate gets none. ``compress`` (default: ``retrieval.compress``) keeps only the lines
        of each result that bear on the query (``full_text`` keeps the whole chunk)."""
        return self.search_detailed(query, top_k, filters=filters, mode=mode, mmr=mmr,
                                    min_score=min_score, compress=compress).results

    def search_detailed(self, query: str, top_k: int | None = None, *,
                        filters: Filters | None = None, mode: str | None = None,
                        mmr: bool | None = None, min_score: float | None = None,
                        compress: bool | None = None) -> SearchResponse:
        """Like ``search``, with per-stage timings and candidate counts for debugging."""
        check_search(query, top_k, filters, mode, mmr, min_score, compress, self.tenant)
        search_mode = None if mode is None else SearchMode.of(mode)
        if not self.config.enabled:
            return SearchResponse([], "disabled")
        self._require_open()
        if not query.strip():
            return SearchResponse([], "empty-query")
        k = self.config.top_k if top_k is None else top_k
        with self._readers_writer.reading():
            try:
                return self._searcher.search(query, k, filters, search_mode, mmr, min_score, compress)
            except _DAMAGE_SYMPTOMS as exc:
                # Mapped arrays are checked against their checksums only when asked; bytes
                # that do not decode send us to check them now, to name the damaged file.
                problems = damaged_file_problems(self.store, self.sparse)
                if problems:
                    raise CorruptIndexError("; ".join(problems)) from exc
                raise

    @property
    def relevance_gate(self) -> float | None:
        """The cosine a query's best result must reach for the query to get any results
        (``relevance_gate`` in the config, else the embedding model's measured gate)."""
        return self._searcher.relevance_gate

    def verify(self) -> VerifyReport:
        """Check every byte of the index's segment files against their checksums, then that
        store, BM25 index and manifest agree (see ``ragloom status --check``)."""
        self._require_enabled()
        with self._write_lock, self._readers_writer.reading():
            return verify_index(self.store, self.sparse, self._manifest)

    def reindex(self, path: PathLike | None = None,
                progress: ProgressCallback | None = None) -> IndexReport:
        """Re-chunk every file under ``path`` even if unchanged (embeddings come from the cache)."""
        with self._writing():
            self._manifest.forget_versions()
            return self._indexer.index_directory(self._resolve(path), None, None, progress)

    def status(self, count_pending: bool = True) -> IndexStatus:
        """Files, chunks, store, model, where the index lives, bytes per part and last
        indexing time; with ``count_pending`` also the files the next run would index and
        those it will skip, by reason (walks the folders)."""
        check_flag("count_pending", count_pending)
        if not self.config.enabled:
            return IndexStatus(enabled=False)
        records = self._manifest.records()
        waiting = rows.count() if (rows := unembedded_of(self._manifest)) else 0  # no vector yet
        where = store_figures(self.config, self.store, self.base_dir, self.index_dir, self._owns_state)
        work = self._indexer.pending_under(self._roots()) if count_pending else None
        return IndexStatus(
            enabled=True, files=len(records), chunks=self.count() + waiting, store=self.store.name,
            embedding_provider=self.provider.provider_name,
            embedding_model=self.provider.model_name, dimension=self.provider.dimension,
            index_dir=where.index_dir, index_bytes=sum(where.bytes_by_part.values()),
            bytes_by_part=where.bytes_by_part, server=where.server, collection=where.collection,
            sizes_unknown=where.sizes_unknown,
            last_indexed=max((r.indexed_at for r in records.values()), default=None),
            files_pending=None if work is None else work.files,
            files_skipped=None if work is None else dict(sorted(work.skipped.items())),
            auto_sync=asdict(self._auto_sync.state) if self._auto_sync is not None else None,
            skipped=count_by_reason(load_skipped(self.index_dir)), chunks_unembedded=waiting,
            limits=self._indexer.quota.usage())

    def get_all_indexed_paths(self) -> list[str]:
        """Sorted paths (relative to base_dir) that have chunks in the index."""
        return [str(path) for path in self.sparse.distinct_values("path")] if self.config.enabled else []

    def count(self) -> int:
        """Number of chunks stored (with their vectors)."""
        return self.store.count() if self.config.enabled else 0

    def is_empty(self) -> bool:  # BM25 also holds chunks waiting for their vectors
        return self.count() == 0 and (not self.config.enabled or searches_text(self.store)
                                      or not len(self.sparse))

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Persist, then release the store, cache, manifest and index lock: each is released
        even when persisting or another part's close fails (the error is raised after all
        ran). Safe to call twice: a second call releases whatever a failed one left."""
        first = not self._closed
        self._closed = True
        if not self.config.enabled:
            return
        try:
            if first:
                self.stop_auto_sync()  # before the write lock: a sync in progress holds it
        finally:  # every release runs, even if persisting or one of them fails
            with self._write_lock, self._closing:
                if first and not self.read_only:
                    self._persist()

    def __enter__(self) -> RAGEngine:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        if not self.config.enabled:
            return f"RAGEngine(base_dir={str(self.base_dir)!r}, enabled=False)"
        return (f"RAGEngine(base_dir={str(self.base_dir)!r}, provider={self.provider!r}, "
                f"store={self.store.name!r})")

    # -- internals -------------------------------------------------------------------------

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Serialize a write and persist the store and BM25 index after it, even if it fails
        half-way (what was written stays consistent with the manifest)."""
        self._require_enabled()
        if self.read_only:
            raise ReadOnlyError(f"this RAGEngine on {self.index_dir} is open for reading only")
        if searches_text(self.store):
            raise self.store.read_only_error()
        with self._write_lock:
            try:
                yield
            finally:
                self._persist()

    def _persist(self) -> None:
        """Make the store and BM25 index durable together, under the state lock, so a reader
        in another process loads both before or both after this write."""
        if not self.persistent:  # the store's backend says whether it keeps data
            return
        # A store that owns its state makes it durable in its transactions (readers use MVCC).
        with nullcontext() if self._owns_state else self._snapshot_lock.writing():
            self.sparse.persist()
            self.store.persist()

    def _require_enabled(self) -> None:
        if not self.config.enabled:
            raise RagloomError("RAG is disabled (rag.enabled = false); nothing can be indexed")
        self._require_open()

    def _require_open(self) -> None:
        if self._closed:
            raise RagloomError("this RAGEngine is closed")

    def _resolve(self, path: PathLike | None) -> Path:
        check_path("path", path, optional=True)
        if path is None:
            return self.base_dir
        candidate = Path(path)
        return candidate if candidate.is_absolute() else self.base_dir / candidate
