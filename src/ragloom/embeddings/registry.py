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
    "embedding provider", "embedding.provider", "ragloom.embedding_providers"
)


@embedding_providers.register("hash")
def _hash_provider(config: RAGConfig) -> EmbeddingProvider:
    return HashEmbeddingProvider(config.embedding.dim or DEFAULT_HASH_DIMENSION)


@embedding_providers.register("local")
def _local_provider(config: RAGConfig) -> EmbeddingProvider:
    from ragloom.embeddings.local import DEFAULT_LOCAL_MODEL, LocalEmbeddingProvider

    table = config.embedding
    provider = LocalEmbeddingProvider(
        table.model or DEFAULT_LOCAL_MODEL, device=table.device, batch_size=table.batch_size,
        max_seq_length=table.max_seq_length, backend=table.backend,
    )
    if table.dim is not None and table.dim != provider.dimension:
        raise ConfigError(
            f"key 'embedding.dim' = {table.dim}: local model "
            f"{provider.model_name!r} produces {provider.dimension}-d vectors"
        )
    return provider


@embedding_providers.register("gemini")
def _gemini_provider(config: RAGConfig) -> EmbeddingProvider:
    from ragloom.embeddings.gemini import DEFAULT_GEMINI_MODEL, GeminiEmbeddingProvider

    table = config.embedding
    return GeminiEmbeddingProvider(
        table.model or DEFAULT_GEMINI_MODEL, table.dim,
        api_key=table.resolved_api_key(), base_url=table.base_url,
        max_concurrency=table.concurrency, max_retries=table.max_retries,
    )


def create_embedding_provider(config: RAGConfig) -> EmbeddingProvider:
    """The provider for ``config.embedding.provider``."""
    return embedding_providers.get(config.embedding.provider)(config)
