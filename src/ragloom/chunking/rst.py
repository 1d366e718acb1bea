"""reStructuredText chunks that follow the document's sections, like markdown's.

A section title is a line of text with an underline (and optionally an overline) of one
repeated punctuation character at least as long as the title; levels follow the order in
which the styles first appear, as docutils assigns them. Paragraphs (blank-line separated
blocks) are never split unless one alone is longer than a chunk. Continuation pieces of a
long section repeat the title and its underline.
"""

from __future__ import annotations

import re

from ragloom.chunking.base import SourceLines
from ragloom.chunking.markdown import MarkdownChunker, _Block, _Heading, _Layout

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+[ \t]*$")


class RstChunker(MarkdownChunker):
    """Section chunks for reStructuredText; see the module docstring."""

    name = "rst"

    def _parse_layout(self, source: SourceLines) -> _Layout:
        return parse_rst(source.line_texts)

    def _heading_text(self, heading: _Heading) -> str:
        return f"{heading.title}\n{heading.adornment * max(3, len(heading.title))}\n"


def parse_rst(lines: list[str]) -> _Layout:
    """Section titles and blank-line separated blocks of an RST text."""
    headings: list[_Heading] = []
    blocks: list[_Block] = []
    styles: list[tuple[str, bool]] = []  # (character, overlined) in order of appearance
    block_first: int | None = None
    index = 0
    while index < len(lines):
        title = _title_at(lines, index)
        if title is not None:
            if block_first is not None:
                blocks.append(_Block(block_first, index))
                block_first = None
            text, character, overlined, line_count = title
            if (character, overlined) not in styles:
                styles.append((character, overlined))
            level = styles.index((character, overlined)) + 1
            headings.append(_Heading(index + 1, level, text, line_count, character))
            blocks.append(_Block(index + 1, index + line_count, heading=True))
            index += line_count
            continue
        if not lines[index].strip():
            if block_first is not None:
                blocks.append(_Block(block_first, index))
                block_first = None
        elif block_first is None:
            block_first = index + 1
        index += 1
    if block_first is not None:
        blocks.append(_Block(block_first, len(lines)))
    return _Layout(headings, blocks, 0)


def _title_at(lines: list[str], index: int) -> tuple[str, str, bool, int] | None:
    """(title, adornment character, overlined, lines used) when a title starts at line
    ``index`` (0-based) after a blank line or the start, else None."""
    if index > 0 and lines[index - 1].strip():
        return None
    line = lines[index].rstrip()
    over = _ADORNMENT.match(line)
    if over and index + 2 < len(lines):
        text = lines[index + 1].strip()
        under = _ADORNMENT.match(lines[index + 2].rstrip())
        if text and under and under.group(1) == over.group(1) and not _ADORNMENT.match(text) \
                and len(lines[index + 2].rstrip()) >= len(text):
            return text, over.group(1), True, 3
        return None
    if not line or line[0].isspace() or _ADORNMENT.match(line) or index + 1 >= len(lines):
        return None
    under = _ADORNMENT.match(lines[index + 1].rstrip())
    if under and len(lines[index + 1].rstrip()) >= max(len(line), 2):
        return line.strip(), under.group(1), False, 2
    return None
