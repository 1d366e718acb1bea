"""Embedding providers and the on-disk embedding cache."""

from ragloom.embeddings.base import EmbeddingProvider, EmbeddingTask
from ragloom.embeddings.cache import CachedEmbedder, EmbeddingCache
from ragloom.embeddings.hashing import HashEmbeddingProvider
from ragloom.embeddings.registry import create_embedding_provider, embedding_providers

__all__ = [
    "CachedEmbedder",
    "EmbeddingCache",
    "EmbeddingProvider",
    "EmbeddingTask",
    "HashEmbeddingProvider",
    "create_embedding_provider",
    "embedding_providers",
]
