"""The in-memory store runs the shared store conformance suite."""

from __future__ import annotations

import pytest

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
