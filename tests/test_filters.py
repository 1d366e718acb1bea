"""The filter language's ``$and``/``$or``: validation, matching, and the glob resolution
stores that cannot match globs get (every store runs the shared conformance tests too)."""

from __future__ import annotations

import pytest

from ragloom.filters import (
    MATCHES_NOTHING,
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
