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
from dataclasses import replace
from typing import Any

import numpy as np

from ragloom.filters import Filters
from ragloom.stores.base import VectorStore
from ragloom.tenancy import SEPARATOR, TENANT_KEY, check_tenant, scoped_filters
from ragloom.types import Chunk, Metadata, SearchResult


class TenantStore:
    """``inner`` as seen by one tenant (module docstring). The inner store is shared: the
    view's ``reset`` deletes the tenant's chunks only, ``close`` closes the inner store."""

    def __init__(self, inner: VectorStore, tenant: str) -> None:
        self.inner = inner
        self.tenant = check_tenant(tenant)
        self._prefix = tenant + SEPARATOR
        for flag in ("name", "persistent", "concurrent_readers", "hands_out_vectors",
                     "glob_filters"):
            setattr(self, flag, getattr(inner, flag))
        self.queries_elsewhere = bool(getattr(inner, "queries_elsewhere", False))
        snapshot = getattr(inner, "read_snapshot", None)
        if snapshot is not None:
            self.read_snapshot = snapshot

    def __getattr__(self, name: str) -> Any:
        """Other attributes (location, verify_files, ...) are the inner store's; those
        that would read or rebuild every tenant's data are not handed out."""
        if name in ("id_digest", "index_state", "sparse_index", "inner") or name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.inner, name)

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
        scoped = getattr(self.inner, "ids_where", None)
        found = scoped({TENANT_KEY: self.tenant}) if callable(scoped) else self.inner.ids()
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
