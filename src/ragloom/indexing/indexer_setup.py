"""What an Indexer is built from: the parts it writes through and the options of a run.

Two small frozen records instead of a dozen constructor arguments, so the one place that
builds an indexer (the engine's ``_wire``) reads ``Indexer(rules, parts, options)``."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from ragloom.chunking.context import IndexedText, plain_text
from ragloom.chunking.registry import FileChunker
from ragloom.config import RAGConfig
from ragloom.embeddings.cache import CachedEmbedder
from ragloom.indexing.manifest import ManifestStore
from ragloom.indexing.quotas import Quota, quota_for
from ragloom.indexing.source_types import SourceTypes
from ragloom.readers.registry import FileReaders
from ragloom.retrieval.sparse_base import SparseBackend
from ragloom.stores.base import VectorStore


@dataclass(frozen=True)
class IndexerParts:
    """What the indexer reads files with and writes chunks to."""

    readers: FileReaders
    chunker: FileChunker
    embedder: CachedEmbedder
    store: VectorStore
    sparse: SparseBackend
    manifest: ManifestStore
    #: Held while the store and BM25 change, so readers see whole files.
    commit: Callable[[], AbstractContextManager[object]] = nullcontext
    #: Makes store and BM25 durable together (None: the store's own ``persist``).
    persist: Callable[[], None] | None = None


@dataclass(frozen=True)
class IndexerOptions:
    """How the indexer treats what it reads."""

    max_file_bytes: int
    redact: bool = True  # secrets out of chunk text before embedding, BM25 and prompts
    text_of: IndexedText = plain_text  # what the embedder reads of a file chunk (e.g. a header)
    source_types: SourceTypes | None = None
    quota: Quota | None = None  # [rag.limits], checked before a call writes (None: unlimited)
    progressive: bool = True  # BM25 first, embeddings behind (``indexing.backfill``)


def options_from_config(config: RAGConfig, manifest: ManifestStore, tenant: str | None,
                        text_of: IndexedText) -> IndexerOptions:
    """The options ``config`` sets for an index whose manifest is ``manifest`` (``tenant``'s
    share, or the untenanted one)."""
    return IndexerOptions(config.max_file_bytes, config.redact_secrets, text_of,
                          SourceTypes(config.source_types), quota_for(config, manifest, tenant),
                          config.progressive_indexing)
