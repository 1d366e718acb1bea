"""ragloom: embeddable, offline-first retrieval for codebases and document folders."""

import logging

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
from ragloom.indexing.consistency import VerifyReport
from ragloom.indexing.progress import IndexProgress
from ragloom.prompt import format_context, inject_context
from ragloom.retrieval.searcher import SearchResponse
from ragloom.types import Chunk, IndexReport, IndexStatus, SearchResult

__version__ = "0.1.0"

# A library logs; the app decides what is shown (without this, Python's last-resort
# handler would print ragloom's warnings to stderr of apps that configured no logging).
logging.getLogger("ragloom").addHandler(logging.NullHandler())

__all__ = [
    "Chunk",
    "ConfigError",
    "EmbeddingError",
    "IndexLockedError",
    "IndexNotFoundError",
    "IndexProgress",
    "IndexReport",
    "IndexStatus",
    "MissingDependencyError",
    "RAGConfig",
    "RAGEngine",
    "RagloomError",
    "ReadOnlyError",
    "SearchResponse",
    "SearchResult",
    "StoreError",
    "VectorStoreConfig",
    "VerifyReport",
    "format_context",
    "inject_context",
    "load_config",
]
