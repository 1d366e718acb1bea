"""Vector stores: where chunk vectors, texts and metadata are kept and searched."""

from typing import TYPE_CHECKING

from ragloom._lazy import lazy_exports

if TYPE_CHECKING:
    from ragloom.stores.base import VectorStore
    from ragloom.stores.mock import MockVectorStore
    from ragloom.stores.registry import create_vector_store, vector_stores

_EXPORTS = {
    "VectorStore": "ragloom.stores.base",
    "MockVectorStore": "ragloom.stores.mock",
    "create_vector_store": "ragloom.stores.registry",
    "vector_stores": "ragloom.stores.registry",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = ["MockVectorStore", "VectorStore", "create_vector_store", "vector_stores"]
