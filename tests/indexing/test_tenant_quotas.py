"""[rag.limits] with tenants: each ``*_per_tenant`` limit refuses exactly the call that
would take one tenant's share past it, on every store (a service's ``tenant=`` writes),
whatever the path (a tenant's engine indexing a folder or a file; TurboQuant and
Postgres), counts that tenant's data only, and writes nothing (every tenant's data as it
was); the collection's limits count every tenant's data together; status shows both."""

from __future__ import annotations

import io
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest

from helpers import every_store, hash_config, write
from ragloom import QuotaExceededError, RAGEngine
from ragloom.config import parse_config
from ragloom.errors import ConfigError

STORES = ["turboquant", "postgres"]
#: Texts of one chunk and 10 bytes each: every figure grows by one text's worth.
TEXT = "word {:05}"
PER_TEXT = {"files": 1, "chunks": 1, "bytes": 10}


def texts(tenant: str, first: int, count: int) -> tuple[list[str], list[str]]:
    """``count`` ids and texts of ``tenant``, numbered from ``first``."""
    numbers = range(first, first + count)
    return [f"{tenant}-{n}" for n in numbers], [TEXT.format(n) for n in numbers]


def everything(config: Any, root: Path, service: RAGEngine | None = None) -> tuple:
    """Every tenant's data, read by an engine of no tenant (``service`` itself when given:
    another engine sees nothing of the in-memory store): each chunk's id and text, the
    whole collection's file records, the BM25 paths and, for a store in files, every byte
    of the index folder but its lock files."""
    with nullcontext(service) if service else RAGEngine(config, root, read_only=True) as engine:
        ids = sorted(engine.store.ids())
        chunks = [(c.id, c.text, c.metadata.get("tenant")) for c in engine.store.get(ids)]
        records = {key: (r.size, r.sha256, r.chunk_ids)
                   for key, r in engine._indexer.quota.whole.records().items()}
        files = {str(file.relative_to(engine.index_dir)): file.read_bytes()
                 for file in sorted(engine.index_dir.rglob("*"))
                 if file.is_file() and "lock" not in file.name}
        return chunks, records, engine.sparse.distinct_values("path"), files


@pytest.mark.parametrize("store", every_store())
@pytest.mark.parametrize("figure", ["files", "chunks", "bytes"])
def test_a_per_tenant_limit_refuses_the_service_write_that_would_exceed_it(
        store: str, figure: str, store_config: Any, tmp_path: Path) -> None:
    limit = 3 * PER_TEXT[figure]
    key = f"max_{figure}_per_tenant"
    config = store_config(store, **{key: limit})
    with RAGEngine(config, tmp_path) as service:
        service.add_documents(*texts("globex", 0, 3), tenant="globex")  # globex at its limit
        service.ingest_text(*[part[0] for part in texts("acme", 0, 1)], tenant="acme")
        before = everything(config, tmp_path, service)  # Chroma in files has one reader
        with pytest.raises(QuotaExceededError) as caught:
            service.add_documents(*texts("acme", 1, 3), tenant="acme")
        error = caught.value
        one = PER_TEXT[figure]
        assert (error.limit, error.tenant, error.current, error.adding, error.maximum) == (
            key, "acme", one, 3 * one, limit)  # globex's data is not acme's
        collection = config.vector_store.collection_name
        assert str(error) == (
            f"{key} of tenant 'acme' in collection '{collection}' would be exceeded: {one:,} now "
            f"+ {3 * one:,} from this call = {4 * one:,} > limit {limit:,}; nothing of this "
            f"call was written ([rag.limits] {key})")
        assert everything(config, tmp_path, service) == before
        service.add_documents(*texts("acme", 1, 2), tenant="acme")  # exactly at the limit
        with pytest.raises(QuotaExceededError):
            service.ingest_text(*[part[0] for part in texts("acme", 3, 1)], tenant="acme")
        service.ingest_text("globex-0", TEXT.format(9), tenant="globex")  # replaces: same figures
        assert service.status(count_pending=False).limits == {}  # no tenant: no share to show
    if store == "memory":
        return  # nothing of it is left for the next engine
    with RAGEngine(config, tmp_path, tenant="acme", read_only=True) as acme:
        assert acme.status(count_pending=False).limits == {key: {"used": limit, "limit": limit}}


@pytest.mark.parametrize("store", STORES)
def test_a_tenant_engine_indexing_a_folder_or_a_file_is_checked_against_its_share(
        store: str, store_config: Any, tmp_path: Path) -> None:
    root = tmp_path / "p"
    write(root, "shared.md", "# Shared\nEvery tenant indexes this file.\n")
    config = store_config(store, max_files_per_tenant=2)
    RAGEngine(config, root).close()  # the untenanted index, which ``everything`` reads
    with RAGEngine(config, root, tenant="globex") as globex:
        globex.index_directory()
        globex.ingest_text("note", "globex's own note")  # globex: 2 of 2
    with RAGEngine(config, root, tenant="acme") as acme:
        assert acme.index_directory().files_indexed == 1  # globex's two files are not acme's
    write(root, "one.md", "# One\nfirst new file\n")
    write(root, "two.md", "# Two\nsecond new file\n")
    with RAGEngine(config, root, tenant="acme") as acme:
        before = everything(config, root)
        with pytest.raises(QuotaExceededError) as caught:
            acme.index_directory()
        assert (caught.value.limit, caught.value.tenant, caught.value.current,
                caught.value.adding) == ("max_files_per_tenant", "acme", 1, 2)
        assert everything(config, root) == before
    with RAGEngine(config, root, tenant="acme") as acme:
        assert acme.index_file(root / "one.md").files_indexed == 1  # exactly at the limit
        with pytest.raises(QuotaExceededError):
            acme.index_file(root / "two.md")
        status = acme.status(count_pending=False)
        assert status.limits == {"max_files_per_tenant": {"used": 2, "limit": 2}}
        assert status.to_dict()["limits"] == status.limits


