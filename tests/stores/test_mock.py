"""The mock store runs the shared store conformance suite."""

from __future__ import annotations

import pytest

from ragloom.stores.mock import MockVectorStore
from ragloom.stores.registry import vector_stores
from ragloom.testing.stores import StoreConformance


class TestMockStore(StoreConformance):
    persistent = False

    @pytest.fixture
    def backend(self):
        return vector_stores.get("mock")

    @pytest.fixture
    def store_factory(self):
        return MockVectorStore
