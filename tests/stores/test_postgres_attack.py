"""A user's database as it really looks: roles that own nothing but a schema, or may only
read; pgvector outside the search path; a schema whose name needs quoting beside its
lowercase twin; triggers, row-level security policies, functions, sequences, types and
views of the user's beside two ragloom collections. ragloom works where the rights allow,
fails naming what is missing where they do not, and never changes a user object."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from helpers import hash_config, write
from ragloom import RAGEngine
from ragloom.errors import StoreError
from ragloom.stores.base import EmbeddingSpec
from ragloom.stores.postgres import Tables
from ragloom.stores.postgres.collections import drop_index, list_indexes
from ragloom.stores.postgres.store import PostgresStore
from ragloom.testing.stores import DIM, sample_rows

SPEC = EmbeddingSpec("hash/test", DIM)


def engine_config(url: str, schema: str, **settings: Any) -> Any:
    return hash_config(vector_store={"provider": "postgres", "url": url, **settings.pop("store", {}),
                                     "postgres": {"schema": schema, **settings}})


def project(root: Path) -> Path:
    write(root, "a.md", "# Alpha\nRockets launch satellites into orbit.\n")
    write(root, "b.py", "def peel(banana):\n    return banana.skin\n")
    return root


@contextmanager
def role(server: Any, *grants: str, search_path: str | None = None) -> Iterator[str]:
    """A login role (no superuser, no CREATE on the database) with ``grants`` ({r} is its
    name); yields a URL connecting as it. Its objects and the role are dropped afterwards."""
    name = f"r_{uuid.uuid4().hex[:10]}"
    server.execute(f"CREATE ROLE {name} LOGIN PASSWORD 'pw'")
    try:
        for grant in grants:
            server.execute(grant.format(r=name))
        if search_path is not None:
            server.execute(f"ALTER ROLE {name} SET search_path = {search_path}")
        parts = urlsplit(server.url)
        host = parts.netloc.rsplit("@", 1)[-1]
        yield urlunsplit((parts.scheme, f"{name}:pw@{host}", parts.path, parts.query,
                          parts.fragment))
    finally:
        server.execute(f"DROP OWNED BY {name} CASCADE")
        server.execute(f"DROP ROLE {name}")


def catalog(server: Any, schema: str) -> dict[str, Any]:
    """Every catalog row of the schema's objects that are not ragloom's (relations with
    their columns, rows and row-security flag; functions; types; triggers; policies;
    dependencies), described by name so a drop and re-create would show."""
    mine = ("coalesce(obj_description({0}, 'pg_class'), '') NOT LIKE 'ragloom index %'")
    where = f"n.nspname = '{schema}'"
    state: dict[str, Any] = {}
    for name, kind, secured in server.execute(
            "SELECT c.relname, c.relkind, c.relrowsecurity FROM pg_class c JOIN pg_namespace n ON "
            f"n.oid = c.relnamespace WHERE {where} AND {mine.format('c.oid')}"):
        state[f"class {name}"] = [kind, secured, server.execute(
            f"SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = "
            f"'\"{schema}\".\"{name}\"'::regclass AND attnum > 0 ORDER BY attnum")]
        if kind in "rv":
            state[f"class {name}"].append(sorted(map(repr, server.execute(
                f'SELECT * FROM "{schema}"."{name}"'))))
    for name, body in server.execute(
            "SELECT p.proname, p.prosrc FROM pg_proc p JOIN pg_namespace n ON "
            f"n.oid = p.pronamespace WHERE {where} AND "
            "coalesce(obj_description(p.oid, 'pg_proc'), '') NOT LIKE 'ragloom index %'"):
        state[f"function {name}"] = body
    state["types"] = server.execute(
        "SELECT t.typname, t.typtype FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace "
        f"WHERE {where} AND {mine.format('t.typrelid')} AND (t.typelem = 0 OR "
        f"{mine.format('(SELECT e.typrelid FROM pg_type e WHERE e.oid = t.typelem)')}) "
        "ORDER BY 1")
    state["triggers"] = server.execute(
        "SELECT tgname, tgrelid::regclass::text, tgenabled, tgfoid::regproc::text FROM pg_trigger "
        f"WHERE NOT tgisinternal AND {mine.format('tgrelid')} ORDER BY 1, 2")
    state["policies"] = server.execute(
        "SELECT polname, polrelid::regclass::text, pg_get_expr(polqual, polrelid) FROM pg_policy "
        f"WHERE {mine.format('polrelid')} ORDER BY 1, 2")
    state["depend"] = sorted(map(repr, server.execute(
        "SELECT pg_describe_object(classid, objid, objsubid), "
        "pg_describe_object(refclassid, refobjid, refobjsubid), deptype FROM pg_depend d WHERE "
        "(d.classid = 'pg_class'::regclass AND d.objid IN (SELECT c.oid FROM pg_class c JOIN "
        f"pg_namespace n ON n.oid = c.relnamespace WHERE {where} AND {mine.format('c.oid')})) OR "
        "(d.refclassid = 'pg_class'::regclass AND d.refobjid IN (SELECT c.oid FROM pg_class c "
        f"JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {where} AND {mine.format('c.oid')}))")))
    return state


def test_a_role_with_create_on_its_schema_only_builds_the_index(postgres_server, postgres_schema,
                                                                tmp_path: Path) -> None:
    """Was: CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when the schema
    exists, so such a role got "permission denied for database postgres"."""
    s = postgres_schema
    with role(postgres_server, f'GRANT USAGE, CREATE ON SCHEMA "{s}" TO {{r}}') as url:
        with RAGEngine(engine_config(url, s, table="kb"), project(tmp_path / "p")) as engine:
            engine.index_directory()
            assert "rockets" in engine.search("rockets orbit", top_k=1)[0].text.lower()


def test_pgvector_off_the_search_path_still_works(postgres_server, postgres_schema,
                                                  tmp_path: Path) -> None:
    """Was: type "vector" does not exist, with the extension installed (in public, which
    the role's search_path leaves out)."""
    s = postgres_schema
    with role(postgres_server, f'GRANT USAGE, CREATE ON SCHEMA "{s}" TO {{r}}',
              search_path=f'"{s}"') as url:
        root = project(tmp_path / "p")
        with RAGEngine(engine_config(url, s, table="kb"), root) as engine:
            engine.index_directory()
        with RAGEngine(engine_config(url, s, table="kb"), root, read_only=True) as engine:
            assert "banana" in engine.search("peel banana", top_k=1)[0].text


@contextmanager
def database(server: Any, *statements: str) -> Iterator[str]:
    """A database of its own set up by ``statements``; yields its URL, dropped afterwards."""
    name = f"d_{uuid.uuid4().hex[:10]}"
    server.execute(f"CREATE DATABASE {name}")
    parts = urlsplit(server.url)
    url = urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))
    try:
        import psycopg

        with psycopg.connect(url, autocommit=True) as connection:
            for statement in statements:
                connection.execute(statement)
        yield url
    finally:
        server.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.mark.parametrize("sparse", ["sql", "pg_textsearch"])
