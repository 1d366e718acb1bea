"""The mock store runs the shared store conformance suite."""

from __future__ import annotations

import pytest
from conformance import StoreConformance

from ragloom.stores.mock import MockVectorStore


class TestMockStore(StoreConformance):
    persistent = False

    @pytest.fixture
    def store_factory(self):
        return MockVectorStore
