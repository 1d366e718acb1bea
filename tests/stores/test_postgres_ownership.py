"""A shared database is never harmed: every object ragloom would use is checked for its
marker before anything is created or written, user objects are refused by name (never
adopted, emptied or dropped), a rebuild never cascades into user tables, and collection
names map to tables one to one."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.errors import StoreError
from ragloom.stores.base import EmbeddingSpec
from ragloom.stores.postgres import PostgresSettings, Tables, table_name
from ragloom.stores.postgres.collections import drop_index
from ragloom.stores.postgres.objects import MAX_TABLE, relation_names
from ragloom.stores.postgres.store import PostgresStore
from ragloom.testing.stores import DIM, sample_rows

SPEC = EmbeddingSpec("hash/test", DIM)


def engine_config(server: Any, schema: str, **postgres: Any) -> Any:
    return hash_config(vector_store={"provider": "postgres", "url": server.url,
                                     "postgres": {"schema": schema, **postgres}})


def project(root: Path) -> Path:
    write(root, "docs/a.md", "# Alpha\nRockets launch satellites into orbit.\n")
    write(root, "src/b.py", "def peel(banana):\n    return banana.skin\n")
    return root


def user_state(server: Any, schema: str) -> dict[str, Any]:
    """Everything of the schema's objects that are not ragloom's: definitions, rows,
    comments, function bodies."""
    state: dict[str, Any] = {}
    for name, kind, comment in server.execute(
            "SELECT c.relname, c.relkind, obj_description(c.oid, 'pg_class') FROM pg_class c "
            f"JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '{schema}'"):
        if comment and comment.startswith("ragloom index "):
            continue
        state[name] = [kind, comment]
        if kind == "r":
            state[name].append(server.execute(
                f"SELECT column_name, data_type FROM information_schema.columns WHERE "
                f"table_schema = '{schema}' AND table_name = '{name}' ORDER BY ordinal_position"))
            state[name].append(sorted(map(repr, server.execute(
                f'SELECT * FROM "{schema}"."{name}"'))))
        elif kind == "i":
            state[name].append(server.execute(
                f"SELECT indexdef FROM pg_indexes WHERE schemaname = '{schema}' "
                f"AND indexname = '{name}'"))
    for name, body, comment in server.execute(
            "SELECT p.proname, p.prosrc, obj_description(p.oid, 'pg_proc') FROM pg_proc p JOIN "
            f"pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = '{schema}'"):
        if not (comment or "").startswith("ragloom index "):
            state[f"{name}()"] = [body, comment]
    return state


def test_user_files_table_beside_the_index_is_refused_and_kept(postgres_server, postgres_schema,
                                                               tmp_path: Path) -> None:
    """Was: ragloom created its tables around kb_files, ran DELETE FROM kb_files (3 user rows
    gone), then failed on column "path"."""
    postgres_server.execute(f'CREATE TABLE "{postgres_schema}".kb_files (name text, owner text)')
    postgres_server.execute(f"INSERT INTO \"{postgres_schema}\".kb_files VALUES ('a', 'x'), "
                            "('b', 'y'), ('c', 'z')")
    before = user_state(postgres_server, postgres_schema)
    config = engine_config(postgres_server, postgres_schema, table="kb")
    with pytest.raises(StoreError) as refused:
        with RAGEngine(config, project(tmp_path / "p")) as engine:
            engine.index_directory()
    message = str(refused.value)
    assert f'table "{postgres_schema}"."kb_files" was not created by ragloom' in message
    assert "choose another [rag.vector_store.postgres] table" in message
    assert user_state(postgres_server, postgres_schema) == before
    assert postgres_server.execute(f"SELECT to_regclass('\"{postgres_schema}\".kb')") == [(None,)]


@pytest.mark.parametrize("suffix, definition", [
    ("_files", "(path text PRIMARY KEY, size bigint NOT NULL, mtime_ns bigint NOT NULL, "
               "sha256 text NOT NULL, chunk_ids jsonb NOT NULL, indexed_at double precision NOT NULL)"),
    ("_info", "(key text PRIMARY KEY, value text NOT NULL)"),
    ("", "(id text PRIMARY KEY, title text)"),  # was: column "embedding" does not exist
])
def test_a_table_with_a_ragloom_like_name_or_layout_is_never_adopted(
        postgres_server, postgres_schema, suffix: str, definition: str) -> None:
    """Was: a user kb_files with ragloom's columns was adopted, a user kb_info got 7 rows."""
    postgres_server.execute(f'CREATE TABLE "{postgres_schema}"."kb{suffix}" {definition}')
    before = user_state(postgres_server, postgres_schema)
    with pytest.raises(StoreError, match=rf'"{postgres_schema}"\."kb{suffix}" was not created by '
                                         r"ragloom"):
        PostgresStore(postgres_server.url, Tables(postgres_schema, "kb"), SPEC)
    assert user_state(postgres_server, postgres_schema) == before


