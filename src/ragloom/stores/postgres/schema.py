"""The index's tables in Postgres: a documented, stable layout an app may join with its own.

``<table>`` (one row per chunk)::

    id            text PRIMARY KEY     -- ragloom's chunk id
    source        text                 -- the file's path, or ragloom-source://<id> for a text
    chunk_index   integer              -- position of the chunk in its source
    text          text NOT NULL        -- the chunk as indexed
    embedding     vector(d) NOT NULL   -- unit vector; HNSW index with vector_cosine_ops
    metadata      jsonb NOT NULL       -- every metadata key (path, language, lines, ...)
    content_hash  text                 -- hash of the text (metadata content_hash)
    model         text NOT NULL        -- embedding model identity, e.g. "local/all-MiniLM-L6-v2"

Beside it: ``<table>_info`` (key/value: layout version, model, dimension, tokenizer),
``<table>_postings`` (its primary key (term, id) carries tf and length, so a term's
postings are read from the index alone), ``<table>_lengths``, ``<table>_terms`` (document
frequency, and the largest tf and smallest length among a term's postings) and
``<table>_stats`` (the BM25 index and its statistics, kept by triggers), ``<table>_symbols``
(the names chunks define), ``<table>_files`` (the manifest) and ``<table>_embeddings`` (the
embedding cache, shared by every writer). With ``sparse = "pg_textsearch"``, also
``<table>_tokens`` (id, the chunk's BM25 tokens as text) and its ``bm25`` index.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ragloom.stores.postgres.connection import Database
from ragloom.stores.postgres.objects import INDEX_SUFFIXES, TABLE_SUFFIXES, comment_statements
from ragloom.stores.postgres.settings import PostgresSettings, Tables

#: The pg_textsearch side's table and index, created only with ``sparse = "pg_textsearch"``.
_TEXT_TABLE, _TEXT_INDEX = "_tokens", "_tokens_bm25"


def create_statements(tables: Tables, dimension: int, settings: PostgresSettings) -> list[str]:
    """DDL for every table and index of one index, each marked as ragloom's (run once the
    names were checked: ``objects.check_owned``)."""
    t = tables
    return [
        "CREATE EXTENSION IF NOT EXISTS vector",
        # only when missing: CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even
        # when the schema exists (a role owning just its schema could not build there)
        f"DO $schema$ BEGIN IF to_regnamespace('\"{t.schema}\"') IS NULL THEN "
        f'CREATE SCHEMA "{t.schema}"; END IF; END $schema$',
        f"CREATE TABLE {t.info} (key text PRIMARY KEY, value text NOT NULL)",
        f"CREATE TABLE {t.chunks} (id text PRIMARY KEY, source text, "
        f"chunk_index integer, text text NOT NULL, embedding vector({dimension}) NOT NULL, "
        f"metadata jsonb NOT NULL DEFAULT '{{}}', content_hash text, model text NOT NULL)",
        f'CREATE INDEX "{t.table}_embedding_hnsw" ON {t.chunks} USING hnsw '
        f"(embedding vector_cosine_ops) WITH (m = {settings.m}, "
        f"ef_construction = {settings.ef_construction})",
        f'CREATE INDEX "{t.table}_source" ON {t.chunks} (source text_pattern_ops)',
        f'CREATE INDEX "{t.table}_path" ON {t.chunks} '
        f"((metadata ->> 'path') text_pattern_ops)",
        f'CREATE INDEX "{t.table}_metadata" ON {t.chunks} '
        f"USING gin (metadata jsonb_path_ops)",
        f'CREATE INDEX "{t.table}_content_hash" ON {t.chunks} (content_hash)',
        f"CREATE TABLE {t.lengths} (id text PRIMARY KEY REFERENCES {t.chunks} "
        f"ON DELETE CASCADE, length integer NOT NULL)",
        f"CREATE TABLE {t.postings} (term text NOT NULL, id text NOT NULL "
        f"REFERENCES {t.chunks} ON DELETE CASCADE, tf integer NOT NULL, length integer NOT NULL, "
        f"PRIMARY KEY (term, id) INCLUDE (tf, length))",
        f"CREATE TABLE {t.terms} (term text PRIMARY KEY, df integer NOT NULL, "
        f"max_tf integer NOT NULL, min_length integer NOT NULL)",
        f"CREATE TABLE {t.stats} (one boolean PRIMARY KEY DEFAULT TRUE CHECK (one), "
        f"documents bigint NOT NULL, tokens bigint NOT NULL)",
        f"INSERT INTO {t.stats} VALUES (TRUE, 0, 0) ON CONFLICT DO NOTHING",
        *_counting_triggers(t),
        f'CREATE INDEX "{t.table}_postings_id" ON {t.postings} (id)',
        f"CREATE TABLE {t.symbols} (name text NOT NULL, id text NOT NULL "
        f"REFERENCES {t.chunks} ON DELETE CASCADE, PRIMARY KEY (name, id))",
        f'CREATE INDEX "{t.table}_symbols_id" ON {t.symbols} (id)',
        f"CREATE TABLE {t.files} (path text PRIMARY KEY, size bigint NOT NULL, "
        f"mtime_ns bigint NOT NULL, sha256 text NOT NULL, chunk_ids jsonb NOT NULL, "
        f"indexed_at double precision NOT NULL)",
        # the embedding cache outlives a rebuild (checked to be this index's own, when there)
        f"CREATE TABLE IF NOT EXISTS {t.cache} (namespace text NOT NULL, hash text NOT NULL, "
        f"vector bytea NOT NULL, PRIMARY KEY (namespace, hash))",
        *comment_statements(t, tuple(s for s in TABLE_SUFFIXES if s != _TEXT_TABLE),
                            tuple(s for s in INDEX_SUFFIXES if s != _TEXT_INDEX)),
    ]


def _counting_triggers(t: Tables) -> list[str]:
    """Statement triggers keeping the BM25 statistics (documents, tokens, document frequency
    of each term) in step with the postings, in the same transaction as every change.
    A term's ``max_tf`` and ``min_length`` (bounds of its best possible BM25 weight, which
    lets a search skip its postings) only grow looser on a delete: still bounds."""
    function = t.name("_bm25_counts")
    body = f"""
CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  IF TG_TABLE_NAME = '{t.table}_lengths' THEN
    IF TG_OP = 'INSERT' THEN
      UPDATE {t.stats} SET documents = documents + (SELECT count(*) FROM changed_new),
        tokens = tokens + (SELECT coalesce(sum(length), 0) FROM changed_new);
    ELSE
      UPDATE {t.stats} SET documents = documents - (SELECT count(*) FROM changed_old),
        tokens = tokens - (SELECT coalesce(sum(length), 0) FROM changed_old);
    END IF;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO {t.terms} SELECT term, count(*), max(tf), min(length) FROM changed_new
      GROUP BY term ON CONFLICT (term) DO UPDATE SET df = {t.terms}.df + excluded.df,
        max_tf = greatest({t.terms}.max_tf, excluded.max_tf),
        min_length = least({t.terms}.min_length, excluded.min_length);
  ELSE
    UPDATE {t.terms} SET df = {t.terms}.df - gone.n
      FROM (SELECT term, count(*) AS n FROM changed_old GROUP BY term) gone
      WHERE {t.terms}.term = gone.term;
    DELETE FROM {t.terms} WHERE df <= 0;
  END IF;
  RETURN NULL;
END
$body$"""
    statements = [body]
    for table, name in ((t.lengths, "lengths"), (t.postings, "postings")):
        for event, transition in (("INSERT", "NEW TABLE AS changed_new"),
                                  ("DELETE", "OLD TABLE AS changed_old")):
            statements.append(
                f'CREATE OR REPLACE TRIGGER "{t.table}_{name}_{event.lower()}" AFTER {event} ON '
                f"{table} REFERENCING {transition} FOR EACH STATEMENT EXECUTE FUNCTION {function}()")
    return statements


def text_search_statements(t: Tables) -> list[str]:
    """DDL of the pg_textsearch side: each chunk's BM25 tokens as text (hex
    words, so the ``simple`` configuration keeps ragloom's tokens whole) and its BM25
    index, with the local index's k1 and b."""
    return [
        "CREATE EXTENSION IF NOT EXISTS pg_textsearch",
        f"CREATE TABLE {t.tokens} (id text PRIMARY KEY REFERENCES {t.chunks} "
        f"ON DELETE CASCADE, tokens text NOT NULL)",
        f'CREATE INDEX "{t.table}_tokens_bm25" ON {t.tokens} USING bm25 (tokens) '
        f"WITH (text_config = 'simple', k1 = 1.5, b = 0.75)",
        *comment_statements(t, (_TEXT_TABLE,), (_TEXT_INDEX,), function=False),
    ]


def chunks_lacking(database: Database, t: Tables, table: str,
                   page: int = 2000) -> Iterator[list[tuple[str, str, dict[str, Any]]]]:
    """(id, text, metadata) of the chunks ``table`` has no row for (a BM25 table to fill),
    ``page`` chunks at a time, in order of id."""
    ids = [row[0] for row in database.execute(
        "fill", f"SELECT id FROM {t.chunks} c WHERE NOT EXISTS "
        f"(SELECT 1 FROM {table} x WHERE x.id = c.id) ORDER BY id")]
    for start in range(0, len(ids), page):
        yield database.execute("fill", f"SELECT id, text, metadata FROM {t.chunks} "
                               "WHERE id = ANY(%s) ORDER BY id", (ids[start:start + page],))


def dropped_tables(t: Tables) -> list[str]:
    """Every table of the index, dependents first (a rebuild drops them)."""
    return [t.tokens, t.postings, t.lengths, t.symbols, t.terms, t.stats, t.files, t.chunks,
            t.info]


def row_values(chunk_id: str, text: str, metadata: dict[str, Any]) -> tuple[Any, Any, Any]:
    """(source, chunk_index, content_hash) columns of a chunk, from its metadata."""
    if metadata.get("source") == "text" and "source_id" in metadata:
        source: Any = "ragloom-source://" + str(metadata["source_id"])
    else:
        source = metadata.get("path")
        source = None if source is None else str(source)
    index = metadata.get("chunk_index")
    index = index if isinstance(index, int) and not isinstance(index, bool) else None
    digest = metadata.get("content_hash")
    return source, index, None if digest is None else str(digest)
