"""The filter language's ``$and``/``$or``: validation, matching, and the glob resolution
stores that cannot match globs get (every store runs the shared conformance tests too)."""

from __future__ import annotations

import pytest

from ragloom.filters import (
    MATCHES_NOTHING,
    MAX_DEPTH,
    AnyOf,
    Condition,
    as_filters,
    compile_filters,
    matches_all,
    resolve_globs,
)

PATHS = ["src/a.py", "src/b.py", "docs/c.md"]


def test_or_and_nest_and_match() -> None:
    conditions = compile_filters({"language": "python", "$or": [
        {"path": "src/*.py", "start_line": {"$gte": 10}}, {"$and": [{"kind": "class"}]}]})
    assert conditions[0] == Condition("language", "$eq", "python")
    assert isinstance(conditions[1], AnyOf) and len(conditions[1].branches) == 2
    assert conditions[1].branches[1] == (Condition("kind", "$eq", "class"),)
    match = lambda **meta: matches_all({"language": "python", **meta}, conditions)  # noqa: E731
    assert match(path="src/a.py", start_line=12)
    assert not match(path="src/a.py", start_line=3)
    assert match(path="docs/c.md", kind="class")
    assert not match(path="docs/c.md")
    assert not matches_all({"kind": "class"}, conditions)  # the plain key must hold too


def test_single_branch_or_and_and_flatten() -> None:
    assert compile_filters({"$or": [{"a": 1}]}) == [Condition("a", "$eq", 1)]
    assert compile_filters({"$and": [{"a": 1}, {"b": {"$lt": 2}}]}) == [
        Condition("a", "$eq", 1), Condition("b", "$lt", 2)]


@pytest.mark.parametrize("bad, message", [
    ({"$or": []}, r"filter \$or needs a non-empty list of filters, got \[\]"),
    ({"$or": "a"}, r"\$or needs a non-empty list"),
    ({"$and": [{}]}, r"\$and: each item must be a non-empty filter mapping, got \{\}"),
    ({"$not": [{"a": 1}]}, r"unknown filter operator '\$not' in place of a key; valid: \$and, \$or"),
    ({"$or": [{"a": {"$regex": "x"}}, {"b": 1}]}, r"filter on 'a': unknown operator '\$regex'"),
])
def test_bad_logical_filters_name_the_culprit(bad, message) -> None:
    with pytest.raises(ValueError, match=message):
        compile_filters(bad)


def test_as_filters_round_trips() -> None:
    filters = {"language": {"$in": ["python", "go"]},
               "$or": [{"path": {"$glob": "src/**"}}, {"a": {"$gt": 1}, "b": "x"}]}
    conditions = compile_filters(filters)
    assert compile_filters(as_filters(conditions)) == conditions


def test_resolve_globs_inside_or() -> None:
    resolved = resolve_globs({"$or": [{"path": "src/*.py"}, {"path": "none/*"}, {"kind": "x"}]},
                             lambda key: PATHS)
    assert compile_filters(resolved) == [AnyOf((
        (Condition("path", "$in", ("src/a.py", "src/b.py")),), (Condition("kind", "$eq", "x"),)))]
    # a branch whose glob matches nothing drops out; with no branch left nothing matches
    assert resolve_globs({"$or": [{"path": "none/*"}, {"path": "x/*"}]}, lambda key: PATHS) is MATCHES_NOTHING
    assert resolve_globs({"path": "none/*", "kind": "x"}, lambda key: PATHS) is MATCHES_NOTHING
    # two globs on one key must both hold
    both = resolve_globs({"$and": [{"path": "src/*"}, {"path": "*/a.py"}]}, lambda key: PATHS)
    assert [c for c in compile_filters(both) if matches_all({"path": "src/a.py"}, [c])] == \
        compile_filters(both)
    assert not matches_all({"path": "src/b.py"}, compile_filters(both))
    plain = {"language": "python"}
    assert resolve_globs(plain, lambda key: PATHS) is plain


def _nested(operator: str, depth: int) -> dict:
    filters: dict = {"language": "python"}
    for _ in range(depth):
        filters = {operator: [filters]}
    return filters


@pytest.mark.parametrize("operator", ["$and", "$or"])
def test_filter_nesting_is_bounded_with_a_clear_error(operator: str) -> None:
    """1,000 nested ``$and`` gave a raw RecursionError."""
    assert compile_filters(_nested(operator, MAX_DEPTH - 1))
    for depth in (MAX_DEPTH, 1000, 100_000):
        with pytest.raises(ValueError, match=rf"nest \$and, \$or more than {MAX_DEPTH} levels deep"):
            compile_filters(_nested(operator, depth))


def test_a_deeply_nested_value_is_refused_with_a_short_message() -> None:
    value: list = []
    for _ in range(100_000):
        value = [value]
    for filters in ({"a": {"$eq": value}}, {"a": {"$in": [value]}}, {"a": {"$gt": value}},
                    {"a": {"$glob": value}}, {"$or": value}, value):
        with pytest.raises(ValueError) as error:
            compile_filters(filters)
        assert len(str(error.value)) < 400


@pytest.mark.parametrize(("filters", "matching"), [
    ({"n": True}, {"true"}), ({"n": 1}, {"int1", "float1"}), ({"n": "1"}, {"str1"}),
    ({"n": {"$in": [True]}}, {"true"}), ({"n": {"$in": [1, "x"]}}, {"int1", "float1"}),
    ({"n": {"$nin": [1]}}, {"true", "str1", "false", "int0"}),
    ({"n": {"$ne": False}}, {"int1", "float1", "true", "str1", "int0"}),
    ({"n": 0}, {"int0"}), ({"n": {"$in": [0.0]}}, {"int0"}),
])
def test_a_boolean_is_not_a_number_and_a_string_never_equals_one(filters: dict, matching: set) -> None:
    rows = {"int1": 1, "float1": 1.0, "true": True, "false": False, "int0": 0, "str1": "1"}
    conditions = compile_filters(filters)
    assert {name for name, value in rows.items() if matches_all({"n": value}, conditions)} == matching
