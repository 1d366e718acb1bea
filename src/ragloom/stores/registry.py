"""Builds the vector store a config names; heavy clients are imported only here, lazily."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ValidationError

from ragloom._registry import Registry
from ragloom.config import RAGConfig
from ragloom.config.messages import describe_errors
from ragloom.errors import ConfigError, did_you_mean
from ragloom.layout import IndexLayout
from ragloom.stores.backend import StoreBackend
from ragloom.stores.mcp_settings import McpBridgeSettings
from ragloom.stores.postgres import PostgresSettings, Tables
from ragloom.stores.turboquant_settings import TurboQuantSettings

if TYPE_CHECKING:  # the stores (and numpy) are imported when one is opened
    from ragloom.chunking.context import IndexedText
    from ragloom.indexing.state import IndexState
    from ragloom.retrieval.tokenize import Tokenizer
    from ragloom.stores.base import EmbeddingSpec, VectorStore

#: Built-ins plus the ``ragloom.vector_stores`` entry points of installed plugins, each a
#: ``StoreBackend`` subclass.
vector_stores: Registry[type[StoreBackend]] = Registry(
    "vector store", "vector_store.provider", "ragloom.vector_stores",
    accepts=(StoreBackend, "ragloom.stores.backend.StoreBackend"))


def store_path(config: RAGConfig, base_dir: Path) -> Path:
    """``vector_store.path`` resolved against base_dir, by default
    ``<base_dir>/<index_dir>/<provider>_<collection_name>``."""
    settings = config.vector_store
    if settings.path:
        path = Path(settings.path).expanduser()
        return path if path.is_absolute() else base_dir / path
    layout = IndexLayout(base_dir / config.index_dir, settings.collection_name)
    return layout.store_folder(settings.provider)


def store_backend(config: RAGConfig) -> type[StoreBackend]:
    """The backend of the configured store (what is known before it opens)."""
    return vector_stores.get(config.vector_store.provider)


def store_keeps_local_files(config: RAGConfig) -> bool:
    """Whether the configured store keeps its data in files under ``store_path`` (its
    backend says ``local_files`` and no server url is set): ``ragloom status`` then reads
    the index's files without opening the store (``indexing.disk_status``)."""
    return store_backend(config).local_files and not config.vector_store.url


@vector_stores.register("memory")
class MemoryBackend(StoreBackend):
    """The in-memory store (``stores.memory``)."""

    persistent = False

    @classmethod
    def open(cls, config: RAGConfig, base_dir: Path, embedding: EmbeddingSpec,
             read_only: bool) -> VectorStore:
        from ragloom.stores.memory import MemoryVectorStore

        return MemoryVectorStore()


@vector_stores.register("chroma")
class ChromaBackend(StoreBackend):
    """Chroma, embedded in files under ``store_path`` or on a server (``vector_store.url``)."""

    local_files = True  # embedded, without a url

    @classmethod
    def open(cls, config: RAGConfig, base_dir: Path, embedding: EmbeddingSpec,
             read_only: bool) -> VectorStore:
        from ragloom.stores.chroma import ChromaVectorStore

        settings = config.vector_store
        if settings.url:
            return ChromaVectorStore.open_remote(settings.url, settings.collection_name, embedding,
                                                 settings.resolved_api_key(), read_only)
        return ChromaVectorStore.open_local(store_path(config, base_dir), settings.collection_name,
                                            embedding, read_only)


@vector_stores.register("turboquant")
class TurboQuantBackend(StoreBackend):
    """Quantized vectors in files under ``store_path`` (``stores.turboquant``)."""

    local_files = True
    settings_model = TurboQuantSettings

    @classmethod
    def open(cls, config: RAGConfig, base_dir: Path, embedding: EmbeddingSpec,
             read_only: bool) -> VectorStore:
        from ragloom.stores.turboquant import TurboQuantStore

        settings = store_settings(config, "turboquant")
        assert isinstance(settings, TurboQuantSettings)
        return TurboQuantStore(store_path(config, base_dir), embedding, settings.bits,
                               settings.residual, settings.refine_bits,
                               first_pass=settings.first_pass, read_only=read_only)


@vector_stores.register("postgres")
class PostgresBackend(StoreBackend):
    """Postgres with pgvector; manifest, BM25 postings, cache and lock in the same database."""

    settings_model = PostgresSettings
    owns_index_state = True

    @classmethod
    def open(cls, config: RAGConfig, base_dir: Path, embedding: EmbeddingSpec,
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

    @classmethod
    def open_index_state(cls, store: VectorStore, tokenizer: Tokenizer, text_of: IndexedText,
                         read_only: bool) -> IndexState:
        from ragloom.indexing.postgres_state import open_index_state

        return open_index_state(store, tokenizer, text_of, read_only)


@vector_stores.register("mcp")
class McpBridgeBackend(StoreBackend):
    """Another MCP server's search tool, searched by text (``stores.mcp_bridge``)."""

    persistent = False
    settings_model = McpBridgeSettings

    @classmethod
    def open(cls, config: RAGConfig, base_dir: Path, embedding: EmbeddingSpec,
             read_only: bool) -> VectorStore:
        from ragloom.stores.mcp_bridge import McpBridgeStore

        table = store_settings(config, "mcp")
        assert isinstance(table, McpBridgeSettings)
        if not table.server:
            raise ConfigError("[rag.vector_store.mcp]: the MCP bridge store (provider = \"mcp\") "
                              "needs server: a command line that starts the server, or its "
                              "http(s):// URL")
        return McpBridgeStore(str(table.server), table.tool, table.timeout_seconds)


def store_settings(config: RAGConfig, name: str | None = None) -> BaseModel | None:
    """The validated ``[rag.vector_store.<name>]`` table of store ``name`` (default: the
    configured provider; its model's defaults when not written), or None for a store that
    takes no settings. A table the store does not take, or one that does not validate, is
    a ConfigError naming it."""
    settings = config.vector_store
    name = settings.provider if name is None else name
    table = settings.settings.get(name)
    if table is not None and name not in vector_stores:
        valid = ", ".join(repr(n) for n in vector_stores.names())
        raise ConfigError(f"[rag.vector_store.{name}]: no vector store is named {name!r}"
                          f"{did_you_mean(name, vector_stores.names())}; valid: {valid}")
    model = vector_stores.get(name).settings_model
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
    return store_backend(config).open(config, base_dir, embedding, read_only)
