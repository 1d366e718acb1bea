"""Names of a tenant's own files (``ragloom.tenancy.tenant_file``, asked by ``ragloom.layout``)."""

from __future__ import annotations

from itertools import product
from pathlib import Path

from ragloom.layout import IndexLayout
from ragloom.tenancy import tenant_file


def test_a_tenants_file_is_named_before_its_type_suffix() -> None:
    assert tenant_file("memory.sqlite", "acme") == "memory@acme.sqlite"
    assert tenant_file("manifest_turboquant_my.docs.sqlite", "acme") == \
        "manifest_turboquant_my.docs@acme.sqlite"
    assert tenant_file("lock", "acme") == "lock@acme"
    assert tenant_file("memory.sqlite", None) == "memory.sqlite"


def test_no_two_collection_and_tenant_pairs_share_a_file() -> None:
    """Dots are allowed in collection and tenant names: ``my.docs`` of tenant ``acme`` and
    ``my`` of tenant ``acme.docs`` must not open each other's manifest or BM25 index."""
    collections, tenants = ["my", "my.docs", "my.docs.v2", "docs"], [None, "acme", "acme.docs", "docs"]
    names: dict[str, tuple[str, str | None]] = {}
    for collection, tenant in product(collections, tenants):
        layout = IndexLayout(Path("index"), collection, tenant)
        for path in (layout.manifest("turboquant"), layout.bm25("turboquant")):
            assert names.setdefault(path.name, (collection, tenant)) == (collection, tenant), path.name
    assert len(names) == 2 * len(collections) * len(tenants)
