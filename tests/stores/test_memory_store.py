"""The in-memory store runs the shared store conformance suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.stores.memory import MemoryVectorStore
from ragloom.stores.registry import vector_stores
from ragloom.testing.stores import StoreConformance


class TestMemoryStore(StoreConformance):
    persistent = False

    @pytest.fixture
    def backend(self):
        return vector_stores.get("memory")

    @pytest.fixture
    def store_factory(self):
        return MemoryVectorStore


def test_a_ready_made_store_is_as_persistent_as_the_backend_of_its_name(tmp_path: Path) -> None:
    """Whether a store keeps data is said once, by its backend: a store passed ready-made
    is judged by the backend registered under its name, or as persistent without one (the
    manifest and BM25 index then go to files beside it)."""
    class Unregistered(MemoryVectorStore):
        name = "elsewhere"

    for store, persistent, files in ((MemoryVectorStore(), False, []),
                                     (Unregistered(), True, ["manifest_elsewhere_ragloom.sqlite"])):
        project = tmp_path / store.name
        write(project, "a.md", "# Tokens\nRefresh tokens rotate every hour.\n")
        with RAGEngine(hash_config(), project, vector_store=store) as engine:
            engine.index_directory()
            assert engine.persistent is persistent
        assert sorted(p.name for p in (project / ".ragloom").glob("manifest_*.sqlite")) == files
