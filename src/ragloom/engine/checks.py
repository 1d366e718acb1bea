"""Checking a config against the backends installed here: the names it gives (embedding
provider, vector store, reranker) and the plugin stores' sub-tables.

Parsing a config checks its shape only, so reading one never lists or imports plugins;
``RAGEngine`` runs this check before it builds anything, and ``ragloom.check_config``
lets an application run it on its own (say, when a settings page is saved)."""

from __future__ import annotations

from ragloom.config import RAGConfig
from ragloom.embeddings.registry import embedding_providers
from ragloom.retrieval.rerankers import rerankers
from ragloom.stores.registry import store_settings, vector_stores


def check_config(config: RAGConfig) -> None:
    """ConfigError naming the key and listing the valid names for a backend that is not a
    built-in, an installed plugin or an importable ``module:factory`` path, or naming the
    table of a store sub-table that does not validate."""
    embedding_providers.get(config.embedding_provider)
    vector_stores.get(config.vector_store.provider)
    if config.retrieval.reranker:
        rerankers.get(config.retrieval.reranker)
    for name in sorted({config.vector_store.provider, *config.vector_store.plugin_settings}):
        store_settings(config, name)
