"""The parts of an index a store may keep itself: manifest, BM25 index, embedding cache
and writer lock. A store that says ``index_state = "package.module:function"`` (a path,
so no layer imports one above it) owns them, e.g. in its database, so any number of
processes on any number of machines share one index with no local files; the engine
asks for them through that function and never checks which store it has."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ragloom.chunking.context import IndexedText
from ragloom.retrieval.tokenize import Tokenizer
from ragloom.stores.base import VectorStore


class IndexLock(Protocol):
    """The writer's lock between processes (``locking.ProcessLock`` has this shape)."""

    def acquire(self, shared: bool = False, blocking: bool = False) -> None: ...

    def release(self) -> None: ...


@dataclass
class IndexState:
    """What the store supplies; each part has the interface of the local one it replaces
    (``Manifest``, ``SparseIndex``, ``EmbeddingCache``) and ``lock`` is held by a writer."""

    manifest: Any
    sparse: Any
    cache: Any
    lock: IndexLock | None


#: (store, tokenizer, text_of, read_only) -> the store's index state.
IndexStateFactory = Callable[[VectorStore, Tokenizer, IndexedText, bool], IndexState]


def owned_state(store: VectorStore, tokenizer: Tokenizer, text_of: IndexedText,
                read_only: bool) -> IndexState | None:
    """The index state ``store`` keeps itself, or None when the engine keeps it in files."""
    path = getattr(store, "index_state", None)
    if not path:
        return None
    module_name, _, attribute = str(path).partition(":")
    factory: IndexStateFactory = getattr(importlib.import_module(module_name), attribute)
    return factory(store, tokenizer, text_of, read_only)
