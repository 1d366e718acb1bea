"""Which database objects are ragloom's: every table, index and function of an index carries
a comment naming ragloom, the layout and the index (``ragloom index public.kb layout 3``),
written in the transaction that creates it.

Before anything is created or written, every name the index would use is looked up (any
relation: table, index, sequence, view; functions; stand-alone types). An object that
exists without this index's marker is refused with an error naming it: nothing is adopted
because its columns look right, and nothing of another ragloom index is touched. A rebuild
refuses while a user object depends on the index's tables (a foreign key, a view), naming
them, instead of truncating or dropping through CASCADE.
"""

from __future__ import annotations

from ragloom.errors import StoreError
from ragloom.stores.postgres.connection import Database
from ragloom.stores.postgres.settings import Tables

#: Bumped only with a migration; a table of another layout is refused, never altered.
LAYOUT_VERSION = "3"

#: Suffixes of the index's tables (the chunk table has none).
TABLE_SUFFIXES = ("", "_info", "_postings", "_lengths", "_terms", "_stats", "_symbols", "_files",
                  "_embeddings", "_tokens")
#: Suffixes of the indexes named in ``schema`` (each table's primary key is ``<name>_pkey``).
INDEX_SUFFIXES = ("_embedding_hnsw", "_source", "_path", "_metadata", "_content_hash",
                  "_postings_id", "_symbols_id", "_tokens_bm25")
FUNCTION_SUFFIX = "_bm25_counts"
#: Postgres cuts longer identifiers short (two objects could then share a name).
MAX_IDENTIFIER = 63
LONGEST_SUFFIX = max((*(s + "_pkey" for s in TABLE_SUFFIXES), *INDEX_SUFFIXES, FUNCTION_SUFFIX),
                     key=len)
#: The longest chunk-table name whose every object name stays whole.
MAX_TABLE = MAX_IDENTIFIER - len(LONGEST_SUFFIX)


def marker(tables: Tables) -> str:
    """The comment every object of the index carries."""
    return f"ragloom index {tables.label} layout {LAYOUT_VERSION}"


def relation_names(tables: Tables) -> list[str]:
    """Every table and index name the index uses (unquoted)."""
    base = tables.table
    return [*(base + s for s in TABLE_SUFFIXES), *(base + s + "_pkey" for s in TABLE_SUFFIXES),
            *(base + s for s in INDEX_SUFFIXES)]


def comment_statements(tables: Tables, suffixes: tuple[str, ...] = TABLE_SUFFIXES,
                       indexes: tuple[str, ...] = INDEX_SUFFIXES, function: bool = True) -> list[str]:
    """``COMMENT ON`` the named tables, their primary keys, the indexes and the function."""
    text = marker(tables).replace("'", "''")
    statements = [f"COMMENT ON TABLE {tables.name(s)} IS '{text}'" for s in suffixes]
    statements += [f"COMMENT ON INDEX {tables.name(s + '_pkey')} IS '{text}'" for s in suffixes]
    statements += [f"COMMENT ON INDEX {tables.name(s)} IS '{text}'" for s in indexes]
    if function:
        statements.append(f"COMMENT ON FUNCTION {tables.name(FUNCTION_SUFFIX)}() IS '{text}'")
    return statements


_KINDS = {"r": "table", "p": "table", "i": "index", "I": "index", "S": "sequence", "v": "view",
          "m": "materialized view", "f": "foreign table", "c": "type", "t": "TOAST table"}

_RELATIONS = """
SELECT c.relname, c.relkind, obj_description(c.oid, 'pg_class') FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relname = ANY(%s)
"""
_FUNCTIONS = """
SELECT p.proname, obj_description(p.oid, 'pg_proc') FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = %s AND p.proname = %s
"""
_TYPES = """
SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE n.nspname = %s AND t.typname = ANY(%s) AND t.typrelid = 0
"""


def existing_objects(database: Database, tables: Tables) -> dict[str, tuple[str, str | None]]:
    """The index's names that exist: name -> (kind, comment)."""
    names = relation_names(tables)
    found = {name: (_KINDS.get(kind, "relation"), comment)
             for name, kind, comment in database.execute("ownership", _RELATIONS,
                                                         (tables.schema, names))}
    function = tables.table + FUNCTION_SUFFIX
    for name, comment in database.execute("ownership", _FUNCTIONS, (tables.schema, function)):
        found[f"{name}()"] = ("function", comment)
    for (name,) in database.execute("ownership", _TYPES, (tables.schema, names)):
        found.setdefault(name, ("type", None))
    return found


def check_owned(database: Database, tables: Tables,
                writing: str | None = None) -> dict[str, tuple[str, str | None]]:
    """The index's objects that exist, after making sure each is this index's: a StoreError
    names the first that is not (a user's object, another ragloom index's, another layout).
    ``writing`` (the index's location, for a writer): the role must also be able to write
    an existing index (``check_writable``)."""
    if len(tables.table) > MAX_TABLE:
        raise StoreError(f"[rag.vector_store.postgres] table {tables.table!r} is longer than "
                         f"{MAX_TABLE} characters: Postgres would cut the names of its companion "
                         f"objects short (e.g. {tables.table + LONGEST_SUFFIX!r}); choose a "
                         f"shorter table")
    found = existing_objects(database, tables)
    expected = marker(tables)
    for name, (kind, comment) in sorted(found.items()):
        if comment == expected:
            continue
        where = f'{kind} "{tables.schema}"."{name}"'
        if comment and comment.startswith(f"ragloom index {tables.label} layout "):
            layout = comment.rsplit(" ", 1)[-1]
            raise StoreError(f"{where} belongs to a ragloom index of table layout {layout}; this "
                             f"ragloom reads layout {LAYOUT_VERSION} and will not change it: drop "
                             f"that index's objects yourself, or choose another "
                             f"[rag.vector_store.postgres] table")
        owner = (f"belongs to another ragloom index ({comment})" if comment and
                 comment.startswith("ragloom index ") else "was not created by ragloom (it has "
                 "no ragloom marker comment)")
        raise StoreError(f"{where} {owner}; the ragloom index {tables.label} would use that "
                         f"name, and ragloom will not change, adopt or drop it: choose another "
                         f"[rag.vector_store.postgres] table (or vector_store.collection_name); "
                         f"tables of an index made by a ragloom before layout {LAYOUT_VERSION} "
                         f"carry no marker either: drop those yourself to rebuild there")
    if writing is not None and tables.table in found:
        check_writable(database, tables, writing)
    return found


