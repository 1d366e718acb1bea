"""Metadata filters: a small Mongo-style language shared by every store.

``{"language": "python"}`` is equality; ``{"kind": {"$in": ["class", "function"]}}``,
``{"path": {"$ne": "a.py"}}``, ``{"start_line": {"$gte": 10}}`` and
``{"path": {"$glob": "src/**/*.py"}}`` do what they say (globs: ``ragloom.globs``, matched
in time linear in the path). A plain string with glob
characters (``*?[``) under the ``path`` key is a glob. All conditions must hold, and as
in Chroma a condition on a key a chunk does not have never holds (``$ne`` included).
``{"$or": [{...}, {...}]}`` holds when one of its filters does, ``{"$and": [...]}`` when
all do; they nest (at most MAX_DEPTH deep), and sit beside plain keys
(``{"language": "python", "$or": [...]}``).

Types compare the same way on every store: a boolean is not a number (``True`` never
equals ``1``), integers and floats compare numerically (``1 == 1.0``), and a string never
equals a number (``"1"`` is not ``1``).
"""

from __future__ import annotations

import math
import numbers
import re
import reprlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragloom.globs import GlobError, compile_glob
from ragloom.types import Metadata, MetadataValue

Filters = Mapping[str, Any]

OPERATORS = ("$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$glob")
#: Operators combining whole filters, in place of a metadata key.
LOGICAL = ("$and", "$or")
_GLOB_CHARS = re.compile(r"[*?\[]")
#: How deep ``$and``/``$or`` may nest: far beyond any real filter, and well inside what
#: every store's compiler (and Python's recursion limit) handles.
MAX_DEPTH = 32


@dataclass(frozen=True)
class Condition:
    """One test of one metadata key."""

    key: str
    operator: str
    value: Any
    #: ``$in``/``$nin``: the values as a set, so a row is tested in O(1), not O(len(list))
    #: (a 100,000-value list over 2,000 rows took 7 s compared value by value).
    members: frozenset[tuple[str, Any]] | None = field(default=None, compare=False, repr=False)

    def matches(self, metadata: Metadata) -> bool:
        if self.key not in metadata:
            return False
        actual = metadata[self.key]
        op = self.operator
        if op == "$eq":
            return _same(actual, self.value)
        if op == "$ne":
            return not _same(actual, self.value)
        if op in ("$in", "$nin"):
            key = typed(actual)
            try:
                found = key in (typed_members(self.value) if self.members is None else self.members)
            except TypeError:  # an unhashable metadata value: compared one by one
                found = any(key == typed(value) for value in self.value)
            return found if op == "$in" else not found
        if op == "$glob":
            return compile_glob(self.value).matches(str(actual))
        if isinstance(actual, (str, bool)) or not isinstance(actual, (int, float)):
            return False
        if op == "$gt":
            return actual > self.value
        if op == "$gte":
            return actual >= self.value
        if op == "$lt":
            return actual < self.value
        return actual <= self.value  # $lte


def typed(value: Any) -> tuple[str, Any]:
    """``value`` with its kind, so values compare as on every store: a boolean is not a
    number (Python's ``True == 1`` is not the rule), integers and floats compare
    numerically, a string never equals a number."""
    if isinstance(value, bool):
        return "bool", value
    if isinstance(value, (int, float)) or isinstance(value, numbers.Real):
        return "number", value
    return "other", value


def _same(actual: Any, expected: Any) -> bool:
    """``actual == expected`` by the rule of ``typed`` (values of one type, the usual case,
    compared directly)."""
    if type(actual) is type(expected):
        return bool(actual == expected)
    return typed(actual) == typed(expected)


def typed_members(values: Iterable[Any]) -> frozenset[tuple[str, Any]]:
    """An ``$in``/``$nin`` list as a set of ``typed`` values (a row is tested in O(1))."""
    return frozenset(typed(value) for value in values)


@dataclass(frozen=True)
class AnyOf:
    """``$or``: holds when all conditions of one of its branches hold."""

    branches: tuple[tuple[Condition | AnyOf, ...], ...]

    def matches(self, metadata: Metadata) -> bool:
        return any(matches_all(metadata, branch) for branch in self.branches)


Node = Condition | AnyOf


def compile_filters(filters: Filters | None) -> list[Node]:
    """Validate ``filters`` into conditions that must all hold; a bad operator or value
    names the key."""
    return _compile(filters, 1)


def _compile(filters: Filters | None, depth: int) -> list[Node]:
    if filters is not None and not isinstance(filters, Mapping):
        raise ValueError(f"filters must be a mapping of metadata key to condition, got "
                         f"{_short(filters)}")
    if not filters:
        return []
    conditions: list[Node] = []
    for key, spec in filters.items():
        if not isinstance(key, str):
            raise ValueError(f"filter key {_short(key)} must be a string")
        if key in LOGICAL:
            if depth >= MAX_DEPTH:
                raise ValueError(f"filters nest {', '.join(LOGICAL)} more than {MAX_DEPTH} levels "
                                 f"deep; flatten them (an $and inside an $and is one $and)")
            branches = _branches(key, spec, depth + 1)
            if key == "$and":
                conditions.extend(node for branch in branches for node in branch)
            elif len(branches) == 1:
                conditions.extend(branches[0])
            else:
                conditions.append(AnyOf(tuple(tuple(branch) for branch in branches)))
        elif key.startswith("$"):
            raise ValueError(f"unknown filter operator {key!r} in place of a key; valid: "
                             f"{', '.join(LOGICAL)}")
        elif isinstance(spec, Mapping):
            for operator, value in spec.items():
                conditions.append(_condition(key, operator, value))
        elif key == "path" and isinstance(spec, str) and _GLOB_CHARS.search(spec):
            conditions.append(_condition(key, "$glob", spec))
        else:
            conditions.append(_condition(key, "$eq", spec))
    return conditions


