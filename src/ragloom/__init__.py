"""ragloom: embeddable, offline-first retrieval for codebases and document folders.

The public surface: the core (``RAGEngine``, config, prompt helpers, types, errors), the
extension points a plugin implements (``EmbeddingProvider``, ``VectorStore``, ``Reader``,
``Chunker``, ``Reranker``, ``Filters``), and ``send``, the Gemini chat
call with retrieval, from the outer ring (``ragloom.integrations``).

Names are imported on first use (``ragloom._lazy``): ``import ragloom`` and the commands
that need little (``ragloom status``) do not pay for the engine, numpy and the stores.
"""

import logging
from typing import TYPE_CHECKING

from ragloom._lazy import lazy_exports
from ragloom.errors import (
    ConfigError,
    CorruptIndexError,
    EmbeddingError,
    IndexLockedError,
    IndexMismatchError,
    IndexNotFoundError,
    MissingDependencyError,
    QuotaExceededError,
    RagloomError,
    ReadOnlyError,
    RebuildNeededError,
    StoreError,
)
from ragloom.version import __version__

if TYPE_CHECKING:
    from ragloom.chunking.base import Chunker
    from ragloom.config import RAGConfig, load_config
    from ragloom.config.tables import VectorStoreConfig
    from ragloom.embeddings.base import EmbeddingProvider
    from ragloom.engine import RAGEngine
    from ragloom.engine.checks import check_config
    from ragloom.engine.collection_info import CollectionInfo, DroppedCollection
    from ragloom.engine.collections import drop_collection, list_collections
    from ragloom.filters import Filters
    from ragloom.indexing.consistency import VerifyReport
    from ragloom.indexing.progress import IndexProgress
    from ragloom.integrations.gemini import send
    from ragloom.prompt import format_context, inject_context
    from ragloom.readers.base import Reader, ReadText, SkipFile, TextSpan
    from ragloom.retrieval.rerankers import Reranker
    from ragloom.retrieval.search_response import SearchResponse
    from ragloom.stores.base import EmbeddingSpec, VectorStore
    from ragloom.types import Chunk, IndexReport, IndexStatus, SearchResult

_EXPORTS = {
    "Chunker": "ragloom.chunking.base",
    "RAGConfig": "ragloom.config",
    "VectorStoreConfig": "ragloom.config.tables",
    "load_config": "ragloom.config",
    "EmbeddingProvider": "ragloom.embeddings.base",
    "RAGEngine": "ragloom.engine",
    "CollectionInfo": "ragloom.engine.collection_info",
    "DroppedCollection": "ragloom.engine.collection_info",
    "drop_collection": "ragloom.engine.collections",
    "list_collections": "ragloom.engine.collections",
    "check_config": "ragloom.engine.checks",
    "Filters": "ragloom.filters",
    "VerifyReport": "ragloom.indexing.consistency",
    "IndexProgress": "ragloom.indexing.progress",
    "send": "ragloom.integrations.gemini",
    "format_context": "ragloom.prompt",
    "inject_context": "ragloom.prompt",
    "Reader": "ragloom.readers.base",
    "ReadText": "ragloom.readers.base",
    "SkipFile": "ragloom.readers.base",
    "TextSpan": "ragloom.readers.base",
    "Reranker": "ragloom.retrieval.rerankers",
    "SearchResponse": "ragloom.retrieval.search_response",
    "EmbeddingSpec": "ragloom.stores.base",
    "VectorStore": "ragloom.stores.base",
    "Chunk": "ragloom.types",
    "IndexReport": "ragloom.types",
    "IndexStatus": "ragloom.types",
    "SearchResult": "ragloom.types",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

# A library logs; the app decides what is shown (without this, Python's last-resort
# handler would print ragloom's warnings to stderr of apps that configured no logging).
logging.getLogger("ragloom").addHandler(logging.NullHandler())

__all__ = [
    "__version__",
    "Chunk",
    "Chunker",
    "CollectionInfo",
    "ConfigError",
    "CorruptIndexError",
    "DroppedCollection",
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
    "QuotaExceededError",
    "RAGConfig",
    "RAGEngine",
    "RagloomError",
    "ReadOnlyError",
    "RebuildNeededError",
    "ReadText",
    "Reader",
    "Reranker",
    "SearchResponse",
    "SearchResult",
    "SkipFile",
    "StoreError",
    "TextSpan",
    "VectorStore",
    "VectorStoreConfig",
    "VerifyReport",
    "check_config",
    "drop_collection",
    "format_context",
    "inject_context",
    "list_collections",
    "load_config",
    "send",
]
