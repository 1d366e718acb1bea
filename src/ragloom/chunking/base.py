"""The chunker interface and the helpers every chunker shares: ids, line numbers, assembly."""

from __future__ import annotations

import bisect
import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ragloom.chunking.measure import CHARACTERS, TextMeasure
from ragloom.types import Chunk, Metadata, MetadataValue


class Chunker(Protocol):
    """Cuts the text of one file into chunks carrying path, index and line range."""

    def chunk(self, text: str, path: str) -> list[Chunk]: ...


def chunk_id(path: str, chunk_index: int) -> str:
    """Deterministic chunk id: a hash of the file path and the chunk's index in it."""
    digest = hashlib.sha256(f"{path}\x00{chunk_index}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:32]


class LineIndex:
    """Maps character offsets of a text to 1-based line numbers in O(log lines)."""

    def __init__(self, text: str) -> None:
        starts = [0]
        position = text.find("\n")
        while position != -1:
            starts.append(position + 1)
            position = text.find("\n", position + 1)
        self._line_starts = starts

    def line_of(self, offset: int) -> int:
        """1-based line holding the character at ``offset``."""
        return bisect.bisect_right(self._line_starts, offset)

    def offset_of(self, line: int) -> int:
        """Character offset where 1-based ``line`` starts."""
        return self._line_starts[line - 1]

    @property
    def line_count(self) -> int:
        return len(self._line_starts)


@dataclass(frozen=True)
class Piece:
    """A span a chunker chose: its text and where it starts in the file.

    ``header`` is text repeated in front of the span so it stands alone (e.g. a class line
    before a method); it is part of the chunk text but not of the file span.
    """

    text: str
    start_char: int
    start_line: int
    end_line: int
    header: str = ""
    extra: Metadata = field(default_factory=dict)


class SourceLines:
    """A text with its line table, for chunkers that cut at whole lines (1-based, inclusive).

    Sizes are in ``measure``'s unit (characters unless the chunker counts model tokens).
    """

    def __init__(self, text: str, measure: TextMeasure = CHARACTERS) -> None:
        self.text = text
        self.lines = LineIndex(text)
        self.line_texts = text.split("\n")
        self.measure = measure
        self._size_before = [0, *itertools.accumulate(measure.line_sizes(self.line_texts))]

    @property
    def line_count(self) -> int:
        return self.lines.line_count

    def span(self, first: int, last: int) -> tuple[int, int]:
        """Character range of lines ``first..last``, newline of the last line included."""
        end = self.lines.offset_of(last + 1) if last < self.lines.line_count else len(self.text)
        return self.lines.offset_of(first), end

    def size(self, first: int, last: int) -> int:
        """Size of lines ``first..last`` in the measure's unit."""
        return self._size_before[last] - self._size_before[first - 1]

    def is_blank(self, line: int) -> bool:
        return not self.line_texts[line - 1].strip()

    def piece(self, first: int, last: int, header: str = "", **extra: MetadataValue) -> Piece:
        """The Piece for lines ``first..last``, blank lines at either end left out."""
        while first < last and self.is_blank(first):
            first += 1
        while last > first and self.is_blank(last):
            last -= 1
        start, end = self.span(first, last)
        return Piece(self.text[start:end], start, first, last, header, dict(extra))


def piece_from_span(text: str, lines: LineIndex, start: int, end: int,
                    **extra: MetadataValue) -> Piece:
    """The Piece for ``text[start:end]`` with its 1-based inclusive line range."""
    return Piece(
        text=text[start:end],
        start_char=start,
        start_line=lines.line_of(start),
        end_line=lines.line_of(max(start, end - 1)),
        extra=dict(extra),
    )


def assemble_chunks(path: str, pieces: Sequence[Piece], base: Metadata | None = None) -> list[Chunk]:
    """Number the non-blank pieces of a file and turn them into Chunks with standard metadata."""
    chunks: list[Chunk] = []
    for piece in pieces:
        if not piece.text.strip():
            continue
        index = len(chunks)
        metadata: Metadata = dict(base or {})
        metadata.update(
            path=path,
            chunk_index=index,
            start_line=piece.start_line,
            end_line=piece.end_line,
            start_char=piece.start_char,
            end_char=piece.start_char + len(piece.text),
        )
        metadata.update(piece.extra)
        chunks.append(Chunk(id=chunk_id(path, index), text=piece.header + piece.text, metadata=metadata))
    return chunks
