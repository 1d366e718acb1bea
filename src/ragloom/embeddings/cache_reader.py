"""The embedding cache file read without the right to change it, for read-only engines:
reading never writes, so nothing is created (no file when there is none yet, no journal)
or set aside. Any trouble reading (no file, no tables yet, a writer's hot
journal, a damaged file) is a miss: the cache is disposable."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragloom.sqlite_db import connect

logger = logging.getLogger("ragloom")


class EmbeddingCacheReader:
    """``get_many`` of ``embeddings.cache.EmbeddingCache`` over a file opened read-only
    (opened at the first read that finds it, so a cache the writer starts later is seen)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None

    def get_many(self, namespace: str, hashes: Sequence[str], dimension: int) -> dict[str, np.ndarray]:
        """The cached vectors among ``hashes`` (missing ones are simply absent)."""
        found: dict[str, np.ndarray] = {}
        with self._lock:
            try:
                if self._connection is None:
                    if not self.path.is_file():
                        return found
                    self._connection = connect(self.path, read_only=True)
                for text_hash in dict.fromkeys(hashes):
                    row = self._connection.execute(
                        "SELECT v.vector FROM vectors v JOIN namespaces n ON n.id = v.namespace "
                        "WHERE n.name = ? AND v.text_hash = ?",
                        (namespace, bytes.fromhex(text_hash))).fetchone()
                    if row is not None:
                        vector = np.frombuffer(row[0], dtype=np.float32)
                        if vector.shape == (dimension,):
                            found[text_hash] = vector
            except sqlite3.Error as exc:
                logger.debug("embedding cache %s not read: %s", self.path, exc)
        return found

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
