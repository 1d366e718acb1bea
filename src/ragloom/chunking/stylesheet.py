"""Stylesheets (CSS, SCSS, Less) cut between top-level rules, never inside one.

A unit ends on the line where the brace depth comes back to zero (the end of a rule, a
``@media`` block, a mixin) or, at depth zero, on a line ending with ``;`` (``@import``, a
``$variable``). Braces inside ``/* ... */`` comments and SCSS/Less ``//`` line comments do
not count; comment lines above a rule belong to it. Units are packed up to the window by
the definition splitter (a rule longer than a window is cut between its lines), so a window
no longer starts in the middle of a rule's declarations. One pass over the characters:
linear in the text.
"""

from __future__ import annotations

from ragloom.chunking.base import SourceLines, assemble_chunks
from ragloom.chunking.measure import CHARACTERS, TextMeasure
from ragloom.types import Chunk


def rules(lines: list[str], line_comments: bool) -> list[tuple[int, int]]:
    """The top-level units of ``lines`` as 1-based inclusive line ranges (a trailing run
    that never closes is one more); ``line_comments``: ``//`` starts a comment (SCSS, Less)."""
    units: list[tuple[int, int]] = []
    start, depth, in_comment = 1, 0, False
    for number, line in enumerate(lines, start=1):
        code, in_comment = _code_of(line, in_comment, line_comments)
        opened = depth
        for char in code:
            if char == "{":
                depth += 1
            elif char == "}" and depth:
                depth -= 1
        stripped = code.strip()
        if depth == 0 and stripped and (opened or "{" in code or "}" in code or stripped.endswith(";")):
            units.append((start, number))
            start = number + 1
    if start <= len(lines) and any(line.strip() for line in lines[start - 1:]):
        units.append((start, len(lines)))
    return units


def _code_of(line: str, in_comment: bool, line_comments: bool) -> tuple[str, bool]:
    """The part of ``line`` outside comments, and whether a block comment is still open.
    Every search starts where the last one ended (``slashes`` is found once and moved
    forward), so a line of many comments is read once."""
    code: list[str] = []
    position = 0
    slashes = _slashes(line, 0) if line_comments else -1
    while position < len(line):
        if in_comment:
            end = line.find("*/", position)
            if end == -1:
                return "".join(code), True
            position, in_comment = end + 2, False
            continue
        if slashes != -1 and slashes < position:
            slashes = _slashes(line, position)
        opening = line.find("/*", position)
        if slashes != -1 and (opening == -1 or slashes < opening):
            code.append(line[position:slashes])
            return "".join(code), False
        if opening == -1:
            code.append(line[position:])
            break
        code.append(line[position:opening])
        position, in_comment = opening + 2, True
    return "".join(code), in_comment


def _slashes(line: str, start: int) -> int:
    """Where the first ``//`` comment at or after ``start`` begins (-1: none); a ``//``
    right after a ``:`` is part of a URL (``url(https://...)``)."""
    found = line.find("//", start)
    while found > 0 and line[found - 1] == ":":
        found = line.find("//", found + 2)
    return found


class StylesheetChunker:
    """Rule-boundary chunks of a stylesheet; see the module docstring."""

    def __init__(self, line_comments: bool, chunk_size: int = 1000,
                 measure: TextMeasure = CHARACTERS) -> None:
        from ragloom.chunking.definitions import DefinitionSplitter

        self.line_comments = line_comments
        self.measure = measure
        self._splitter = DefinitionSplitter(max(4, chunk_size), measure)

    def chunk(self, text: str, path: str) -> list[Chunk]:
        source = SourceLines(text, self.measure)
        units = rules(source.line_texts, self.line_comments)
        pieces = self._splitter.pack(source, units)
        return assemble_chunks(path, pieces, base={"chunker": "stylesheet"})