def _branches(operator: str, spec: Any, depth: int) -> list[list[Node]]:
    if isinstance(spec, (str, bytes, Mapping)) or not isinstance(spec, Iterable) or not spec:
        raise ValueError(f"filter {operator} needs a non-empty list of filters, got {_short(spec)}")
    branches = []
    for item in spec:
        if not isinstance(item, Mapping) or not item:
            raise ValueError(f"filter {operator}: each item must be a non-empty filter mapping, "
                             f"got {_short(item)}")
        branches.append(_compile(item, depth))
    return branches


def as_filters(conditions: Sequence[Node]) -> Filters:
    """Compiled conditions back as a filter mapping (what a store's ``query`` accepts)."""
    parts: list[dict[str, Any]] = []
    for node in conditions:
        if isinstance(node, AnyOf):
            parts.append({"$or": [dict(as_filters(branch)) for branch in node.branches]})
        else:
            value = list(node.value) if node.operator in ("$in", "$nin") else node.value
            parts.append({node.key: {node.operator: value}})
    return parts[0] if len(parts) == 1 else {"$and": parts}


def _condition(key: str, operator: str, value: Any) -> Condition:
    if any(isinstance(item, float) and math.isnan(item) for item in
           (value if isinstance(value, (list, tuple)) else [value])):
        raise ValueError(f"filter on {key!r}: {operator} got NaN, which equals and orders with "
                         f"nothing (the filter would silently match no chunk)")
    if operator not in OPERATORS:
        raise ValueError(
            f"filter on {key!r}: unknown operator {_short(operator)}; valid: {', '.join(OPERATORS)}"
        )
    if operator in ("$in", "$nin"):
        if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__") or not list(value):
            raise ValueError(f"filter on {key!r}: {operator} needs a non-empty list, got {_short(value)}")
        values = tuple(value)
        wrong = [item for item in values if not isinstance(item, (str, int, float, bool))]
        if wrong:
            raise ValueError(f"filter on {key!r}: {operator} takes strings, numbers and booleans, "
                             f"got {_short(wrong[0])}")
        return Condition(key, operator, values, typed_members(values))
    if operator in ("$gt", "$gte", "$lt", "$lte") and (
        isinstance(value, bool) or not isinstance(value, (int, float))
    ):
        raise ValueError(f"filter on {key!r}: {operator} needs a number, got {_short(value)}")
    if operator == "$glob":
        if not isinstance(value, str):
            raise ValueError(f"filter on {key!r}: $glob needs a string pattern, got {_short(value)}")
        try:
            compile_glob(value)
        except GlobError as exc:
            raise ValueError(f"filter on {key!r}: {exc}") from None
    if not isinstance(value, (str, int, float, bool, tuple)):
        raise ValueError(f"filter on {key!r}: unsupported value {_short(value)}")
    return Condition(key, operator, value)


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 4, 200, 200
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 10


def _short(value: Any) -> str:
    """``repr(value)`` cut to a length and depth an error message can carry (a value nested
    thousands deep has no plain repr: it exceeds the recursion limit)."""
    return _REPR.repr(value)


def matches_all(metadata: Metadata, conditions: Sequence[Node]) -> bool:
    return all(condition.matches(metadata) for condition in conditions)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """The glob as a regex (see ``Glob.regex``), for stores whose engine matches regexes
    without backtracking; ragloom itself matches with ``ragloom.globs``."""
    return re.compile(compile_glob(pattern).regex(), re.DOTALL)


#: ``resolve_globs``' answer when a glob matches no known value: nothing can match.
MATCHES_NOTHING: Filters = {"$nothing": True}


def resolve_globs(filters: Filters | None,
                  known_values: Callable[[str], Iterable[MetadataValue]],
                  conditions: Sequence[Node] | None = None) -> Filters | None:
    """``filters`` with every ``$glob`` replaced by ``$in`` of the ``known_values(key)`` it
    matches, for stores that cannot match globs themselves (Chroma). Returns
    MATCHES_NOTHING when the filters can then match nothing (a glob matching no known
    value, outside an ``$or`` with another way to match). ``conditions``: ``filters``
    already compiled (``compile_filters``), so a search compiles them once."""
    if conditions is None:
        conditions = compile_filters(filters)
    if not _has_glob(conditions):
        return filters
    resolved = _resolved(conditions, known_values)
    return MATCHES_NOTHING if resolved is None else as_filters(resolved)


def _has_glob(conditions: Sequence[Node]) -> bool:
    return any(any(_has_glob(branch) for branch in node.branches) if isinstance(node, AnyOf)
               else node.operator == "$glob" for node in conditions)


def _resolved(conditions: Sequence[Node],
              known_values: Callable[[str], Iterable[MetadataValue]]) -> list[Node] | None:
    """The conditions with globs as ``$in``; None when they can match nothing."""
    out: list[Node] = []
    for node in conditions:
        if isinstance(node, AnyOf):
            branches = [b for b in (_resolved(branch, known_values) for branch in node.branches)
                        if b is not None]
            if not branches:
                return None
            if len(branches) == 1:
                out.extend(branches[0])
            else:
                out.append(AnyOf(tuple(tuple(branch) for branch in branches)))
        elif node.operator == "$glob":
            matching = sorted({v for v in known_values(node.key)
                               if node.matches({node.key: v})}, key=str)
            if not matching:
                return None
            out.append(Condition(node.key, "$in", tuple(matching), typed_members(matching)))
        else:
            out.append(node)
    return out
