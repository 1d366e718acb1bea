"""The async forms of RAGEngine's methods that do I/O: each runs its synchronous twin on a
worker thread, so an event loop keeps running while files are read, texts embedded or
the index written. Writes still happen one at a time (the engine's write lock)."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Sequence
from contextlib import suppress
from typing import TYPE_CHECKING

from ragloom.filters import Filters
from ragloom.indexing.consistency import VerifyReport
from ragloom.indexing.indexer import IndexingStopped
from ragloom.indexing.progress import ProgressCallback
from ragloom.types import IndexReport, IndexStatus, Metadata, SearchResult

if TYPE_CHECKING:
    from ragloom.retrieval.searcher import SearchResponse

PathLike = str | os.PathLike[str]


class AsyncMethods:
    """``a<name>`` for every public method of RAGEngine that reads or writes the index."""

    async def aindex_directory(self, path: PathLike | None = None,
                               include: Sequence[str] | None = None,
                               exclude: Sequence[str] | None = None,
                               progress: ProgressCallback | None = None) -> IndexReport:
        """``index_directory`` on a worker thread. Cancelling the awaiting task stops the run
        at the next safe point (between embedding batches or files) and waits for it:
        windows written before stay, nothing is half-written."""
        stop = threading.Event()
        work = asyncio.ensure_future(asyncio.to_thread(
            self._index_directory_until, stop, path, include, exclude, progress))  # type: ignore[attr-defined]
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            stop.set()
            with suppress(IndexingStopped):
                await work
            raise

    async def aindex_file(self, path: PathLike) -> IndexReport:
        """``index_file`` on a worker thread."""
        return await asyncio.to_thread(self.index_file, path)  # type: ignore[attr-defined]

    async def aingest_text(self, source_id: str, text: str, metadata: Metadata | None = None,
                           language: str | None = None, *, tenant: str | None = None) -> IndexReport:
        """``ingest_text`` on a worker thread."""
        return await asyncio.to_thread(self.ingest_text, source_id, text, metadata,  # type: ignore[attr-defined]
                                       language, tenant=tenant)

    async def aadd_documents(self, ids: Sequence[str], texts: Sequence[str],
                             metadatas: Sequence[Metadata] | None = None, *,
                             tenant: str | None = None) -> IndexReport:
        """``add_documents`` on a worker thread."""
        return await asyncio.to_thread(self.add_documents, ids, texts, metadatas,  # type: ignore[attr-defined]
                                       tenant=tenant)

    async def adelete_source(self, source_id: str, *, tenant: str | None = None) -> int:
        """``delete_source`` on a worker thread."""
        return await asyncio.to_thread(self.delete_source, source_id, tenant=tenant)  # type: ignore[attr-defined]

    async def adelete_documents(self, ids: Sequence[str], *, tenant: str | None = None) -> int:
        """``delete_documents`` on a worker thread."""
        return await asyncio.to_thread(self.delete_documents, ids, tenant=tenant)  # type: ignore[attr-defined]

    async def adelete_documents_by_path(self, path: PathLike) -> int:
        """``delete_documents_by_path`` on a worker thread."""
        return await asyncio.to_thread(self.delete_documents_by_path, path)  # type: ignore[attr-defined]

    async def asearch(self, query: str, top_k: int | None = None, *, filters: Filters | None = None,
                      mode: str | None = None, mmr: bool | None = None,
                      min_score: float | None = None) -> list[SearchResult]:
        """``search`` on a worker thread (embedding the query must not block the event loop)."""
        return await asyncio.to_thread(self.search, query, top_k, filters=filters,  # type: ignore[attr-defined]
                                       mode=mode, mmr=mmr, min_score=min_score)

    async def asearch_detailed(self, query: str, top_k: int | None = None, *,
                               filters: Filters | None = None, mode: str | None = None,
                               mmr: bool | None = None,
                               min_score: float | None = None) -> SearchResponse:
        """``search_detailed`` on a worker thread."""
        return await asyncio.to_thread(self.search_detailed, query, top_k,  # type: ignore[attr-defined]
                                       filters=filters, mode=mode, mmr=mmr, min_score=min_score)

    async def areindex(self, path: PathLike | None = None,
                       progress: ProgressCallback | None = None) -> IndexReport:
        """``reindex`` on a worker thread."""
        return await asyncio.to_thread(self.reindex, path, progress)  # type: ignore[attr-defined]

    async def async_(self) -> IndexReport:
        """``sync`` on a worker thread (``async`` is a keyword, hence the underscore)."""
        return await asyncio.to_thread(self.sync)  # type: ignore[attr-defined]

    async def averify(self) -> VerifyReport:
        """``verify`` on a worker thread."""
        return await asyncio.to_thread(self.verify)  # type: ignore[attr-defined]

    async def astatus(self, count_pending: bool = True) -> IndexStatus:
        """``status`` on a worker thread (counting pending files walks the folders)."""
        return await asyncio.to_thread(self.status, count_pending)  # type: ignore[attr-defined]

    async def apreload_results(self, budget_tokens: int | None) -> list[SearchResult]:
        """``preload_results`` on a worker thread (it reads every indexed file)."""
        return await asyncio.to_thread(self.preload_results, budget_tokens)  # type: ignore[attr-defined]

    async def acount(self) -> int:
        """``count`` on a worker thread (a store server or Postgres answers over the network)."""
        return await asyncio.to_thread(self.count)  # type: ignore[attr-defined]

    async def ais_empty(self) -> bool:
        """``is_empty`` on a worker thread."""
        return await asyncio.to_thread(self.is_empty)  # type: ignore[attr-defined]

    async def aget_all_indexed_paths(self) -> list[str]:
        """``get_all_indexed_paths`` on a worker thread."""
        return await asyncio.to_thread(self.get_all_indexed_paths)  # type: ignore[attr-defined]

    async def acorpus_tokens(self) -> int:
        """``corpus_tokens`` on a worker thread."""
        return await asyncio.to_thread(self.corpus_tokens)  # type: ignore[attr-defined]

    async def aexcluded_reason(self, path: PathLike) -> str | None:
        """``excluded_reason`` on a worker thread (it reads ignore files)."""
        return await asyncio.to_thread(self.excluded_reason, path)  # type: ignore[attr-defined]

    async def aclose(self) -> None:
        """``close`` on a worker thread (it waits for auto-sync and persists the index)."""
        await asyncio.to_thread(self.close)  # type: ignore[attr-defined]

    async def __aenter__(self) -> AsyncMethods:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
