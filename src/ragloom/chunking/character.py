"""Chunks of whole lines up to ``chunk_size``, consecutive ones sharing up to
``chunk_overlap`` of whole lines; a single line longer than a chunk is cut between words."""

from __future__ import annotations

import re
from collections.abc import Callable

from ragloom.chunking.base import Piece, SourceLines, assemble_chunks, piece_from_span
from ragloom.chunking.commented_settings import commented_setting, is_section
from ragloom.chunking.measure import CHARACTERS, TextMeasure, fit_prefix
from ragloom.types import Chunk

# A sentence end: terminal punctuation (and closing quotes/brackets) followed by whitespace.
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s")
_SPACE = re.compile(r"\s")

# Cuts inside a long line look for a sentence end within this final share of the window.
BOUNDARY_WINDOW = 0.2


class CharacterChunker:
    """Line-aligned windows of at most ``chunk_size`` (characters, or tokens of ``measure``).

    The next window starts with the last whole lines of the previous one that fit in
    ``chunk_overlap``, and never repeats more than it adds. Only a line longer than a whole
    chunk is cut inside: at a sentence end in the window's last fifth when
    ``sentence_boundaries`` is on, else at the last space, so no piece starts mid-word.
    """

    def __init__(self, chunk_size: int = 1000, chunk_overlap: int = 200,
                 sentence_boundaries: bool = False, measure: TextMeasure = CHARACTERS) -> None:
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be positive, got {chunk_size}")
        if not 0 <= chunk_overlap < chunk_size:
            raise ValueError(
                f"chunk_overlap must be in [0, chunk_size), got {chunk_overlap} for size {chunk_size}"
            )
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.sentence_boundaries = sentence_boundaries
        self.measure = measure

    def chunk(self, text: str, path: str) -> list[Chunk]:
        source = SourceLines(text, self.measure)
        return assemble_chunks(path, self.split(source, 1, source.line_count),
                               base={"chunker": "character"})

    def split(self, source: SourceLines, first: int, last: int, budget: int | None = None,
              keep_with_next: Callable[[str], bool] | None = None,
              first_budget: int | None = None) -> list[Piece]:
        """Pieces covering lines ``first..last``, each at most ``budget`` (default chunk_size;
        the first at most ``first_budget`` when given); other chunkers use this for spans too
        long for one chunk. Lines ``keep_with_next`` accepts (headings) never end a piece:
        they open the next one."""
        later_budget = max(1, budget or self.chunk_size)
        pieces: list[Piece] = []
        line = first
        while line <= last:
            budget = max(1, first_budget or later_budget) if not pieces else later_budget
            overlap = min(self.chunk_overlap, budget - 1)
            if source.size(line, line) > budget:
                pieces.extend(self._split_long_line(source, line, line, budget, later_budget))
                line += 1
                continue
            end = line
            while end < last and source.size(line, end + 1) <= budget:
                end += 1
            if end < last and keep_with_next is not None:
                end = _give_trailing_lines(source, line, end, keep_with_next)
            if end < last and (source.size(end + 1, end + 1) > budget
                               or _only(source, line, end, keep_with_next)):
                # Lines before a line too long for any window, or a heading the next line
                # does not fit beside, open the first piece of that next line.
                opened = self._split_long_line(source, line, end + 1, budget, later_budget)
                if source.size(end + 1, end + 1) <= later_budget:
                    # That line fits a later window whole: it starts the next piece at its
                    # own first character instead of mid-line.
                    pieces.append(opened[0])
                    line = end + 1
                else:
                    pieces.extend(opened)
                    line = end + 2
                continue
            if not all(source.is_blank(n) for n in range(line, end + 1)):
                pieces.append(source.piece(line, end))
            if end >= last:
                break
            line = self._next_start(source, line, end, last, later_budget, overlap)
        return pieces

    @staticmethod
    def _next_start(source: SourceLines, start: int, end: int, last: int, budget: int,
                    overlap: int) -> int:
        """First line of the window after ``start..end``: the trailing lines that fit in
        ``overlap``, fit with the next new line in ``budget``, and repeat no more than the
        next window can add."""
        following = end + 1
        remaining = source.size(following, last)
        next_start = following
        while next_start - 1 > start:
            repeated = source.size(next_start - 1, end)
            if (repeated > overlap or repeated + source.size(following, following) > budget
                    or repeated > min(remaining, budget - repeated)):
                break
            next_start -= 1
        return next_start

    def _split_long_line(self, source: SourceLines, first: int, long_line: int, first_budget: int,
                         budget: int) -> list[Piece]:
        """Pieces of lines ``first..long_line``, the last too long to fit: cut inside that
        line, between words (the first piece at most ``first_budget``, later ones ``budget``)."""
        text = source.text
        overlap = min(self.chunk_overlap, budget - 1)
        start, end = source.span(first, long_line)[0], source.span(long_line, long_line)[1]
        line_start = source.lines.offset_of(long_line)
        pieces: list[Piece] = []
        while start < end:
            cut = start + fit_prefix(self.measure, text, start, end,
                                     first_budget if not pieces else budget)
            if cut < end:
                cut = self._word_cut(text, start, cut)
            if cut <= line_start:
                cut = line_start  # the lines before the long one fit whole: end there
            pieces.append(piece_from_span(text, source.lines, start, cut))
            if cut >= end:
                break
            back = (cut - start) * overlap // budget
            next_start = _word_start(text, max(cut - back, line_start), cut)
            start = next_start if next_start > start else cut
        return pieces

    def _word_cut(self, text: str, start: int, cut: int) -> int:
        """Where to end a window ``text[start:cut]`` inside a line: a sentence end in its last
        fifth (with ``sentence_boundaries``), else just after the last space in its second half,
        else ``cut`` (a "word" longer than half a window is cut where the window ends)."""
        if self.sentence_boundaries:
            window_start = max(start + 1, cut - int((cut - start) * BOUNDARY_WINDOW))
            ends = [m.end() for m in _SENTENCE_END.finditer(text, window_start, cut)]
            if ends:
                return ends[-1]
        half = start + (cut - start) // 2
        space = max(text.rfind(" ", half, cut), text.rfind("\t", half, cut))
        return space + 1 if space > start else cut


