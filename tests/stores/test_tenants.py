"""Tenants on every store: tenant A never sees, counts, deletes or overwrites tenant B's
data, with any filter and any ``top_k``; a filter naming ``tenant`` is refused."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.stores.memory import MemoryVectorStore

TEXTS = {"acme": ("Apples ripen in the orchard.\n", "Pears grow beside the apple trees.\n"),
         "globex": ("Bananas grow on the plantation.\n", "Mangoes ripen beside the bananas.\n")}
WORDS = {"acme": ("apple", "pear", "orchard"), "globex": ("banana", "mango", "plantation")}
FILTERS: list[dict[str, Any] | None] = [
    None, {"source_id": "notes"}, {"source_id": {"$ne": "nothing"}},
    {"$or": [{"source_id": "notes"}, {"path": {"$glob": "**"}}]}, {"path": "shared.md"},
]

Opener = Callable[[str | None], Any]


def _backend(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Opener:
    """A function opening an engine of ``tenant`` on one store shared by every tenant."""
    project = tmp_path / "project"
    write(project, "shared.md", "# Shared\nThe same file, indexed by every tenant.\n")
    if kind == "memory":  # memory only: each tenant's engine stays open (manifest and BM25)
        shared, engines = MemoryVectorStore(), {}

        @contextmanager
        def kept(tenant: str | None) -> Iterator[RAGEngine]:
            if tenant not in engines:
                engines[tenant] = RAGEngine(hash_config(), project, vector_store=shared, tenant=tenant)
                request.addfinalizer(engines[tenant].close)
            yield engines[tenant]
        return kept
    store: dict[str, Any] = {"provider": kind}
    if kind == "chroma-server":
        pytest.importorskip("chromadb")
        store = {"provider": "chroma", "url": request.getfixturevalue("chroma_server").url,
                 "collection_name": f"t-{uuid.uuid4().hex[:8]}"}
    elif kind == "chroma":
        pytest.importorskip("chromadb")
    elif kind == "postgres":
        server, schema = (request.getfixturevalue("postgres_server"),
                          request.getfixturevalue("postgres_schema"))
        store = {"provider": "postgres", "url": server.url, "postgres": {"schema": schema}}
    config = hash_config(vector_store=store)
    return lambda tenant: RAGEngine(config, project, tenant=tenant)


@pytest.fixture(params=["memory", "turboquant", "chroma", "chroma-server", "postgres"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Opener:
    return _backend(request.param, tmp_path, request)


def _fill(opener: Opener, tenant: str) -> int:
    with opener(tenant) as engine:
        engine.index_directory()
        engine.add_documents(["notes", "more"], TEXTS[tenant])
        return int(engine.count())


def _only_own(results: list[Any], tenant: str) -> None:
    other = "globex" if tenant == "acme" else "acme"
    for result in results:
        assert result.metadata["tenant"] == tenant, result
        assert not any(word in result.text.lower() for word in WORDS[other]), result.text


def test_tenants_never_see_count_delete_or_overwrite_each_other(opener: Opener) -> None:
    acme = _fill(opener, "acme")
    globex = _fill(opener, "globex")  # the same path and source id as acme's
    assert acme == globex == 3  # shared.md and two texts each
    with opener("acme") as engine:
        assert engine.count() == 3
        assert engine.get_all_indexed_paths() == ["shared.md"]
        for filters in FILTERS:
            for top_k in (1, 3, 50):
                for query in ("banana plantation mango", "apple orchard", "same file"):
                    for mode in ("dense", "hybrid", "sparse"):
                        hits = engine.search(query, top_k=top_k, filters=filters, mode=mode)
                        _only_own(hits, "acme")
        full = engine.search("bananas grow", top_k=50, mode="dense", min_score=-1.0)
        assert len(full) == 3  # every chunk of acme's, however few it has, none of globex's
        assert engine.delete_source("notes") == 1
        assert engine.count() == 2
    with opener("globex") as engine:
        assert engine.count() == 3  # acme's delete took none of globex's chunks
        hits = engine.search("bananas plantation", top_k=3, mode="dense")
        assert any("Bananas" in hit.text for hit in hits)
        _only_own(hits, "globex")
        engine.ingest_text("notes", "Kiwis now.\n")  # overwrites globex's notes only
    with opener("acme") as engine:
        assert engine.count() == 2
        engine.ingest_text("notes", TEXTS["acme"][0])
        assert engine.count() == 3
        assert {h.text for h in engine.search("kiwis", top_k=10, mode="dense", min_score=-1.0)
                if "Kiwi" in h.text} == set()


@pytest.mark.parametrize("filters", [
    {"tenant": "globex"}, {"tenant": {"$ne": "acme"}}, {"$or": [{"path": "a"}, {"tenant": "globex"}]},
    {"$and": [{"$or": [{"tenant": {"$in": ["acme", "globex"]}}]}]},
])
def test_a_filter_naming_tenant_is_refused(filters: dict[str, Any], tmp_path: Path) -> None:
    with RAGEngine(hash_config(), tmp_path, tenant="acme") as engine:
        engine.ingest_text("notes", TEXTS["acme"][0])
        with pytest.raises(ValueError, match="filters may not name 'tenant': this engine serves "
                                             "tenant 'acme' only"):
            engine.search("apple", filters=filters)


@pytest.mark.parametrize("name", ["", "a b", "-x", "x" * 65, "a::b", "a/b", 7])
def test_a_bad_tenant_name_is_refused_naming_it(name: Any, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=f"tenant argument {name!r} is not a tenant name"):
        RAGEngine(hash_config(), tmp_path, tenant=name)


def test_the_config_key_sets_the_tenant_and_is_checked(tmp_path: Path) -> None:
    with RAGEngine(hash_config(tenant="acme"), tmp_path) as engine:
        assert engine.tenant == "acme"
        engine.ingest_text("notes", TEXTS["acme"][0])
        assert {r.metadata["tenant"] for r in engine.search("apple", top_k=5)} == {"acme"}
    with pytest.raises(Exception, match="'a b' is not a tenant name"):
        hash_config(tenant="a b")


def test_metadata_may_not_set_the_tenant(tmp_path: Path) -> None:
    with RAGEngine(hash_config(), tmp_path, tenant="acme") as engine:
        with pytest.raises(ValueError, match="metadata 1: key 'tenant' is reserved"):
            engine.add_documents(["a", "b"], ["one", "two"], [{}, {"tenant": "globex"}])
        assert engine.count() == 0


def test_an_untenanted_engine_keeps_its_files_and_ids(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "# A\nplain text\n")
    config = hash_config(vector_store={"provider": "turboquant"})
    with RAGEngine(config, tmp_path) as engine:
        engine.index_directory()
        [hit] = engine.search("plain text", top_k=1)
        assert "tenant" not in hit.metadata and "::" not in hit.id
    names = sorted(p.name for p in (tmp_path / ".ragloom").iterdir())
    assert "manifest_turboquant_ragloom.sqlite" in names and not any("@" in n for n in names)
    with RAGEngine(config, tmp_path, tenant="acme") as engine:
        assert engine.count() == 0  # the untenanted chunks are no tenant's
        engine.index_directory()
        assert engine.count() == 1
    assert "manifest_turboquant_ragloom@acme.sqlite" in {p.name for p in (tmp_path / ".ragloom").iterdir()}


def test_a_service_writes_for_many_tenants(opener: Opener) -> None:
    with opener(None) as service:
        for tenant in ("acme", "globex"):
            report = service.add_documents(["notes", "more"], TEXTS[tenant], tenant=tenant)
            assert report.chunks_embedded == 2
        assert service.delete_source("more", tenant="globex") == 1
        service.ingest_text("notes", "Kiwis now.\n", tenant="globex")
        with pytest.raises(ValueError, match="tenant argument 'a b' is not a tenant name"):
            service.ingest_text("x", "text", tenant="a b")
        with pytest.raises(ValueError, match="metadata 0: key 'tenant' is reserved"):
            service.ingest_text("x", "text", {"tenant": "acme"}, tenant="globex")
        assert service.verify().ok, service.verify().problems  # the tenants' chunks are theirs
    with opener(None) as service:  # a run over the files never takes the tenants' texts away
        service.index_directory()
        assert service.verify().ok, service.verify().problems
    with opener("acme") as engine:
        assert engine.count() == 2
        _only_own(engine.search("bananas kiwis apples", top_k=10, mode="dense", min_score=-1.0), "acme")
        with pytest.raises(ValueError, match="tenant argument 'globex': this engine serves tenant "
                                             "'acme' only"):
            engine.ingest_text("x", "text", tenant="globex")
    with opener("globex") as engine:
        assert [h.text for h in engine.search("kiwis", top_k=10, mode="dense", min_score=-1.0)] == [
            "Kiwis now.\n"]
        if engine.persistent:  # the in-memory store's records live in the writing engine only
            assert engine.verify().ok, engine.verify().problems


def test_a_tenant_rebuild_empties_that_tenant_and_never_discards_the_shared_store(
        tmp_path: Path) -> None:
    from ragloom.errors import RebuildNeededError

    config = hash_config(vector_store={"provider": "turboquant"})
    for tenant in ("acme", "globex"):
        with RAGEngine(config, tmp_path, tenant=tenant) as engine:
            engine.add_documents(["notes", "more"], TEXTS[tenant])
    with RAGEngine(config, tmp_path, tenant="acme", rebuild=True) as engine:
        assert engine.count() == 0  # acme's chunks and records went
    other_model = hash_config(vector_store={"provider": "turboquant"}, embedding={"dim": 48})
    with pytest.raises(RebuildNeededError, match="tenant 'acme' cannot discard the store every "
                                                 "tenant shares"):
        RAGEngine(other_model, tmp_path, tenant="acme", rebuild=True)
    with RAGEngine(config, tmp_path, tenant="globex") as engine:
        assert engine.count() == 2
        assert engine.verify().ok
