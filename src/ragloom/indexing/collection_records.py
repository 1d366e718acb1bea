"""The file records of a whole collection, every tenant's together, for the collection-wide
``[rag.limits]`` (``max_chunks``, ``max_files``, ``max_bytes``) when a collection is shared
by tenants: a limit of the collection bounds all of it, whoever writes.

A store that keeps the manifest itself (Postgres) holds every tenant's records in one table
(``indexing.tenant_state``); local files keep a manifest per tenant beside the untenanted
one (``manifest_x_docs@acme.sqlite``, ``tenancy.tenant_file``), each read here read-only.
A manifest in memory (a store that is not persistent) knows only its own records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragloom.indexing.manifest import FileRecord, Manifest
from ragloom.indexing.tenant_state import TenantManifest
from ragloom.tenancy import SEPARATOR, check_tenant, tenant_file


class _Shared:
    """Every record of a manifest shared by tenants (names carry the tenant's prefix)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def records(self) -> dict[str, FileRecord]:
        return dict(self.inner.records())


class _Family:
    """The records of the untenanted manifest file and of every tenant's one beside it; the
    writer's own manifest is read through its open connection."""

    def __init__(self, own: Any, untenanted: Path, own_tenant: str | None) -> None:
        self.own, self.untenanted, self.own_tenant = own, untenanted, own_tenant
        stem, dot, suffix = untenanted.name.partition(".")
        self._head, self._tail = stem + "@", dot + suffix

    def _tenants(self) -> list[str]:
        """The tenants with a manifest file of this collection (by file name)."""
        found = []
        for file in self.untenanted.parent.iterdir():
            name = file.name
            if name.startswith(self._head) and name.endswith(self._tail):
                tenant = name[len(self._head):len(name) - len(self._tail)]
                try:
                    found.append(check_tenant(tenant))
                except ValueError:
                    continue  # not a tenant's file
        return sorted(found)

    def records(self) -> dict[str, FileRecord]:
        every: dict[str, FileRecord] = {}
        for tenant in [None, *self._tenants()]:
            prefix = "" if tenant is None else tenant + SEPARATOR
            every.update({prefix + key: record for key, record in self._of(tenant).items()})
        return every

    def _of(self, tenant: str | None) -> dict[str, FileRecord]:
        if tenant == self.own_tenant:
            return dict(self.own.records())
        path = self.untenanted.with_name(tenant_file(self.untenanted.name, tenant))
        if not path.is_file():
            return {}
        manifest = Manifest(path, read_only=True)
        try:
            return manifest.records()
        finally:
            manifest.close()


def whole_collection(manifest: Any, tenant: str | None) -> Any:
    """What reads the records of the whole collection ``manifest`` (``tenant``'s share, or
    the untenanted one) belongs to: an object with ``records()``."""
    if isinstance(manifest, TenantManifest):
        return _Shared(manifest.inner)
    path = getattr(manifest, "path", None)
    if not isinstance(path, Path):
        return manifest
    untenanted = path
    if tenant is not None:  # manifest_x_docs@acme.sqlite -> manifest_x_docs.sqlite
        stem, dot, suffix = path.name.partition(".")
        untenanted = path.with_name(stem.removesuffix("@" + tenant) + dot + suffix)
    return _Family(manifest, untenanted, tenant)
