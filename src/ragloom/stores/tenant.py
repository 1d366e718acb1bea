"""One tenant's view of a shared store: every chunk written carries the tenant, every read
is scoped inside the store.

``TenantStore`` wraps any vector store for one tenant. Ids are namespaced
(``<tenant>::<id>``), so two tenants indexing the same file share no chunk id and a tenant
can name, fetch, delete or overwrite only its own; every chunk's metadata carries
``tenant``, and every query adds ``{"tenant": <name>}`` to the filters the store itself
applies (a row mask before scoring in TurboQuant and the in-memory store, Chroma's
``where``, an indexed ``WHERE`` in Postgres), never a post-filter over its results. A
caller's filter may narrow that but not widen it: a filter naming ``tenant`` is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import TypeVar

import numpy as np

from ragloom.filters import Filters
from ragloom.stores.base import VectorStore
from ragloom.tenancy import SEPARATOR, TENANT_KEY, check_tenant, scoped_filters
from ragloom.types import Chunk, Metadata, SearchResult


class TenantStore:
    """``inner`` as seen by one tenant (module docstring). The inner store is shared: the
    view's ``reset`` deletes the tenant's chunks only, ``close`` closes the inner store.
    What would read or rebuild every tenant's data (the id digest) is not handed out."""

    def __init__(self, inner: VectorStore, tenant: str) -> None:
        self.inner = inner
        self.tenant = check_tenant(tenant)
        self._prefix = tenant + SEPARATOR
        self.name = inner.name
        self.concurrent_readers = inner.concurrent_readers
        self.hands_out_vectors = inner.hands_out_vectors
        self.glob_filters = inner.glob_filters
        self.searches_text = inner.searches_text
        self.queries_elsewhere = inner.queries_elsewhere

    def read_snapshot(self) -> AbstractContextManager[object]:
        return self.inner.read_snapshot()

    def verify_files(self) -> list[str]:
        return self.inner.verify_files()

    def id_digest(self) -> int | None:
        return None  # the inner store's digest covers every tenant's ids

    def server_figures(self) -> tuple[str, dict[str, int]] | None:
        return self.inner.server_figures()

    def ids_where(self, filters: Filters) -> list[str] | None:
        found = self.inner.ids_where(scoped_filters(self.tenant, filters))
        return None if found is None else [self._bare(i) for i in found if i.startswith(self._prefix)]

    def _own(self, ids: Sequence[str]) -> list[str]:
        return [self._prefix + chunk_id for chunk_id in ids]

    def _bare(self, chunk_id: str) -> str:
        return chunk_id[len(self._prefix):]

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str],
               metadatas: Sequence[Metadata]) -> None:
        tagged = [{**metadata, TENANT_KEY: self.tenant} for metadata in metadatas]
        self.inner.upsert(self._own(ids), vectors, texts, tagged)

    def delete(self, ids: Sequence[str]) -> None:
        self.inner.delete(self._own(ids))

    def query(self, vector: np.ndarray, top_k: int,
              filters: Filters | None = None) -> list[SearchResult]:
        results = self.inner.query(vector, top_k, scoped_filters(self.tenant, filters))
        return [replace(result, id=self._bare(result.id)) for result in results]

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        return [Chunk(self._bare(c.id), c.text, c.metadata) for c in self.inner.get(self._own(ids))]

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        return self.inner.get_vectors(self._own(ids))

    def ids(self) -> list[str]:
        """The tenant's ids: those in its namespace (no other tenant can write there),
        found by the store when it can select ids by filter (``ids_where``: Postgres)."""
        found = self.inner.ids_where({TENANT_KEY: self.tenant})
        found = self.inner.ids() if found is None else found
        return [self._bare(chunk_id) for chunk_id in found if chunk_id.startswith(self._prefix)]

    def count(self) -> int:
        """How many chunks the tenant has."""
        return len(self.ids())

    def text_bytes(self) -> int:
        """UTF-8 bytes of the tenant's chunk texts (with ``count`` and the manifest's
        files: what the tenant holds, for limits)."""
        ids = self.ids()
        return sum(len(chunk.text.encode("utf-8")) for start in range(0, len(ids), 1000)
                   for chunk in self.get(ids[start:start + 1000]))

    def reset(self) -> None:
        """Remove the tenant's chunks (the other tenants' stay)."""
        self.inner.delete(self._own(self.ids()))

    def persist(self) -> None:
        self.inner.persist()

    def close(self) -> None:
        self.inner.close()


S = TypeVar("S")


def shared_store(store: S) -> S | VectorStore:
    """The store every tenant shares under a tenant's view of it (else ``store`` itself)."""
    return store.inner if isinstance(store, TenantStore) else store
