"""What the collection-wide [rag.limits] check costs a write when a local collection is
shared by many tenants: it reads every tenant's manifest file beside the store. A service
writes 20 texts for each of N tenants, then the whole collection's records are read as a
checked write reads them (the untenanted manifest and each tenant's, read-only); the
median of 20 reads is printed. The ``*_per_tenant`` limits read the tenant's own manifest
only and cost nothing of this.

    python bench/tenant_quota_check.py [TENANTS ...]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from ragloom import RAGConfig, RAGEngine
from ragloom.indexing.collection_records import whole_collection
from ragloom.indexing.manifest import Manifest
from ragloom.layout import IndexLayout


def measure(tenants: int) -> tuple[int, float]:
    """Records in the collection and the median seconds to read them all."""
    folder = Path(tempfile.mkdtemp())
    config = RAGConfig(embedding={"provider": "hash", "cache": False},
                       vector_store={"provider": "turboquant"})
    with RAGEngine(config, folder) as service:
        service.ingest_text("own", "a text of no tenant")
        for tenant in range(tenants):
            service.add_documents([f"d{i}" for i in range(20)],
                                  [f"text {i} of tenant {tenant}" for i in range(20)],
                                  tenant=f"t{tenant}")
    layout = IndexLayout(folder / config.index_dir, config.vector_store.collection_name)
    manifest = Manifest(layout.manifest("turboquant"), read_only=True)
    try:
        whole = whole_collection(manifest, None)
        seconds = []
        for _ in range(20):
            started = time.perf_counter()
            records = whole.records()
            seconds.append(time.perf_counter() - started)
    finally:
        manifest.close()
    return len(records), statistics.median(seconds)


def main() -> None:
    for tenants in [int(arg) for arg in sys.argv[1:]] or [10, 100]:
        records, seconds = measure(tenants)
        print(f"{tenants} tenants, {records:,} records: {seconds * 1000:.1f} ms to read the "
              f"whole collection's records (median of 20)")


if __name__ == "__main__":
    main()
