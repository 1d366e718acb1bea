"""Checking a config against the backends installed here: the names it gives (embedding
provider, vector store, reranker) and the plugin stores' sub-tables.

Parsing a config checks its shape only, so reading one never lists or imports plugins;
``RAGEngine`` runs this check before it builds anything, and ``ragloom.check_config``
lets an application run it on its own (say, when a settings page is saved)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from ragloom.config import RAGConfig
from ragloom.embeddings.registry import embedding_providers
from ragloom.errors import ConfigError
from ragloom.retrieval.rerankers import rerankers
from ragloom.stores.registry import store_settings, vector_stores


def check_config(config: RAGConfig) -> None:
    """ConfigError naming the key and listing the valid names for a backend that is not a
    built-in, an installed plugin or an importable ``module:factory`` path, or naming the
    table of a store sub-table that does not validate; the file the config was read from
    comes first."""
    try:
        embedding_providers.get(config.embedding.provider)
        vector_stores.get(config.vector_store.provider)
        if config.retrieval.reranker:
            rerankers.get(config.retrieval.reranker)
        for name in sorted({config.vector_store.provider, *config.vector_store.settings}):
            store_settings(config, name)
    except ConfigError as exc:
        raise _naming_the_file(config, exc) from None


InitT = TypeVar("InitT", bound=Callable[..., None])


def naming_the_config_file(init: InitT) -> InitT:
    """Wrap an engine's ``__init__`` so that a ConfigError raised while it builds (an unknown
    backend name, a chunk size the model cannot read, a store setting) names the file and
    table the config was read from, as the errors of parsing it do."""

    @wraps(init)
    def building(engine: Any, *args: Any, **kwargs: Any) -> None:
        try:
            init(engine, *args, **kwargs)
        except ConfigError as exc:
            config = getattr(engine, "config", None)
            if not isinstance(config, RAGConfig):
                raise
            raise _naming_the_file(config, exc) from None

    return cast(InitT, building)  # the same call, errors naming the file


def _naming_the_file(config: RAGConfig, error: ConfigError) -> ConfigError:
    """``error`` with the config's file and table in front (unless it names them already)."""
    if config.source is None or str(error).startswith(str(config.source_file)):
        return error
    return ConfigError(f"{config.source}: {error}")
