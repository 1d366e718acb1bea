"""Indexes of another store in the same ``index_dir``: what a reader finding no index of
its own store should be told.

Each store's manifest has its own name in the folder (``layout``). The default
store changed from ``chroma`` to ``turboquant``, so a project indexed before keeps a
Chroma index that the new default does not read; saying so (and how to keep it) beats
answering "no index" or building a second index without a word. Only file names are
looked at: nothing is opened or imported.
"""

from __future__ import annotations

from pathlib import Path

from ragloom.config import RAGConfig
from ragloom.layout import IndexLayout


def other_store_note(config: RAGConfig, index_dir: Path, own: str | None = None) -> str:
    """A sentence naming a store other than ``own`` (the store's name, by default the
    configured provider) whose index of this collection lives in ``index_dir``, and how to
    use it or replace it; "" when there is none. Callers ask when their own store has no
    index there (a reader found none, a writer's manifest is empty)."""
    provider = config.vector_store.provider
    collection = config.vector_store.collection_name
    layout = IndexLayout(index_dir, collection)
    try:
        stores = layout.stores_with_manifest()
    except OSError:
        return ""
    others = [store for store in stores if store != (own or provider)]
    if not others:
        return ""
    found = others[0]
    return (f"{index_dir} holds an index built with vector_store.provider = {found!r} "
            f"({layout.manifest(found).name}), which the configured store {provider!r} does not "
            f"read (the default store is now 'turboquant'; it was 'chroma', see CHANGELOG.md): set "
            f"[rag.vector_store] provider = {found!r} to keep using it, or run 'ragloom index' "
            f"to build a {provider} index (embeddings come from the cache)")