def test_extensions_in_schemas_of_their_own(postgres_server, tmp_path: Path, sparse: str) -> None:
    """CREATE EXTENSION vector SCHEMA vec (and pg_textsearch in one more), neither on the
    search path: indexing, BM25 and search work, and the index lands in its schema."""
    if sparse == "pg_textsearch" and not postgres_server.text_search:
        pytest.skip("the server has no pg_textsearch")
    with database(postgres_server, "CREATE SCHEMA vec", "CREATE SCHEMA bm", "CREATE SCHEMA app",
                  "CREATE EXTENSION vector SCHEMA vec",
                  *(["CREATE EXTENSION pg_textsearch SCHEMA bm"] if sparse != "sql" else [])) as url:
        root = project(tmp_path / "p")
        with RAGEngine(engine_config(url, "app", table="kb", sparse=sparse), root) as engine:
            engine.index_directory()
            assert "banana" in engine.search("peel banana", top_k=1)[0].text
        with RAGEngine(engine_config(url, "app", table="kb", sparse=sparse), root,
                       read_only=True) as engine:
            assert "rockets" in engine.search("rockets orbit", top_k=1)[0].text.lower()
        assert [index.table for index in list_indexes(url, "app")] == ["kb"]


def test_a_user_staging_table_before_pg_temp_on_the_search_path_is_left_alone(
        postgres_server, postgres_schema, tmp_path: Path) -> None:
    """Was: with search_path = "<schema>", public, pg_temp the unqualified TRUNCATE and COPY
    of ragloom's temporary staging table reached the user's table of that name first:
    indexing failed on its columns (a table with the staging columns had its rows replaced)."""
    s = postgres_schema
    postgres_server.execute(f'CREATE TABLE "{s}".ragloom_stage (id text, note text)')
    postgres_server.execute(f"INSERT INTO \"{s}\".ragloom_stage VALUES ('mine', 'keep me')")
    before = catalog(postgres_server, s)
    with role(postgres_server, f'GRANT USAGE, CREATE ON SCHEMA "{s}" TO {{r}}',
              f'GRANT ALL ON "{s}".ragloom_stage TO {{r}}',
              search_path=f'"{s}", public, pg_temp') as url:
        with RAGEngine(engine_config(url, s, table="kb"), project(tmp_path / "p")) as engine:
            engine.index_directory()
            assert engine.search("rockets orbit", top_k=1)
    assert catalog(postgres_server, s) == before


