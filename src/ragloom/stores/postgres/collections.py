"""The ragloom indexes (collections) in a Postgres schema: found by the marker comment
every index's chunk table carries (``objects.marker``), described from its ``_info`` table
and the server's sizes, and dropped whole (its own objects only, ``drop_index``)."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass

from ragloom.errors import IndexLockedError, StoreError
from ragloom.stores.postgres.connection import Database
from ragloom.stores.postgres.lock import DDL_KEY, lock_key
from ragloom.stores.postgres.objects import (
    FUNCTION_SUFFIX,
    LAYOUT_VERSION,
    TABLE_SUFFIXES,
    check_owned,
    refuse_dependents,
)
from ragloom.stores.postgres.schema import dropped_tables
from ragloom.stores.postgres.settings import Tables, table_name

#: Chunk tables of ragloom indexes: their comment names exactly their own schema and table.
_INDEXES = """
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = %s AND c.relkind IN ('r', 'p')
  AND obj_description(c.oid, 'pg_class') = 'ragloom index ' || n.nspname || '.' || c.relname
      || ' layout ' || %s
ORDER BY c.relname
"""


@dataclass(frozen=True)
class PostgresCollection:
    """One ragloom index in the schema."""

    table: str
    model: str | None
    dimension: int | None
    chunks: int
    files: int  # files and added texts its manifest records
    bytes: int  # tables, indexes and TOAST, as the server reports them


def collection_of(table: str) -> str:
    """The collection name a default chunk table was made from (``ragloom_docs`` -> ``docs``);
    a table of a name that had to be hashed, or chosen in the config, is named as it is."""
    plain = table.removeprefix("ragloom_")
    return plain if plain != table and "__" not in plain and table_name(plain) == table else table


def list_indexes(url: str, schema: str) -> list[PostgresCollection]:
    """Every ragloom index in ``schema``, by chunk table."""
    database = _connect(url, "list")
    try:
        found = []
        for (table,) in database.execute("collections", _INDEXES, (schema, LAYOUT_VERSION)):
            tables = Tables(schema, table)
            info = dict(database.execute("collections", f"SELECT key, value FROM {tables.info}"))
            chunks = database.execute("collections", f"SELECT count(*) FROM {tables.chunks}")[0][0]
            files = database.execute("collections", f"SELECT count(*) FROM {tables.files}")[0][0]
            size = database.execute(
                "collections", "SELECT coalesce(sum(pg_total_relation_size(to_regclass(name))), 0) "
                "FROM unnest(%s::text[]) AS name", ([tables.name(s) for s in TABLE_SUFFIXES],))[0][0]
            dimension = info.get("dimension")
            found.append(PostgresCollection(table, info.get("model"),
                                            int(dimension) if dimension else None, int(chunks), int(files),
                                            int(size)))
        return found
    finally:
        database.close()


def index_tables(url: str, schema: str, name: str) -> Tables:
    """The tables of collection ``name`` (or of the chunk table so named) in ``schema``; a
    StoreError listing the indexes there when there is none."""
    indexes = {index.table for index in list_indexes(url, schema)}
    for table in (table_name(name), name):
        if table in indexes:
            return Tables(schema, table)
    known = ", ".join(sorted(collection_of(t) for t in indexes)) or "none"
    raise StoreError(f"no ragloom collection {name!r} in schema {schema!r} at "
                     f"{_connect(url, 'name').where} (collections there: {known})")


def _connect(url: str, doing: str) -> Database:
    return Database(url, f"ragloom collections {doing} {socket.gethostname()} pid {os.getpid()}")


def drop_index(url: str, tables: Tables, with_cache: bool = False) -> None:
    """For a rebuild on purpose: drop every table of the index (nothing else), unless a
    writer holds it (IndexLockedError); readers' open searches finish first. The embedding
    cache table outlives a rebuild; ``with_cache`` drops it too (dropping a collection)."""
    database = Database(url, f"ragloom rebuild {socket.gethostname()} pid {os.getpid()}")
    try:
        with database.transaction("rebuild"):
            database.execute("rebuild", "SELECT pg_advisory_xact_lock(%s)", (lock_key(tables) ^ DDL_KEY,))
            if not database.execute("rebuild", "SELECT pg_try_advisory_xact_lock(%s)",
                                    (lock_key(tables),))[0][0]:
                raise IndexLockedError(f"the index at {database.where} table {tables.label} is "
                                       f"being written by another process: not "
                                       f"{'dropped' if with_cache else 'rebuilt'}")
            check_owned(database, tables)  # every object is ragloom's, or nothing is dropped
            refuse_dependents(database, tables, "drop")
            for table in dropped_tables(tables) + ([tables.name("_embeddings")] if with_cache else []):
                database.execute("rebuild", f"DROP TABLE IF EXISTS {table} RESTRICT")
            database.execute("rebuild", f"DROP FUNCTION IF EXISTS {tables.name(FUNCTION_SUFFIX)}() "
                             "RESTRICT")
    finally:
        database.close()
