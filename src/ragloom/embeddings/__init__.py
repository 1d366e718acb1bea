"""Embedding providers and the on-disk embedding cache."""

from typing import TYPE_CHECKING

from ragloom._lazy import lazy_exports

if TYPE_CHECKING:
    from ragloom.embeddings.base import EmbeddingProvider, EmbeddingTask
    from ragloom.embeddings.cache import CachedEmbedder, EmbeddingCache
    from ragloom.embeddings.hashing import HashEmbeddingProvider
    from ragloom.embeddings.registry import create_embedding_provider, embedding_providers

_EXPORTS = {
    "EmbeddingProvider": "ragloom.embeddings.base",
    "EmbeddingTask": "ragloom.embeddings.base",
    "CachedEmbedder": "ragloom.embeddings.cache",
    "EmbeddingCache": "ragloom.embeddings.cache",
    "HashEmbeddingProvider": "ragloom.embeddings.hashing",
    "create_embedding_provider": "ragloom.embeddings.registry",
    "embedding_providers": "ragloom.embeddings.registry",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = [
    "CachedEmbedder",
    "EmbeddingCache",
    "EmbeddingProvider",
    "EmbeddingTask",
    "HashEmbeddingProvider",
    "create_embedding_provider",
    "embedding_providers",
]