def test_a_read_only_role_searches_and_a_write_fails_naming_the_table(
        postgres_server, postgres_schema, tmp_path: Path) -> None:
    s = postgres_schema
    root = project(tmp_path / "p")
    with RAGEngine(engine_config(postgres_server.url, s, table="kb"), root) as engine:
        engine.index_directory()
    before = postgres_server.execute(f'SELECT id, text FROM "{s}".kb ORDER BY id')
    with role(postgres_server, f'GRANT USAGE ON SCHEMA "{s}" TO {{r}}',
              f'GRANT SELECT ON ALL TABLES IN SCHEMA "{s}" TO {{r}}') as url:
        with RAGEngine(engine_config(url, s, table="kb"), root, read_only=True) as engine:
            assert "rockets" in engine.search("rockets orbit", top_k=1)[0].text.lower()
        write(root, "c.md", "# Gamma\nGlaciers carve valleys.\n")
        with pytest.raises(StoreError, match=rf"role 'r_\w+' may not write the ragloom index at "
                                             rf".* table {s}\.kb: it has no INSERT privilege on "
                                             rf'table "{s}"\."kb\w*"; search it read-only'):
            with RAGEngine(engine_config(url, s, table="kb"), root) as engine:
                engine.index_directory()
        with pytest.raises(StoreError, match=rf"permission denied for schema {s}"):
            with RAGEngine(engine_config(url, s, table="other"), root) as engine:
                engine.index_directory()
    assert postgres_server.execute(f'SELECT id, text FROM "{s}".kb ORDER BY id') == before
    assert postgres_server.execute(f"SELECT to_regclass('\"{s}\".other')") == [(None,)]


def test_a_schema_needing_quotes_beside_its_lowercase_twin(postgres_server, tmp_path: Path) -> None:
    lower = f"t_{uuid.uuid4().hex[:12]}"
    mixed = lower.replace("t_", "T_Docs_")
    twin = lower.replace("t_", "t_docs_")
    postgres_server.execute(f'CREATE SCHEMA "{mixed}"')
    postgres_server.execute(f'CREATE SCHEMA "{twin}"')
    try:
        postgres_server.execute(f'CREATE TABLE "{twin}".kb (id text, note text)')
        postgres_server.execute(f"INSERT INTO \"{twin}\".kb VALUES ('u1', 'mine')")
        before = catalog(postgres_server, twin)
        config = engine_config(postgres_server.url, mixed, table="kb")
        root = project(tmp_path / "p")
        with RAGEngine(config, root) as engine:
            engine.index_directory()
            assert engine.search("rockets", top_k=1)
        assert [index.table for index in list_indexes(postgres_server.url, mixed)] == ["kb"]
        assert list_indexes(postgres_server.url, twin) == []
        drop_index(postgres_server.url, Tables(mixed, "kb"), with_cache=True)
        assert catalog(postgres_server, twin) == before
    finally:
        postgres_server.execute(f'DROP SCHEMA "{mixed}" CASCADE')
        postgres_server.execute(f'DROP SCHEMA "{twin}" CASCADE')


USER_OBJECTS = [
    "CREATE TABLE \"{s}\".orders (id serial PRIMARY KEY, owner text, total int)",
    "INSERT INTO \"{s}\".orders (owner, total) VALUES ('ann', 3), ('bob', 5)",
    "CREATE TABLE \"{s}\".audit (at text, what text)",
    "CREATE FUNCTION \"{s}\".log_order() RETURNS trigger LANGUAGE plpgsql AS "
    "$$BEGIN INSERT INTO \"{s}\".audit VALUES ('now', TG_OP); RETURN NEW; END$$",
    "CREATE TRIGGER orders_log AFTER INSERT OR DELETE ON \"{s}\".orders "
    "FOR EACH ROW EXECUTE FUNCTION \"{s}\".log_order()",
    "CREATE TRIGGER ragloom_docs_lengths_insert BEFORE UPDATE ON \"{s}\".audit "
    "FOR EACH ROW EXECUTE FUNCTION \"{s}\".log_order()",  # a ragloom trigger's name
    "ALTER TABLE \"{s}\".orders ENABLE ROW LEVEL SECURITY",
    "CREATE POLICY own_rows ON \"{s}\".orders USING (owner = current_user)",
    "CREATE SEQUENCE \"{s}\".ragloom_stage",
    "CREATE TYPE \"{s}\".ragloom_mood AS ENUM ('calm', 'busy')",
    "CREATE VIEW \"{s}\".big_orders AS SELECT id, total FROM \"{s}\".orders WHERE total > 4",
    "CREATE TABLE \"{s}\".ragloom_notes_kb (x int)",
]


