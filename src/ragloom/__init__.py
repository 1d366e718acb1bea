"""ragloom: embeddable, offline-first retrieval for codebases and document folders.

The public surface: the core (``RAGEngine``, config, prompt helpers, types, errors) and
``send``, the Gemini chat call with retrieval, from the outer ring (``ragloom.integrations``).
"""

from ragloom.config import RAGConfig, VectorStoreConfig, load_config
from ragloom.engine import RAGEngine
from ragloom.errors import (
    ConfigError,
    CorruptIndexError,
    EmbeddingError,
    IndexLockedError,
    IndexMismatchError,
    IndexNotFoundError,
    MissingDependencyError,
    RagloomError,
    ReadOnlyError,
    RebuildNeededError,
    StoreError,
)
from ragloom.indexing.consistency import VerifyReport
from ragloom.indexing.progress import IndexProgress
from ragloom.integrations.gemini import send
from ragloom.prompt import format_context, inject_context
from ragloom.retrieval.searcher import SearchResponse
from ragloom.types import Chunk, IndexReport, IndexStatus, SearchResult

__version__ = "0.1.0"

__all__ = [
    "Chunk",
    "ConfigError",
    "CorruptIndexError",
    "EmbeddingError",
    "IndexLockedError",
    "IndexMismatchError",
    "IndexNotFoundError",
    "IndexProgress",
    "IndexReport",
    "IndexStatus",
    "MissingDependencyError",
    "RAGConfig",
    "RAGEngine",
    "RagloomError",
    "ReadOnlyError",
    "RebuildNeededError",
    "SearchResponse",
    "SearchResult",
    "StoreError",
    "VectorStoreConfig",
    "VerifyReport",
    "format_context",
    "inject_context",
    "load_config",
    "send",
]
