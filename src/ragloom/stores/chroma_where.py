"""Compiled filters as a Chroma ``where`` clause, meaning what ``ragloom.filters`` says.

Chroma (1.5) needs two corrections. A ``$in``/``$nin`` list must hold one value type, so
a mixed list becomes one list per type. And a float that is not a whole number, compared
with an integer field, is first turned into a whole number by Chroma (``{"n": 1.5}``
matches ``n = 1``; ``{"n": {"$lt": 1.5}}`` misses it), so such a value is also compared
with its floor and ceiling, which every integer field compares with exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ragloom.filters import AnyOf, Condition, Node


def chroma_where(conditions: Sequence[Node]) -> dict[str, Any] | None:
    """The ``where`` clause for ``conditions`` (None when there are none); ``$or`` as
    Chroma's ``$or``. A ``$glob`` is refused: the searcher resolves globs for Chroma."""
    clauses: list[dict[str, Any]] = []
    for node in conditions:
        if isinstance(node, AnyOf):
            clauses.append({"$or": [chroma_where(branch) for branch in node.branches]})
        elif node.operator == "$glob":
            raise ValueError(f"filter on {node.key!r}: the Chroma store cannot match "
                             f"$glob itself; search through RAGEngine, which resolves globs")
        else:
            clauses.append(_condition(node))
    if not clauses:
        return None
    return _joined("$and", clauses)


def _condition(node: Condition) -> dict[str, Any]:
    key, op, value = node.key, node.operator, node.value
    if op in ("$in", "$nin"):
        return _membership(key, op, value)
    if not _fractional(value):
        return {key: {op: value}}
    low, high = math.floor(value), math.ceil(value)
    if op == "$eq":
        return _equal(key, value)
    if op == "$ne":
        return {"$or": [{key: {"$ne": value}}, {key: {"$eq": low}}, {key: {"$eq": high}}]}
    if op == "$lt":
        return {"$or": [{key: {"$lt": value}}, {key: {"$lte": low}}]}
    if op == "$lte":
        return {"$or": [{key: {"$lt": value}}, {key: {"$lte": low}}, _equal(key, value)]}
    if op == "$gt":
        return {"$or": [{key: {"$gt": value}}, {key: {"$gte": high}}]}
    return {"$or": [{key: {"$gt": value}}, {key: {"$gte": high}}, _equal(key, value)]}  # $gte


def _membership(key: str, operator: str, values: Sequence[Any]) -> dict[str, Any]:
    """``$in`` as an ``$or`` (``$nin`` as an ``$and``) of one list per value type, each
    fractional float on its own."""
    by_type: dict[type, list[Any]] = {}
    parts: list[dict[str, Any]] = []
    for value in values:
        if _fractional(value):
            parts.append(_condition(Condition(key, "$eq" if operator == "$in" else "$ne", value)))
        else:
            by_type.setdefault(type(value), []).append(value)
    parts[:0] = [{key: {operator: group}} for group in by_type.values()]
    return _joined("$or" if operator == "$in" else "$and", parts)


def _equal(key: str, value: float) -> dict[str, Any]:
    """``key == value`` for a fractional float: no integer field can equal it."""
    return {"$and": [{key: {"$eq": value}}, {key: {"$ne": math.floor(value)}},
                     {key: {"$ne": math.ceil(value)}}]}


def _fractional(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value) and not value.is_integer()


def _joined(operator: str, clauses: list[dict[str, Any]]) -> dict[str, Any]:
    return clauses[0] if len(clauses) == 1 else {operator: clauses}