@pytest.mark.parametrize("statement, name", [
    ("CREATE SEQUENCE \"{s}\".kb_source", "sequence \"{s}\".\"kb_source\""),
    ("CREATE TABLE \"{s}\".other (x int); CREATE INDEX kb_postings_pkey ON \"{s}\".other (x)",
     "index \"{s}\".\"kb_postings_pkey\""),
    ("CREATE FUNCTION \"{s}\".kb_bm25_counts() RETURNS int LANGUAGE sql AS 'SELECT 7'",
     "function \"{s}\".\"kb_bm25_counts()\""),
    ("CREATE VIEW \"{s}\".kb_terms AS SELECT 1 AS one", "view \"{s}\".\"kb_terms\""),
    ("CREATE TYPE \"{s}\".kb_stats AS (a int)", "type \"{s}\".\"kb_stats\""),
])
def test_every_index_sequence_function_and_type_name_is_checked(
        postgres_server, postgres_schema, statement: str, name: str) -> None:
    for part in statement.format(s=postgres_schema).split("; "):
        postgres_server.execute(part)
    before = user_state(postgres_server, postgres_schema)
    with pytest.raises(StoreError) as refused:
        PostgresStore(postgres_server.url, Tables(postgres_schema, "kb"), SPEC)
    assert name.format(s=postgres_schema) + " was not created by ragloom" in str(refused.value)
    assert user_state(postgres_server, postgres_schema) == before


def test_another_ragloom_index_is_not_touched_either(postgres_server, postgres_schema) -> None:
    """Index "kb_files" owns the table kb_files; index "kb" would use that name."""
    other = PostgresStore(postgres_server.url, Tables(postgres_schema, "kb_files"), SPEC)
    other.upsert(*sample_rows())
    other.close()
    with pytest.raises(StoreError, match=r'"kb_files" belongs to another ragloom index '
                                         rf"\(ragloom index {postgres_schema}\.kb_files layout 3\)"):
        PostgresStore(postgres_server.url, Tables(postgres_schema, "kb"), SPEC)
    reopened = PostgresStore(postgres_server.url, Tables(postgres_schema, "kb_files"), SPEC)
    assert reopened.count() == 4
    reopened.close()


def test_a_table_too_long_for_its_companions_is_refused(postgres_server, postgres_schema) -> None:
    long = "k" * (MAX_TABLE + 1)
    with pytest.raises(StoreError, match=rf"longer than {MAX_TABLE} characters"):
        PostgresStore(postgres_server.url, Tables(postgres_schema, long), SPEC)
    assert all(len(name) <= 63 for name in relation_names(Tables("s", "k" * MAX_TABLE)))


def _with_user_foreign_key(server: Any, schema: str) -> PostgresStore:
    store = PostgresStore(server.url, Tables(schema, "kb"), SPEC)
    store.upsert(*sample_rows())
    server.execute(f'CREATE TABLE "{schema}".notes (chunk text REFERENCES "{schema}".kb (id), '
                   "note text)")
    server.execute(f"INSERT INTO \"{schema}\".notes VALUES ('a1', 'keep me')")
    return store


def test_rebuild_never_cascades_into_a_user_table(postgres_server, postgres_schema) -> None:
    """Was: TRUNCATE <chunks>, <terms> CASCADE emptied a user table with a foreign key."""
    store = _with_user_foreign_key(postgres_server, postgres_schema)
    before = user_state(postgres_server, postgres_schema)
    with pytest.raises(StoreError) as refused:
        store.reset()
    message = str(refused.value)
    assert f"cannot empty the ragloom index {postgres_schema}.kb" in message
    assert f"constraint notes_chunk_fkey on table {postgres_schema}.notes" in message
    assert store.count() == 4
    store.close()
    with pytest.raises(StoreError, match="cannot drop the ragloom index .*notes_chunk_fkey"):
        drop_index(postgres_server.url, Tables(postgres_schema, "kb"))
    assert user_state(postgres_server, postgres_schema) == before


def test_a_user_view_is_named_by_a_drop_and_outlives_a_reset(postgres_server, postgres_schema) -> None:
    store = PostgresStore(postgres_server.url, Tables(postgres_schema, "kb"), SPEC)
    store.upsert(*sample_rows())
    postgres_server.execute(f'CREATE VIEW "{postgres_schema}".mine AS SELECT id, text FROM '
                            f'"{postgres_schema}".kb')
    store.reset()  # truncating leaves the view as it was
    assert store.count() == 0
    store.close()
    with pytest.raises(StoreError, match=rf"cannot drop .*\(view {postgres_schema}\.mine\)"):
        drop_index(postgres_server.url, Tables(postgres_schema, "kb"))
    assert postgres_server.execute(f'SELECT count(*) FROM "{postgres_schema}".mine') == [(0,)]


