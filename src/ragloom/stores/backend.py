"""What ragloom knows about a kind of vector store before opening one, and how to open it.

One ``StoreBackend`` subclass per backend, registered under its config name in
``stores.registry.vector_stores`` (built-ins) or through a ``ragloom.vector_stores`` entry
point (plugins). Its class attributes answer what the engine must know before a store
exists (whether to take the index lock, where files go, which settings table it reads);
what an open store can do is said by the store itself (``stores.base.VectorStore``).

This module and the registry sit on the indexing floor: a backend that keeps the index
state itself (Postgres) opens it here, with imports the import-graph test sees.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel

from ragloom.errors import StoreError

if TYPE_CHECKING:
    from ragloom.chunking.context import IndexedText
    from ragloom.config import RAGConfig
    from ragloom.indexing.state import IndexState
    from ragloom.retrieval.tokenize import Tokenizer
    from ragloom.stores.base import EmbeddingSpec, VectorStore


class StoreBackend(ABC):
    """The whole contract of a store backend besides the store itself: four class
    attributes and ``open``; ``open_index_state`` only for ``owns_index_state``."""

    #: Whether its stores keep data on disk or a server (and need the index lock and
    #: index folder); an in-memory store says False.
    persistent: ClassVar[bool] = True
    #: Whether, without a ``vector_store.url``, it keeps its data in files under
    #: ``store_path`` named after its provider key, with ragloom's manifest and BM25 index
    #: beside them: ``ragloom status`` then reads those files without opening the store.
    local_files: ClassVar[bool] = False
    #: The pydantic model validating ``[rag.vector_store.<name>]``; None takes no table.
    settings_model: ClassVar[type[BaseModel] | None] = None
    #: Whether its stores keep manifest, BM25 index, embedding cache and writer lock
    #: themselves (in a database shared by many machines): ``open_index_state`` gives them.
    owns_index_state: ClassVar[bool] = False

    @classmethod
    @abstractmethod
    def open(cls, config: RAGConfig, base_dir: Path, embedding: EmbeddingSpec,
             read_only: bool) -> VectorStore:
        """The store ``config`` names. A read-only store never creates, rebuilds or deletes
        anything, and raises IndexNotFoundError when there is nothing to read."""

    @classmethod
    def open_index_state(cls, store: VectorStore, tokenizer: Tokenizer, text_of: IndexedText,
                         read_only: bool) -> IndexState:
        """Manifest, BM25 index, cache and lock kept by ``store`` (``owns_index_state``)."""
        raise StoreError(f"{cls.__name__} keeps no index state (owns_index_state is False)")
