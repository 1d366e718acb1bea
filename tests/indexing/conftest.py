"""Fixtures of the indexing tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers import hash_config


@pytest.fixture
def store_config(request: pytest.FixtureRequest, tmp_path: Path):
    """Builds a hash-embedder config for the store of the test's ``store`` parameter."""
    def build(store: str, **limits: int) -> Any:
        if store == "postgres":
            server = request.getfixturevalue("postgres_server")
            schema = request.getfixturevalue("postgres_schema")
            vector_store = {"provider": "postgres", "url": server.url, "postgres": {"schema": schema}}
        else:
            vector_store = {"provider": store}
        return hash_config(vector_store=vector_store, chunk_size=80, chunk_overlap=0, limits=limits)
    return build
