"""The bounds every code chunker holds (issue 26), checked on any file: exact slices and whole
lines (``properties.check_chunks``), a repeated header of at most a quarter window, no
chunk under half a window unless it ends its definition or the next line would not fit
beside it, and at most ceil(N / (W/2)) + 1 chunks for a definition of size N.

Sizes are characters (``len``), the unit the chunkers are given here."""

from __future__ import annotations

import ast
import importlib.util
import math
import re
from collections.abc import Iterator
from pathlib import Path

from properties import body_and_header, check_chunks

from ragloom.chunking.base import LineIndex
from ragloom.chunking.definitions import CLOSING_LINE
from ragloom.types import Chunk

#: Popular typed packages the Python properties run on (all in the ``dev`` extra).
#: Import packages (the attrs distribution's code lives in ``attr``; ``attrs`` only re-exports it).
PACKAGES = ("pydantic", "click", "fastapi", "sqlalchemy", "attr", "typer", "rich", "httpx",
            "starlette", "numpy", "jinja2", "requests")


def package_files(name: str, limit: int | None = None) -> list[Path]:
    """The package's ``.py`` files, sorted; with ``limit``, an evenly spaced sample that
    always keeps the largest files (where long definitions live)."""
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.submodule_search_locations, f"{name} is not installed"
    files = sorted(p for root in spec.submodule_search_locations for p in Path(root).rglob("*.py"))
    if limit is None or len(files) <= limit:
        return files
    largest = sorted(files, key=lambda p: p.stat().st_size, reverse=True)[: limit // 3]
    step = len(files) / (limit - len(largest))
    spaced = [files[int(i * step)] for i in range(limit - len(largest))]
    return sorted(set(largest) | set(spaced))


def read_sources(paths: list[Path]) -> Iterator[tuple[Path, str]]:
    for path in paths:
        try:
            yield path, path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue


def _closes(line: str) -> bool:
    return bool(line.strip()) and CLOSING_LINE.match(line) is not None


def _same_unit(chunk: Chunk, following: Chunk) -> bool:
    """Whether ``following`` continues the definition ``chunk`` is a part of."""
    a, b = chunk.metadata, following.metadata
    return (a.get("part") is not None and b.get("part") == a["part"] + 1
            and a.get("symbol") == b.get("symbol") and a.get("kind") == b.get("kind"))


def check_code_chunks(chunks: list[Chunk], source: str, window: int,
                      structure_line: re.Pattern[str] | None = None) -> None:
    """``check_chunks`` plus the header cap, the floor and the part count of issue 26."""
    check_chunks(chunks, source, window, structure_line)
    check_part_counts(chunks, source, window)
    lines = LineIndex(source)
    line_texts = source.split("\n")
    for index, chunk in enumerate(chunks):
        header, body = body_and_header(chunk, source, lines)
        meta = chunk.metadata
        assert len(header) <= window // 4, (meta, header)
        if len(body) >= window / 2 or index + 1 == len(chunks):
            continue
        following = chunks[index + 1]
        if not _same_unit(chunk, following):
            continue  # all that remains of its definition
        # Else the next line (or piece of an over-long line), with the lines right after it
        # that only close brackets (they stay with what they close), must not have fit.
        next_line = following.metadata["start_line"]
        while next_line < len(line_texts) and _closes(line_texts[next_line]):
            next_line += 1
        line_end = lines.offset_of(next_line) + len(line_texts[next_line - 1]) + 1
        reach = min(following.metadata["end_char"], line_end)
        assert reach - meta["start_char"] > window, (
            f"chunk under half a window although the next line fits beside it: {meta}")


def check_part_counts(chunks: list[Chunk], source: str, window: int) -> None:
    """A definition split into k parts holding N of its own text has k <= ceil(N / (W/2)) + 1."""
    run: list[int] = []

    def close() -> None:
        if len(run) > 1:
            own = sum(chunks[i].metadata["end_char"] - chunks[i].metadata["start_char"] for i in run)
            assert len(run) <= math.ceil(own / (window / 2)) + 1, (chunks[run[0]].metadata, len(run), own)
        run.clear()

    for index, chunk in enumerate(chunks):
        if run and _same_unit(chunks[run[-1]], chunk):
            run.append(index)
            continue
        close()
        if chunk.metadata.get("part") == 0:
            run.append(index)
    close()


def definition_nodes(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """(qualified name, node) of module-level definitions and members of classes."""
    stack: list[tuple[str, ast.AST]] = [("", node) for node in tree.body]
    while stack:
        prefix, node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield prefix + node.name, node
            if isinstance(node, ast.ClassDef):
                stack.extend((f"{prefix}{node.name}.", child) for child in node.body)


def check_definition_bounds(chunks: list[Chunk], source: str, window: int) -> int:
    """At most ceil(N / (W/2)) + 1 chunks overlap each definition of N characters (from
    the comment lines above it to its end); returns how many definitions were split."""
    tree = ast.parse(source)
    line_texts = source.split("\n")
    starts = sorted((c.metadata["start_line"], c.metadata["end_line"]) for c in chunks)
    split = 0
    for name, node in definition_nodes(tree):
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])  # type: ignore[attr-defined]
        while first > 1 and line_texts[first - 2].lstrip().startswith("#"):
            first -= 1
        last = node.end_lineno  # type: ignore[attr-defined]
        size = len("\n".join(line_texts[first - 1:last])) + 1
        overlapping = sum(1 for start, end in starts if start <= last and end >= first)
        bound = math.ceil(size / (window / 2)) + 1
        assert overlapping <= bound, (name, first, last, size, overlapping, bound)
        split += overlapping > 1
    return split
