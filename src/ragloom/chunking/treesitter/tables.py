"""Where a span of code too big for one chunk is cut: between lines, a comment kept with
the line it documents and a router's registration written over lines kept whole
(``commented_units``), or, for a long table of keyed entries, between entries, each part
named by its keys (``table_pieces``).

Applications keep their options, defaults and lookup tables as one literal of keyed
entries: Go's ``map[string]*option{"LISTEN_ADDR": {rawValue: "127.0.0.1:8080", ...}, ...}``
inside a ``NewConfigOptions`` function, a JavaScript config object, a PHP ``return [...]``
array, a Rust struct literal of defaults (Python is chunked by ``python_ast``, not here).
Cut by lines into full windows, a part holds five or six options and often ends inside one
(the name in one chunk, its default in the next); a question asks about one option ("which address does
the server listen on by default"), and the window's other options drown it (on miniflux
the cosine of that question to the ``LISTEN_ADDR`` entry alone is 0.41, to the window
holding it 0.24).

So a span too big for one chunk whose lines are mostly one node with at least
``MIN_ENTRIES`` keyed entries (``ENTRY_TYPES``, each starting on its own line, of
``ENTRY_LINES`` lines on average) is cut between entries: the lines before the table and
after it as usual, the entries (with the comments above them) grouped as small
definitions are, up to a quarter window, so an entry is never cut unless it alone is over
a window. Each part's ``symbol`` names its keys
(``NewConfigOptions.LISTEN_ADDR``): the header the embedder and BM25 read names the
options it holds, and a query naming a key finds the part defining it.
"""

from __future__ import annotations

import re
from typing import Any

from ragloom.chunking.base import Piece, SourceLines
from ragloom.chunking.definitions import DefinitionSplitter, Header, Span

#: Node types of one keyed entry: Go ``keyed_element``, JavaScript / Ruby ``pair``,
#: PHP ``array_element_initializer``, Rust ``field_initializer``.
ENTRY_TYPES = frozenset({"keyed_element", "pair", "array_element_initializer", "field_initializer"})
#: Fewer entries than this are a literal, not a table.
MIN_ENTRIES = 8
#: Entries must hold this many lines on average: one-line entries (validation rules, a
#: mapping, translations) are already kept whole by the cut between lines, while a
#: definition of several lines (a default, a type, a validator) is what a window cuts.
ENTRY_LINES = 3
#: A key longer than this (characters) names nothing useful in a header.
KEY_CHARACTERS = 60


#: A router builder's call opened alone on its line: a registration written over several
#: lines (rustfmt's ``.route(`` / ``"/users/{id}/inbox",`` / ``routing::post(handler::inbox::post),``
#: / ``)``), kept whole, so no part starts with a handler whose path the part before holds.
#: Only a router's calls: keeping any chained call whole (a query builder's ``.filter(``)
#: moved other parts' bounds and cost a job question on Kitsune (0.50 -> 0.43).
OPENED_CALL = re.compile(r"^\s*\.(?:route|nest|service|mount|route_service|nest_service|resource|scope)"
                         r"\(\s*$")
#: Lines that are comments in the languages chunked (``//``, ``#``, ``/*``, `` * ``, ``--``).
_COMMENT_LINE = re.compile(r"^\s*(//|#|/\*|\*|--|<!--)")


def commented_units(source: SourceLines, first: int, last: int, limit: int) -> list[tuple[int, int]]:
    """Lines ``first..last`` as units to split between: each line, but comment lines with
    the line after them (what they document), and a router's call opened alone on its line
    with the lines up to where it closes (``OPENED_CALL``), while that unit is at most
    ``limit`` (a quarter window, so a part never ends under half a window for want of room;
    twice that for a call, whose indented lines are long)."""
    units: list[tuple[int, int]] = []
    start = line = first
    while line <= last:
        text = source.line_texts[line - 1]
        if _COMMENT_LINE.match(text) and line < last:
            line += 1
            continue
        end = line
        if OPENED_CALL.match(text):
            closing = _closing_line(source, line, last, start, 2 * limit)
            if closing is not None:
                end = closing
        if start < end and source.size(start, end) > (limit if end == line else 2 * limit):
            units += [(n, n) for n in range(start, end + 1)]
        else:
            units.append((start, end))
        start = line = end + 1
    return units


def _closing_line(source: SourceLines, line: int, last: int, start: int, limit: int) -> int | None:
    """The line (at most ``last``) where the parenthesis ``line`` leaves open closes, None
    when lines ``start`` to there are over ``limit`` (so the scan stays within a window)."""
    depth = 0
    for number in range(line, last + 1):
        if source.size(start, number) > limit:
            return None
        text = source.line_texts[number - 1]
        depth += text.count("(") - text.count(")")
        if depth <= 0:
            return number
    return None


