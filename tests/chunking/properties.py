"""Checks every chunker must pass on any file: exact slices, honest line ranges, coverage."""

from __future__ import annotations

from ragloom.chunking.base import LineIndex
from ragloom.types import Chunk


def body_and_header(chunk: Chunk, source: str, lines: LineIndex) -> tuple[str, str]:
    """Split a chunk's text into (repeated header, file slice), asserting the slice is real:
    it starts at ``start_char`` and ends on ``end_line``."""
    start, end = chunk.metadata["start_char"], chunk.metadata["end_char"]
    body = source[start:end]
    assert chunk.text.endswith(body), f"chunk {chunk.metadata} does not end with its file slice"
    assert lines.line_of(end - 1) == chunk.metadata["end_line"], chunk.metadata
    return chunk.text[: len(chunk.text) - len(body)], body


def check_chunks(chunks: list[Chunk], source: str, chunk_size: int) -> None:
    """Slices, line numbers, sizes, ordering of indexes, and coverage of non-blank lines."""
    lines = LineIndex(source)
    covered: set[int] = set()
    for index, chunk in enumerate(chunks):
        meta = chunk.metadata
        assert meta["chunk_index"] == index
        assert chunk.text.strip()
        header, body = body_and_header(chunk, source, lines)
        assert header == "" or header.endswith("\n"), (meta, header)
        assert lines.line_of(meta["start_char"]) == meta["start_line"], meta
        assert meta["start_line"] <= meta["end_line"]
        assert len(body) <= chunk_size, (meta, len(body))
        covered.update(range(meta["start_line"], meta["end_line"] + 1))
    for number, line in enumerate(source.split("\n"), start=1):
        if line.strip():
            assert number in covered, f"line {number} lost: {line[:80]!r}"
