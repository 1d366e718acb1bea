"""Metadata filters as a SQL ``WHERE`` clause over the ``metadata jsonb`` column.

Each condition means what ``ragloom.filters`` says: a key the chunk does not have never
matches (``$ne``/``$nin`` included), comparisons hold only for numbers, and a glob becomes
an anchored regex (with a ``LIKE`` on its literal prefix so the path index can help).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ragloom.filters import AnyOf, Condition, Filters, Node, compile_filters, glob_regex

_GLOB_SPECIAL = re.compile(r"[*?\[]")
_COMPARISONS = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


def where_clause(filters: Filters | None, column: str = "metadata") -> tuple[str, list[Any]]:
    """``(sql, params)`` for ``filters`` (``"TRUE"`` when there are none)."""
    return conditions_clause(compile_filters(filters), column)


def conditions_clause(conditions: Sequence[Node], column: str = "metadata") -> tuple[str, list[Any]]:
    """``(sql, params)`` for compiled conditions (``"TRUE"`` when there are none); an
    ``$or`` is an ``OR`` of its branches' clauses."""
    if not conditions:
        return "TRUE", []
    parts: list[str] = []
    params: list[Any] = []
    for node in conditions:
        if isinstance(node, AnyOf):
            branches = [conditions_clause(branch, column) for branch in node.branches]
            sql = " OR ".join(f"({branch})" for branch, _ in branches)
            values = [value for _, branch_values in branches for value in branch_values]
        else:
            sql, values = _condition(node, column)
        parts.append(sql)
        params.extend(values)
    return " AND ".join(f"({part})" for part in parts), params


def _condition(condition: Condition, column: str) -> tuple[str, list[Any]]:
    key, op, value = condition.key, condition.operator, condition.value
    name = literal(key)  # inlined, so ``metadata ->> 'path'`` matches the path index
    field = f"{column} -> {name}"
    if op == "$eq":
        return f"{column} @> %s::jsonb", [json.dumps({key: value})]
    if op == "$ne":
        return f"{column} ? {name} AND NOT {column} @> %s::jsonb", [json.dumps({key: value})]
    if op in ("$in", "$nin"):
        values = [json.dumps(v) for v in value]
        test = f"({field}) = ANY(%s::jsonb[])"
        if op == "$in":
            return test, [values]
        return f"{column} ? {name} AND NOT {test}", [values]
    if op in _COMPARISONS:
        return (f"CASE WHEN jsonb_typeof({field}) = 'number' "
                f"THEN ({column} ->> {name})::float8 {_COMPARISONS[op]} %s ELSE FALSE END",
                [float(value)])
    # $glob: the value's text matches the anchored regex; the LIKE on the literal prefix is
    # implied by the regex but lets the planner use the path index.
    regex = "^(?:" + glob_regex(value).pattern + ")$"
    prefix = _GLOB_SPECIAL.split(value, 1)[0]
    sql = f"({column} ->> {name}) ~ %s"
    params: list[Any] = [regex]
    if prefix:
        like = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        sql += f" AND ({column} ->> {name}) LIKE %s"
        params.append(like)
    return sql, params


def literal(text: str) -> str:
    """``text`` as a SQL string literal (standard_conforming_strings, on since Postgres 9.1)."""
    if "\x00" in text:
        raise ValueError(f"filter key {text!r} contains a NUL character")
    # a % would read as a parameter placeholder: doubled, psycopg sends one
    return "'" + text.replace("'", "''").replace("%", "%%") + "'"
