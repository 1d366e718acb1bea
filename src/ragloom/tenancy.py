"""Tenant names and the scope of a tenant's reads: the rules every part applies the same
way (the store view in ``stores.tenant``, the config key, the engine's arguments)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ragloom.filters import Filters
from ragloom.types import Metadata

#: The metadata key every tenant's chunk carries (reserved: callers may not set or filter it).
TENANT_KEY = "tenant"
#: Between the tenant and a chunk's own id in the store.
SEPARATOR = "::"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def check_tenant(tenant: object, where: str = "tenant") -> str:
    """``tenant`` if it is a valid name: 1-64 letters, digits, ``_``, ``.``, ``-``,
    starting with a letter or digit (it goes into ids and file names); else ValueError."""
    if not isinstance(tenant, str) or not _NAME.fullmatch(tenant):
        raise ValueError(f"{where} {tenant!r} is not a tenant name: use 1-64 letters, digits, "
                         f"'_', '.' or '-', starting with a letter or digit")
    return tenant


def _keys(filters: Any) -> Iterator[str]:
    """Every metadata key a filter names, through ``$and``/``$or`` at any depth."""
    if isinstance(filters, Mapping):
        for key, value in filters.items():
            if key in ("$and", "$or") and isinstance(value, (list, tuple)):
                for branch in value:
                    yield from _keys(branch)
            else:
                yield str(key)


def scoped_filters(tenant: str, filters: Filters | None) -> dict[str, Any]:
    """``filters`` narrowed to ``tenant``; a filter naming ``tenant`` itself is refused
    (it could only widen or contradict the scope)."""
    if TENANT_KEY in set(_keys(filters)):
        raise ValueError(f"filters may not name {TENANT_KEY!r}: this engine serves tenant "
                         f"{tenant!r} only, and its searches are scoped to it")
    return {**(filters or {}), TENANT_KEY: tenant}


def refuse_tenant_metadata(tenant: str | None, metadatas: Sequence[Metadata | None]) -> None:
    """ValueError when a tenant's caller sets the reserved ``tenant`` metadata key."""
    for number, metadata in enumerate(metadatas):
        if tenant is not None and metadata and TENANT_KEY in metadata:
            raise ValueError(f"metadata {number}: key {TENANT_KEY!r} is reserved (this engine "
                             f"sets it to {tenant!r})")


def tenant_file(name: str, tenant: str | None) -> str:
    """The name of a file of the index's own, or of its tenant's one
    (``memory.sqlite`` -> ``memory@acme.sqlite``)."""
    if tenant is None:
        return name
    stem, dot, suffix = name.rpartition(".")  # before the type suffix: a collection may hold dots
    return f"{stem}@{tenant}{dot}{suffix}" if dot else f"{name}@{tenant}"


def tenant_of_id(chunk_id: str) -> str | None:
    """The tenant a stored chunk id belongs to (``acme::...`` -> ``acme``), or None."""
    tenant, separator, _ = chunk_id.partition(SEPARATOR)
    return tenant if separator and _NAME.fullmatch(tenant) else None
