"""ragloom: embeddable, offline-first retrieval for codebases and document folders.

The public surface: the core (``RAGEngine``, config, prompt helpers, types, errors), the
extension points a plugin implements (``EmbeddingProvider``, ``VectorStore``, ``Reader``,
``Chunker``, ``Reranker``, ``Retriever``, ``Filters``), and ``send``, the Gemini chat
call with retrieval, from the outer ring (``ragloom.integrations``).
"""

import logging

from ragloom.chunking.base import Chunker
from ragloom.config import RAGConfig, load_config
from ragloom.config.tables import VectorStoreConfig
from ragloom.embeddings.base import EmbeddingProvider
from ragloom.engine import RAGEngine
from ragloom.engine.checks import check_config
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
from ragloom.filters import Filters
from ragloom.indexing.consistency import VerifyReport
from ragloom.indexing.progress import IndexProgress
from ragloom.integrations.gemini import send
from ragloom.prompt import format_context, inject_context
from ragloom.readers.base import Reader, ReadText, SkipFile, TextSpan
from ragloom.retrieval.rerankers import Reranker
from ragloom.retrieval.retrievers import Retriever
from ragloom.retrieval.searcher import SearchResponse
from ragloom.stores.base import EmbeddingSpec, VectorStore
from ragloom.types import Chunk, IndexReport, IndexStatus, SearchResult
from ragloom.version import __version__

# A library logs; the app decides what is shown (without this, Python's last-resort
# handler would print ragloom's warnings to stderr of apps that configured no logging).
logging.getLogger("ragloom").addHandler(logging.NullHandler())

__all__ = [
    "__version__",
    "Chunk",
    "Chunker",
    "ConfigError",
    "CorruptIndexError",
    "EmbeddingError",
    "EmbeddingProvider",
    "EmbeddingSpec",
    "Filters",
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
    "ReadText",
    "Reader",
    "Reranker",
    "Retriever",
    "SearchResponse",
    "SearchResult",
    "SkipFile",
    "StoreError",
    "TextSpan",
    "VectorStore",
    "VectorStoreConfig",
    "VerifyReport",
    "check_config",
    "format_context",
    "inject_context",
    "load_config",
    "send",
]
