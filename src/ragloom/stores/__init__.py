"""Vector stores: where chunk vectors, texts and metadata are kept and searched."""

from typing import TYPE_CHECKING

from ragloom._lazy import lazy_exports

if TYPE_CHECKING:
    from ragloom.stores.base import VectorStore
    from ragloom.stores.memory import MemoryVectorStore

_EXPORTS = {
    "VectorStore": "ragloom.stores.base",
    "MemoryVectorStore": "ragloom.stores.memory",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = ["MemoryVectorStore", "VectorStore"]
