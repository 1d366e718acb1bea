"""Vector stores: where chunk vectors, texts and metadata are kept and searched."""

from ragloom.stores.base import VectorStore
from ragloom.stores.mock import MockVectorStore
from ragloom.stores.registry import create_vector_store, vector_stores

__all__ = ["MockVectorStore", "VectorStore", "create_vector_store", "vector_stores"]
