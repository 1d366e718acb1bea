"""An on-disk embedding cache so the same text is never embedded twice by the same model.

Keyed by (provider, model, dimension, every other setting that changes the vectors, task,
sha256 of text) in a SQLite file beside the index. SQLite's WAL mode and busy timeout make it
safe for several threads and processes. The cache is disposable: a damaged file is set aside
(renamed, never deleted) with a warning and a new one started, so it never blocks a write.
Layout: the namespace (provider|model|dimension|task) is a small integer, the text hash 32
raw bytes and the vector a float32 blob, in a rowid table with a unique index on the key
and 8 KB pages (about 1.7 KB per 384-d vector; a WITHOUT ROWID table repeating the
namespace string in every row took 4.5 KB).

Only the index's writer uses the file, one process at a time, so it keeps a rollback
journal instead of WAL: the pages a write appends (the vectors) are written once, where
WAL writes every page twice, to the log and back into the file (bench/scale_open.py's
bytes written; docs/benchmarks.md).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from ragloom.digests import content_hash
from ragloom.embeddings.base import EmbeddingProvider, EmbeddingTask
from ragloom.faults import crash_point
from ragloom.sqlite_db import connect, is_damaged, set_aside, transaction

_SQLITE_MAX_PARAMETERS = 900
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS namespaces (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
    "CREATE TABLE IF NOT EXISTS vectors (namespace INTEGER NOT NULL, text_hash BLOB NOT NULL, "
    "vector BLOB NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS vectors_by_key ON vectors (namespace, text_hash)",
)


def _prepare_file(path: Path) -> None:
    """Create a new cache file with 8 KB pages (five vectors a page, none overflowing)."""
    if not path.exists():
        _create(path)


def _create(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA page_size = 8192")  # before the first table: fixed from then on
        for statement in _SCHEMA:
            db.execute(statement)
        db.commit()
    finally:
        db.close()


class VectorCache(Protocol):
    """What the embedder uses of a cache: ``EmbeddingCache`` here, or the one a store keeps
    itself (``indexing.state.IndexState``)."""

    def get_many(self, namespace: str, hashes: Sequence[str], dimension: int) -> dict[str, np.ndarray]: ...

    def put_many(self, namespace: str, vectors: dict[str, np.ndarray]) -> None: ...

    def count(self) -> int: ...

    def close(self) -> None: ...


class EmbeddingCache:
    """Vectors by (namespace, text hash); ``path=None`` keeps them in memory only."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = None if path is None else Path(path)
        self._lock = threading.Lock()
        self._namespaces: dict[str, int] = {}
        try:
            self._connection = self._open()
        except sqlite3.DatabaseError as exc:
            if not is_damaged(exc):
                raise
            self._connection = self._start_afresh(None)

    def _open(self) -> sqlite3.Connection:
        if self.path is not None:
            _prepare_file(self.path)
        # the writer's alone: a rollback journal writes appended pages once (see above)
        connection = connect(self.path, synchronous="FULL", journal_mode="TRUNCATE")
        try:
            for statement in _SCHEMA:
                connection.execute(statement)
        except BaseException:
            connection.close()
            raise
        return connection

    def _start_afresh(self, damaged: sqlite3.Connection | None) -> sqlite3.Connection:
        """Set the damaged file aside and open a new, empty cache in its place."""
        if damaged is not None:
            damaged.close()
        self._namespaces = {}
        if self.path is not None:
            set_aside(self.path)
        return self._open()

    def _namespace_id(self, namespace: str, create: bool) -> int | None:
        """The integer standing for ``namespace`` (made when ``create``)."""
        if namespace not in self._namespaces:
            if create:
                self._connection.execute("INSERT OR IGNORE INTO namespaces (name) VALUES (?)",
                                         (namespace,))
            row = self._connection.execute("SELECT id FROM namespaces WHERE name = ?",
                                           (namespace,)).fetchone()
            if row is None:
                return None
            self._namespaces[namespace] = int(row[0])
        return self._namespaces[namespace]

    def get_many(self, namespace: str, hashes: Sequence[str], dimension: int) -> dict[str, np.ndarray]:
        """The cached vectors among ``hashes`` (missing ones are simply absent)."""
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        with self._lock:
            try:
                number = self._namespace_id(namespace, create=False)
                if number is None:
                    return found
                for start in range(0, len(unique), _SQLITE_MAX_PARAMETERS):
                    part = unique[start:start + _SQLITE_MAX_PARAMETERS]
                    rows = self._connection.execute(
                        "SELECT text_hash, vector FROM vectors WHERE namespace = ? "
                        f"AND text_hash IN ({','.join('?' * len(part))})",
                        [number, *map(bytes.fromhex, part)],
                    ).fetchall()
                    for text_hash, blob in rows:
                        vector = np.frombuffer(blob, dtype=np.float32)
                        if vector.shape == (dimension,):
                            found[text_hash.hex()] = vector
            except sqlite3.DatabaseError as exc:
                if not is_damaged(exc):
                    raise
                self._connection = self._start_afresh(self._connection)
                return {}
        return found

    def put_many(self, namespace: str, vectors: dict[str, np.ndarray]) -> None:
        """Store vectors by text hash in one transaction."""
        try:
            self._insert(namespace, vectors)
        except sqlite3.DatabaseError as exc:
            if not is_damaged(exc):
                raise
            with self._lock:
                self._connection = self._start_afresh(self._connection)
            self._insert(namespace, vectors)

    def _insert(self, namespace: str, vectors: dict[str, np.ndarray]) -> None:
        with transaction(self._connection, self._lock) as db:
            number = self._namespace_id(namespace, create=True)
            db.executemany("INSERT OR REPLACE INTO vectors (namespace, text_hash, vector) VALUES (?, ?, ?)",
                           [(number, bytes.fromhex(text_hash), np.asarray(vector, dtype=np.float32).tobytes())
                            for text_hash, vector in vectors.items()])

    def count(self) -> int:
        with self._lock:
            return int(self._connection.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._connection.close()


@dataclass(frozen=True)
class EmbeddedTexts:
    """Vectors for a list of texts and how many of them the provider had to compute."""

    vectors: np.ndarray
    computed: int


class CachedEmbedder:
    """Embeds through the cache: known texts come from disk, the rest from the provider."""

    def __init__(self, provider: EmbeddingProvider, cache: VectorCache | None) -> None:
        self.provider = provider
        self.cache = cache

    def namespace(self, task: EmbeddingTask) -> str:
        provider = self.provider
        settings = provider.vector_settings()
        return (f"{provider.provider_name}|{provider.model_name}|{provider.dimension}|"
                + (f"{settings}|" if settings else "") + task)

    def embed(self, texts: Sequence[str], task: EmbeddingTask = "document",
              on_embedded: Callable[[int], None] | None = None) -> EmbeddedTexts:
        """Vectors for ``texts`` in order; each distinct uncached text is computed once and
        cached as soon as its batch is embedded (a failure later keeps what was paid for).
        ``on_embedded`` hears how many texts each finished batch computed."""
        hashes = [content_hash(text) for text in texts]
        namespace = self.namespace(task)
        dimension = self.provider.dimension
        known = self.cache.get_many(namespace, hashes, dimension) if self.cache else {}
        missing: dict[str, str] = {}
        for text_hash, text in zip(hashes, texts):
            if text_hash not in known:
                missing.setdefault(text_hash, text)
        if missing:
            missing_hashes = list(missing)

            def keep(start: int, vectors: np.ndarray) -> None:
                fresh = dict(zip(missing_hashes[start:start + len(vectors)], vectors))
                if self.cache is not None:
                    self.cache.put_many(namespace, fresh)
                    crash_point("batch-cached")
                known.update(fresh)
                if on_embedded is not None:
                    on_embedded(len(vectors))

            self.provider.embed(list(missing.values()), task, on_batch=keep)
        vectors = np.empty((len(texts), dimension), dtype=np.float32)
        for row, text_hash in enumerate(hashes):
            vectors[row] = known[text_hash]
        return EmbeddedTexts(vectors=vectors, computed=len(missing))
