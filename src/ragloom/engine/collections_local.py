"""Collections whose manifest and BM25 index are files in the index folder: TurboQuant and
embedded Chroma (their store folder beside them, ``<store>_<name>`` by default) and a
Chroma server (the store is on the server). A collection is named by its manifest; its
BM25 index is beside it (``ragloom.layout`` names both).

Dropping one deletes only what ragloom wrote for it, under the index folder's writer lock
(refused while any writer has the folder open) and with readers held off: its TurboQuant
segments (the files its ledger records), its Chroma collection (through Chroma's API, only
while the collection carries ragloom's marker), its BM25 segments (ledger), its manifest.
Everything else stays: a user's file in a store folder (the folder then stays too), the
embedding cache and conversation memory (shared by every collection), other collections.
The store is emptied before the manifest goes, so a drop cut short is still listed and
finished by dropping again."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from ragloom.config import RAGConfig
from ragloom.engine.collection_info import CollectionInfo, DroppedCollection
from ragloom.errors import StoreError
from ragloom.indexing.manifest import read_summary
from ragloom.layout import IndexLayout, collections_in
from ragloom.locking import ProcessLock, SnapshotLock
from ragloom.ownership import INDEX_MARKER, STORE_MARKER
from ragloom.retrieval.bm25_listing import listed_documents
from ragloom.segments import LEDGER, drop_written
from ragloom.stores.registry import store_path

#: Empties a collection's store (given its folder); returns what it removed and kept.
StoreDrop = Callable[[Path], tuple[list[str], list[str]]]
#: SQLite's companions of a database file.
_SQLITE_SUFFIXES = ("", "-wal", "-shm", "-journal")


def for_collection(config: RAGConfig, name: str) -> RAGConfig:
    """``config`` with ``vector_store.collection_name`` set to ``name``."""
    store = config.vector_store.model_copy(update={"collection_name": name})
    return config.model_copy(update={"vector_store": store})


def local_names(index_dir: Path, store: str) -> list[str]:
    """The collections of ``store`` with a manifest in ``index_dir``, sorted."""
    return collections_in(index_dir, store)


def describe_local(config: RAGConfig, base_dir: Path, name: str, where: str,
                   store_on_disk: bool) -> CollectionInfo:
    """What the manifest, BM25 index and store folder of collection ``name`` tell; the
    store's bytes only when ``store_on_disk`` (else the size is not known here)."""
    store, index_dir = config.vector_store.provider, base_dir / config.index_dir
    layout = IndexLayout(index_dir, name)
    manifest = layout.manifest(store)
    try:
        summary = read_summary(manifest)
    except sqlite3.Error:
        summary = None
    files, model, dimension = None, None, None
    if summary is not None:
        files, signature = summary.files, summary.signature
        if isinstance(signature, list) and len(signature) == 3:
            model, dimension = f"{signature[0]}/{signature[1]}", int(signature[2])
    bm25 = layout.bm25(store)
    parts = [*(Path(f"{manifest}{suffix}") for suffix in _SQLITE_SUFFIXES), bm25]
    # with vector_store.path set, only the configured collection's store folder is known
    store_on_disk = store_on_disk and (not config.vector_store.path
                                       or name == config.vector_store.collection_name)
    if store_on_disk:
        parts.append(store_path(for_collection(config, name), base_dir))
    return CollectionInfo(name, store, model, dimension, listed_documents(bm25), files,
                          sum(_size(part) for part in parts) if store_on_disk else None, where)


def drop_local(config: RAGConfig, base_dir: Path, name: str, drop_store: StoreDrop) -> DroppedCollection:
    """Drop collection ``name``: its store through ``drop_store(store folder)`` (which
    returns what it removed and kept), then its BM25 files and manifest."""
    store, index_dir = config.vector_store.provider, base_dir / config.index_dir
    if name not in local_names(index_dir, store) or not (index_dir / INDEX_MARKER).is_file():
        known = ", ".join(local_names(index_dir, store)) or "none"
        raise StoreError(f"no {store} collection {name!r} in {index_dir} (collections there: {known})")
    if config.vector_store.path and name != config.vector_store.collection_name:
        raise StoreError(f"vector_store.path is set, so the store folder of collection {name!r} is "
                         f"not known: drop it with a config whose collection_name is {name!r}")
    layout = IndexLayout(index_dir, name)
    lock = ProcessLock(layout.writer_lock)
    lock.acquire()  # IndexLockedError naming the writer while one has the folder open
    try:
        with SnapshotLock(index_dir).writing():
            removed, kept = drop_store(store_path(for_collection(config, name), base_dir))
            bm25 = layout.bm25(store)
            if bm25.is_dir():
                from ragloom.retrieval.bm25_files import OWN_FILE

                drop_written(bm25, OWN_FILE)
                removed.append(str(bm25))
                kept += _remove_if_empty(bm25)
            manifest = layout.manifest(store)
            for file in (Path(f"{manifest}{suffix}") for suffix in _SQLITE_SUFFIXES):
                if file.is_file():
                    file.unlink()
                    removed.append(str(file))
    finally:
        lock.release()
    return DroppedCollection(name, store, removed, kept)


def drop_turboquant_folder(folder: Path) -> tuple[list[str], list[str]]:
    """The TurboQuant segments the folder's ledger records, then the folder when nothing
    else is in it."""
    if not (folder / STORE_MARKER).is_file():
        return [], []
    from ragloom.stores.turboquant_segments import drop_own_files

    drop_own_files(folder)
    return [str(folder)], _remove_if_empty(folder)


def drop_chroma_folder(name: str) -> StoreDrop:
    """Drops collection ``name`` from the embedded Chroma database in a store folder, and
    ragloom's chunk-text file there; Chroma's own database files stay (ragloom deletes no
    file it did not write)."""
    def drop(folder: Path) -> tuple[list[str], list[str]]:
        if not (folder / STORE_MARKER).is_file():
            return [], []
        from ragloom.stores.chroma import delete_own_collection, persistent_client
        from ragloom.stores.chroma_texts import FILE_NAME

        client = persistent_client(folder)
        try:
            if name in {collection.name for collection in client.list_collections()}:
                delete_own_collection(client, name, str(folder))
        finally:
            if hasattr(client, "close"):
                client.close()
        for suffix in _SQLITE_SUFFIXES:
            (folder / f"{FILE_NAME}{suffix}").unlink(missing_ok=True)
        return [f"Chroma collection {name!r} in {folder}"], [f"{folder} (Chroma's database files)"]
    return drop


def _remove_if_empty(folder: Path) -> list[str]:
    """Remove ragloom's marker and ledger and the folder when nothing else is left in it;
    otherwise keep it all and name what is left (files ragloom did not write)."""
    others = sorted(f.name for f in folder.iterdir() if f.name not in (STORE_MARKER, LEDGER))
    if others:
        return [f"{folder / other}" for other in others]
    for own in (STORE_MARKER, LEDGER):
        (folder / own).unlink(missing_ok=True)
    folder.rmdir()
    return []


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    if path.is_dir():
        return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return 0
