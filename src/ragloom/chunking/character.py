"""Fixed-size character chunks with overlap, optionally cut at sentence or line ends."""

from __future__ import annotations

import re

from ragloom.chunking.base import LineIndex, Piece, assemble_chunks, piece_from_span
from ragloom.types import Chunk

# A sentence end: terminal punctuation followed by whitespace, or a line end.
_BOUNDARY = re.compile(r"[.!?][\"')\]]*\s|\n")

# Sentence-aware cuts look for a boundary within this final share of the window.
BOUNDARY_WINDOW = 0.2


class CharacterChunker:
    """Windows of ``chunk_size`` characters, each starting ``chunk_overlap`` before the last ended."""

    def __init__(self, chunk_size: int = 1000, chunk_overlap: int = 200,
                 sentence_boundaries: bool = False) -> None:
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be positive, got {chunk_size}")
        if not 0 <= chunk_overlap < chunk_size:
            raise ValueError(
                f"chunk_overlap must be in [0, chunk_size), got {chunk_overlap} for size {chunk_size}"
            )
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.sentence_boundaries = sentence_boundaries

    def chunk(self, text: str, path: str) -> list[Chunk]:
        return assemble_chunks(path, self.pieces(text), base={"chunker": "character"})

    def pieces(self, text: str, start: int = 0, end: int | None = None,
               lines: LineIndex | None = None) -> list[Piece]:
        """Pieces covering ``text[start:end]``; other chunkers use this for oversized spans."""
        stop = len(text) if end is None else end
        lines = lines or LineIndex(text)
        pieces: list[Piece] = []
        while start < stop:
            cut = min(start + self.chunk_size, stop)
            if self.sentence_boundaries and cut < stop:
                cut = self._sentence_cut(text, start, cut)
            pieces.append(piece_from_span(text, lines, start, cut))
            if cut >= stop:
                break
            start = max(cut - self.chunk_overlap, start + 1)
        return pieces

    def _sentence_cut(self, text: str, start: int, cut: int) -> int:
        """The last sentence or line end in the window's final 20%, else ``cut`` itself."""
        window_start = cut - int(self.chunk_size * BOUNDARY_WINDOW)
        best = -1
        for match in _BOUNDARY.finditer(text, max(start + 1, window_start), cut):
            best = match.end()
        return best if best > start else cut
