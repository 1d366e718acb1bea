"""Property: whatever a user keeps in the schema (tables with ragloom-like names and
layouts, indexes, sequences, functions, views and types on the names an index would use,
objects marked as another index's, foreign keys into ragloom's tables), index, re-index,
rebuild and close on Postgres never change one user object: each either works or stops
with an error naming the object in the way."""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_postgres_ownership import user_state

from helpers import hash_config, ownership_steps, write
from ragloom import RAGEngine
from ragloom.errors import StoreError
from ragloom.stores.postgres import table_name
from ragloom.stores.postgres.objects import FUNCTION_SUFFIX, INDEX_SUFFIXES, TABLE_SUFFIXES

#: Layouts copied from ragloom's own (a look-alike must still be refused).
LOOK_ALIKE = {
    "": "(id text PRIMARY KEY, source text, chunk_index integer, text text NOT NULL, "
        "embedding vector(384) NOT NULL, metadata jsonb NOT NULL DEFAULT '{}', content_hash text, "
        "model text NOT NULL)",
    "_files": "(path text PRIMARY KEY, size bigint NOT NULL, mtime_ns bigint NOT NULL, sha256 text "
              "NOT NULL, chunk_ids jsonb NOT NULL, indexed_at double precision NOT NULL)",
    "_info": "(key text PRIMARY KEY, value text NOT NULL)",
}
ROWS = {
    "": "('u1', 'mine.md', 0, 'user text', array_fill(0.1, ARRAY[384])::vector, '{}', NULL, 'me')",
    "_files": "('mine.md', 1, 1, 'abc', '[]', 0)",
    "_info": "('layout', '3'), ('model', 'hash/feature-hash-v1'), ('dimension', '384')",
}
NAMES = [*TABLE_SUFFIXES, "_notes", "_backup"]

objects = st.lists(st.one_of(
    st.tuples(st.just("table"), st.sampled_from(NAMES), st.booleans()),
    st.tuples(st.just("index"), st.sampled_from([*INDEX_SUFFIXES, "_pkey", "_files_pkey"]),
              st.just(False)),
    st.tuples(st.just("sequence"), st.sampled_from([*INDEX_SUFFIXES, "_terms"]), st.just(False)),
    st.tuples(st.just("function"), st.just(FUNCTION_SUFFIX), st.just(False)),
    st.tuples(st.just("view"), st.sampled_from(NAMES), st.just(False)),
    st.tuples(st.just("type"), st.sampled_from(NAMES), st.just(False)),
    st.tuples(st.just("marked"), st.sampled_from(NAMES), st.just(False)),
), max_size=3, unique_by=lambda item: item[1])


def create_user_objects(server: Any, schema: str, items: list[tuple[str, str, bool]]) -> None:
    """The user's objects; one whose name ragloom already took cannot exist (skipped)."""
    import psycopg

    for kind, suffix, look_alike in items:
        name = f'"{schema}"."kb{suffix}"'
        statements = {
            "table": [f"CREATE TABLE {name} {LOOK_ALIKE.get(suffix, '(id text, n int)')}"
                      if look_alike else f"CREATE TABLE {name} (id text, n int)",
                      f"INSERT INTO {name} VALUES {ROWS[suffix]}" if look_alike and suffix in ROWS
                      else f"INSERT INTO {name} VALUES ('a', 1), ('b', 2)"],
            "index": [f'CREATE TABLE "{schema}"."u{suffix}" (x int)',
                      f'CREATE INDEX "kb{suffix}" ON "{schema}"."u{suffix}" (x)'],
            "sequence": [f"CREATE SEQUENCE {name}", f"SELECT nextval('{name}')"],
            "function": [f"CREATE FUNCTION {name}() RETURNS int LANGUAGE sql AS 'SELECT 42'"],
            "view": [f"CREATE VIEW {name} AS SELECT 1 AS one"],
            "type": [f"CREATE TYPE {name} AS (a int, b text)"],
            "marked": [f"CREATE TABLE {name} (id text)", f"INSERT INTO {name} VALUES ('m')",
                       f"COMMENT ON TABLE {name} IS 'ragloom index elsewhere.kb layout 3'"],
        }[kind]
        try:
            with psycopg.connect(server.url, autocommit=False) as connection:
                for statement in statements:
                    connection.execute(statement)
        except psycopg.Error:
            pass  # the name is ragloom's already: the user could not have made it


def add_foreign_keys(server: Any, schema: str, targets: list[str]) -> None:
    """User tables with foreign keys into ragloom's tables, rows pointing at real rows."""
    for number, target in enumerate(targets):
        column = "path" if target == "_files" else "id"
        row = server.execute(f'SELECT {column} FROM "{schema}"."kb{target}" LIMIT 1')
        server.execute(f'CREATE TABLE "{schema}".fk{number} (ref text REFERENCES '
                       f'"{schema}"."kb{target}" ({column}), note text)')
        if row:
            server.execute(f"INSERT INTO \"{schema}\".fk{number} VALUES ('{row[0][0]}', 'mine')")


def attempt(step: Any, schema: str, user_objects: set[str], outcomes: list[str]) -> None:
    """Run ``step``; a refusal must name the object in the way (schema-qualified, or a
    user object Postgres names: the table of a foreign key that blocks a delete)."""
    try:
        step()
        outcomes.append("ok")
    except StoreError as exc:
        named = {f'"{name}"' for name in user_objects if not name.endswith("()")}
        assert f"{schema}." in str(exc).replace('"', "") or any(name in str(exc) for name in named), \
            str(exc)
        outcomes.append("refused")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=objects, index_first=st.booleans(),
       foreign=st.lists(st.sampled_from(["", "_files", "_lengths"]), max_size=2, unique=True))
def test_no_user_object_is_ever_changed(postgres_server: Any, tmp_path: Path,
                                        items: list[tuple[str, str, bool]], index_first: bool,
                                        foreign: list[str]) -> None:
    root = tmp_path / "project"
    write(root, "a.md", "# A\nRockets launch satellites into orbit.\n")
    write(root, "b.py", "def peel(banana):\n    return banana.skin\n")
    with postgres_server.schema() as schema:
        config = hash_config(vector_store={"provider": "postgres", "url": postgres_server.url,
                                           "postgres": {"schema": schema, "table": "kb"}})
        if index_first:
            with RAGEngine(config, root) as engine:
                engine.index_directory()
            add_foreign_keys(postgres_server, schema, foreign)
        create_user_objects(postgres_server, schema, items)
        before = user_state(postgres_server, schema)
        outcomes: list[str] = []

        steps = ownership_steps(config, root)
        for step in (steps["index"], steps["change_and_remove"], steps["rebuild"], steps["index"]):
            attempt(step, schema, set(before), outcomes)
        assert user_state(postgres_server, schema) == before, (items, foreign, outcomes)
        in_the_way = any(kind != "table" or suffix in TABLE_SUFFIXES
                         for kind, suffix, _ in items)
        if not in_the_way and not foreign:  # nothing of the user's in the way: all works
            assert outcomes == ["ok"] * 4, outcomes


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(string.ascii_letters + string.digits + "._-", min_size=3, max_size=60),
                min_size=2, max_size=8, unique=True))
def test_distinct_collection_names_never_share_a_table(names: list[str]) -> None:
    variants = {variant for name in names for variant in
                (name, name.lower(), name.upper(), name.replace("-", "_"), name.replace("_", "-"))}
    tables = {table_name(name) for name in variants}
    assert len(tables) == len(variants)
