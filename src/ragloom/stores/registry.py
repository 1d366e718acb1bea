"""Builds the vector store a config names; heavy clients are imported only here, lazily."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ValidationError

from ragloom._registry import Registry
from ragloom.config import RAGConfig
from ragloom.config.messages import describe_errors
from ragloom.config.tables import TurboQuantSettings
from ragloom.errors import ConfigError, did_you_mean
from ragloom.layout import IndexLayout
from ragloom.stores.mcp_settings import McpBridgeSettings
from ragloom.stores.postgres import PostgresSettings, Tables

if TYPE_CHECKING:  # the stores (and numpy) are imported when one is built
    from ragloom.stores.base import EmbeddingSpec, VectorStore

#: (config, base_dir, embedding, read_only) -> store; a read-only store never creates,
#: rebuilds or deletes anything, and raises IndexNotFoundError when there is nothing to read.
StoreFactory = Callable[[RAGConfig, Path, "EmbeddingSpec", bool], "VectorStore"]

#: Built-ins plus the ``ragloom.vector_stores`` entry points of installed plugins.
vector_stores: Registry[StoreFactory] = Registry("vector store", "vector_store.provider",
                                                 "ragloom.vector_stores")


def store_path(config: RAGConfig, base_dir: Path) -> Path:
    """``vector_store.path`` resolved against base_dir, by default
    ``<base_dir>/<index_dir>/<provider>_<collection_name>``."""
    settings = config.vector_store
    if settings.path:
        path = Path(settings.path).expanduser()
        return path if path.is_absolute() else base_dir / path
    layout = IndexLayout(base_dir / config.index_dir, settings.collection_name)
    return layout.store_folder(settings.provider)


def store_is_persistent(config: RAGConfig) -> bool:
    """Whether the configured store keeps data on disk or a server, known before it opens:
    a factory says ``persistent = False`` (an attribute) when its store lives in memory."""
    return bool(getattr(vector_stores.get(config.vector_store.provider), "persistent", True))


def store_owns_index_state(config: RAGConfig) -> bool:
    """Whether the configured store keeps manifest, BM25 index, embedding cache and writer
    lock itself, known before it opens: its factory says ``owns_index_state = True``."""
    return bool(getattr(vector_stores.get(config.vector_store.provider), "owns_index_state", False))


def store_keeps_local_files(config: RAGConfig) -> bool:
    """Whether the configured store keeps its data in files under ``store_path`` (no server
    url set), named after its provider key, with ragloom's manifest and BM25 index beside
    it: its factory says ``local_files = True``. ``ragloom status`` then reads the index's
    files without opening the store (``indexing.disk_status``)."""
    factory = vector_stores.get(config.vector_store.provider)
    return bool(getattr(factory, "local_files", False)) and not config.vector_store.url


@vector_stores.register("mock")
def _mock_store(config: RAGConfig, base_dir: Path, embedding: EmbeddingSpec,
                read_only: bool) -> VectorStore:
    from ragloom.stores.mock import MockVectorStore

    return MockVectorStore()


_mock_store.persistent = False  # type: ignore[attr-defined]


@vector_stores.register("chroma")
def _chroma_store(config: RAGConfig, base_dir: Path, embedding: EmbeddingSpec,
                  read_only: bool) -> VectorStore:
    from ragloom.stores.chroma import ChromaVectorStore

    settings = config.vector_store
    if settings.url:
        return ChromaVectorStore.open_remote(settings.url, settings.collection_name, embedding,
                                             settings.resolved_api_key(), read_only)
    return ChromaVectorStore.open_local(store_path(config, base_dir), settings.collection_name,
                                        embedding, read_only)


_chroma_store.local_files = True  # type: ignore[attr-defined]  # embedded, without a url


@vector_stores.register("turboquant")
def _turboquant_store(config: RAGConfig, base_dir: Path, embedding: EmbeddingSpec,
                      read_only: bool) -> VectorStore:
    from ragloom.stores.turboquant import TurboQuantStore

    settings = config.vector_store.turboquant
    return TurboQuantStore(store_path(config, base_dir), embedding, settings.bits,
                           settings.residual, settings.refine_bits, first_pass=settings.first_pass,
                           read_only=read_only)


_turboquant_store.settings_model = TurboQuantSettings  # type: ignore[attr-defined]
_turboquant_store.local_files = True  # type: ignore[attr-defined]


@vector_stores.register("postgres")
def _postgres_store(config: RAGConfig, base_dir: Path, embedding: EmbeddingSpec,
                    read_only: bool) -> VectorStore:
    from ragloom.stores.postgres.settings import check_identifier, connection_url, table_name
    from ragloom.stores.postgres.store import PostgresStore

    settings = config.vector_store
    if not settings.url:
        raise ConfigError("vector_store.provider = \"postgres\" needs vector_store.url, e.g. "
                          "\"postgresql://user@host:5432/db\"")
    table = store_settings(config, "postgres")
    assert isinstance(table, PostgresSettings)
    tables = Tables(check_identifier(table.schema_, "schema"),
                    check_identifier(table.table or table_name(settings.collection_name), "table"))
    url = connection_url(settings.url, settings.resolved_api_key())
    return PostgresStore(url, tables, embedding, table, read_only)


_postgres_store.settings_model = PostgresSettings  # type: ignore[attr-defined]
_postgres_store.owns_index_state = True  # type: ignore[attr-defined]


@vector_stores.register("mcp")
def _mcp_bridge_store(config: RAGConfig, base_dir: Path, embedding: EmbeddingSpec,
                      read_only: bool) -> VectorStore:
    from ragloom.stores.mcp_bridge import DEFAULT_TOOL, McpBridgeStore

    settings = config.vector_store
    timeout = getattr(store_settings(config, "mcp"), "timeout_seconds", 30.0)
    return McpBridgeStore(str(settings.mcp_server), settings.mcp_tool or DEFAULT_TOOL, timeout)


_mcp_bridge_store.persistent = False  # type: ignore[attr-defined]
_mcp_bridge_store.settings_model = McpBridgeSettings  # type: ignore[attr-defined]


def store_settings(config: RAGConfig, name: str | None = None) -> BaseModel | None:
    """The validated ``[rag.vector_store.<name>]`` table of store ``name`` (default: the
    configured provider; its model's defaults when not written), or None for a store that
    takes no settings. A table the store does not take, or one that does not validate, is
    a ConfigError naming it."""
    settings = config.vector_store
    name = settings.provider if name is None else name
    if name == "turboquant":
        return settings.turboquant
    table = settings.plugin_settings.get(name)
    if table is not None and name not in vector_stores:
        valid = ", ".join(repr(n) for n in vector_stores.names())
        raise ConfigError(f"[rag.vector_store.{name}]: no vector store is named {name!r}"
                          f"{did_you_mean(name, vector_stores.names())}; valid: {valid}")
    model = getattr(vector_stores.get(name), "settings_model", None)
    if model is None:
        if table is not None:
            raise ConfigError(f"[rag.vector_store.{name}]: the {name!r} store takes no settings")
        return None
    try:  # strict as every config table: no text or boolean for a number
        return model.model_validate(table or {}, strict=True)
    except ValidationError as exc:
        raise ConfigError(describe_errors(exc, f"[rag.vector_store.{name}]", model)) from None


def create_vector_store(config: RAGConfig, base_dir: Path, embedding: EmbeddingSpec,
                        read_only: bool = False) -> VectorStore:
    """The store for ``config.vector_store.provider`` (opened for reading only if asked)."""
    return vector_stores.get(config.vector_store.provider)(config, base_dir, embedding, read_only)