@pytest.mark.parametrize("store", STORES)
def test_the_collection_limits_count_every_tenant_together(
        store: str, store_config: Any, tmp_path: Path) -> None:
    config = store_config(store, max_chunks=4, max_chunks_per_tenant=3)
    with RAGEngine(config, tmp_path) as service:
        service.add_documents(*texts("globex", 0, 2), tenant="globex")
        service.ingest_text("own", TEXT.format(7))  # the untenanted share counts too
        service.ingest_text(*[part[0] for part in texts("acme", 0, 1)], tenant="acme")  # 4 of 4
        before = everything(config, tmp_path)
        with pytest.raises(QuotaExceededError) as untenanted:
            service.ingest_text("more", TEXT.format(8))
        assert (untenanted.value.tenant, untenanted.value.current) == (None, 4)
        assert service.status(count_pending=False).limits == {"max_chunks": {"used": 4, "limit": 4}}
        assert everything(config, tmp_path) == before
    with RAGEngine(config, tmp_path, tenant="acme") as acme:
        before = everything(config, tmp_path)
        with pytest.raises(QuotaExceededError) as caught:
            acme.ingest_text("acme-1", TEXT.format(1))  # acme's share (1 of 3) has room
        assert str(caught.value) == (
            "max_chunks of collection 'ragloom' (all tenants together) would be exceeded by a "
            "write of tenant 'acme': 4 now + 1 from this call = 5 > limit 4; nothing of this "
            "call was written ([rag.limits] max_chunks)")
        assert everything(config, tmp_path) == before
        assert acme.status(count_pending=False).limits == {
            "max_chunks": {"used": 4, "limit": 4},
            "max_chunks_per_tenant": {"used": 1, "limit": 3}}
    with RAGEngine(config, tmp_path) as service:
        assert service.delete_source("globex-0", tenant="globex") == 1
        service.ingest_text("acme-1", TEXT.format(1), tenant="acme")  # room again: 4 of 4


def test_status_prints_the_tenant_share_and_the_collection_total(store_config: Any, tmp_path: Path) -> None:
    from ragloom.apps.status_view import print_status
    from ragloom.indexing.disk_status import read_status

    config = store_config("turboquant", max_files=10, max_files_per_tenant=4)
    with RAGEngine(config, tmp_path) as service:
        service.add_documents(*texts("acme", 0, 3), tenant="acme")
        service.add_documents(*texts("globex", 0, 2), tenant="globex")
        service.ingest_text("own", TEXT.format(7))  # a text of no tenant
    with RAGEngine(config, tmp_path, tenant="acme", read_only=True) as acme:
        out = io.StringIO()
        print_status(acme.status(count_pending=False), None, False, out)
    assert ("limits:\n  max_files: 6 of 10 (60%)\n  max_files_per_tenant: 3 of 4 (75%)"
            in out.getvalue())
    # the CLI's status from disk counts every tenant, and leaves a tenant's to its engine
    assert read_status(config, tmp_path).limits == {"max_files": {"used": 6, "limit": 10}}
    assert read_status(config.model_copy(update={"tenant": "acme"}), tmp_path) is None


def test_per_tenant_limits_are_validated_naming_the_key() -> None:
    with pytest.raises(ConfigError, match="max_bytes_per_tenant"):
        parse_config({"embedding": {"provider": "hash"}, "limits": {"max_bytes_per_tenant": 0}})


def test_ragloom_status_json_of_a_tenant_config_shows_its_share(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    config = hash_config(vector_store={"provider": "turboquant"},
                         limits={"max_bytes": 1000, "max_bytes_per_tenant": 100})
    with RAGEngine(config, tmp_path) as service:
        service.add_documents(*texts("acme", 0, 2), tenant="acme")
        service.add_documents(*texts("globex", 0, 3), tenant="globex")
        service.ingest_text("own", TEXT.format(7))  # the untenanted index, readable from disk
    write(tmp_path, "ragloom.toml", '[rag]\nembedding.provider = "hash"\ntenant = "acme"\n'
          '[rag.vector_store]\nprovider = "turboquant"\n'
          '[rag.limits]\nmax_bytes = 1000\nmax_bytes_per_tenant = 100\n')
    result = subprocess.run([sys.executable, "-m", "ragloom", "status", "--json"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["limits"] == {
        "max_bytes": {"used": 60, "limit": 1000}, "max_bytes_per_tenant": {"used": 20, "limit": 100}}


def test_a_tenant_memory_turn_past_its_limit_names_the_tenant(store_config: Any,
                                                              tmp_path: Path) -> None:
    from ragloom.apps.memory import MemoryStore

    config = store_config("turboquant", max_memory_turns=1)
    with RAGEngine(config, tmp_path, tenant="acme") as acme:
        memory = MemoryStore.for_engine(acme)
        try:
            memory.add("u1", "user", "hello")
            with pytest.raises(QuotaExceededError) as caught:
                memory.add("u1", "assistant", "hi")
        finally:
            memory.close()
    assert caught.value.tenant == "acme"
    assert str(caught.value) == (
        "max_memory_turns of session 'u1' of tenant 'acme' would be exceeded: 1 now + 1 from "
        "this call = 2 > limit 1; nothing of this call was written ([rag.limits] max_memory_turns)")