def cut_span(splitter: DefinitionSplitter, source: SourceLines, root: Any, span: Span,
             opening: list[Header], repeated: list[Header]) -> list[Piece]:
    """``span``'s parts: between the entries of the table filling it, else by lines; the
    first part headed by a choice of ``opening``, later ones of ``repeated``."""
    table = table_pieces(splitter, source, root, span, repeated)
    if table is not None:
        return table
    units = commented_units(source, span.first, span.last, splitter.window // 4)
    return splitter.split(source, units, opening, repeated, span.extra)


def table_pieces(splitter: DefinitionSplitter, source: SourceLines, root: Any, span: Span,
                 headers: list[Header]) -> list[Piece] | None:
    """The parts of ``span`` cut between the entries of the table that fills it (module
    doc), each headed by a choice of ``headers``; None when no table fills it."""
    entries = _table(root, span.first, span.last)
    if entries is None:
        return None
    owner = str(span.extra.get("symbol") or "")
    bounds = [(_line(e.start_point), _line(e.end_point)) for e in entries]
    # the first entry takes the comments between the table's opening line and it
    start = min(bounds[0][0], max(span.first, _line(entries[0].parent.start_point) + 1))
    pieces = _lines(splitter, source, span, span.first, start - 1, headers)
    spans = []
    for entry, (_, last) in zip(entries, bounds):
        key = _key(entry)
        symbol = f"{owner}.{key}" if owner and key else key or owner
        extra = {**span.extra, **({"symbol": symbol} if symbol else {})}
        extra.pop("symbols", None)
        spans.append(Span(start, last, extra))
        start = last + 1
    pieces += group_entries(splitter, source, spans, headers, splitter.quarter)
    pieces += _lines(splitter, source, span, spans[-1].last + 1, span.last, headers)
    return pieces


def group_entries(splitter: DefinitionSplitter, source: SourceLines, entries: list[Span],
                  headers: list[Header], below: float | None) -> list[Piece]:
    """A table's entries in order: those that fit grouped as small definitions are, up to
    ``below`` (None: half a window), one over a window alone cut by lines."""
    pieces: list[Piece] = []
    whole: list[Span] = []
    for part in entries:
        if splitter.fits(source, part.first, part.last):
            whole.append(part)
            continue
        pieces += _grouped(splitter, source, whole, headers, below)
        whole = []
        pieces += splitter.split(source, [(n, n) for n in range(part.first, part.last + 1)],
                                 headers, headers, part.extra)
    return pieces + _grouped(splitter, source, whole, headers, below)


def _grouped(splitter: DefinitionSplitter, source: SourceLines, spans: list[Span],
             headers: list[Header], below: float | None) -> list[Piece]:
    if not spans:
        return []
    return splitter.group(source, spans, [headers] * len(spans), below)


def _lines(splitter: DefinitionSplitter, source: SourceLines, span: Span, first: int, last: int,
           headers: list[Header]) -> list[Piece]:
    """Lines ``first..last`` (none when empty or blank) cut by lines."""
    if first > last or not any(source.line_texts[n - 1].strip() for n in range(first, last + 1)):
        return []
    return splitter.split(source, [(n, n) for n in range(first, last + 1)], headers, headers,
                          span.extra)


def _line(point: tuple[int, int]) -> int:
    return point[0] + 1


def _table(root: Any, first: int, last: int) -> list[Any] | None:
    """The entries of the outermost node within lines ``first..last`` holding at least
    ``MIN_ENTRIES`` entries, each on lines of its own, that cover half the lines; None
    when there is none. Only nodes over half the span are searched (a smaller one cannot
    be such a table), so the walk stays small."""
    lines = last - first + 1
    if lines < MIN_ENTRIES * ENTRY_LINES:  # too few lines for a table (a one-line bundle)
        return None
    node = root.descendant_for_point_range((first - 1, 0), (last - 1, 0))
    stack = [node]
    while stack:
        node = stack.pop()
        entries = [c for c in node.named_children if c.type in ENTRY_TYPES and _keyed(c)]
        held = _held_lines(node, entries)
        if len(entries) >= MIN_ENTRIES and held * 2 >= lines and held >= ENTRY_LINES * len(entries) \
                and _own_lines(entries, first, last):
            return entries
        stack.extend(reversed([c for c in node.named_children
                               if (_line(c.end_point) - _line(c.start_point) + 1) * 2 >= lines]))
    return None


def _held_lines(node: Any, entries: list[Any]) -> int:
    """Lines of ``node`` its entries and the comments among them take: a Laravel config
    array's one-line ``'key' => env(...)`` under the comment documenting it is an option
    of several lines, as much a table entry as a Go option spread over its own lines."""
    lines: set[int] = set()
    for child in [*entries, *(c for c in node.children if "comment" in c.type)]:
        lines.update(range(_line(child.start_point), _line(child.end_point) + 1))
    return len(lines)


def _keyed(entry: Any) -> bool:
    """Whether an entry has a key (a PHP array element may be a bare value: a list of
    domains or names is data, not a table of options)."""
    return entry.type != "array_element_initializer" or len(entry.named_children) >= 2


def _own_lines(entries: list[Any], first: int, last: int) -> bool:
    """Whether each entry starts on a line after the one before it ends, within the span."""
    previous = first - 1
    for entry in entries:
        if _line(entry.start_point) <= previous or _line(entry.end_point) > last:
            return False
        previous = _line(entry.end_point)
    return True


def _key(entry: Any) -> str:
    """An entry's key as written, without quotes (empty when it has none or it is long)."""
    key = entry.child_by_field_name("key") or entry.child_by_field_name("name") \
        or (entry.named_children[0] if entry.named_children else None)
    if key is None or key.start_point[0] != key.end_point[0]:
        return ""
    text = key.text.decode("utf-8", "replace").strip().strip("'\"`")
    return text if 0 < len(text) <= KEY_CHARACTERS else ""
