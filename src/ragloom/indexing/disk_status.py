"""``ragloom status`` from the files of an index alone: no store is opened, no embedding
model built, neither numpy nor a store client imported.

Files, last indexing time and the pending work come from the manifest (SQLite, read
only); chunks from the BM25 index's segment list, which holds every stored chunk (the
engine keeps the two in step; ``ragloom status --check`` compares them); the model from
the signature the index was built with; bytes per part from file sizes. Each is read
whole (an SQLite read, a segment list a writer swaps atomically) without taking the
index's locks, so figures read while a writer commits may straddle its write, as any
status of a changing index does.

Only an index whose manifest and BM25 index are files here is read this way: a store that
keeps its data in local files beside them (its backend says ``local_files = True``), or
one in a server that does not own the index's state (Chroma with a ``url``: the server is
shown, the store's size is not known here and nothing connects to it). For any other
store, or anything unexpected on disk, ``read_status`` returns None and the caller opens
the engine, which answers or says what is wrong.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ragloom.config import RAGConfig
from ragloom.indexing.disk_usage import disk_usage, server_name
from ragloom.indexing.manifest import read_summary
from ragloom.indexing.pending import PendingWork
from ragloom.indexing.skip_reasons import count_by_reason, load_skipped
from ragloom.layout import IndexLayout
from ragloom.ownership import INDEX_MARKER, case_variant
from ragloom.retrieval.bm25_listing import listed_documents
from ragloom.types import IndexStatus


def read_status(config: RAGConfig, base_dir: Path, count_pending: bool = True) -> IndexStatus | None:
    """The status of the index of ``config`` under ``base_dir``, or None when it is not one
    this module reads (see the module's docstring)."""
    from ragloom.stores.registry import store_backend, store_keeps_local_files, store_path

    if not config.enabled:
        return IndexStatus(enabled=False)
    if config.tenant is not None:
        return None  # a tenant's share: the engine opens its view
    base_dir = base_dir.resolve()
    index_dir = base_dir / config.index_dir
    url = config.vector_store.url
    # a store in a server whose manifest and BM25 index stay here (Chroma with a url)
    in_server = bool(url) and not store_backend(config).owns_index_state
    if not (store_keeps_local_files(config) or in_server) or not (index_dir / INDEX_MARKER).is_file():
        return None
    store = config.vector_store.provider
    collection = config.vector_store.collection_name
    layout = IndexLayout(index_dir, collection)
    manifest_path, bm25_path = layout.manifest(store), layout.bm25(store)
    if not manifest_path.is_file() or case_variant(layout.file_names(store),
                                                   [p.name for p in index_dir.iterdir()]):
        return None  # a case variant's files: the engine refuses it, naming them
    try:  # each read is whole (an SQLite read, a list swapped atomically); no lock is taken
        summary = read_summary(manifest_path)
    except sqlite3.Error:
        return None
    chunks = listed_documents(bm25_path)
    if summary is None or chunks is None:
        return None
    if not _same_model(config, summary.signature):
        return None  # the engine says which model the index was built with
    provider, model, dimension = summary.signature
    parts = disk_usage(index_dir, None if in_server else store_path(config, base_dir))
    pending = _pending(config, base_dir, manifest_path, summary.roots) if count_pending else None
    return IndexStatus(
        enabled=True, files=summary.files, chunks=chunks, store=store, embedding_provider=provider,
        embedding_model=model, dimension=dimension, index_dir=str(index_dir),
        index_bytes=sum(parts.values()), bytes_by_part=parts, last_indexed=summary.last_indexed,
        files_pending=None if pending is None else pending.files,
        files_skipped=None if pending is None else dict(sorted(pending.skipped.items())),
        skipped=count_by_reason(load_skipped(index_dir)),
        server=server_name(url) if in_server and url else "",
        collection=collection if in_server else "", sizes_unknown=["store"] if in_server else [],
        chunks_unembedded=summary.unembedded, limits=_limits(config, manifest_path))


def _limits(config: RAGConfig, manifest_path: Path) -> dict[str, dict[str, int]]:
    """Usage against the ``[rag.limits]`` that are set (the manifest is read only if any is)."""
    if not config.limits.active():
        return {}
    from ragloom.indexing.collection_records import whole_collection
    from ragloom.indexing.manifest import Manifest
    from ragloom.indexing.quotas import usage_against_limits

    manifest = Manifest(manifest_path, read_only=True)
    try:  # the collection's limits count every tenant's records
        return usage_against_limits(config.limits, manifest.records(),
                                    whole_collection(manifest, None).records())
    finally:
        manifest.close()


def _same_model(config: RAGConfig, signature: list) -> bool:
    """Whether the index was built by the model ``config`` names (provider, and model and
    dimension where the config names them)."""
    if not (isinstance(signature, list) and len(signature) == 3):
        return False
    provider, model, dimension = signature
    return (provider == config.embedding.provider
            and config.embedding.model in (None, model)
            and config.embedding.dim in (None, dimension))


def _pending(config: RAGConfig, base_dir: Path, manifest_path: Path, roots: list[str]) -> PendingWork:
    """What the next indexing run under the indexed roots would do, by the engine's rules."""
    from ragloom.indexing.discovery import Rules
    from ragloom.indexing.manifest import Manifest
    from ragloom.indexing.path_names import PathNames
    from ragloom.indexing.pending import pending_work

    rules = Rules.from_config(config, base_dir)
    manifest = Manifest(manifest_path, read_only=True)
    try:
        work, names = PendingWork(), PathNames(base_dir, manifest)
        for root in [base_dir / root for root in roots or ["."]]:
            if root.is_dir():
                work = work.add(pending_work(rules.discover(root), root, names, manifest))
        return work
    finally:
        manifest.close()
