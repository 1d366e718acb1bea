"""Checks every chunker must pass on any file: exact slices, honest line ranges, whole
lines, coverage, and no chunk that is only a structure line (heading, class line, decorator)."""

from __future__ import annotations

import re
import sysconfig
from collections.abc import Iterator
from pathlib import Path

from ragloom.chunking.base import LineIndex
from ragloom.types import Chunk

#: Lines that say what follows but hold nothing themselves.
PYTHON_STRUCTURE_LINE = re.compile(r"^\s*(@|class\s.*:\s*$)")
MARKDOWN_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}(\s|$)")


def body_and_header(chunk: Chunk, source: str, lines: LineIndex) -> tuple[str, str]:
    """Split a chunk's text into (repeated header, file slice), asserting the slice is real:
    it starts at ``start_char`` and ends on ``end_line``."""
    start, end = chunk.metadata["start_char"], chunk.metadata["end_char"]
    body = source[start:end]
    assert chunk.text.endswith(body), f"chunk {chunk.metadata} does not end with its file slice"
    assert lines.line_of(end - 1) == chunk.metadata["end_line"], chunk.metadata
    return chunk.text[: len(chunk.text) - len(body)], body


def check_chunks(chunks: list[Chunk], source: str, chunk_size: int,
                 structure_line: re.Pattern[str] | None = None) -> None:
    """Slices, line numbers, sizes, ordering of indexes, coverage of non-blank lines, whole
    lines (a piece ends inside a line only when its whole lines do not fit), and no chunk
    made only of ``structure_line``s."""
    lines = LineIndex(source)
    line_texts = source.split("\n")
    covered: set[int] = set()
    for index, chunk in enumerate(chunks):
        meta = chunk.metadata
        assert meta["chunk_index"] == index
        assert chunk.text.strip()
        header, body = body_and_header(chunk, source, lines)
        assert header == "" or header.endswith("\n"), (meta, header)
        assert lines.line_of(meta["start_char"]) == meta["start_line"], meta
        assert meta["start_line"] <= meta["end_line"]
        # an import run is one chunk up to 8 windows, indexed for its names (issue 36)
        limit = chunk_size * (8 if meta.get("kind") == "imports" and not header else 1)
        assert len(header) + len(body) <= limit, (meta, len(header), len(body))
        start, end = meta["start_char"], meta["end_char"]
        if len(line_texts[meta["start_line"] - 1]) + 1 <= chunk_size - len(header):
            assert start == 0 or source[start - 1] == "\n", f"starts mid-line: {meta}"
        whole_lines = len("\n".join(line_texts[meta["start_line"] - 1:meta["end_line"]])) + 1
        if whole_lines <= chunk_size - len(header):
            assert end == len(source) or source[end - 1] == "\n", f"ends mid-line: {meta}"
        if structure_line is not None and len(chunks) > 1:
            content = [line for line in body.split("\n") if line.strip()]
            assert not all(structure_line.match(line) for line in content), (
                f"chunk is only structure lines: {meta} {body[:120]!r}")
        covered.update(range(meta["start_line"], meta["end_line"] + 1))
    for number, line in enumerate(line_texts, start=1):
        if line.strip():
            assert number in covered, f"line {number} lost: {line[:80]!r}"


def stdlib_sources() -> Iterator[tuple[Path, str]]:
    """(path, text) of every readable module of this Python's standard library."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts)
    assert len(files) > 500
    for path in files:
        try:
            yield path, path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
