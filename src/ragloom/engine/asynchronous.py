"""The async forms of RAGEngine's methods that do I/O: each runs its synchronous twin on a
worker thread, so an event loop keeps running while files are read, texts embedded or
the index written. Writes still happen one at a time (the engine's write lock)."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Protocol

from ragloom.filters import Filters
from ragloom.indexing.consistency import VerifyReport
from ragloom.indexing.indexer import IndexingStopped
from ragloom.indexing.progress import ProgressCallback
from ragloom.types import IndexReport, IndexStatus, Metadata, SearchResult

if TYPE_CHECKING:
    from ragloom.retrieval.search_response import SearchResponse

PathLike = str | os.PathLike[str]


class _Search(Protocol):
    def __call__(self, query: str, top_k: int | None = None, *, filters: Filters | None = None,
                 mode: str | None = None, mmr: bool | None = None,
                 min_score: float | None = None, compress: bool | None = None) -> list[SearchResult]: ...


class _SearchDetailed(Protocol):
    def __call__(self, query: str, top_k: int | None = None, *, filters: Filters | None = None,
                 mode: str | None = None, mmr: bool | None = None,
                 min_score: float | None = None, compress: bool | None = None) -> SearchResponse: ...


class _IngestText(Protocol):
    def __call__(self, source_id: str, text: str, metadata: Metadata | None = None,
                 language: str | None = None, *, tenant: str | None = None) -> IndexReport: ...


class _AddDocuments(Protocol):
    def __call__(self, ids: Sequence[str], texts: Sequence[str],
                 metadatas: Sequence[Metadata] | None = None, *,
                 tenant: str | None = None) -> IndexReport: ...


class _DeleteSource(Protocol):
    def __call__(self, source_id: str, *, tenant: str | None = None) -> int: ...


class _DeleteDocuments(Protocol):
    def __call__(self, ids: Sequence[str], *, tenant: str | None = None) -> int: ...


class AsyncMethods:
    """``a<name>`` for every public method of RAGEngine that reads or writes the index.

    The methods each one runs are declared here by type (RAGEngine defines them, and mypy
    checks the two agree), so no call below goes unchecked."""

    _index_directory_until: Callable[[threading.Event | None, PathLike | None, Sequence[str] | None,
                                      Sequence[str] | None, ProgressCallback | None], IndexReport]
    index_file: Callable[[PathLike], IndexReport]
    ingest_text: _IngestText
    add_documents: _AddDocuments
    delete_source: _DeleteSource
    delete_documents: _DeleteDocuments
    delete_documents_by_path: Callable[[PathLike], int]
    search: _Search
    search_detailed: _SearchDetailed
    reindex: Callable[[PathLike | None, ProgressCallback | None], IndexReport]
    sync: Callable[[], IndexReport]
    verify: Callable[[], VerifyReport]
    status: Callable[[bool], IndexStatus]
    preload_results: Callable[[int | None], list[SearchResult]]
    count: Callable[[], int]
    is_empty: Callable[[], bool]
    get_all_indexed_paths: Callable[[], list[str]]
    corpus_tokens: Callable[[], int]
    excluded_reason: Callable[[PathLike], str | None]
    close: Callable[[], None]

    async def aindex_directory(self, path: PathLike | None = None,
                               include: Sequence[str] | None = None,
                               exclude: Sequence[str] | None = None,
                               progress: ProgressCallback | None = None) -> IndexReport:
        """``index_directory`` on a worker thread. Cancelling the awaiting task stops the run
        at the next safe point (between embedding batches or files) and waits for it:
        windows written before stay, nothing is half-written."""
        stop = threading.Event()
        work = asyncio.ensure_future(asyncio.to_thread(
            self._index_directory_until, stop, path, include, exclude, progress))
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            stop.set()
            with suppress(IndexingStopped):
                await work
            raise

    async def aindex_file(self, path: PathLike) -> IndexReport:
        """``index_file`` on a worker thread."""
        return await asyncio.to_thread(self.index_file, path)

    async def aingest_text(self, source_id: str, text: str, metadata: Metadata | None = None,
                           language: str | None = None, *, tenant: str | None = None) -> IndexReport:
        """``ingest_text`` on a worker thread."""
        return await asyncio.to_thread(self.ingest_text, source_id, text, metadata,
                                       language, tenant=tenant)

    async def aadd_documents(self, ids: Sequence[str], texts: Sequence[str],
                             metadatas: Sequence[Metadata] | None = None, *,
                             tenant: str | None = None) -> IndexReport:
        """``add_documents`` on a worker thread."""
        return await asyncio.to_thread(self.add_documents, ids, texts, metadatas,
                                       tenant=tenant)

    async def adelete_source(self, source_id: str, *, tenant: str | None = None) -> int:
        """``delete_source`` on a worker thread."""
        return await asyncio.to_thread(self.delete_source, source_id, tenant=tenant)

    async def adelete_documents(self, ids: Sequence[str], *, tenant: str | None = None) -> int:
        """``delete_documents`` on a worker thread."""
        return await asyncio.to_thread(self.delete_documents, ids, tenant=tenant)

    async def adelete_documents_by_path(self, path: PathLike) -> int:
        """``delete_documents_by_path`` on a worker thread."""
        return await asyncio.to_thread(self.delete_documents_by_path, path)

    async def asearch(self, query: str, top_k: int | None = None, *, filters: Filters | None = None,
                      mode: str | None = None, mmr: bool | None = None,
                      min_score: float | None = None, compress: bool | None = None) -> list[SearchResult]:
        """``search`` on a worker thread (embedding the query must not block the event loop)."""
        return await asyncio.to_thread(self.search, query, top_k, filters=filters,
                                       mode=mode, mmr=mmr, min_score=min_score, compress=compress)

    async def asearch_detailed(self, query: str, top_k: int | None = None, *,
                               filters: Filters | None = None, mode: str | None = None,
                               mmr: bool | None = None, min_score: float | None = None,
                               compress: bool | None = None) -> SearchResponse:
        """``search_detailed`` on a worker thread."""
        return await asyncio.to_thread(self.search_detailed, query, top_k,
                                       filters=filters, mode=mode, mmr=mmr, min_score=min_score,
                                       compress=compress)

    async def areindex(self, path: PathLike | None = None,
                       progress: ProgressCallback | None = None) -> IndexReport:
        """``reindex`` on a worker thread."""
        return await asyncio.to_thread(self.reindex, path, progress)

    async def async_(self) -> IndexReport:
        """``sync`` on a worker thread (``async`` is a keyword, hence the underscore)."""
        return await asyncio.to_thread(self.sync)

    async def averify(self) -> VerifyReport:
        """``verify`` on a worker thread."""
        return await asyncio.to_thread(self.verify)

    async def astatus(self, count_pending: bool = True) -> IndexStatus:
        """``status`` on a worker thread (counting pending files walks the folders)."""
        return await asyncio.to_thread(self.status, count_pending)

    async def apreload_results(self, budget_tokens: int | None) -> list[SearchResult]:
        """``preload_results`` on a worker thread (it reads every indexed file)."""
        return await asyncio.to_thread(self.preload_results, budget_tokens)

    async def acount(self) -> int:
        """``count`` on a worker thread (a store server or Postgres answers over the network)."""
        return await asyncio.to_thread(self.count)

    async def ais_empty(self) -> bool:
        """``is_empty`` on a worker thread."""
        return await asyncio.to_thread(self.is_empty)

    async def aget_all_indexed_paths(self) -> list[str]:
        """``get_all_indexed_paths`` on a worker thread."""
        return await asyncio.to_thread(self.get_all_indexed_paths)

    async def acorpus_tokens(self) -> int:
        """``corpus_tokens`` on a worker thread."""
        return await asyncio.to_thread(self.corpus_tokens)

    async def aexcluded_reason(self, path: PathLike) -> str | None:
        """``excluded_reason`` on a worker thread (it reads ignore files)."""
        return await asyncio.to_thread(self.excluded_reason, path)

    async def aclose(self) -> None:
        """``close`` on a worker thread (it waits for auto-sync and persists the index)."""
        await asyncio.to_thread(self.close)

    async def __aenter__(self) -> AsyncMethods:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
