"""Whole files for the prompt instead of search results (``strategy = "preload"`` or
``"auto"``): how big the indexed corpus is, and its files as indexing reads them."""

from __future__ import annotations

from collections.abc import Callable

from ragloom.config import RAGConfig
from ragloom.engine.arguments import check_whole
from ragloom.indexing.indexer import Indexer
from ragloom.indexing.manifest import ManifestStore
from ragloom.prompt import CHARS_PER_TOKEN, estimate_tokens
from ragloom.readers.base import SkipFile
from ragloom.types import SearchResult


class PreloadMethods:
    """``corpus_tokens`` and ``preload_results`` of RAGEngine."""

    config: RAGConfig
    _manifest: ManifestStore
    _indexer: Indexer
    get_all_indexed_paths: Callable[[], list[str]]  # RAGEngine's

    def corpus_tokens(self) -> int:
        """The indexed files' size in tokens, estimated from the manifest (bytes / 4), for
        deciding whether the whole corpus fits a prompt (``strategy = "auto"``)."""
        if not self.config.enabled:
            return 0
        return sum(max(record.size, 0) for record in self._manifest.records().values()) // CHARS_PER_TOKEN

    def preload_results(self, budget_tokens: int | None) -> list[SearchResult]:
        """Whole indexed files (as indexing reads them: their readers, secrets redacted), in
        path order, one result each, leaving out files that no longer fit ``budget_tokens``."""
        check_whole("budget_tokens", budget_tokens, 0)
        results: list[SearchResult] = []
        used = 0
        for path in self.get_all_indexed_paths():
            try:
                text, metadata = self._indexer.read_whole(path)
            except SkipFile:
                continue
            cost = estimate_tokens(f"File: {path} (preloaded)\n{text}\n\n")
            if budget_tokens is not None and used + cost > budget_tokens:
                continue
            used += cost
            results.append(SearchResult(path, text, metadata, 1.0, 0.0))
        return results