_UNWRITABLE = """
SELECT current_user, name, privilege FROM unnest(%s::text[]) AS name,
  unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) AS privilege
WHERE to_regclass(name) IS NOT NULL AND NOT has_table_privilege(to_regclass(name), privilege)
"""


def check_writable(database: Database, tables: Tables, location: str) -> None:
    """A StoreError naming the role, the table and the privilege when the connecting role
    may not write every table of the index (a read-only role opened for writing), before
    anything is written."""
    missing = database.execute("ownership", _UNWRITABLE,
                               ([tables.name(s) for s in TABLE_SUFFIXES],))
    if missing:
        role, table, privilege = missing[0]
        raise StoreError(f"role {role!r} may not write the ragloom index at {location}: it has "
                         f"no {privilege} privilege on table {table}; search it read-only "
                         f"(RAGEngine(..., read_only=True)), or GRANT SELECT, INSERT, UPDATE, "
                         f'DELETE ON ALL TABLES IN SCHEMA "{tables.schema}" TO {role}')


_DEPENDENTS = """
SELECT DISTINCT d.classid::regclass::text, d.objid, pg_describe_object(d.classid, d.objid, 0)
FROM pg_depend d
WHERE d.refclassid = 'pg_class'::regclass AND d.deptype = 'n'
  AND d.refobjid IN (SELECT to_regclass(name) FROM unnest(%s::text[]) AS name)
"""


_ATTACHED = """
SELECT DISTINCT pg_describe_object(d.classid, d.objid, 0) FROM pg_depend d
LEFT JOIN pg_trigger g ON d.classid = 'pg_trigger'::regclass AND g.oid = d.objid
WHERE d.refclassid = 'pg_class'::regclass AND d.deptype = 'a'
  AND d.refobjid IN (SELECT to_regclass(name) FROM unnest(%s::text[]) AS name)
  AND CASE d.classid
    WHEN 'pg_class'::regclass THEN obj_description(d.objid, 'pg_class') IS DISTINCT FROM %s
    WHEN 'pg_trigger'::regclass THEN NOT g.tgisinternal
      AND obj_description(g.tgfoid, 'pg_proc') IS DISTINCT FROM %s
    ELSE d.classid IN ('pg_policy'::regclass, 'pg_rewrite'::regclass,
                       'pg_statistic_ext'::regclass) END
"""


def foreign_dependents(database: Database, tables: Tables, dropping: bool = True) -> list[str]:
    """User objects that depend on the index's tables (a foreign key into them), and when
    ``dropping`` also those a drop would remove but emptying leaves be (a view over them;
    an index, trigger, rule, row-security policy, statistics object or owned sequence a
    user attached to them), described as Postgres names them; the index's own are left out."""
    names = [tables.name(s) for s in TABLE_SUFFIXES]
    rows = database.execute("ownership", _DEPENDENTS, (names,))
    own = marker(tables)
    described: list[str] = []
    for catalog, oid, description in rows:
        if catalog == "pg_constraint":
            holder = database.execute(
                "ownership", "SELECT obj_description(conrelid, 'pg_class') FROM pg_constraint "
                "WHERE oid = %s", (oid,))
            if holder and holder[0][0] == own:
                continue  # a foreign key between the index's own tables
        elif catalog == "pg_rewrite":
            if not dropping:
                continue
            view = database.execute(
                "ownership", "SELECT ev_class::regclass::text FROM pg_rewrite WHERE oid = %s", (oid,))
            description = f"view {view[0][0]}" if view else description
        elif catalog == "pg_policy" and not dropping:
            continue  # a row-security policy outlives TRUNCATE
        elif catalog in ("pg_trigger", "pg_type", "pg_class", "pg_attrdef"):
            continue  # the index's triggers, row types and indexes
        described.append(description)
    if dropping:
        described += [row[0] for row in database.execute("ownership", _ATTACHED, (names, own, own))]
    return sorted(set(described))


def refuse_dependents(database: Database, tables: Tables, doing: str,
                      dropping: bool = True) -> None:
    """StoreError naming the user objects depending on the index, before ``doing`` (a
    truncate or drop that would have to cascade into them or remove them with the tables)."""
    dependents = foreign_dependents(database, tables, dropping)
    if dependents:
        raise StoreError(f"cannot {doing} the ragloom index {tables.label}: objects ragloom did "
                         f"not create depend on its tables ({'; '.join(dependents)}); ragloom "
                         f"never cascades into them: drop or detach them first (e.g. ALTER TABLE "
                         f"... DROP CONSTRAINT), then run the rebuild again")
