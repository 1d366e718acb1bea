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
keeps its data in local files beside them (its factory says ``local_files = True``), or
one in a server that does not own the index's state (Chroma with a ``url``: the server is
shown, the store's size is not known here and nothing connects to it). For any other
store, or anything unexpected on disk, ``read_status`` returns None and the caller opens
the engine, which answers or says what is wrong.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from ragloom.config import RAGConfig
from ragloom.indexing.disk_usage import disk_usage, server_name
from ragloom.indexing.pending import PendingWork
from ragloom.indexing.skip_reasons import count_by_reason, load_skipped
from ragloom.ownership import INDEX_MARKER
from ragloom.types import IndexStatus

#: ``retrieval.bm25_files.SEGMENT_LIST`` and ``FORMAT_VERSION``, named here so reading the
#: list imports no numpy (a test keeps them equal).
BM25_SEGMENT_LIST = "segments.json"
BM25_FORMAT_VERSION = 4


def read_status(config: RAGConfig, base_dir: Path, count_pending: bool = True) -> IndexStatus | None:
    """The status of the index of ``config`` under ``base_dir``, or None when it is not one
    this module reads (see the module's docstring)."""
    from ragloom.stores.registry import store_keeps_local_files, store_owns_index_state, store_path

    if not config.enabled:
        return IndexStatus(enabled=False)
    base_dir = base_dir.resolve()
    index_dir = base_dir / config.index_dir
    url = config.vector_store.url
    # a store in a server whose manifest and BM25 index stay here (Chroma with a url)
    in_server = bool(url) and not store_owns_index_state(config)
    if not (store_keeps_local_files(config) or in_server) or not (index_dir / INDEX_MARKER).is_file():
        return None
    store = config.vector_store.provider
    collection = config.vector_store.collection_name
    manifest_path = index_dir / f"manifest_{store}_{collection}.sqlite"
    bm25_path = index_dir / f"bm25_{store}_{collection}.segments"
    if not manifest_path.is_file():
        return None
    try:  # each read is whole (an SQLite read, a list swapped atomically); no lock is taken
        summary = _manifest_summary(manifest_path)
    except sqlite3.Error:
        return None
    chunks = _bm25_documents(bm25_path)
    if summary is None or chunks is None:
        return None
    files, last_indexed, signature, roots, unembedded = summary
    if not _same_model(config, signature):
        return None  # the engine says which model the index was built with
    provider, model, dimension = signature
    parts = disk_usage(index_dir, None if in_server else store_path(config, base_dir))
    pending = _pending(config, base_dir, manifest_path, roots) if count_pending else None
    return IndexStatus(
        enabled=True, files=files, chunks=chunks, store=store, embedding_provider=provider,
        embedding_model=model, dimension=dimension, index_dir=str(index_dir),
        index_bytes=sum(parts.values()), bytes_by_part=parts, last_indexed=last_indexed,
        files_pending=None if pending is None else pending.files,
        files_skipped=None if pending is None else dict(sorted(pending.skipped.items())),
        skipped=count_by_reason(load_skipped(index_dir)),
        server=server_name(url) if in_server and url else "",
        collection=collection if in_server else "", sizes_unknown=["store"] if in_server else [],
        chunks_unembedded=unembedded)


def _manifest_summary(path: Path) -> tuple[int, float | None, list, list[str], int] | None:
    """(files, last indexing time, embedding signature, indexed roots, chunks waiting for
    their vectors), or None for a manifest without the tables or the signature (an index
    never written to)."""
    from ragloom.sqlite_db import connect

    database = connect(path, read_only=True)
    try:
        files, last = database.execute("SELECT COUNT(*), MAX(indexed_at) FROM files").fetchone()
        settings = dict(database.execute(
            "SELECT key, value FROM settings WHERE key IN ('embedding', 'roots')").fetchall())
        waiting = database.execute("SELECT name FROM sqlite_master WHERE name = 'unembedded'").fetchone()
        unembedded = database.execute("SELECT COUNT(*) FROM unembedded").fetchone()[0] if waiting else 0
    finally:
        database.close()
    if "embedding" not in settings:
        return None
    signature = json.loads(settings["embedding"])
    roots = json.loads(settings.get("roots") or "[]")
    return int(files), last, signature, roots, int(unembedded)


def _bm25_documents(folder: Path) -> int | None:
    """Live documents of the BM25 index in ``folder``: the count its segment list records,
    else (a list written by an older version) from the segments themselves; None when
    there is no readable index (the engine then rebuilds it from the store)."""
    listing = folder / BM25_SEGMENT_LIST
    try:
        header = json.loads(listing.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(header, dict) or header.get("version") != BM25_FORMAT_VERSION:
        return None  # written by another version: the engine says what to do with it
    documents = header.get("documents")
    if isinstance(documents, int):
        return documents
    from ragloom.retrieval.bm25_files import load_index

    try:
        return len(load_index(folder))
    except Exception:  # noqa: BLE001 - unreadable: the engine rebuilds it and answers
        return None


def _same_model(config: RAGConfig, signature: list) -> bool:
    """Whether the index was built by the model ``config`` names (provider, and model and
    dimension where the config names them)."""
    if not (isinstance(signature, list) and len(signature) == 3):
        return False
    provider, model, dimension = signature
    return (provider == config.embedding_provider
            and config.embedding_model in (None, model)
            and config.embedding_dim in (None, dimension))


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