class CommentedLinesChunker:
    """Windows of whole lines for configuration and scripts (YAML, TOML, INI, shell) that
    never part a comment from the line it documents: a run of comment (and blank) lines
    and the line after it are one unit (``# How long a session lasts`` above
    ``lifetime: 120``), units packed greedily up to ``chunk_size`` by the definition
    splitter (so no overlap; a unit longer than a window is cut between its lines). A
    setting written out in a comment (``#http_port = 17170``) ends a unit as a live one
    does, and a table header (``[smtp_options]``) opens a section: sections are packed
    whole, several small ones to a window, never a part of one with a part of the next
    (``commented_settings``)."""

    def __init__(self, comment_prefixes: tuple[str, ...], chunk_size: int = 1000,
                 measure: TextMeasure = CHARACTERS) -> None:
        from ragloom.chunking.definitions import DefinitionSplitter

        self.comment_prefixes = comment_prefixes
        self.measure = measure
        self.chunk_size = max(4, chunk_size)
        self._splitter = DefinitionSplitter(self.chunk_size, measure)

    def chunk(self, text: str, path: str) -> list[Chunk]:
        source = SourceLines(text, self.measure)
        units: list[tuple[int, int]] = []
        start = 1
        for number, line in enumerate(source.line_texts, start=1):
            if line.strip() and (not line.lstrip().startswith(self.comment_prefixes)
                                 or commented_setting(line, self.comment_prefixes)):
                units.append((start, number))
                start = number + 1
        if start <= source.line_count:
            units.append((start, source.line_count))
        pieces = [piece for group in self._sections(source, units)
                  for piece in self._splitter.pack(source, group)]
        return assemble_chunks(path, pieces, base={"chunker": "character"})

    def _sections(self, source: SourceLines, units: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
        """``units`` in groups of whole sections (a table header opens one), consecutive
        sections joined while they fit the window together; a bigger one is a group alone."""
        opening = [0] + [i for i, (_, last) in enumerate(units)
                         if i and is_section(source.line_texts[last - 1])] + [len(units)]
        groups: list[list[tuple[int, int]]] = []
        size = 0.0
        for first, end in zip(opening, opening[1:]):
            section = units[first:end]
            own = source.size(section[0][0], section[-1][1])
            if groups and size + own <= self.chunk_size:
                groups[-1] += section
                size += own
            else:
                groups.append(list(section))
                size = own
        return groups


def _give_trailing_lines(source: SourceLines, first: int, end: int,
                         keep_with_next: Callable[[str], bool]) -> int:
    """The window ``first..end`` shortened so it does not end on blank or ``keep_with_next``
    lines (unless that would leave nothing else in it)."""
    probe = end
    while probe > first and (source.is_blank(probe) or keep_with_next(source.line_texts[probe - 1])):
        probe -= 1
    if probe == end or _only(source, first, probe, keep_with_next):
        return end
    return probe


def _only(source: SourceLines, first: int, last: int,
          keep_with_next: Callable[[str], bool] | None) -> bool:
    """Whether lines ``first..last`` hold nothing but blank and ``keep_with_next`` lines."""
    return keep_with_next is not None and all(
        source.is_blank(n) or keep_with_next(source.line_texts[n - 1]) for n in range(first, last + 1))


def _word_start(text: str, position: int, limit: int) -> int:
    """The first word start at or after ``position`` (``limit`` when there is none before it)."""
    if position <= 0 or text[position - 1].isspace():
        return position
    match = _SPACE.search(text, position, limit)
    return match.end() if match else limit
