"""Builds the embedding provider a config names; heavy SDKs are imported only here, lazily."""

from __future__ import annotations

from collections.abc import Callable

from ragloom._registry import Registry
from ragloom.config import RAGConfig
from ragloom.embeddings.base import EmbeddingProvider
from ragloom.embeddings.hashing import DEFAULT_HASH_DIMENSION, HashEmbeddingProvider
from ragloom.errors import ConfigError

ProviderFactory = Callable[[RAGConfig], EmbeddingProvider]

#: Built-ins plus the ``ragloom.embedding_providers`` entry points of installed plugins.
embedding_providers: Registry[ProviderFactory] = Registry(
    "embedding provider", "embedding_provider", "ragloom.embedding_providers"
)


@embedding_providers.register("hash")
def _hash_provider(config: RAGConfig) -> EmbeddingProvider:
    return HashEmbeddingProvider(config.embedding_dim or DEFAULT_HASH_DIMENSION)


@embedding_providers.register("local")
def _local_provider(config: RAGConfig) -> EmbeddingProvider:
    from ragloom.embeddings.local import DEFAULT_LOCAL_MODEL, LocalEmbeddingProvider

    provider = LocalEmbeddingProvider(
        config.embedding_model or DEFAULT_LOCAL_MODEL, device=config.embedding_device,
        batch_size=config.embedding_batch_size,
        max_seq_length=config.embedding_max_seq_length, backend=config.embedding_backend,
    )
    if config.embedding_dim is not None and config.embedding_dim != provider.dimension:
        raise ConfigError(
            f"key 'embedding_dim' = {config.embedding_dim}: local model "
            f"{provider.model_name!r} produces {provider.dimension}-d vectors"
        )
    return provider


@embedding_providers.register("gemini")
def _gemini_provider(config: RAGConfig) -> EmbeddingProvider:
    from ragloom.embeddings.gemini import DEFAULT_GEMINI_MODEL, GeminiEmbeddingProvider

    return GeminiEmbeddingProvider(
        config.embedding_model or DEFAULT_GEMINI_MODEL, config.embedding_dim,
        api_key=config.resolved_api_key(), base_url=config.embedding_base_url,
        max_concurrency=config.embedding_concurrency, max_retries=config.embedding_max_retries,
    )


def create_embedding_provider(config: RAGConfig) -> EmbeddingProvider:
    """The provider for ``config.embedding_provider``."""
    return embedding_providers.get(config.embedding_provider)(config)
