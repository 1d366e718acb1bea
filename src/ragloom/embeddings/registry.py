"""Builds the embedding provider a config names."""

from __future__ import annotations

from collections.abc import Callable

from ragloom._registry import Registry
from ragloom.config import RAGConfig
from ragloom.embeddings.base import EmbeddingProvider
from ragloom.embeddings.hashing import DEFAULT_HASH_DIMENSION, HashEmbeddingProvider
from ragloom.errors import ConfigError

ProviderFactory = Callable[[RAGConfig], EmbeddingProvider]

embedding_providers: Registry[ProviderFactory] = Registry(
    "embedding provider", "embedding_provider"
)


@embedding_providers.register("hash")
def _hash_provider(config: RAGConfig) -> EmbeddingProvider:
    return HashEmbeddingProvider(config.embedding_dim or DEFAULT_HASH_DIMENSION)


def _not_built(name: str) -> ProviderFactory:
    def factory(config: RAGConfig) -> EmbeddingProvider:
        raise ConfigError(
            f"embedding_provider = {name!r} is not available in this ragloom version yet; "
            f"use 'hash' for now"
        )
    return factory


for _name in ("local", "gemini"):
    embedding_providers.register(_name)(_not_built(_name))


def create_embedding_provider(config: RAGConfig) -> EmbeddingProvider:
    """The provider for ``config.embedding_provider``."""
    return embedding_providers.get(config.embedding_provider)(config)
