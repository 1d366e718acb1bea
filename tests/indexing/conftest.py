"""Fixtures of the indexing tests."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from helpers import hash_config


@pytest.fixture
def store_config(request: pytest.FixtureRequest, tmp_path: Path):
    """Builds a hash-embedder config for the store of the test's ``store`` parameter (a
    name of ``helpers.every_store``)."""
    def build(store: str, **limits: int) -> Any:
        if store.startswith("chroma"):
            pytest.importorskip("chromadb")
        if store == "postgres":
            server = request.getfixturevalue("postgres_server")
            schema = request.getfixturevalue("postgres_schema")
            vector_store = {"provider": "postgres", "url": server.url, "postgres": {"schema": schema}}
        elif store == "chroma-server":  # a collection of its own on the shared server
            vector_store = {"provider": "chroma", "url": request.getfixturevalue("chroma_server").url,
                            "collection_name": f"q-{uuid.uuid4().hex[:8]}"}
        else:
            vector_store = {"provider": store}
        return hash_config(vector_store=vector_store, chunk_size=80, chunk_overlap=0, limits=limits)
    return build
