"""Path globs matched in time linear in the path, whatever the pattern.

``*`` and ``?`` stay within one folder, ``**`` spans folders, ``**/`` is zero or more
folders, ``[a-z]`` / ``[!a-z]`` is one character of a class (never ``/``). A glob is not
compiled to a backtracking regex (``"**" * 20 + "Z"`` took 41 s per path that way): it
becomes a list of steps, runs of stars collapse into one step, and a path is matched by
following every step the pattern could be at at once (a Thompson automaton), so each
character costs at most one visit per step. Sets of steps already seen are remembered with
their transitions (a lazily built DFA), so a glob matched against many paths costs about
one dictionary lookup per character.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

#: Kinds of step: one character, any run of characters (a star), or zero or more folders.
_CHAR, _STAR, _FOLDERS = 0, 1, 2
#: What a character or star step accepts besides a literal or a class.
_NOT_SLASH, _ANYTHING, _FOLDER_RUN = "not-slash", "anything", "folders"
#: Transitions kept per glob before the table is started afresh (bounds memory, not time).
_MAX_STATES = 4096


class GlobError(ValueError):
    """A glob that cannot be compiled; the message names the pattern."""


@dataclass(frozen=True)
class _Class:
    """A bracket expression: characters and inclusive ranges, possibly negated."""

    chars: frozenset[str]
    ranges: tuple[tuple[str, str], ...]
    negated: bool

    def __contains__(self, char: str) -> bool:
        if char == "/":
            return False
        inside = char in self.chars or any(low <= char <= high for low, high in self.ranges)
        return inside != self.negated


_Test = str | _Class  # a literal character, _NOT_SLASH, _ANYTHING, _FOLDER_RUN or a class


@dataclass(frozen=True)
class _Step:
    kind: int
    test: _Test


_EVERYTHING = _Step(_STAR, _ANYTHING)  # ``**``


def _accepts(test: _Test, char: str) -> bool:
    if test is _ANYTHING:
        return True
    if test is _NOT_SLASH:
        return char != "/"
    if isinstance(test, _Class):
        return char in test
    return char == test


class Glob:
    """One compiled glob; ``matches(path)`` tests a whole ``/``-separated path."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.steps = _parse(pattern)
        #: Step visits made while building transitions, for tests: each character of a
        #: matched path adds at most ``len(steps) + 1``.
        self.work = 0
        self._lock = threading.Lock()
        self._reset_table()

    def _reset_table(self) -> None:
        self._sets: list[frozenset[int]] = []
        self._number: dict[frozenset[int], int] = {}
        self._moves: list[dict[str, int]] = []
        self._start = self._state(self._closure({0}))

    def matches(self, path: str) -> bool:
        with self._lock:
            state = self._start
            for char in path:
                following = self._moves[state].get(char)
                if following is None:
                    following = self._advance(state, char)
                state = following
                if not self._sets[state]:
                    return False
            return len(self.steps) in self._sets[state]

    def _state(self, positions: frozenset[int]) -> int:
        number = self._number.get(positions)
        if number is None:
            number = len(self._sets)
            self._sets.append(positions)
            self._number[positions] = number
            self._moves.append({})
        return number

    def _advance(self, state: int, char: str) -> int:
        """The state after reading ``char`` in ``state`` (computed and remembered)."""
        if len(self._sets) > _MAX_STATES:  # a pathological pattern: forget, stay linear
            positions = self._sets[state]
            self._reset_table()
            state = self._state(positions)
        steps, inner = self.steps, len(self.steps) + 1
        following: set[int] = set()
        for position in self._sets[state]:
            self.work += 1
            if position >= inner:  # inside a ``**/``: any character, a ``/`` may end it
                following.add(position)
                if char == "/":
                    following.add(position - inner + 1)
                continue
            if position == len(steps):
                continue
            step = steps[position]
            if step.kind == _FOLDERS:
                following.add(position + inner)
                if char == "/":
                    following.add(position + 1)
            elif _accepts(step.test, char):
                following.add(position if step.kind == _STAR else position + 1)
        number = self._state(self._closure(following))
        self._moves[state][char] = number
        return number

    def _closure(self, positions: set[int]) -> frozenset[int]:
        """``positions`` plus every position reachable without reading: past stars and
        ``**/`` (both may match nothing)."""
        pending, seen = list(positions), set(positions)
        while pending:
            position = pending.pop()
            self.work += 1
            if position < len(self.steps) and self.steps[position].kind != _CHAR:
                if position + 1 not in seen:
                    seen.add(position + 1)
                    pending.append(position + 1)
        return frozenset(seen)

    def regex(self) -> str:
        """The glob as regular-expression text (stars collapsed), for an engine that does not
        backtrack (Postgres' does not blow up on it); never match untrusted paths with it in
        Python's ``re``, which backtracks."""
        parts = []
        for step in self.steps:
            if step.kind == _FOLDERS:
                parts.append("(?:.*/)?")
                continue
            test = step.test
            if test is _ANYTHING:
                text = "."
            elif test is _NOT_SLASH:
                text = "[^/]"
            elif isinstance(test, _Class):
                members = "".join(re.escape(c) for c in sorted(test.chars)) + "".join(
                    f"{re.escape(low)}-{re.escape(high)}" for low, high in test.ranges)
                text = f"[^/{members}]" if test.negated else f"(?!/)[{members}]"
            else:
                text = re.escape(test)
            parts.append(text + ("*" if step.kind == _STAR else ""))
        return "".join(parts)

    def __repr__(self) -> str:
        return f"Glob({self.pattern!r})"


@lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> Glob:
    """The compiled glob for ``pattern`` (cached: its transition table is reused)."""
    return Glob(pattern)


def _parse(pattern: str) -> tuple[_Step, ...]:
    steps: list[_Step] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            _push(steps, _Step(_FOLDERS, _FOLDER_RUN))
            index += 3
        elif pattern.startswith("**", index):
            _push(steps, _EVERYTHING)
            index += 2
        elif char == "*":
            _push(steps, _Step(_STAR, _NOT_SLASH))
            index += 1
        elif char == "?":
            steps.append(_Step(_CHAR, _NOT_SLASH))
            index += 1
        elif char == "[":
            parsed = _parse_class(pattern, index)
            if parsed is None:  # no closing bracket: a literal "["
                steps.append(_Step(_CHAR, "["))
                index += 1
            else:
                test, index = parsed
                steps.append(_Step(_CHAR, test))
        else:
            steps.append(_Step(_CHAR, char))
            index += 1
    return tuple(steps)


def _push(steps: list[_Step], step: _Step) -> None:
    """Append a star or ``**/`` step, merging it with a star or ``**/`` step before it:
    ``**`` absorbs ``*`` and ``**/`` (``.*`` matches whatever they do), runs of ``*`` or of
    ``**/`` are one step."""
    if steps and steps[-1].kind != _CHAR:
        last = steps[-1]
        if _EVERYTHING in (step, last):
            steps[-1] = _EVERYTHING
            return
        if step == last:
            return
    steps.append(step)


def _parse_class(pattern: str, start: int) -> tuple[_Class, int] | None:
    """The class opening at ``pattern[start] == "["`` and the index after it, or None when
    it never closes. A ``]`` right after ``[`` or ``[!`` is a member; ``-`` first or last
    is a member; a reversed range (``[z-a]``) is an error naming the pattern."""
    index = start + 1
    negated = index < len(pattern) and pattern[index] in "!^"
    if negated:
        index += 1
    body_start = index
    if index < len(pattern) and pattern[index] == "]":
        index += 1
    end = pattern.find("]", index)
    if end == -1:
        return None
    body = pattern[body_start:end]
    chars: set[str] = set()
    ranges: list[tuple[str, str]] = []
    position = 0
    while position < len(body):
        if position + 2 < len(body) and body[position + 1] == "-":
            low, high = body[position], body[position + 2]
            if low > high:
                raise GlobError(f"glob {pattern!r}: the character range {low}-{high} is "
                                f"reversed (write {high}-{low})")
            ranges.append((low, high))
            position += 3
        else:
            chars.add(body[position])
            position += 1
    return _Class(frozenset(chars), tuple(ranges), negated), end + 1


def matches_any(relative_path: str, patterns: Iterable[str]) -> bool:
    """Whether a POSIX relative path matches a glob; a pattern without ``/`` also
    matches the bare file name (as in .gitignore)."""
    name = relative_path.rsplit("/", 1)[-1]
    for pattern in patterns:
        target = relative_path if "/" in pattern.rstrip("/") else name
        if compile_glob(pattern.rstrip("/")).matches(target):
            return True
    return False
