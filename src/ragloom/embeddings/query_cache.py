"""Questions asked twice are paid once: a query's vector is looked up in a bounded
in-memory LRU (the last ``QUERY_MEMORY`` queries, so a long-running server does not grow),
then in the embedding cache, before the provider is asked. Entries are keyed like document
embeddings (provider, model, dimension, vector settings) but under the query task, which
some models (Gemini) embed differently, so a document vector never answers a query.

A writer's engine stores new query vectors in its embedding cache (a restart keeps them)
``QUERY_WRITE_BATCH`` at a time and when it closes: one synced transaction per query
cost 20.7 ms a new search, a batch 0.15 ms (bench/query_cache.py, docs/benchmarks.md); a
crash loses at most the last batch, which the cache, being disposable, may. A read-only
engine reads that cache (``EmbeddingCacheReader``) and never writes it.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ragloom.digests import content_hash
from ragloom.embeddings.base import EmbeddingProvider
from ragloom.embeddings.cache import CachedEmbedder
from ragloom.errors import RagloomError

logger = logging.getLogger("ragloom")
#: Query vectors kept in memory (about 1.5 MB at 384 dimensions, 12 MB at Gemini's 3072).
QUERY_MEMORY = 1024
#: New query vectors written to the cache in one transaction.
QUERY_WRITE_BATCH = 64


class VectorLookup(Protocol):
    """What the query cache needs of an embedding cache (``put_many`` only to write)."""

    def get_many(self, namespace: str, hashes: Sequence[str], dimension: int) -> dict[str, np.ndarray]: ...


class QueryEmbedder:
    """``embed_query`` through memory and the embedding cache; safe for several threads.

    ``writes`` says whether new vectors go into ``cache`` (False for read-only engines),
    ``write_batch`` (default ``QUERY_WRITE_BATCH``) at a time and at ``flush``; ``memory``
    is how many queries the LRU keeps (0: none). ``computed`` counts the queries the
    provider embedded.
    """

    def __init__(self, provider: EmbeddingProvider, cache: VectorLookup | None = None, *,
                 writes: bool = True, memory: int = QUERY_MEMORY,
                 write_batch: int | None = None) -> None:
        self.provider = provider
        self.cache = cache
        self.writes = writes
        self.memory = max(0, memory)
        self.write_batch = max(1, QUERY_WRITE_BATCH if write_batch is None else write_batch)
        self.computed = 0
        self._keys = CachedEmbedder(provider, None)
        self._recent: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._pending: dict[tuple[str, str], np.ndarray] = {}
        self._lock = threading.Lock()

    def embed_query(self, text: str) -> np.ndarray:
        """The query's vector, shape (dimension,): a fresh copy the caller may change."""
        namespace, text_hash = self._keys.namespace("query"), content_hash(text)
        key = (namespace, text_hash)
        with self._lock:
            vector = self._recent.get(key)
            if vector is None:
                vector = self._pending.get(key)
            else:
                self._recent.move_to_end(key)
            if vector is not None:
                return vector.copy()
        dimension = self.provider.dimension
        vector = self.cache.get_many(namespace, [text_hash], dimension).get(text_hash) \
            if self.cache is not None else None
        if vector is None:
            vector = np.array(self.provider.embed_query(text), dtype=np.float32)  # its override too
            keeps = self.writes and self.cache is not None
            with self._lock:
                self.computed += 1
                if keeps:
                    self._pending[key] = vector
                full = len(self._pending) >= self.write_batch
            if keeps and full:
                self.flush()
        vector = np.array(vector, dtype=np.float32)  # owned, writable, not the cache's buffer
        self._remember(key, vector)
        return vector.copy()

    def flush(self) -> None:
        """Write the query vectors not yet in the cache; a cache that cannot take them
        never fails a search (they are only not kept)."""
        with self._lock:
            pending, self._pending = self._pending, {}
        by_namespace: dict[str, dict[str, np.ndarray]] = {}
        for (namespace, text_hash), vector in pending.items():
            by_namespace.setdefault(namespace, {})[text_hash] = vector
        for namespace, vectors in by_namespace.items():
            try:
                self.cache.put_many(namespace, vectors)  # type: ignore[union-attr]
            except (sqlite3.Error, OSError, RagloomError) as exc:
                logger.warning("%d query embedding(s) not cached: %s", len(vectors), exc)

    def _remember(self, key: tuple[str, str], vector: np.ndarray) -> None:
        if not self.memory:
            return
        with self._lock:
            self._recent[key] = vector
            self._recent.move_to_end(key)
            while len(self._recent) > self.memory:
                self._recent.popitem(last=False)

    def __len__(self) -> int:
        """How many query vectors are held in memory."""
        with self._lock:
            return len(self._recent)