def test_two_collections_and_user_objects_then_drop_and_rebuild(postgres_server, postgres_schema,
                                                                tmp_path: Path) -> None:
    s = postgres_schema
    for statement in USER_OBJECTS:
        postgres_server.execute(statement.format(s=s))
    before = catalog(postgres_server, s)
    roots = {}
    for name, text in (("docs", "zeppelin hangar"), ("notes", "submarine dock")):
        roots[name] = tmp_path / name
        write(roots[name], "a.md", f"# Place\nThe {text} is here.\n")
        with RAGEngine(engine_config(postgres_server.url, s, store={"collection_name": name}),
                       roots[name]) as engine:
            engine.index_directory()
    assert catalog(postgres_server, s) == before
    with RAGEngine(engine_config(postgres_server.url, s, store={"collection_name": "notes"}),
                   roots["notes"], rebuild=True) as engine:
        engine.index_directory()
    drop_index(postgres_server.url, Tables(s, "ragloom_docs"), with_cache=True)
    assert catalog(postgres_server, s) == before
    assert [index.table for index in list_indexes(postgres_server.url, s)] == ["ragloom_notes"]
    with RAGEngine(engine_config(postgres_server.url, s, store={"collection_name": "notes"}),
                   roots["notes"], read_only=True) as engine:
        assert "submarine" in engine.search("submarine", top_k=1)[0].text


@pytest.mark.parametrize("statements, named", [
    (["CREATE INDEX my_idx ON \"{s}\".kb (model)"], "index {s}.my_idx"),
    (["CREATE FUNCTION \"{s}\".stamp() RETURNS trigger LANGUAGE plpgsql AS "
      "$$BEGIN RETURN NEW; END$$",
      "CREATE TRIGGER my_trg BEFORE INSERT ON \"{s}\".kb FOR EACH ROW EXECUTE FUNCTION "
      "\"{s}\".stamp()"], "trigger my_trg on table {s}.kb"),
    (["CREATE POLICY my_pol ON \"{s}\".kb USING (model <> 'x')"], "policy my_pol on table {s}.kb"),
    (["CREATE RULE my_rule AS ON DELETE TO \"{s}\".kb_files DO ALSO NOTIFY files_gone"],
     "rule my_rule on table {s}.kb_files"),
    (["CREATE STATISTICS \"{s}\".my_stats ON source, model FROM \"{s}\".kb"],
     "statistics object {s}.my_stats"),
    (["CREATE SEQUENCE \"{s}\".my_seq", "ALTER SEQUENCE \"{s}\".my_seq OWNED BY \"{s}\".kb.chunk_index"],
     "sequence {s}.my_seq"),
])
def test_a_user_object_attached_to_an_index_table_stops_a_drop(
        postgres_server, postgres_schema, statements: list[str], named: str) -> None:
    """Was: dropping the index (a rebuild, ``ragloom collections drop``) removed a user's
    index, trigger, policy, rule, statistics or owned sequence on its tables silently;
    emptying it (TRUNCATE) leaves them be, so a reset still works."""
    s = postgres_schema
    store = PostgresStore(postgres_server.url, Tables(s, "kb"), SPEC)
    store.upsert(*sample_rows())
    for statement in statements:
        postgres_server.execute(statement.format(s=s))
    attached = postgres_server.execute(
        "SELECT pg_describe_object(classid, objid, 0) FROM pg_depend WHERE refobjid IN "
        f"('\"{s}\".kb'::regclass, '\"{s}\".kb_files'::regclass) AND deptype = 'a' ORDER BY 1")
    store.reset()
    store.close()
    named = named.format(s=s)
    with pytest.raises(StoreError, match=rf"cannot drop the ragloom index {s}\.kb: .*\({named}\)"):
        drop_index(postgres_server.url, Tables(s, "kb"), with_cache=True)
    assert postgres_server.execute(
        "SELECT pg_describe_object(classid, objid, 0) FROM pg_depend WHERE refobjid IN "
        f"('\"{s}\".kb'::regclass, '\"{s}\".kb_files'::regclass) AND deptype = 'a' ORDER BY 1") \
        == attached
