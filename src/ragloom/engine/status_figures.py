"""Where ``status`` says an index lives and how big each part is: a folder and the bytes
of its files for a local index; for a store that lives in a server, the server (its URL,
credentials redacted), the table or collection, and the sizes the server reports (a
Postgres index: every table's total size; a Chroma server reports none)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragloom.config import RAGConfig
from ragloom.indexing.disk_usage import PARTS, disk_usage, server_name
from ragloom.stores.registry import store_path

#: The Postgres index's tables (``Tables`` properties) by the part of the index they hold.
POSTGRES_PARTS = {"store": ("chunks",), "bm25": ("postings", "lengths", "terms", "stats", "tokens",
                                                  "symbols"),
                  "manifest": ("files", "info"), "embedding_cache": ("cache",)}


@dataclass
class StoreFigures:
    index_dir: str = ""
    server: str = ""
    collection: str = ""
    bytes_by_part: dict[str, int] = field(default_factory=dict)
    sizes_unknown: list[str] = field(default_factory=list)


def store_figures(config: RAGConfig, store: Any, base_dir: Path, index_dir: Path,
                  owns_state: bool) -> StoreFigures:
    """The location and sizes of the index ``store`` (opened from ``config``) belongs to."""
    url = config.vector_store.url
    if not url and not owns_state:
        return StoreFigures(str(index_dir), bytes_by_part=disk_usage(
            index_dir, store_path(config, base_dir) if store.persistent else None))
    figures = StoreFigures(server=server_name(url) if url else "")
    tables = getattr(store, "tables", None)
    if tables is not None and hasattr(store, "reader"):  # Postgres: the server's figures
        figures.collection = tables.label
        figures.bytes_by_part = _postgres_sizes(store, tables)
    else:
        figures.collection = config.vector_store.collection_name
        figures.sizes_unknown = ["store"]
    if not owns_state:  # BM25 index, manifest and cache stay files beside the index
        figures.index_dir = str(index_dir)
        local = disk_usage(index_dir, None)
        figures.bytes_by_part = {part: figures.bytes_by_part.get(part, 0) + local.get(part, 0)
                                 for part in PARTS}
    return figures


def _postgres_sizes(store: Any, tables: Any) -> dict[str, int]:
    """Each part's tables' total size (rows, TOAST, indexes) as the server counts it."""
    names = {part: [getattr(tables, name) for name in members]
             for part, members in POSTGRES_PARTS.items()}
    everything = [name for members in names.values() for name in members]
    rows = store.reader.execute(
        "status", "SELECT name, COALESCE(pg_total_relation_size(to_regclass(name)), 0) "
        "FROM unnest(%s::text[]) AS name", (everything,))
    size = {name: int(value) for name, value in rows}
    usage = {part: sum(size.get(name, 0) for name in members) for part, members in names.items()}
    return usage | {"other": 0}
