"""A question about a table's definition goes to the migration creating that table.

"Which migration defines the columns of the invoices table", "where is the table for custom
emojis created", "migration that creates the customers table": the answer is the one
migration creating the table (Laravel's ``Schema::create('invoices', ...)``, SQL's
``CREATE TABLE invoices``, Django's ``migrations.CreateModel(name='Invoice', ...)``, Rails'
``create_table :invoices``, Alembic's ``op.create_table('invoices', ...)``). An application
that has lived for years alters a busy table in dozens of later migrations
(``add_base_columns_into_invoices_table``, ``add_overdue_to_invoices_table``), each of them
named for the table and its columns as well, and together they crowd the one that creates
it out of the results.

So when a query names the migrations part (``path_prior``: "migration", "table",
"columns", ...), asks where a table is created or defined (``_DEFINITION``: "creates /
defines ... table", "table ... created", "definition", "structure", "columns of": "database
table for invoices that repeat" may name a table by its purpose, ``recurring_invoices``, and
the migration creating ``invoices`` is no answer to it), uses no word of a change
(``_CHANGE``: "add", "remove", "rename", "nullable", "index", ...: a question about a change
wants the migration making it) and some candidate creates a table the query names (the
table's name, or every word of it, among the query's words, plural or singular:
``recurring_invoices`` for "the table of recurring invoices"), every other candidate is
multiplied by ``TABLE_WEIGHT`` in the one prior sort (``priors.reweigh``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragloom.retrieval.model_prior import query_words
from ragloom.retrieval.path_prior import factor_outside, is_one_migration, parts_named
from ragloom.retrieval.priors import Factor
from ragloom.types import SearchResult

#: How much the rank score of a candidate not creating a table the query names counts.
TABLE_WEIGHT = 0.5

#: Words of a question about a change to a table, not its definition.
_CHANGE = re.compile(
    r"\b(add|adds|added|adding|remov\w*|drop\w*|renam\w*|chang\w*|alter\w*|nullable|optional|"
    r"index\w*|convert\w*|mov(?:e|es|ed|ing)|new\s+columns?|backfill\w*|migrated|made|makes?)\b",
    re.IGNORECASE)

#: Words of a question about where a table is created or what it is made of: "creates /
#: defines" a few words before "table", "table ... created / defined" a few words after it,
#: "definition", "structure", "columns of" ("the migration that created the missing email
#: records" creates rows, not a table).
_DEFINITION = re.compile(r"\b((?:creat|defin)\w*\s+(?:[\w'-]+\s+){0,3}?tables?|"
                         r"tables?\s+(?:[\w'-]+\s+){0,4}?(?:creat|defin)\w*|definition|structure|"
                         r"(?:columns?|fields?)\s+(?:of|in|on))\b", re.IGNORECASE)

#: The name of a table a migration creates, one alternative per framework family.
_CREATES = re.compile(
    r"Schema::create\(\s*['\"](?P<laravel>\w+)['\"]|"
    r"\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?[`\"\[]?(?:\w+[`\"\]]?\.[`\"\[]?)?(?P<sql>\w+)|"
    r"\bCreateModel\(\s*(?:name\s*=\s*)?['\"](?P<django>\w+)['\"]|"
    r"\bcreate_table\s*\(?\s*[:'\"](?P<rails>\w+)|"
    r"\bcreateTable\(\s*['\"](?P<knex>\w+)['\"]",
    re.IGNORECASE)


def created_tables(result: SearchResult) -> set[str]:
    """The names of the tables a migration chunk creates, as written; none for any other
    chunk."""
    if not is_one_migration(result):
        return set()
    return {next(name for name in match.groups() if name)
            for match in _CREATES.finditer(result.full_text or result.text)}


def names_table(words: set[str], table: str) -> bool:
    """Whether a query's ``words`` (``model_prior.query_words``) name ``table``: its whole
    name, or every word of a name in snake_case (``recurring_invoices``), or of a Django
    model's CamelCase name."""
    parts = [part.lower() for part in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", table)]
    return table.lower() in words or bool(parts) and all(part in words for part in parts)


def prior_for_tables(query: str, candidates: Sequence[SearchResult],
                     weight: float | None = None) -> list[Factor]:
    """A factor of ``weight`` (default ``TABLE_WEIGHT``) for every candidate but the
    migrations creating a table ``query`` names; none when the query does not name the
    migrations part, does not ask where a table is created or defined, asks about a change,
    or names no table a candidate creates."""
    if _CHANGE.search(query) or not _DEFINITION.search(query) \
            or not any(part.name == "migrations" for part in parts_named(query)):
        return []
    words = query_words(query)
    inside = {r.id for r in candidates if any(names_table(words, t) for t in created_tables(r))}
    return [factor_outside(inside, TABLE_WEIGHT if weight is None else weight)] if inside else []
