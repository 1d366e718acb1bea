"""ragloom: embeddable, offline-first retrieval for codebases and document folders."""

from ragloom.config import RAGConfig, VectorStoreConfig, load_config
from ragloom.engine import RAGEngine
from ragloom.errors import (
    ConfigError,
    EmbeddingError,
    IndexLockedError,
    IndexNotFoundError,
    MissingDependencyError,
    RagloomError,
    ReadOnlyError,
    StoreError,
)
from ragloom.indexing.progress import IndexProgress
from ragloom.prompt import format_context, inject_context
from ragloom.types import Chunk, IndexReport, SearchResult

__version__ = "0.1.0"

__all__ = [
    "Chunk",
    "ConfigError",
    "EmbeddingError",
    "IndexLockedError",
    "IndexNotFoundError",
    "IndexProgress",
    "IndexReport",
    "MissingDependencyError",
    "RAGConfig",
    "RAGEngine",
    "RagloomError",
    "ReadOnlyError",
    "SearchResult",
    "StoreError",
    "VectorStoreConfig",
    "format_context",
    "inject_context",
    "load_config",
]
