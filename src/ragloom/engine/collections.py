"""Collections as a first-class list: every collection a store holds, with its embedding
model, chunk and file counts and size (``list_collections``), and dropping one whole
(``drop_collection``), its own objects only.

Where a store keeps collections: TurboQuant and embedded Chroma in the index folder (one
manifest, BM25 index and store folder per collection, ``collections_local``); a Chroma
server as collections marked as ragloom's (their manifests and BM25 indexes in the index
folder of the machine that indexed); Postgres as indexes marked as ragloom's in the
configured schema. Each collection keeps the embedding model it was built with: opening
it with another is an IndexMismatchError, as before.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragloom.config import RAGConfig
from ragloom.engine.collection_info import CollectionInfo, DroppedCollection
from ragloom.engine.collections_local import (
    describe_local,
    drop_chroma_folder,
    drop_local,
    drop_turboquant_folder,
    local_names,
)
from ragloom.errors import StoreError
from ragloom.indexing.disk_usage import server_name


def list_collections(config: RAGConfig, base_dir: str | os.PathLike[str] = ".") -> list[CollectionInfo]:
    """The collections of the store ``config`` names (its folder, server or schema), by name."""
    return _catalog(config)[0](config, Path(base_dir).resolve())


def drop_collection(config: RAGConfig, base_dir: str | os.PathLike[str], name: str) -> DroppedCollection:
    """Remove collection ``name`` and everything ragloom wrote for it, and nothing else:
    another collection, a user's table, collection or file stays as it was. A StoreError
    names a collection that does not exist (and those that do), an object that is not
    ragloom's, or a user object depending on it; IndexLockedError a writer at work."""
    return _catalog(config)[1](config, Path(base_dir).resolve(), name)


Lister = Callable[[RAGConfig, Path], list[CollectionInfo]]
Dropper = Callable[[RAGConfig, Path, str], DroppedCollection]


def _catalog(config: RAGConfig) -> tuple[Lister, Dropper]:
    settings = config.vector_store
    if settings.provider == "postgres":
        return _postgres_list, _postgres_drop
    if settings.provider == "chroma" and settings.url:
        return _chroma_server_list, _chroma_server_drop
    if settings.provider in ("turboquant", "chroma"):
        return _folder_list, _folder_drop
    raise StoreError(f"the {settings.provider!r} store keeps no collections ragloom can list or "
                     f"drop (collections live in the turboquant, chroma and postgres stores)")


def _folder_list(config: RAGConfig, base_dir: Path) -> list[CollectionInfo]:
    index_dir = base_dir / config.index_dir
    return [describe_local(config, base_dir, name, str(index_dir), store_on_disk=True)
            for name in local_names(index_dir, config.vector_store.provider)]


def _folder_drop(config: RAGConfig, base_dir: Path, name: str) -> DroppedCollection:
    store = drop_turboquant_folder if config.vector_store.provider == "turboquant" \
        else drop_chroma_folder(name)
    return drop_local(config, base_dir, name, store)


def _chroma_server_list(config: RAGConfig, base_dir: Path) -> list[CollectionInfo]:
    from ragloom.stores.chroma_collections import own_collections

    where = server_name(str(config.vector_store.url))
    found = []
    for collection in own_collections(_chroma_client(config)):
        local = describe_local(config, base_dir, collection.name, where, store_on_disk=False)
        found.append(CollectionInfo(collection.name, "chroma", collection.model, collection.dimension,
                                    collection.chunks, local.files, None, where))
    return found


def _chroma_server_drop(config: RAGConfig, base_dir: Path, name: str) -> DroppedCollection:
    from ragloom.stores.chroma import delete_own_collection

    client = _chroma_client(config)
    where = server_name(str(config.vector_store.url))
    try:
        if name not in {collection.name for collection in client.list_collections()}:
            raise StoreError(f"no Chroma collection {name!r} on the server {where}")
        delete_own_collection(client, name, where)  # refused unless it carries ragloom's marker
    finally:
        if hasattr(client, "close"):
            client.close()
    removed = [f"Chroma collection {name!r} on {where}"]
    if name in local_names(base_dir / config.index_dir, "chroma"):  # indexed from this machine
        local = drop_local(config, base_dir, name, lambda folder: ([], []))
        return DroppedCollection(name, "chroma", removed + local.removed, local.kept)
    return DroppedCollection(name, "chroma", removed)


def _chroma_client(config: RAGConfig) -> Any:
    from ragloom.stores.chroma import http_client

    settings = config.vector_store
    return http_client(str(settings.url), settings.resolved_api_key())


def _postgres_list(config: RAGConfig, base_dir: Path) -> list[CollectionInfo]:
    from ragloom.stores.postgres.collections import collection_of, list_indexes

    url, schema = _postgres_place(config)
    where = f"{server_name(url)} schema {schema}"
    return [CollectionInfo(collection_of(index.table), "postgres", index.model, index.dimension,
                           index.chunks, index.files, index.bytes, where)
            for index in list_indexes(url, schema)]


def _postgres_drop(config: RAGConfig, base_dir: Path, name: str) -> DroppedCollection:
    from ragloom.stores.postgres.collections import drop_index, index_tables
    from ragloom.stores.postgres.objects import relation_names

    url, schema = _postgres_place(config)
    tables = index_tables(url, schema, name)
    drop_index(url, tables, with_cache=True)  # ownership and dependents checked first
    return DroppedCollection(name, "postgres", [f"{schema}.{relation}" for relation in
                                                relation_names(tables) if not relation.endswith("_pkey")])


def _postgres_place(config: RAGConfig) -> tuple[str, str]:
    from ragloom.stores.postgres import PostgresSettings
    from ragloom.stores.postgres.settings import connection_url
    from ragloom.stores.registry import store_settings

    settings = config.vector_store
    if not settings.url:
        raise StoreError("vector_store.provider = \"postgres\" needs vector_store.url")
    table = store_settings(config, "postgres")
    assert isinstance(table, PostgresSettings)
    return connection_url(settings.url, settings.resolved_api_key()), table.schema_
