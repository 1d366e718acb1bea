"""One bounded splitter for code too big for one chunk, shared by every code chunker
(Python's ``ast`` one and the tree-sitter one), so no code makes degenerate chunks.

A definition's parts repeat a short header (class line, signature, docstring line) so each
stands alone. The splitter holds these bounds, whatever the code (W = the window):

* a repeated header takes at most W/4; beyond that only the definition's first line,
  then nothing;
* every part adds at least W/2 of its own text, or all that remains of its span, or the
  next line would not fit beside what it holds (a line is never cut unless it alone is
  longer than W);
* so a span of N (in the measure's unit) yields at most ceil(N / (W/2)) + 1 parts;
* parts are whole lines; only a line longer than W is cut, between words, in pieces of
  at least W/2.

The same greedy packing groups small whole definitions into shared chunks.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragloom.chunking.base import Piece, SourceLines, piece_from_span
from ragloom.chunking.measure import TextMeasure, fit_prefix
from ragloom.types import Metadata

#: Lines that only close what came before (``}``, ``});``, ``end``, ``)``).
CLOSING_LINE = re.compile(r"^\s*([\])};,]+|end)?\s*$")


@dataclass(frozen=True)
class HeaderLevel:
    """What a part repeats of one enclosing definition: its full header lines (class line
    and docstring line, or a signature) and its first line alone (both end in a newline)."""

    text: str
    first_line: str


@dataclass(frozen=True)
class Header:
    """A header text and its size."""

    text: str
    size: int


@dataclass(frozen=True)
class Span:
    """Lines ``first..last`` of a file (1-based, inclusive) and the metadata of its chunk."""

    first: int
    last: int
    extra: Metadata


@dataclass(frozen=True)
class Unit:
    """A definition or a run of other statements in a scope (module, class body, ...):
    its span, its family (``definition``, ``imports``, ``statements``: at module level
    only units of one family share a chunk), its header choices as a whole chunk, and how
    to split it when it does not fit one."""

    span: Span
    family: str
    headers: Sequence[Header]
    split: Callable[[], list[Piece]]
    #: A unit the application asks for one by one (a table, a config key): never grouped.
    alone: bool = False
    #: Opens a section (a comment or blank line above it): a group of half a window ends.
    opens_section: bool = False


@dataclass(frozen=True)
class _Atom:
    start: int
    end: int
    size: int
    blank: bool
    whole: bool  # whole lines (else a piece of a line longer than the window)


class DefinitionSplitter:
    """Cuts spans of a file into parts within ``window``; see the module docstring."""

    def __init__(self, window: int, measure: TextMeasure, module_group: float = 0.25,
                 member_group: float | None = None) -> None:
        if window < 4:
            raise ValueError(f"chunk size must be at least 4, got {window}")
        self.window = window
        #: Shares of the window that small whole units pack to (see ``assemble``).
        self.module_group = module_group
        self.member_group = member_group
        self.measure = measure
        self.quarter = window // 4
        self.half = window / 2

    def headers(self, levels: Sequence[HeaderLevel]) -> list[Header]:
        """Header choices for ``levels`` (outermost first), longest first, each at most a
        quarter window: all levels in full, their first lines, the innermost first line,
        nothing."""
        candidates = ["".join(level.text for level in levels),
                      "".join(level.first_line for level in levels),
                      levels[-1].first_line if levels else ""]
        choices: list[Header] = []
        for text in candidates:
            if text and text not in (c.text for c in choices):
                size = self.measure.count(text)
                if size <= self.quarter:
                    choices.append(Header(text, size))
        choices.append(Header("", 0))
        return choices

    def fits(self, source: SourceLines, first: int, last: int) -> bool:
        """Whether lines ``first..last`` fit one chunk (with the header dropped if need be)."""
        return source.size(first, last) <= self.window

    def pack(self, source: SourceLines, units: Sequence[tuple[int, int]]) -> list[Piece]:
        """Consecutive line ranges ``units`` packed up to the window without headers or
        part numbers (a unit longer than a window is cut between its lines): the line
        chunkers' units (a commented key, a SQL statement, a stylesheet rule)."""
        none = self.headers([])
        pieces = self.split(source, units, none, none, {}) if units else []
        for piece in pieces:
            piece.extra.pop("part", None)
        return pieces

    def split(self, source: SourceLines, units: Sequence[tuple[int, int]], opening: Sequence[Header],
              repeated: Sequence[Header], extra: Metadata) -> list[Piece]:
        """Parts of the consecutive line ranges ``units`` (cut between units where they fit,
        else between lines): the first part headed by a choice of ``opening``, later ones
        of ``repeated``; ``part`` numbers them."""
        atoms = self._atoms(source, units)
        before = [0, *itertools.accumulate(a.size for a in atoms)]
        solid = [i for i, atom in enumerate(atoms) if not atom.blank]

        def own(i: int, j: int) -> int:  # atoms i..j-1 without blank ones at either end
            lo = bisect.bisect_left(solid, i)
            hi = bisect.bisect_left(solid, j) - 1
            return before[solid[hi] + 1] - before[solid[lo]] if lo <= hi else 0

        ranges = self._pack(len(atoms), own, lambda i: opening if i == 0 else repeated)
        pieces: list[Piece] = []
        for index, (first, last, header) in enumerate(ranges):
            piece = self._piece(source, atoms[first:last], header.text, {**extra, "part": index})
            if piece is not None:
                pieces.append(piece)
        return pieces

    def group(self, source: SourceLines, spans: Sequence[Span], headers: Sequence[Sequence[Header]],
              below: float | None = None, sections: Sequence[bool] = ()) -> list[Piece]:
        """Consecutive whole spans (each fitting one chunk) joined while a group is under
        ``below`` (default half a window) and the next fits: one piece per group,
        ``symbols`` listing the names when it holds more than one. With ``below`` given,
        only spans smaller than it join others. ``headers[i]`` are span i's header choices;
        a run with spans ``sections`` marks packs to the window, ending at marked spans."""
        sizes = [source.size(s.first, s.last) for s in spans]
        runs: list[tuple[int, int]] = []
        for index, size in enumerate(sizes):
            alone = below is not None and size >= below
            if runs and not alone and runs[-1][1] == index and not (below is not None
                                                                     and sizes[index - 1] >= below):
                runs[-1] = (runs[-1][0], index + 1)
            else:
                runs.append((index, index + 1))
        pieces: list[Piece] = []
        for run_start, run_end in runs:
            def own(i: int, j: int, start: int = run_start) -> int:
                return source.size(spans[start + i].first, spans[start + j - 1].last)

            def choices(i: int, start: int = run_start) -> Sequence[Header]:
                return headers[start + i]

            marks = list(sections[run_start:run_end])  # sections, not a share, end groups
            ranges = self._pack(run_end - run_start, own, choices,
                                stop=self.window if any(marks) else below or self.half,
                                cut_before=marks.__getitem__ if any(marks) else None)
            for first, last, header in ranges:
                members = spans[run_start + first:run_start + last]
                extra = dict(members[0].extra)
                names = list(dict.fromkeys(  # each name once (a class's runs all name the class)
                    name for m in members
                    for name in str(m.extra.get("symbols") or m.extra.get("symbol") or "").split(", ")
                    if name))
                if len(members) > 1 and len(names) > 1:
                    extra["symbols"] = ", ".join(names)
                pieces.append(source.piece(members[0].first, members[-1].last, header.text, **extra))
        return pieces

    def assemble(self, source: SourceLines, units: Sequence[Unit], members: bool) -> list[Piece]:
        """Pieces of a scope's units in order: units that fit are grouped with their small
        neighbours, others split. At module level (``members`` false) only units under
        ``module_group`` of the window (default a quarter) share chunks, up to that share,
        and only with units of their family (imports stay apart from code); in a split
        container, members pack to half a window (or up to ``member_group``, units that
        large staying alone) and a small member opens the next big one's first part, so a
        container never yields more chunks than its bound."""
        pieces: list[Piece] = []
        whole: list[Unit] = []

        def flush() -> None:
            spans = [u.span for u in whole]
            share = self.member_group if members else self.module_group
            pieces.extend(self.group(source, spans, [u.headers for u in whole],
                                     None if share is None else self.window * share,
                                     [u.opens_section for u in whole]))
            whole.clear()

        for unit in units:
            if self.fits(source, unit.span.first, unit.span.last):
                if whole and (unit.alone or whole[-1].alone
                              or not members and whole[-1].family != unit.family):
                    flush()
                whole.append(unit)
                continue
            flush()
            made = unit.split()
            joined = self.join(source, pieces[-1], made[0]) if members and pieces and made else None
            if joined is not None:
                pieces[-1], made = joined, made[1:]
            pieces.extend(made)
        flush()
        return pieces

    def join(self, source: SourceLines, before: Piece, after: Piece) -> Piece | None:
        """``before`` (a small whole unit) and ``after`` (the first part of the next, split
        unit) as one piece when ``before`` holds under half a window and both fit in one;
        it keeps ``after``'s metadata and names both in ``symbols``. This keeps a split
        class's chunk count within its bound when small members precede big ones."""
        if "part" in before.extra or self.measure.count(before.text) >= self.half:
            return None
        end = after.start_char + len(after.text)
        text = source.text[before.start_char:end]
        if self.measure.count(before.header) + self.measure.count(text) > self.window:
            return None
        names = [str(before.extra.get("symbols") or before.extra.get("symbol") or ""),
                 str(after.extra.get("symbols") or after.extra.get("symbol") or "")]
        extra = dict(after.extra)
        if all(names):
            extra["symbols"] = ", ".join(dict.fromkeys(", ".join(names).split(", ")))
        return Piece(text, before.start_char, before.start_line, after.end_line, before.header, extra)

    def _pack(self, count: int, own: Callable[[int, int], int],
              headers_at: Callable[[int], Sequence[Header]], stop: float | None = None,
              cut_before: Callable[[int], bool] | None = None) -> list[tuple[int, int, Header]]:
        """Greedy ranges ``[i, j)`` of items with the header each gets (a choice of
        ``headers_at(i)``). Without ``stop`` a range takes all the rest when it fits, else
        as many items as fit; with it, a range stops once it holds ``stop``. A range under
        half a window drops to a shorter header rather than leave out an item that would
        then fit. ``own(i, j)`` is the size of items ``i..j-1`` as one chunk. A range
        holding half a window ends before an item ``cut_before`` marks."""
        ranges: list[tuple[int, int, Header]] = []
        i = 0
        while i < count:
            choices = headers_at(i)
            if stop is None:
                rest = own(i, count)
                whole = next((h for h in choices if rest + h.size <= self.window), None)
                if whole is not None:
                    ranges.append((i, count, whole))
                    break
            choice = 0
            j = i
            held = 0
            while j < count:
                if stop is not None and held >= stop or cut_before is not None \
                        and held >= self.half and cut_before(j):
                    break
                grown = own(i, j + 1)
                if grown + choices[choice].size <= self.window:
                    held, j = grown, j + 1
                    continue
                if held >= self.half:
                    break
                shorter = next((k for k in range(choice + 1, len(choices))
                                if grown + choices[k].size <= self.window), None)
                if shorter is None:
                    break
                choice, held, j = shorter, grown, j + 1
            if j == i:  # an item never exceeds the window on its own: take it bare
                j, choice = i + 1, len(choices) - 1
            ranges.append((i, j, choices[choice]))
            i = j
        return ranges

    def _atoms(self, source: SourceLines, units: Sequence[tuple[int, int]]) -> list[_Atom]:
        """Units that fit whole, else their lines; lines longer than the window in pieces."""
        atoms: list[_Atom] = []
        for first, last in units:
            if atoms and atoms[-1].whole and _closes(source, first, last) \
                    and atoms[-1].size + source.size(first, last) <= self.window:
                # `}` / `end` lines stay with what they close: no part of braces alone
                previous = atoms[-1]
                end = source.span(first, last)[1]
                atoms[-1] = _Atom(previous.start, end, previous.size + source.size(first, last),
                                  False, True)
                continue
            if source.size(first, last) <= self.window:
                start, end = source.span(first, last)
                blank = all(source.is_blank(n) for n in range(first, last + 1))
                atoms.append(_Atom(start, end, source.size(first, last), blank, True))
                continue
            for line in range(first, last + 1):
                start, end = source.span(line, line)
                if source.size(line, line) <= self.window:
                    atoms.append(_Atom(start, end, source.size(line, line), source.is_blank(line), True))
                else:
                    atoms.extend(self._line_pieces(source.text, start, end))
        return atoms

    def _line_pieces(self, text: str, start: int, end: int) -> list[_Atom]:
        """A line longer than the window in pieces of at most a window, each cut after the
        last space past its first half window (so none but the last is under half)."""
        atoms: list[_Atom] = []
        while start < end:
            cut = start + fit_prefix(self.measure, text, start, end, self.window)
            if cut < end:
                floor = start + fit_prefix(self.measure, text, start, cut, int(self.half) + 1)
                space = max(text.rfind(" ", floor, cut), text.rfind("\t", floor, cut))
                if space >= floor:
                    cut = space + 1
            piece = text[start:cut]
            atoms.append(_Atom(start, cut, self.measure.count(piece), not piece.strip(), False))
            start = cut
        return atoms

    @staticmethod
    def _piece(source: SourceLines, atoms: Sequence[_Atom], header: str, extra: Metadata) -> Piece | None:
        """The Piece of consecutive atoms, blank ones at either end left out."""
        solid = [a for a in atoms if not a.blank]
        if not solid:
            return None
        head, tail = solid[0], solid[-1]
        if head.whole and tail.whole:
            first = source.lines.line_of(head.start)
            last = source.lines.line_of(tail.end - 1)
            return source.piece(first, last, header, **extra)
        piece = piece_from_span(source.text, source.lines, head.start, tail.end, **extra)
        return Piece(piece.text, piece.start_char, piece.start_line, piece.end_line, header, piece.extra)



def _closes(source: SourceLines, first: int, last: int) -> bool:
    """Whether lines ``first..last`` only close brackets or blocks (blank lines do not count)."""
    lines = [source.line_texts[n - 1] for n in range(first, last + 1)]
    return any(line.strip() for line in lines) and all(CLOSING_LINE.match(line) for line in lines)