def test_engine_rebuild_is_refused_while_a_user_table_depends(postgres_server, postgres_schema,
                                                              tmp_path: Path) -> None:
    config = engine_config(postgres_server, postgres_schema, table="kb")
    root = project(tmp_path / "p")
    with RAGEngine(config, root) as engine:
        engine.index_directory()
        chunk = engine.search("rockets orbit", top_k=1)[0].id
    postgres_server.execute(f'CREATE TABLE "{postgres_schema}".notes (chunk text REFERENCES '
                            f'"{postgres_schema}".kb (id) ON DELETE CASCADE, note text)')
    postgres_server.execute(f"INSERT INTO \"{postgres_schema}\".notes VALUES ('{chunk}', 'mine')")
    before = user_state(postgres_server, postgres_schema)
    with pytest.raises(StoreError, match="notes_chunk_fkey"):
        with RAGEngine(config, root, rebuild=True) as engine:
            engine.index_directory()
    assert user_state(postgres_server, postgres_schema) == before


def test_rebuild_drops_only_ragloom_objects(postgres_server, postgres_schema) -> None:
    postgres_server.execute(f'CREATE TABLE "{postgres_schema}".kb_notes (x int)')
    store = PostgresStore(postgres_server.url, Tables(postgres_schema, "kb"), SPEC)
    store.upsert(*sample_rows())
    store.close()
    drop_index(postgres_server.url, Tables(postgres_schema, "kb"))
    left = {row[0] for row in postgres_server.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        f"WHERE n.nspname = '{postgres_schema}' AND c.relkind = 'r'")}
    assert left == {"kb_notes", "kb_embeddings"}  # the user's, and the cache a rebuild keeps


COLLECTIONS = ["team-docs", "team_docs", "Team_Docs", "TEAM-DOCS", "team.docs", "team docs",
               "team__docs", "team_docs_", "_team_docs", "team", "Team", "docs", "docs_v2",
               "docs-v2", "docs.v2", "ragloom", "a" * 39, "a" * 40, "A" * 39, "é", "e", "ü-x",
               "team_docs__0123456789ab", "x" * 200, "x" * 201, "default", "Default", "1", "01"]


def test_collection_names_map_to_tables_one_to_one() -> None:
    """Was: team-docs, team_docs and case variants shared ragloom_team_docs."""
    tables = {name: table_name(name) for name in COLLECTIONS}
    for first, second in itertools.combinations(COLLECTIONS, 2):
        assert tables[first] != tables[second], (first, second)
    for name, table in tables.items():
        assert len(table) <= MAX_TABLE and table.isascii(), name
        assert table == table.lower() and " " not in table and "-" not in table, name
    assert tables["team_docs"] == "ragloom_team_docs" and tables["default"] == "ragloom_default"


def test_colliding_collections_keep_apart_on_the_server(postgres_server, postgres_schema,
                                                        tmp_path: Path) -> None:
    found = {}
    for name, text in (("team-docs", "zeppelin hangar"), ("team_docs", "submarine dock"),
                       ("Team_Docs", "glacier cave")):
        config = hash_config(vector_store={"provider": "postgres", "url": postgres_server.url,
                                           "collection_name": name,
                                           "postgres": {"schema": postgres_schema}})
        root = tmp_path / name
        write(root, "a.md", f"# Place\nThe {text} is here.\n")
        with RAGEngine(config, root) as engine:
            engine.index_directory()
        found[name] = config, text
    for name, (config, text) in found.items():
        with RAGEngine(config, tmp_path / name, read_only=True) as engine:
            texts = [r.text for r in engine.search("zeppelin submarine glacier", top_k=5)]
        assert len(texts) == 1 and text in texts[0], (name, texts)


def test_the_marker_names_ragloom_layout_and_index(postgres_server, postgres_schema) -> None:
    store = PostgresStore(postgres_server.url, Tables(postgres_schema, "kb"), SPEC)
    store.close()
    rows = postgres_server.execute(
        "SELECT c.relname, obj_description(c.oid, 'pg_class') FROM pg_class c JOIN pg_namespace n "
        f"ON n.oid = c.relnamespace WHERE n.nspname = '{postgres_schema}' AND c.relkind IN ('r', 'i')")
    assert rows and {comment for _, comment in rows} == {
        f"ragloom index {postgres_schema}.kb layout 3"}
    assert {name for name, _ in rows} <= set(relation_names(Tables(postgres_schema, "kb")))


def test_a_reader_refuses_an_unmarked_table_too(postgres_server, postgres_schema) -> None:
    postgres_server.execute(f'CREATE TABLE "{postgres_schema}".kb (id text)')
    with pytest.raises(StoreError, match="was not created by ragloom"):
        PostgresStore(postgres_server.url, Tables(postgres_schema, "kb"), SPEC,
                      PostgresSettings(), read_only=True)
