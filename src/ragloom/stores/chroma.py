"""Chroma as the vector store: embedded (PersistentClient) or a server (HttpClient).

The collection records the embedding model and dimension it was built with; opened for
another model or dimension it is refused with an error naming both (never dropped
implicitly: other processes, other machines through a server, may share it; a rebuild on
purpose drops it). Writes are serialized and split under the client's maximum
batch size. Filters become Chroma ``where`` clauses; Chroma has no glob operator, so the searcher
turns ``$glob`` into ``$in`` of the matching values it knows (``glob_filters = False``).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from ragloom._optional import import_optional
from ragloom.embeddings.base import l2_normalize
from ragloom.errors import (
    REBUILD_HINT,
    IndexMismatchError,
    IndexNotFoundError,
    ReadOnlyError,
    StoreError,
)
from ragloom.filters import Filters, compile_filters
from ragloom.ownership import STORE_MARKER, claim_folder
from ragloom.stores.base import EmbeddingSpec, StoreDefaults, check_upsert_arguments, require_stored
from ragloom.stores.chroma_texts import ChromaTexts
from ragloom.stores.chroma_where import chroma_where
from ragloom.types import Chunk, Metadata, SearchResult

logger = logging.getLogger("ragloom")

MODEL_KEY = "ragloom:embedding_model"
DIMENSION_KEY = "ragloom:dimension"
_PAGE = 5000
#: Chroma's HNSW search explores this many candidates (``ef_search``; Chroma's default is
#: 100): a collection of up to this many chunks is searched exactly, so the same files give
#: the same results however the graph was built (measured in docs/stores.md: at 10,000
#: chunks the default returned a different top 10 for 40 of 100 queries across two builds).
EXACT_UP_TO = 20_000


def _search_exactly(collection: Any) -> None:
    """Raise the collection's ``ef_search`` to EXACT_UP_TO (a collection made by Chroma's
    defaults or an older ragloom has 100). Chroma reads it when a process first loads the
    HNSW index, so this runs before any query, for readers too: at 100 a reader of the
    babybuddy index got 100 number-table chunks (cosine <= 0.16) for a question whose answer
    has 0.46 (docs/stores.md)."""
    hnsw = (getattr(collection, "configuration_json", None) or {}).get("hnsw")
    if hnsw and int(hnsw.get("ef_search") or 0) < EXACT_UP_TO:  # an SPANN index has no ef
        collection.modify(configuration={"hnsw": {"ef_search": EXACT_UP_TO}})


def _chromadb() -> Any:
    return import_optional("chromadb", "chroma", "the Chroma vector store")


def _settings(chromadb: Any, api_key: str | None = None) -> Any:
    options: dict[str, Any] = {"anonymized_telemetry": False, "allow_reset": False}
    if api_key:
        options["chroma_client_auth_provider"] = "chromadb.auth.token_authn.TokenAuthClientProvider"
        options["chroma_client_auth_credentials"] = api_key
    return chromadb.config.Settings(**options)


def persistent_client(path: Path, read_only: bool = False) -> Any:
    """An embedded client on ``path``, a folder ragloom created (see ``ragloom.ownership``);
    for reading, a missing database is IndexNotFoundError and nothing is created."""
    chromadb = _chromadb()
    claim_folder(path, STORE_MARKER, "Chroma store", create=not read_only)
    if read_only and not (path / "chroma.sqlite3").is_file():
        raise IndexNotFoundError(f"no Chroma database at {path}")
    try:
        return chromadb.PersistentClient(path=str(path), settings=_settings(chromadb))
    except Exception as exc:
        hint = ("; embedded Chroma writes to its database even to read it: on a read-only "
                "folder use the turboquant store or a Chroma server (vector_store.url)"
                if read_only and not os.access(path, os.W_OK) or "readonly" in str(exc) else "")
        raise StoreError(f"cannot open Chroma database at {path}: {exc}{hint}") from exc


def http_client(url: str, api_key: str | None = None) -> Any:
    """A client for the Chroma server at ``url`` (scheme, host and port taken from it)."""
    from ragloom.security.display import redact_for_display  # only here: its patterns compile on import

    chromadb = _chromadb()
    parsed = urlparse(url if "://" in url else f"http://{url}")
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise StoreError(f"vector_store.url {redact_for_display(url)!r} is not an http(s) URL")
    ssl = parsed.scheme == "https"
    try:
        return chromadb.HttpClient(host=parsed.hostname, port=parsed.port or (443 if ssl else 8000),
                                   ssl=ssl, settings=_settings(chromadb, api_key))
    except Exception as exc:
        raise StoreError(redact_for_display(f"cannot connect to the Chroma server at {url}: "
                                            f"{type(exc).__name__}: {exc}")) from None


def delete_own_collection(client: Any, name: str, location: str) -> None:
    """Delete collection ``name`` through ``client`` while it still carries ragloom's marker
    (on a shared server another app may have replaced it since it was opened)."""
    found = client.get_collection(name, embedding_function=None)
    if MODEL_KEY not in (found.metadata or {}):
        raise StoreError(f"Chroma collection {name!r} at {location} is not ragloom's (no "
                         f"{MODEL_KEY} in its metadata); ragloom will not drop it")
    client.delete_collection(name)


class ChromaVectorStore(StoreDefaults):
    """A Chroma collection in cosine space holding ragloom chunks.

    Embedded Chroma is not process-safe, so another process may read it only while no
    writer has it open (``concurrent_readers`` is False); a Chroma server serves any number.
    """

    name = "chroma"
    hands_out_vectors = True
    glob_filters = False  # Chroma's where clauses have no glob operator

    def __init__(self, client: Any, collection_name: str, embedding: EmbeddingSpec,
                 location: str, remote: bool = False, read_only: bool = False,
                 texts: ChromaTexts | None = None,
                 reconnect: Callable[[], Any] | None = None) -> None:
        """Takes ownership of ``client`` and ``texts`` (closed by ``close`` or when opening
        fails). ``texts``: where an embedded store keeps chunk texts (not in Chroma's
        database); ``reconnect`` makes another client, for dropping the collection on purpose."""
        self._client = client
        self._texts = texts
        self._collection_name = collection_name
        self._embedding = embedding
        self.location = location
        self.concurrent_readers = remote
        #: A server's query waits on HTTP, so the local BM25 runs meanwhile.
        self.queries_elsewhere = remote
        self.read_only = read_only
        self._reconnect = reconnect
        self._lock = threading.RLock()
        try:
            self._max_batch = int(client.get_max_batch_size())
            self._collection = self._open_collection()
        except BaseException:
            self.close()
            raise

    @classmethod
    def open_local(cls, path: Path, collection_name: str, embedding: EmbeddingSpec,
                   read_only: bool = False) -> ChromaVectorStore:
        client = persistent_client(path, read_only)
        return cls(client, collection_name, embedding, str(path), read_only=read_only,
                   texts=ChromaTexts(path, read_only), reconnect=lambda: persistent_client(path))

    @classmethod
    def open_remote(cls, url: str, collection_name: str, embedding: EmbeddingSpec,
                    api_key: str | None = None, read_only: bool = False) -> ChromaVectorStore:
        from ragloom.security.display import redact_for_display

        # the location is only ever shown (errors, status): never with the URL's password
        return cls(http_client(url, api_key), collection_name, embedding, redact_for_display(url),
                   remote=True, read_only=read_only, reconnect=lambda: http_client(url, api_key))

    def _open_collection(self) -> Any:
        expected = {MODEL_KEY: self._embedding.model, DIMENSION_KEY: self._embedding.dimension,
                    "hnsw:space": "cosine"}
        try:
            if self.read_only:
                return self._existing_collection()
            collection = self._client.get_or_create_collection(
                self._collection_name, metadata=expected, embedding_function=None)
            self._check_identity(collection.metadata or {})
            _search_exactly(collection)
            return collection
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(f"cannot open Chroma collection {self._collection_name!r} at "
                             f"{self.location}: {type(exc).__name__}: {exc}") from exc

    def _existing_collection(self) -> Any:
        """The collection as it is, for reading: never created, dropped or rebuilt (only its
        ``ef_search`` raised)."""
        try:
            collection = self._client.get_collection(self._collection_name, embedding_function=None)
        except Exception:
            raise IndexNotFoundError(f"no Chroma collection {self._collection_name!r} at "
                                     f"{self.location}") from None
        self._check_identity(collection.metadata or {})
        try:  # a search setting, not data: a reader may raise it (see ``_search_exactly``)
            _search_exactly(collection)
        except Exception as exc:
            logger.warning("Chroma collection %r at %s keeps ef_search %s (%s: %s): its "
                           "searches are approximate", self._collection_name, self.location,
                           collection.configuration_json["hnsw"].get("ef_search"),
                           type(exc).__name__, exc)
        return collection

    def _check_identity(self, recorded: dict[str, Any]) -> None:
        """The collection must be ragloom's (its metadata names the model: a reader too
        refuses another app's) and hold vectors of this model and dimension."""
        if MODEL_KEY not in recorded:
            raise StoreError(f"Chroma collection {self._collection_name!r} at {self.location} was "
                             f"not created by ragloom; ragloom will not read, change or drop it: "
                             f"choose another vector_store.collection_name")
        built = (recorded.get(MODEL_KEY), recorded.get(DIMENSION_KEY))
        if built == (self._embedding.model, self._embedding.dimension):
            return
        reading = " (reading never rebuilds)" if self.read_only else ""
        raise IndexMismatchError(
            f"Chroma collection {self._collection_name!r} at {self.location} was built with "
            f"{built[0]} ({built[1]}-d), not {self._embedding.model} "
            f"({self._embedding.dimension}-d): ragloom does not drop it implicitly, other "
            f"processes may share it{reading}; {REBUILD_HINT}",
            None if self.read_only or self._reconnect is None else self._drop_collection)

    def _drop_collection(self) -> None:
        """For a rebuild on purpose: drop this ragloom collection (nothing else), through a
        client of its own (the store that refused it has closed its client)."""
        assert self._reconnect is not None
        client = self._reconnect()
        try:
            delete_own_collection(client, self._collection_name, self.location)
        finally:
            if hasattr(client, "close"):
                client.close()

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str],
               metadatas: Sequence[Metadata]) -> None:
        matrix = check_upsert_arguments(ids, vectors, texts, metadatas, self._embedding.dimension)
        with self._lock:
            if self._texts is not None:  # before the vectors: no chunk is ever without its text
                self._texts.put(ids, texts)
            for start in range(0, len(ids), self._max_batch):
                stop = start + self._max_batch
                # Chroma's upsert merges metadata into the old record; delete the ids that
                # exist first so an upsert replaces the chunk entirely, stale keys included.
                existing = self._call("get", ids=list(ids[start:stop]), include=[])["ids"]
                if existing:
                    self._call("delete", ids=list(existing))
                self._call("add", ids=list(ids[start:stop]), embeddings=matrix[start:stop],
                           documents=None if self._texts is not None else list(texts[start:stop]),
                           metadatas=[dict(m) or None for m in metadatas[start:stop]])

    def delete(self, ids: Sequence[str]) -> None:
        ids = list(dict.fromkeys(ids))
        with self._lock:
            for start in range(0, len(ids), self._max_batch):
                self._call("delete", ids=ids[start:start + self._max_batch])
            if self._texts is not None:  # after the vectors (see ``chroma_texts``)
                self._texts.delete(ids)

    def query(self, vector: np.ndarray, top_k: int,
              filters: Filters | None = None) -> list[SearchResult]:
        where = chroma_where(compile_filters(filters))
        if top_k <= 0:
            return []
        result = self._call("query", query_embeddings=[np.asarray(vector, dtype=np.float32)],
                            n_results=top_k, where=where,
                            include=["documents", "metadatas", "distances"])
        documents = self._with_texts(result["ids"][0], result["documents"][0])
        return [SearchResult(id=chunk_id, text=text or "", metadata=dict(metadata or {}),
                             score=float(1.0 - distance), distance=float(distance))
                for chunk_id, text, metadata, distance in zip(
                    result["ids"][0], documents, result["metadatas"][0], result["distances"][0])
                if text is not None or metadata is not None]  # else half written or deleted

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        if not ids:
            return []
        found = self._call("get", ids=list(ids), include=["documents", "metadatas"])
        documents = self._with_texts(found["ids"], found["documents"])
        by_id = {cid: Chunk(cid, text or "", dict(meta or {})) for cid, text, meta in zip(
            found["ids"], documents, found["metadatas"]) if text is not None or meta is not None}
        return [by_id[cid] for cid in ids if cid in by_id]

    def _with_texts(self, ids: list[str], documents: list[str | None]) -> list[str | None]:
        """Chroma's documents with the texts kept beside the database filled in."""
        if self._texts is None:
            return documents
        kept = self._texts.get(ids)
        return [kept.get(chunk_id, document) for chunk_id, document in zip(ids, documents)]

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        if not ids:
            return np.zeros((0, self._embedding.dimension), dtype=np.float32)
        found = self._call("get", ids=list(ids), include=["embeddings"])
        by_id = dict(zip(found["ids"], found["embeddings"]))
        require_stored(ids, by_id)
        return l2_normalize(np.asarray([by_id[cid] for cid in ids], dtype=np.float32))

    def ids(self) -> list[str]:
        collected: list[str] = []
        while True:
            page = self._call("get", include=[], limit=_PAGE, offset=len(collected))
            collected.extend(page["ids"])
            if len(page["ids"]) < _PAGE:
                return collected

    def count(self) -> int:
        return int(self._call("count"))

    def reset(self) -> None:
        if self.read_only:
            raise ReadOnlyError(f"the Chroma store at {self.location} is open for reading only")
        with self._lock:
            delete_own_collection(self._client, self._collection_name, self.location)
            self._collection = self._open_collection()
            if self._texts is not None:
                self._texts.clear()

    def persist(self) -> None:
        """Chroma writes through to disk; nothing to flush."""

    def close(self) -> None:
        """Release the client: Chroma shares one system per path in a process and keeps the
        index in memory, so an embedded store reopened later must not reuse a stale one."""
        with self._lock:
            self._collection = None
            if self._texts is not None:
                self._texts.close()
            client, self._client = self._client, None
            if client is not None and hasattr(client, "close"):  # chromadb >= 1.1
                client.close()

    def _call(self, method: str, retried: bool = False, **kwargs: Any) -> Any:
        if self._collection is None:
            raise StoreError("this Chroma store is closed")
        if self.read_only and method in _WRITES:
            raise ReadOnlyError(f"the Chroma store at {self.location} is open for reading only")
        try:
            return getattr(self._collection, method)(**kwargs)
        except (ValueError, TypeError):
            raise
        except Exception as exc:
            if self.concurrent_readers and method not in _WRITES and not retried:
                return self._call(method, True, **kwargs)  # a server read beside a write: again
            raise StoreError(f"Chroma {method} failed on collection {self._collection_name!r} at "
                             f"{self.location}: {type(exc).__name__}: {exc}") from exc


_WRITES = frozenset({"add", "delete", "upsert", "update"})

