"""Where ``status`` says an index lives and how big each part is: a folder and the bytes
of its files for a local index; for a store that lives in a server, the server (its URL,
credentials redacted), the table or collection, and the sizes the server reports (a
Postgres index: every table's total size; a Chroma server reports none)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ragloom.config import RAGConfig
from ragloom.indexing.disk_usage import PARTS, disk_usage, server_name
from ragloom.stores.base import VectorStore
from ragloom.stores.registry import store_backend, store_path


@dataclass
class StoreFigures:
    index_dir: str = ""
    server: str = ""
    collection: str = ""
    bytes_by_part: dict[str, int] = field(default_factory=dict)
    sizes_unknown: list[str] = field(default_factory=list)


def store_figures(config: RAGConfig, store: VectorStore, base_dir: Path, index_dir: Path,
                  owns_state: bool) -> StoreFigures:
    """The location and sizes of the index ``store`` (opened from ``config``) belongs to."""
    url = config.vector_store.url
    if not url and not owns_state:
        return StoreFigures(str(index_dir), bytes_by_part=disk_usage(
            index_dir, store_path(config, base_dir) if store_backend(config).persistent else None))
    figures = StoreFigures(server=server_name(url) if url else "")
    reported = store.server_figures()
    if reported is not None:  # e.g. Postgres: its tables and their sizes
        figures.collection, figures.bytes_by_part = reported
    else:
        figures.collection = config.vector_store.collection_name
        figures.sizes_unknown = ["store"]
    if not owns_state:  # BM25 index, manifest and cache stay files beside the index
        figures.index_dir = str(index_dir)
        local = disk_usage(index_dir, None)
        figures.bytes_by_part = {part: figures.bytes_by_part.get(part, 0) + local.get(part, 0)
                                 for part in PARTS}
    return figures

