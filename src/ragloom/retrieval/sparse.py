"""The sparse (BM25) side of the index: tokenizes chunks, persists beside the vector store
as a folder of segments, and rebuilds itself from the store when the two disagree (e.g.
after a crash). Opening reads no postings: ids, metadata and postings are read when used."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from pathlib import Path

from ragloom.arrayfile import ArrayFile, damaged_files
from ragloom.chunking.context import IndexedText, plain_text
from ragloom.errors import StoreError
from ragloom.filters import Node, matches_all
from ragloom.retrieval.bm25 import BM25Index
from ragloom.retrieval.bm25_files import load_index, save_index
from ragloom.retrieval.feedback import expand_query
from ragloom.retrieval.sparse_base import StoredChunks
from ragloom.retrieval.symbols import MAX_DEFINITIONS, defined_names, query_names
from ragloom.retrieval.tokenize import Tokenizer, tokenize
from ragloom.segments import SEGMENT_LIST
from ragloom.types import Metadata, MetadataValue

logger = logging.getLogger("ragloom")
_REBUILD_PAGE = 2000


class SparseIndex:
    """BM25 over the stored chunks, in a folder of segments (``path=None``: in memory); the
    default ``SparseBackend``."""

    def __init__(self, path: Path | None = None, tokenizer: Tokenizer = tokenize,
                 read_only: bool = False, text_of: IndexedText = plain_text) -> None:
        self.path = path
        self.text_of = text_of  # what BM25 reads of a chunk (e.g. with a path header)
        self.read_only = read_only  # rebuilt in memory when stale, never written
        self.tokenizer = tokenizer
        self._lock = threading.RLock()
        self._dirty = False
        self._stale = False
        self._values: dict[str, list[MetadataValue]] = {}  # distinct values by key, dropped on change
        self._holders: dict[str, dict[MetadataValue, list[str]]] = {}  # key -> value -> ids
        self.index = BM25Index(tokenizer=tokenizer.signature)
        self._unreadable: str | None = None  # why the files on disk could not be loaded
        self._files: list[ArrayFile] = []  # the segment files on disk, as last loaded or saved
        if path is not None and (path / SEGMENT_LIST).is_file():
            try:
                loaded = load_index(path)
            except (OSError, ValueError, KeyError, StoreError) as exc:
                logger.warning("BM25 index %s is unreadable (%s); it will be rebuilt", path, exc)
                self._stale = True
                self._unreadable = str(exc)
            else:
                self._files = loaded.files()
                if loaded.tokenizer == tokenizer.signature:
                    self.index = loaded
                else:
                    self._stale = True

    def __len__(self) -> int:
        return len(self.index)

    def ids(self) -> list[str]:
        """Every chunk id the BM25 index holds."""
        return self.index.ids()

    def add(self, ids: Sequence[str], texts: Sequence[str], metadatas: Sequence[Metadata]) -> None:
        with self._lock:
            self.index.add(ids, [self.tokenizer(self.text_of(text, metadata))
                                 for text, metadata in zip(texts, metadatas)], metadatas)
            self._changed()

    def remove(self, ids: Sequence[str]) -> None:
        with self._lock:
            self.index.remove(ids)
            self._changed()

    def clear(self) -> None:
        with self._lock:
            self.index = BM25Index(tokenizer=self.tokenizer.signature)
            self._changed()

    def _changed(self) -> None:
        self._dirty = True
        self._values = {}
        self._holders = {}

    def chunks_with(self, key: str, values: Sequence[MetadataValue]) -> list[tuple[str, Metadata]]:
        """(id, metadata) of every chunk whose metadata ``key`` equals one of ``values``."""
        with self._lock:
            if key == "content_hash":  # a lookup the segments keep: no scan
                return [(doc_id, meta) for value in dict.fromkeys(values) for doc_id, meta in
                        self.index.rows_with("content_hash", json.dumps(value)) if meta.get(key) == value]
            if key not in self._holders:
                holders: dict[MetadataValue, list[str]] = {}
                for doc_id in self.index.ids():
                    meta = self.index.metadata(doc_id) or {}
                    if key in meta:
                        holders.setdefault(meta[key], []).append(doc_id)
                self._holders[key] = holders
            return [(doc_id, self.index.metadata(doc_id) or {}) for value in dict.fromkeys(values)
                    for doc_id in self._holders[key].get(value, [])]

    def distinct_values(self, key: str) -> list[MetadataValue]:
        """Sorted distinct values of metadata ``key`` over every chunk (``path``: the files
        and documents indexed); the BM25 index holds every stored chunk's metadata."""
        with self._lock:
            if key not in self._values:
                found = {meta[key] for meta in self.index.metadatas() if key in meta}
                self._values[key] = sorted(found, key=lambda value: (type(value).__name__, value))
            return self._values[key]

    def defining(self, query: str, conditions: list[Node] | None = None) -> list[str]:
        """Ids of the chunks defining a name ``query`` uses (see ``retrieval.symbols``)."""
        with self._lock:
            found: list[str] = []
            for name in query_names(query):  # as SymbolTable.lookup, from the segments' lookup
                places = list(dict.fromkeys(doc_id for doc_id, meta in self.index.rows_with("symbols", name)
                                            if name in defined_names(meta)))
                if len(places) <= MAX_DEFINITIONS:
                    found.extend(place for place in places if place not in found)
            if conditions:
                found = [doc_id for doc_id in found
                         if matches_all(self.index.metadata(doc_id) or {}, conditions)]
            return found

    def search(self, query: str, k: int, conditions: list[Node] | None = None,
               feedback_docs: int = 0, feedback_terms: int = 10,
               feedback_weight: float = 0.5) -> list[tuple[str, float]]:
        """Top ``k`` (id, BM25 score); with ``feedback_docs`` the query is expanded with
        terms of the first pass's top documents and run again."""
        tokens = self.tokenizer(query)
        if not tokens:
            return []
        with self._lock:
            hits = self.index.top_k(tokens, max(k, feedback_docs), conditions)
            if feedback_docs > 0 and hits:
                weights = expand_query(self.index, tokens, hits, feedback_docs, feedback_terms,
                                       feedback_weight)
                hits = self.index.top_k(weights, k, conditions)
            return hits[:k]

    def sync_with(self, store: StoredChunks) -> bool:
        """Rebuild from the store's texts when the ids differ; True when it rebuilt."""
        with self._lock:
            if not self._stale and len(self.index) == store.count() and (
                    len(self.index) == 0 or self._same_ids(store)):
                return False
            logger.info("BM25 index out of step with the vector store: rebuilding it")
            self.index = BM25Index(tokenizer=self.tokenizer.signature)
            ids = store.ids()
            for start in range(0, len(ids), _REBUILD_PAGE):
                chunks = store.get(ids[start:start + _REBUILD_PAGE])
                self.add([c.id for c in chunks], [c.text for c in chunks],
                         [c.metadata for c in chunks])
            self._stale = False
            self._changed()
            self.persist()
            return True

    def _same_ids(self, store: StoredChunks) -> bool:
        """Whether the index holds the store's ids: compares digests when the store keeps
        one (no id is read), else the id sets."""
        digest = store.id_digest()
        if digest is not None:
            return self.index.id_digest() == digest
        return set(self.index.ids()) == set(store.ids())

    def persist(self) -> None:
        """Write to disk if anything changed since the last write."""
        with self._lock:
            if self.path is not None and self._dirty and not self.read_only:
                save_index(self.index, self.path)
                self._unreadable = None
                self._files = self.index.files()
            self._dirty = False

    def verify_files(self) -> list[str]:
        """Problems with the files on disk: every byte of the segment files as last loaded or
        saved checked against its checksums (opening checks only what it reads whole, and a
        reader may have rebuilt its copy from the store), and an index that could not be
        loaded, rebuilt in memory but not yet written again."""
        with self._lock:
            problems = [] if self._unreadable is None else [
                f"BM25 index {self.path} could not be read ({self._unreadable}); searches use a "
                f"copy rebuilt from the vector store, and the next 'ragloom index' rewrites it"]
            return problems + damaged_files(self._files)

    def disk_bytes(self) -> int:
        """Bytes the index takes on disk."""
        if self.path is None or not self.path.is_dir():
            return 0
        return sum(file.stat().st_size for file in self.path.iterdir() if file.is_file())
