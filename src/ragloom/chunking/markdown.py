"""Markdown chunks that follow the document's sections.

One chunk per section at heading levels 1..``max_level`` (ATX ``#`` and setext
underlines), carrying ``heading`` and ``heading_path`` ("Install > From source"). Text
before the first heading is its own chunk; front matter stays with the first chunk; a
section holding only its heading opens the next one. A section longer than chunk_size is
split between blocks (paragraphs, lists, fences) with block overlap, and continuation
pieces repeat the heading line; a heading never ends a piece. Headings inside fences are
ignored; a block longer than a whole chunk is split between its lines, a fence's pieces
repeating its opening fence line so each still reads as code.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ragloom.chunking.base import Piece, SourceLines, assemble_chunks
from ragloom.chunking.character import CharacterChunker
from ragloom.chunking.measure import CHARACTERS, TextMeasure
from ragloom.types import Chunk, Metadata

_FENCE_OPEN = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
#: The title and any closing ``#`` run are taken apart by ``_atx_title``: one regex with a lazy
#: title before them backtracked quadratically on a long run of spaces (20k: 7.5 s).
_ATX = re.compile(r"^ {0,3}(?P<hashes>#{1,6})(?:[ \t]+(?P<rest>.*))?$")
_SETEXT = re.compile(r"^ {0,3}(?P<bar>=+|-+)[ \t]*$")
_FRONT_MATTER_END = re.compile(r"^(---|\.\.\.)[ \t]*$")


@dataclass(frozen=True)
class _Heading:
    line: int  # 1-based line where the section starts (the title line for setext)
    level: int
    title: str
    line_count: int = 1  # 2 for setext: title and underline
    adornment: str = ""  # RST: the underline character


@dataclass(frozen=True)
class _Block:
    """Lines ``first..last`` that are never split: a paragraph, list or whole code fence."""

    first: int
    last: int
    fence: str = ""  # the opening fence line, for fenced code
    heading: bool = False  # a heading's own line(s)


@dataclass(frozen=True)
class _Layout:
    headings: list[_Heading]
    blocks: list[_Block]
    front_matter_end: int  # last line of the front matter, 0 when there is none


def _parse(source: SourceLines) -> _Layout:
    """Headings and unsplittable blocks, outside front matter and code fences."""
    lines = source.line_texts
    headings: list[_Heading] = []
    blocks: list[_Block] = []
    front_matter_end = 0
    if lines and lines[0].rstrip() == "---":
        for index in range(1, len(lines)):
            if _FRONT_MATTER_END.match(lines[index]):
                front_matter_end = index + 1
                blocks.append(_Block(1, front_matter_end))
                break
    index = front_matter_end
    block_first: int | None = None
    while index < len(lines):
        line, number = lines[index], index + 1
        opened = _FENCE_OPEN.match(line)
        if opened and not (opened["fence"][0] == "`" and "`" in opened["info"]):
            if block_first is not None:
                blocks.append(_Block(block_first, number - 1))
                block_first = None
            close = _find_fence_end(lines, index, opened["fence"])
            blocks.append(_Block(number, close + 1, fence=line.rstrip("\r") + "\n"))
            index = close + 1
            continue
        atx = _ATX.match(line)
        setext = _SETEXT.match(line)
        if atx:
            if block_first is not None:
                blocks.append(_Block(block_first, number - 1))
                block_first = None
            headings.append(_Heading(number, len(atx["hashes"]), _atx_title(atx["rest"] or "")))
            blocks.append(_Block(number, number, heading=True))
        elif setext and block_first is not None and block_first < number:
            title_line = number - 1
            if block_first < title_line:
                blocks.append(_Block(block_first, title_line - 1))
            level = 1 if setext["bar"][0] == "=" else 2
            headings.append(_Heading(title_line, level, lines[title_line - 1].strip(), 2))
            blocks.append(_Block(title_line, number, heading=True))
            block_first = None
        elif not line.strip():
            if block_first is not None:
                blocks.append(_Block(block_first, number - 1))
                block_first = None
        elif block_first is None:
            block_first = number
        index += 1
    if block_first is not None:
        blocks.append(_Block(block_first, len(lines)))
    return _Layout(headings, blocks, front_matter_end)


def _atx_title(rest: str) -> str:
    """An ATX heading's title: the text after ``#``, without a closing run of ``#`` that
    follows a space or tab."""
    title = rest.rstrip(" \t")
    bare = title.rstrip("#")
    if bare != title and bare[-1:] in (" ", "\t"):
        title = bare
    return title.strip()


def _find_fence_end(lines: list[str], open_index: int, fence: str) -> int:
    """Index of the closing fence line, or the last line when the fence never closes."""
    closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
    for index in range(open_index + 1, len(lines)):
        if closing.match(lines[index].rstrip("\r")):
            return index
    return len(lines) - 1


class MarkdownChunker:
    """Section chunks for Markdown; see the module docstring."""

    def __init__(self, chunk_size: int = 1000, chunk_overlap: int = 200, max_level: int = 3,
                 measure: TextMeasure = CHARACTERS) -> None:
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.max_level = max_level
        self.measure = measure
        self._line_splitter = CharacterChunker(chunk_size, chunk_overlap, sentence_boundaries=True,
                                               measure=measure)

    name = "markdown"

    def chunk(self, text: str, path: str) -> list[Chunk]:
        source = SourceLines(text, self.measure)
        return assemble_chunks(path, list(self._pieces(source)), base={"chunker": self.name})

    def _parse_layout(self, source: SourceLines) -> _Layout:
        """Headings and unsplittable blocks (subclasses parse other markups)."""
        return _parse(source)

    def _heading_text(self, heading: _Heading) -> str:
        """The heading as repeated in front of a section's continuation pieces; none when
        it takes over a quarter of a chunk (a one-line file that is all heading would
        otherwise repeat the whole line in front of every one-character piece)."""
        text = f"{'#' * heading.level} {heading.title}\n"
        return text if self.measure.count(text) <= self.chunk_size // 4 else ""

    def _pieces(self, source: SourceLines) -> Iterator[Piece]:
        layout = self._parse_layout(source)
        headings = [h for h in layout.headings if h.level <= self.max_level]
        last_line = len(source.line_texts)
        first_heading = headings[0].line if headings else last_line + 1
        preamble_has_text = any(
            source.line_texts[i].strip() for i in range(layout.front_matter_end, first_heading - 1))
        if first_heading > 1 and (preamble_has_text or not headings):
            yield from self._section(source, layout, _Section(1, first_heading - 1, None, []))
        for section in _join_bare_headings(source, _sections(headings, last_line, preamble_has_text)):
            yield from self._section(source, layout, section)

    def _section(self, source: SourceLines, layout: _Layout, section: _Section) -> Iterator[Piece]:
        first, last, heading, path = section.first, section.last, section.heading, section.path
        extra: Metadata = {
            "kind": "section" if heading else "preamble",
            "heading": heading.title if heading else "",
            "heading_path": " > ".join(h.title for h in path),
            "level": heading.level if heading else 0,
        }
        if source.size(first, last) <= self.chunk_size:
            yield source.piece(first, last, **extra)
            return
        repeat = self._heading_text(heading) if heading else ""
        budget = max(1, self.chunk_size - self.measure.count(repeat))
        blocks = _blocks_within(layout.blocks, first, last)
        units = _headings_joined(_cover(blocks, first, last))
        part = 0
        start = 0
        while start < len(units):
            header = repeat if part else ""
            unit = units[start]
            if source.size(unit.first, unit.last) > budget:
                for piece in self._split_block(source, unit, header, repeat):
                    yield _with(piece, extra, part)
                    part += 1
                start += 1
                continue
            end = start
            while end + 1 < len(units) and source.size(unit.first, units[end + 1].last) <= budget:
                end += 1
            yield source.piece(unit.first, units[end].last, header, **extra, part=part)
            part += 1
            if end + 1 >= len(units):
                break
            start = self._overlap_start(source, units, start, end, budget)

    def _overlap_start(self, source: SourceLines, units: list[_Block], start: int, end: int,
                       budget: int) -> int:
        """First unit of the next piece: trailing units of this one that fit the overlap
        and repeat no more than the next unit adds."""
        next_start = end + 1
        while next_start - 1 > start:
            repeated = source.size(units[next_start - 1].first, units[end].last)
            if (repeated > self.chunk_overlap
                    or repeated > source.size(units[end + 1].first, units[end + 1].last)
                    or source.size(units[next_start - 1].first, units[end + 1].last) > budget):
                break
            next_start -= 1
        return next_start

    def _split_block(self, source: SourceLines, block: _Block, header: str,
                     repeat: str) -> Iterator[Piece]:
        continuation = repeat + block.fence if block.fence else repeat
        budget = max(1, self.chunk_size - self.measure.count(continuation))
        pieces = self._line_splitter.split(source, block.first, block.last, budget,
                                           keep_with_next=_is_heading_line,
                                           first_budget=self.chunk_size - self.measure.count(header))
        for index, piece in enumerate(pieces):
            yield Piece(piece.text, piece.start_char, piece.start_line, piece.end_line,
                        header if index == 0 else continuation)


@dataclass(frozen=True)
class _Section:
    """Lines ``first..last`` under one heading (None for text before the first heading)."""

    first: int
    last: int
    heading: _Heading | None
    path: list[_Heading]


def _sections(headings: list[_Heading], last_line: int, preamble_has_text: bool) -> list[_Section]:
    """One section per heading, running to the next; blank lines or front matter before the
    first heading join it."""
    sections: list[_Section] = []
    path: list[_Heading] = []
    for position, heading in enumerate(headings):
        path = [h for h in path if h.level < heading.level] + [heading]
        first = 1 if position == 0 and not preamble_has_text else heading.line
        last = headings[position + 1].line - 1 if position + 1 < len(headings) else last_line
        sections.append(_Section(first, last, heading, path))
    return sections


def _join_bare_headings(source: SourceLines, sections: list[_Section]) -> list[_Section]:
    """Sections holding nothing but their heading opened into the next section (the last
    one closes the previous), so no chunk is a lone heading."""
    joined: list[_Section] = []
    carried_first: int | None = None
    for index, section in enumerate(sections):
        first = section.first if carried_first is None else carried_first
        if _is_bare(source, section) and index + 1 < len(sections):
            carried_first = first
            continue
        carried_first = None
        if _is_bare(source, section) and joined:
            previous = joined.pop()
            joined.append(_Section(previous.first, section.last, previous.heading, previous.path))
            continue
        joined.append(_Section(first, section.last, section.heading, section.path))
    return joined


def _is_bare(source: SourceLines, section: _Section) -> bool:
    heading = section.heading
    if heading is None:
        return False
    title_lines = range(heading.line, heading.line + heading.line_count)
    return all(number in title_lines or source.is_blank(number)
               for number in range(section.first, section.last + 1))


def _is_heading_line(line: str) -> bool:
    return _ATX.match(line) is not None


def _blocks_within(blocks: list[_Block], first: int, last: int) -> list[_Block]:
    """The blocks (in line order) inside lines ``first..last``, found by bisection: a scan of
    every block for every long section made many sections quadratic."""
    start = bisect.bisect_left(blocks, first, key=lambda block: block.first)
    inside = []
    for index in range(start, len(blocks)):  # not islice: it walks the skipped blocks
        block = blocks[index]
        if block.first > last:
            break
        if block.last <= last:
            inside.append(block)
    return inside


def _cover(blocks: list[_Block], first: int, last: int) -> list[_Block]:
    """Blocks extended so together they cover ``first..last`` with no gap (blank lines join
    the block before them), keeping every block boundary."""
    if not blocks:
        return [_Block(first, last)]
    covered = []
    for index, block in enumerate(blocks):
        begin = first if index == 0 else block.first
        finish = blocks[index + 1].first - 1 if index + 1 < len(blocks) else last
        covered.append(_Block(begin, finish, block.fence, block.heading))
    return covered


def _headings_joined(units: list[_Block]) -> list[_Block]:
    """Each heading block joined to the block after it, so no piece is a lone heading."""
    joined: list[_Block] = []
    pending_first: int | None = None
    for unit in units:
        first = unit.first if pending_first is None else pending_first
        if unit.heading and unit is not units[-1]:
            pending_first = first
            continue
        pending_first = None
        joined.append(_Block(first, unit.last, unit.fence))
    return joined


def _with(piece: Piece, extra: Metadata, part: int) -> Piece:
    return Piece(piece.text, piece.start_char, piece.start_line, piece.end_line, piece.header,
                 {**extra, "part": part})
