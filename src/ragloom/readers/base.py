"""The reader interface: a file's bytes in, its text (plus per-span metadata) out."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ragloom.types import Metadata


class SkipFile(Exception):
    """This file is not indexed; the message says why (shown in the index report)."""


@dataclass(frozen=True)
class TextSpan:
    """Metadata that holds for lines ``start_line``..``end_line`` (1-based, inclusive) of a
    reader's text, e.g. ``{"page": 3}`` for the lines a PDF reader took from page 3.

    With ``language`` the span is chunked on its own by that language's chunker (a
    notebook's code and markdown cells); lines outside such spans are then not chunked.
    """

    start_line: int
    end_line: int
    metadata: Metadata
    language: str | None = None


@dataclass(frozen=True)
class ReadText:
    """What a reader made of one file.

    ``language`` picks the chunker (``"markdown"``, ``"python"``, ...) when the text is not
    in the language the file's extension implies (an HTML page read as markdown, say).
    ``warning`` is reported but does not stop indexing.
    """

    text: str
    spans: tuple[TextSpan, ...] = ()
    language: str | None = None
    warning: str | None = None


class Reader(Protocol):
    """Turns the bytes of one file into text; raises SkipFile when the file cannot be read
    as this format (encrypted, corrupt, no text layer, ...)."""

    def read(self, path: str, data: bytes) -> ReadText: ...


@dataclass(frozen=True)
class SpanLookup:
    """Finds the span metadata of a chunk's line range. Spans in line order that do not
    overlap (pages, notebook cells) are found by bisection: a scan of every span for every
    chunk made a notebook of 8,000 cells take seconds, quadratic in its cells."""

    spans: Sequence[TextSpan] = field(default_factory=tuple)
    _ends: list[int] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ordered = all(before.end_line < after.start_line
                      for before, after in zip(self.spans, self.spans[1:]))
        object.__setattr__(self, "_ends", [span.end_line for span in self.spans] if ordered else None)

    def _overlapping(self, start_line: int, end_line: int) -> Iterator[TextSpan]:
        first = 0 if self._ends is None else bisect.bisect_left(self._ends, start_line)
        for index in range(first, len(self.spans)):  # not islice: it walks the skipped ones
            span = self.spans[index]
            if span.start_line > end_line and self._ends is not None:
                return
            if span.end_line >= start_line and span.start_line <= end_line:
                yield span

    def metadata_for(self, start_line: int, end_line: int) -> Metadata:
        """Each key of the spans overlapping the lines, with its first value; when the last
        overlapping span has another value it is added as ``<key>_end`` (a page range)."""
        first: Metadata = {}
        last: Metadata = {}
        for span in self._overlapping(start_line, end_line):
            for key, value in span.metadata.items():
                first.setdefault(key, value)
                last[key] = value
        merged = dict(first)
        for key, value in last.items():
            if value != first[key]:
                merged[f"{key}_end"] = value
        return merged
