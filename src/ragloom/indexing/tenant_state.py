"""One tenant's part of index state a store keeps itself (Postgres: manifest and BM25
postings in shared tables): file records namespaced ``<tenant>::<path>``, postings under
the tenant's chunk ids, every BM25 read with the tenant's condition in its SQL ``WHERE``.

Local files need none of this: a tenant has a manifest, BM25 folder and embedding cache of
its own beside the shared store (``engine.opening``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from ragloom.filters import Condition, Node
from ragloom.indexing.manifest import SOURCE_KEY_PREFIX, FileRecord, ManifestStore
from ragloom.indexing.state import IndexState
from ragloom.retrieval.sparse_base import SparseBackend, StoredChunks
from ragloom.stores.tenant import shared_store
from ragloom.tenancy import SEPARATOR, TENANT_KEY, tenant_of_id
from ragloom.types import Metadata, MetadataValue


def tenant_state(state: IndexState, tenant: str | None) -> IndexState:
    """``state`` as seen by ``tenant`` (the cache and the writer's lock are shared); with
    no tenant, the manifest without the tenants' records (the whole index's chunks and
    BM25 postings stay visible: an engine without a tenant sees the whole index)."""
    if tenant is None:
        return IndexState(TenantManifest(state.manifest, None), state.sparse, state.cache,
                          state.lock)
    return IndexState(TenantManifest(state.manifest, tenant), TenantSparse(state.sparse, tenant),
                      state.cache, state.lock)


class _Namespace:
    """Names of one tenant (``<tenant>::<name>``), or with ``tenant`` None the names of no
    tenant (those without a tenant's prefix)."""

    def __init__(self, tenant: str | None) -> None:
        self.tenant = tenant
        self.prefix = "" if tenant is None else tenant + SEPARATOR

    def own(self, names: Iterable[str]) -> list[str]:
        return [self.prefix + name for name in names]

    def mine(self, name: str) -> bool:
        return name.startswith(self.prefix) if self.tenant else tenant_of_id(name) is None

    def bare(self, name: str) -> str:
        return name[len(self.prefix):]


class TenantManifest:
    """A ``ManifestStore`` over one tenant's records of a shared manifest (every member of
    the protocol, nothing forwarded unseen); settings (embedding model, chunking) are the
    index's, shared."""

    def __init__(self, inner: ManifestStore, tenant: str | None) -> None:
        self.inner, self._names = inner, _Namespace(tenant)

    def _bare(self, record: FileRecord) -> FileRecord:
        return replace(record, path=self._names.bare(record.path))

    def get(self, path: str) -> FileRecord | None:
        record = self.inner.get(self._names.prefix + path)
        return None if record is None else self._bare(record)

    def records(self) -> dict[str, FileRecord]:
        return {self._names.bare(path): self._bare(record)
                for path, record in self.inner.records().items() if self._names.mine(path)}

    def versions(self) -> dict[str, tuple[int, int]]:
        own = {self._names.bare(path): version for path, version in self.inner.versions().items()
               if self._names.mine(path)}
        return {path: version for path, version in own.items()
                if not path.startswith(SOURCE_KEY_PREFIX)}

    def begin(self, touched: dict[str, Iterable[str]]) -> None:
        self.inner.begin({self._names.prefix + path: ids for path, ids in touched.items()})

    def pending(self) -> dict[str, list[str]]:
        return {self._names.bare(path): ids for path, ids in self.inner.pending().items()
                if self._names.mine(path)}

    def write(self, records: Iterable[FileRecord] = (), removed: Iterable[str] = ()) -> None:
        self.inner.write([replace(r, path=self._names.prefix + r.path) for r in records],
                         self._names.own(removed))

    def forget_versions(self) -> None:
        self.inner.forget_versions()  # chunking settings are the index's: every tenant re-chunks

    def clear(self) -> None:
        """Drop the tenant's records (the other tenants' stay)."""
        self.write(removed=list(self.records()))

    def get_setting(self, key: str) -> str | None:
        return self.inner.get_setting(key)

    def set_setting(self, key: str, value: str) -> None:
        self.inner.set_setting(key, value)

    def __len__(self) -> int:
        return len(self.records())

    def close(self) -> None:
        self.inner.close()


class TenantSparse:
    """A ``SparseBackend`` over one tenant's chunks of a shared keyword index (every member
    of the protocol, nothing forwarded unseen): its ids namespaced, every search and lookup
    with ``tenant`` among the conditions the index applies before ranking."""

    def __init__(self, inner: SparseBackend, tenant: str) -> None:
        self.inner, self._names, self._tenant = inner, _Namespace(tenant), tenant
        self._scope = Condition(TENANT_KEY, "$eq", tenant)

    def _scoped(self, conditions: list[Node] | None) -> list[Node]:
        return [*(conditions or []), self._scope]  # ANDed: it can only narrow

    def __len__(self) -> int:
        return len(self.ids())

    def ids(self) -> list[str]:
        return [self._names.bare(i) for i in self.inner.ids() if self._names.mine(i)]

    def add(self, ids: Sequence[str], texts: Sequence[str], metadatas: Sequence[Metadata]) -> None:
        tagged = [{**metadata, TENANT_KEY: self._tenant} for metadata in metadatas]
        self.inner.add(self._names.own(ids), texts, tagged)

    def remove(self, ids: Sequence[str]) -> None:
        self.inner.remove(self._names.own(ids))

    def clear(self) -> None:
        self.inner.remove(self._names.own(self.ids()))

    def search(self, query: str, k: int, conditions: list[Node] | None = None,
               feedback_docs: int = 0, feedback_terms: int = 10,
               feedback_weight: float = 0.5) -> list[tuple[str, float]]:
        hits = self.inner.search(query, k, self._scoped(conditions), feedback_docs,
                                 feedback_terms, feedback_weight)
        return [(self._names.bare(doc_id), score) for doc_id, score in hits]

    def defining(self, query: str, conditions: list[Node] | None = None) -> list[str]:
        return [self._names.bare(i) for i in self.inner.defining(query, self._scoped(conditions))]

    def chunks_with(self, key: str, values: Sequence[MetadataValue]) -> list[tuple[str, Metadata]]:
        return [(self._names.bare(i), metadata) for i, metadata in self.inner.chunks_with(key, values)
                if self._names.mine(i)]

    def distinct_values(self, key: str) -> list[MetadataValue]:
        values = {repr(m[key]): m[key] for _, m in self.inner.chunks_with(TENANT_KEY, [self._tenant])
                  if key in m}
        return sorted(values.values(), key=lambda value: (type(value).__name__, value))

    def sync_with(self, store: StoredChunks) -> bool:
        return self.inner.sync_with(shared_store(store))

    def persist(self) -> None:
        self.inner.persist()

    def verify_files(self) -> list[str]:
        return self.inner.verify_files()

    def disk_bytes(self) -> int:
        return int(self.inner.disk_bytes())
