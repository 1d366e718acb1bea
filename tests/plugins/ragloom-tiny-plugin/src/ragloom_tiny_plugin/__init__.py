"""A third-party ragloom plugin in one file: a brute-force vector store, an embedder that
counts letters, a reader for ``.tpages`` files (a binary toy format with pages) and a
reranker counting query words. Installed through its entry points, selected from TOML by name."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ragloom.config import RAGConfig
from ragloom.embeddings.base import EmbeddingProvider, EmbeddingTask, l2_normalize
from ragloom.errors import StoreError
from ragloom.filters import Filters, compile_filters, matches_all
from ragloom.readers import ReadText, SkipFile, TextSpan
from ragloom.stores.backend import StoreBackend
from ragloom.stores.base import (
    EmbeddingSpec,
    StoreDefaults,
    check_upsert_arguments,
    require_stored,
    top_k_indices,
)
from ragloom.stores.registry import store_settings
from ragloom.types import Chunk, Metadata, SearchResult


class LettersEmbedder(EmbeddingProvider):
    """26-d vectors of a-z letter counts, L2-normalized."""

    provider_name = "letters"

    def __init__(self) -> None:
        self.model_name = "letter-counts-v1"
        self.dimension = 26

    def _embed_batch(self, texts: list[str], task: EmbeddingTask) -> np.ndarray:
        counts = np.zeros((len(texts), 26), dtype=np.float32)
        for row, text in enumerate(texts):
            for char in text.lower():
                if "a" <= char <= "z":
                    counts[row, ord(char) - 97] += 1
        return l2_normalize(counts)


def letters_provider(config: RAGConfig) -> LettersEmbedder:
    return LettersEmbedder()


class TinyStore(StoreDefaults):
    """Rows in dicts, exact cosine by brute force; in memory only."""

    name = "tiny"
    concurrent_readers = True
    hands_out_vectors = True
    glob_filters = True

    def __init__(self, max_rows: int = 100_000) -> None:
        self._lock = threading.Lock()
        self._rows: dict[str, tuple[np.ndarray, str, Metadata]] = {}
        self.max_rows = max_rows

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str],
               metadatas: Sequence[Metadata]) -> None:
        matrix = l2_normalize(check_upsert_arguments(ids, vectors, texts, metadatas))
        with self._lock:
            if len(set(self._rows) | set(ids)) > self.max_rows:
                raise StoreError(f"the tiny store holds at most {self.max_rows} rows")
            for row, chunk_id in enumerate(ids):
                self._rows[chunk_id] = (matrix[row], texts[row], dict(metadatas[row]))

    def delete(self, ids: Sequence[str]) -> None:
        with self._lock:
            for chunk_id in ids:
                self._rows.pop(chunk_id, None)

    def query(self, vector: np.ndarray, top_k: int, filters: Filters | None = None) -> list[SearchResult]:
        conditions = compile_filters(filters)
        with self._lock:
            rows = [(i, row) for i, row in self._rows.items() if matches_all(row[2], conditions)]
        if not rows or top_k < 1:
            return []
        query = np.asarray(vector, dtype=np.float32)
        query = query / (np.linalg.norm(query) or 1.0)
        scores = np.stack([row[0] for _, row in rows]) @ query
        results = []
        for index in top_k_indices(scores, top_k):
            chunk_id, (_, text, meta) = rows[index]
            score = float(scores[index])
            results.append(SearchResult(chunk_id, text, dict(meta), score, 1.0 - score))
        return results

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        with self._lock:
            return [Chunk(i, self._rows[i][1], dict(self._rows[i][2])) for i in ids if i in self._rows]

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        with self._lock:
            require_stored(ids, self._rows)
            return np.stack([self._rows[i][0] for i in ids]) if ids else np.zeros((0, 0), np.float32)

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._rows)

    def count(self) -> int:
        return len(self._rows)

    def reset(self) -> None:
        with self._lock:
            self._rows.clear()

    def persist(self) -> None:
        """Nothing to write: the store lives in memory."""

    def close(self) -> None:
        """Nothing to release."""


class TinySettings(BaseModel):
    """``[rag.vector_store.tiny]``."""

    model_config = ConfigDict(extra="forbid")

    max_rows: int = Field(100_000, ge=1)


class TinyBackend(StoreBackend):
    """What ragloom knows before a tiny store opens, and how to open one."""

    persistent = False  # no index folder, no lock
    settings_model = TinySettings  # validates [rag.vector_store.tiny]

    @classmethod
    def open(cls, config: RAGConfig, base_dir: Path, embedding: EmbeddingSpec,
             read_only: bool) -> TinyStore:
        settings = store_settings(config)
        assert isinstance(settings, TinySettings)
        return TinyStore(settings.max_rows)


PAGES_MAGIC = b"TPAGES\x00"


class PagesReader:
    """``.tpages``: the magic bytes, then UTF-8 pages separated by form feeds. Each page's
    lines carry ``page`` (1-based); a file without the magic is skipped."""

    def read(self, path: str, data: bytes) -> ReadText:
        if not data.startswith(PAGES_MAGIC):
            raise SkipFile("not a tpages file (no magic bytes)")
        pages = data[len(PAGES_MAGIC):].decode("utf-8").split("\f")
        texts: list[str] = []
        spans: list[TextSpan] = []
        line = 1
        for number, page in enumerate(pages, start=1):
            page = page.strip("\n") + "\n"
            lines = page.count("\n")
            spans.append(TextSpan(line, line + lines - 1, {"page": number}))
            texts.append(page)
            line += lines
        return ReadText("".join(texts), tuple(spans), language="markdown")


def pages_reader(config: RAGConfig) -> PagesReader:
    return PagesReader()


class OverlapReranker:
    """Scores a result by how many distinct query words its text contains."""

    def score(self, query: str, results: Sequence[SearchResult]) -> list[float]:
        words = set(query.lower().split())
        return [float(len(words & set(result.text.lower().split()))) for result in results]


def overlap_reranker(config: RAGConfig) -> OverlapReranker:
    return OverlapReranker()
