"""Path globs: the same answers as the regex they replace, in time linear in the path
(counted in automaton steps, never timed), and clear errors for malformed patterns."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ragloom.filters import compile_filters, matches_all
from ragloom.globs import Glob, GlobError, compile_glob


def reference_regex(pattern: str) -> re.Pattern[str]:
    """The backtracking translation ragloom used before (classes never match "/"): fine as
    an oracle on short paths."""
    parts, index = [], 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            parts.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("**", index):
            parts.append(".*")
            index += 2
            continue
        char = pattern[index]
        if char == "*":
            parts.append("[^/]*")
        elif char == "?":
            parts.append("[^/]")
        elif char == "[" and "]" in pattern[index + 1:]:
            end = pattern.index("]", index + 1)
            body = pattern[index + 1:end]
            parts.append(f"[^/{body[1:]}]" if body.startswith("!") else f"(?![/])[{body}]")
            index = end
        else:
            parts.append(re.escape(char))
        index += 1
    return re.compile("".join(parts), re.DOTALL)


def test_globs_answer_as_the_regex_did_on_random_patterns_and_paths() -> None:
    rng = random.Random(7)
    tokens = ["a", "b", "/", ".", "*", "**", "**/", "?", "[ab]", "[!a]", "[a-b]"]
    for _ in range(5000):
        pattern = "".join(rng.choice(tokens) for _ in range(rng.randint(0, 7)))
        path = "".join(rng.choice("ab/.") for _ in range(rng.randint(0, 9)))
        expected = reference_regex(pattern).fullmatch(path) is not None
        assert Glob(pattern).matches(path) == expected, (pattern, path)


@pytest.mark.parametrize(("pattern", "path", "expected"), [
    ("src/**/*.py", "src/a.py", True),
    ("src/**/*.py", "src/a/b/c.py", True),
    ("src/*.py", "src/a/b.py", False),
    ("**/test_*.py", "test_x.py", True),
    ("docs/**", "docs/a/b.md", True),
    ("a?c", "a/c", False),
    ("[!a]x", "/x", False),
    ("[]]x", "]x", True),
    ("[a-]x", "-x", True),
    ("[abc", "[abc", True),  # no closing bracket: a literal "["
])
def test_glob_semantics(pattern: str, path: str, expected: bool) -> None:
    assert Glob(pattern).matches(path) is expected


def test_runs_of_stars_collapse_into_one_step() -> None:
    assert len(Glob("**" * 50 + "Z").steps) == 2
    assert len(Glob("**/" * 50 + "x").steps) == 2
    assert len(Glob("*" * 7 + "x").steps) == 2
    assert len(Glob("**/*.py").steps) == 5  # ``**/`` then ``*`` stay two steps


@pytest.mark.parametrize("pattern", [
    "**" * 50 + "Z", "*a" * 40 + "b", "**/" * 30 + "*a*a*a*a*a*a*ab", "[!b]*" * 20 + "b",
    "*/" * 25 + "*b*b*b*bZ", "?*" * 30 + "Z",
])
def test_matching_visits_each_step_at_most_twice_per_character(pattern: str) -> None:
    """The automaton is at most at every step (and inside every ``**/``) at once, so a
    path of n characters costs at most 2 x (steps + 1) visits per character plus as many
    for the closure: linear in the path, whatever the pattern."""
    for path in ("a/" * 500 + "a" * 2000, "a" * 3000, "ab" * 1500 + "/", "x/y" * 1000):
        glob = Glob(pattern)  # fresh: nothing remembered from an earlier path
        assert glob.matches(path) is False
        assert glob.work <= 4 * (len(glob.steps) + 1) * (len(path) + 1)


def test_a_pathological_filter_completes_in_a_fresh_interpreter(tmp_path: Path) -> None:
    """Through the public filter API, ``"**" * 50 + "Z"`` on long paths (41 s per
    34-character path with ``"**" * 20`` before): the bound of 120 s is for a loaded
    machine; the work is a few thousand steps."""
    script = (
        "from ragloom.filters import compile_filters, matches_all\n"
        "conditions = compile_filters({'path': {'$glob': '**' * 50 + 'Z'}})\n"
        "paths = ['src/' + 'a' * n + '/module_' + str(n) + '.py' for n in range(200)]\n"
        "print(sum(matches_all({'path': p}, conditions) for p in paths))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "0"


def test_a_reversed_class_range_is_an_error_naming_the_pattern() -> None:
    with pytest.raises(GlobError, match=r"'\[z-a\]\*'.*z-a is reversed"):
        compile_glob("[z-a]*")
    with pytest.raises(ValueError, match=r"filter on 'path': glob '\[z-a\]\*'"):
        compile_filters({"path": "[z-a]*"})
    with pytest.raises(ValueError, match=r"filter on 'path': glob '\[z-a\]'"):
        compile_filters({"path": {"$glob": "[z-a]"}})


def test_filters_match_globs_through_the_new_matcher() -> None:
    conditions = compile_filters({"path": "src/**/*.py"})
    assert matches_all({"path": "src/a/b.py"}, conditions)
    assert not matches_all({"path": "docs/b.py"}, conditions)


def test_the_regex_text_for_other_engines_agrees_with_the_matcher() -> None:
    """Stores whose engine does not backtrack (Postgres) match globs as regexes."""
    rng = random.Random(11)
    tokens = ["a", "b", "/", ".", "*", "**", "**/", "?", "[ab]", "[!a]", "[a-b]", "[]a]"]
    for _ in range(3000):
        pattern = "".join(rng.choice(tokens) for _ in range(rng.randint(0, 6)))
        path = "".join(rng.choice("ab/.]") for _ in range(rng.randint(0, 8)))
        glob = Glob(pattern)
        assert (re.fullmatch(glob.regex(), path, re.DOTALL) is not None) == glob.matches(path), (
            pattern, path)


class CountingStr(str):
    """A metadata value that counts how often it is compared for equality."""

    comparisons = 0

    def __eq__(self, other: object) -> bool:
        CountingStr.comparisons += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_an_in_filter_tests_each_row_in_constant_time_however_long_its_list() -> None:
    """A 100,000-value ``$in`` (one MCP request) must not cost 100,000 comparisons per row:
    over a large index that kept a server busy for minutes."""
    values = [f"src/file_{i}.py" for i in range(100_000)]
    conditions = compile_filters({"path": {"$in": values}, "kind": {"$nin": values}})
    CountingStr.comparisons = 0
    rows = [{"path": CountingStr(f"docs/page_{i}.md"), "kind": CountingStr("section")} for i in range(50)]
    rows.append({"path": CountingStr("src/file_7.py"), "kind": CountingStr("function")})
    assert [matches_all(row, conditions) for row in rows] == [False] * 50 + [True]
    assert CountingStr.comparisons <= 2 * len(rows)


@pytest.mark.parametrize("spec", [{"$in": [{"a": 1}]}, {"$nin": [[1, 2]]}, {"$in": [None]},
                                  {"$in": {"a": 1}}, {"$in": "abc"}, {"$in": []}])
def test_in_lists_of_anything_but_scalars_are_refused_naming_the_key(spec: dict) -> None:
    with pytest.raises(ValueError, match=r"filter on 'kind': \$n?in "):
        compile_filters({"kind": spec})


@pytest.mark.parametrize("spec", [{"$gt": float("nan")}, {"$eq": float("nan")}, {"$in": [1, float("nan")]}])
def test_a_nan_in_a_filter_is_an_error_not_a_silent_empty_result(spec: dict) -> None:
    with pytest.raises(ValueError, match=r"filter on 'start_line': \$\w+ got NaN"):
        compile_filters({"start_line": spec})
