"""Builds the vector store a config names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ragloom._registry import Registry
from ragloom.config import RAGConfig
from ragloom.errors import ConfigError
from ragloom.stores.base import VectorStore
from ragloom.stores.mock import MockVectorStore

StoreFactory = Callable[[RAGConfig, Path], VectorStore]

vector_stores: Registry[StoreFactory] = Registry("vector store", "vector_store.provider")


@vector_stores.register("mock")
def _mock_store(config: RAGConfig, index_dir: Path) -> VectorStore:
    return MockVectorStore()


def _not_built(name: str) -> StoreFactory:
    def factory(config: RAGConfig, index_dir: Path) -> VectorStore:
        raise ConfigError(
            f"vector_store.provider = {name!r} is not available in this ragloom version yet; "
            f"use 'mock' for now"
        )
    return factory


for _name in ("chroma", "turboquant"):
    vector_stores.register(_name)(_not_built(_name))


def create_vector_store(config: RAGConfig, index_dir: Path) -> VectorStore:
    """The store for ``config.vector_store.provider``; ``index_dir`` is ``<base_dir>/.ragloom``."""
    return vector_stores.get(config.vector_store.provider)(config, index_dir)
