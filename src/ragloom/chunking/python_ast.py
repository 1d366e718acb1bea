"""Python chunks that follow the code's structure (stdlib ``ast``, no tree-sitter).

One chunk per top-level function, class and run of other statements (imports, constants,
``if __name__`` blocks grouped); a module-level run of nothing but imports (and comments)
has ``kind = "imports"``, as the tree-sitter chunkers name theirs. A chunk starts at its
decorators and the comment lines right above it; adjacent small definitions share a
chunk (``symbols`` names them all). A class too large for one chunk is split per method,
each method chunk repeating the class statement (and docstring's first line) so it stands
alone; a class line with nothing of its own opens its first member's chunk. A function
too large for one chunk is split by whole lines with its signature repeated. Files that
do not parse fall back to line chunks, saying why in ``parse_error``.
"""

from __future__ import annotations

import ast
import functools
import threading
from collections.abc import Sequence

from ragloom.chunking.base import Piece, SourceLines, assemble_chunks
from ragloom.chunking.character import CharacterChunker
from ragloom.chunking.definitions import DefinitionSplitter, Header, HeaderLevel, Span, Unit
from ragloom.chunking.import_runs import imports_joined
from ragloom.chunking.measure import CHARACTERS, TextMeasure
from ragloom.chunking.settings_runs import settings_pieces
from ragloom.types import Chunk

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


#: ``ast.parse`` from several threads at once can raise a spurious SystemError on
#: Python 3.11 (gh-106905); the indexer chunks files on worker threads.
_PARSE_LOCK = threading.Lock()


def parse_python(text: str) -> ast.Module:
    """``ast.parse`` serialized across threads (see ``_PARSE_LOCK``)."""
    with _PARSE_LOCK:
        return ast.parse(text)


class PythonAstChunker:
    """Structure-aware chunks for Python source; see the module docstring."""

    def __init__(self, chunk_size: int = 1000, chunk_overlap: int = 200,
                 measure: TextMeasure = CHARACTERS) -> None:
        self.chunk_size = chunk_size
        self.measure = measure
        self.splitter = DefinitionSplitter(chunk_size, measure)
        self._line_splitter = CharacterChunker(chunk_size, chunk_overlap, sentence_boundaries=True,
                                               measure=measure)

    def chunk(self, text: str, path: str) -> list[Chunk]:
        source = SourceLines(text, self.measure)
        try:
            tree = parse_python(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            line = getattr(exc, "lineno", None)
            where = f" (line {line})" if line else ""
            reason = f"{type(exc).__name__}: {getattr(exc, 'msg', None) or exc}{where}"
            return assemble_chunks(path, self._line_splitter.split(source, 1, source.line_count),
                                   base={"chunker": "character", "parse_error": reason})
        pieces = self._scope_pieces(source, tree.body, 1, source.line_count, prefix="", outer=[],
                                    levels=[])
        return assemble_chunks(path, pieces, base={"chunker": "python_ast"})

    def _scope_pieces(self, source: SourceLines, body: Sequence[ast.stmt], first: int, last: int,
                      prefix: str, outer: list[HeaderLevel], levels: list[HeaderLevel]) -> list[Piece]:
        """Pieces for lines ``first..last`` of a module or class body: one unit per
        definition and per run of other statements; units that fit are grouped with their
        small neighbours, others split. Units repeat the ``levels`` header, except the one
        at ``first`` (holding a class's own first lines), which repeats ``outer``."""
        opening, repeated = self.splitter.headers(outer), self.splitter.headers(levels)
        symbol = prefix.rstrip(".")
        statement_kind = "class" if prefix else "module"
        units: list[tuple[Span, ast.stmt | None]] = []
        cursor = first
        for node in body:
            if not isinstance(node, _DEFINITIONS):
                continue
            start = self._start_line(node, source, cursor)
            if start > cursor and not all(source.is_blank(n) for n in range(cursor, start)):
                if prefix and cursor == first and not any(first <= s.lineno < start for s in body):
                    start = first  # only the class line (and comments): it opens the member
                else:
                    kind = _run_kind(body, cursor, start - 1, statement_kind)
                    extra = {"kind": kind, **({"symbol": symbol} if symbol else {})}
                    units.append((Span(cursor, start - 1, extra), None))
            name = f"{prefix}{node.name}"
            kind = "class" if isinstance(node, ast.ClassDef) else "method" if prefix else "function"
            units.append((Span(start, node.end_lineno or start, {"symbol": name, "kind": kind}), node))
            cursor = (node.end_lineno or start) + 1
        if cursor <= last and not all(source.is_blank(n) for n in range(cursor, last + 1)):
            kind = _run_kind(body, cursor, last, statement_kind)
            extra = {"kind": kind, **({"symbol": symbol} if symbol else {})}
            units.append((Span(cursor, last, extra), None))

        made = [Unit(span, "statements" if node is None else "definition",
                     opening if span.first == first else repeated,
                     functools.partial(self._split, source, span, node, prefix,
                                       outer if span.first == first else levels, levels, body))
                for span, node in units]
        return self.splitter.assemble(source, made, members=bool(prefix))

    def _split(self, source: SourceLines, span: Span, node: ast.stmt | None, prefix: str,
               own_levels: list[HeaderLevel], levels: list[HeaderLevel],
               body: Sequence[ast.stmt]) -> list[Piece]:
        """Parts of a unit too big for one chunk: a class per member, a function by lines
        with its signature repeated, a statement run between statements (a module's
        opening imports cut from the code after them: see ``_split_header``)."""
        if isinstance(node, ast.ClassDef) and node.body:
            return self._scope_pieces(source, node.body, span.first, span.last,
                                      prefix=f"{span.extra['symbol']}.", outer=own_levels,
                                      levels=[*levels, _class_header(source, node)])
        opening = self.splitter.headers(own_levels)
        header_end = None if node or prefix else _import_header_end(body, span.first, span.last)
        if header_end is not None:
            return self._split_header(source, span, header_end, opening, body)
        if node is None and not prefix:  # a settings module's assignments: between them
            settings = settings_pieces(self.splitter, source, body, span.first, span.last, span.extra)
            if settings is not None:
                return settings
        units = [(line, line) for line in range(span.first, span.last + 1)]
        if node is None:  # a run of statements: cut between lines like a function body
            return self.splitter.split(source, units, opening, self.splitter.headers(levels),
                                       span.extra)
        signature = _signature(source, node)
        repeated = [*levels, HeaderLevel(signature, _line(source, node.lineno))] if signature else levels
        return self.splitter.split(source, units, opening, self.splitter.headers(repeated), span.extra)

    def _split_header(self, source: SourceLines, span: Span, header_end: int,
                      opening: Sequence[Header], body: Sequence[ast.stmt]) -> list[Piece]:
        """A module's statement run too big for one chunk, cut where its opening imports
        (with the licence or comments above them) end: the imports are a chunk of ``kind =
        "imports"`` unless they fit beside the first part of the code after them. Cut
        between lines instead, the first part held the imports and the first lines of a
        statement (``urlpatterns = [``), a chunk of imports in all but name."""
        none = self.splitter.headers([])
        head = self.splitter.split(source, [(n, n) for n in range(span.first, header_end + 1)],
                                   opening, none, {**span.extra, "kind": "imports"})
        rest = settings_pieces(self.splitter, source, body, header_end + 1, span.last, span.extra)
        if rest is None:
            rest = self.splitter.split(source, [(n, n) for n in range(header_end + 1, span.last + 1)],
                                       none, none, span.extra)
        return imports_joined(source, self.splitter, head + rest)

    def _start_line(self, node: ast.stmt, source: SourceLines, floor: int) -> int:
        """Where a definition's chunk starts: at its decorators, and at the comment lines
        right above them unless those would push a definition that fits out of one chunk."""
        decorated = _first_line(node)
        commented = decorated
        while commented - 1 >= floor and source.line_texts[commented - 2].lstrip().startswith("#"):
            commented -= 1
        end = node.end_lineno or node.lineno
        if not self.splitter.fits(source, commented, end) and self.splitter.fits(source, decorated, end):
            return decorated
        return commented


def _first_line(node: ast.stmt) -> int:
    """The line a statement starts on, its decorators included."""
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])


def _signature(source: SourceLines, node: ast.stmt) -> str:
    """The ``def ...:`` / ``class ...:`` lines of a definition, without the comment and blank
    lines before its first statement (empty for one-line definitions)."""
    body = getattr(node, "body", None) or [node]
    last = _first_line(body[0]) - 1
    while last > node.lineno and (source.is_blank(last)
                                  or source.line_texts[last - 1].lstrip().startswith("#")):
        last -= 1
    if last < node.lineno:
        return ""
    start, end = source.span(node.lineno, last)
    return source.text[start:end]


def _line(source: SourceLines, number: int) -> str:
    """Line ``number`` with its newline."""
    return source.line_texts[number - 1] + "\n"


def _class_header(source: SourceLines, node: ast.ClassDef) -> HeaderLevel:
    """The ``class ...:`` lines plus the first line of the class docstring, if any."""
    header = _signature(source, node) or _line(source, node.lineno)
    docstring = ast.get_docstring(node)
    first_line = next((line.strip() for line in (docstring or "").splitlines() if line.strip()), "")
    if first_line:
        indent = source.line_texts[node.body[0].lineno - 1]
        indent = indent[: len(indent) - len(indent.lstrip())]
        header += f'{indent}"""{first_line}"""\n'
    return HeaderLevel(header, _line(source, node.lineno))


def _run_kind(body: Sequence[ast.stmt], first: int, last: int, kind: str) -> str:
    """``imports`` for a module-level run of lines ``first..last`` holding only imports
    (a migration's ``from django.db import migrations``; see ``_imports_only``), else ``kind``."""
    inside = [node for node in body if first <= node.lineno <= last]
    if kind == "module" and inside and all(_imports_only(n) for n in inside):
        return "imports"
    return kind


def _import_header_end(body: Sequence[ast.stmt], first: int, last: int) -> int | None:
    """The last line of the imports that open the module-level run of lines
    ``first..last`` when other statements follow them in the run, else None (also when a
    docstring opens it: the module's own words do not rank with its imports)."""
    inside = [node for node in body if first <= node.lineno <= last]
    end = None
    for node in inside:
        if not _imports_only(node):
            return end
        end = node.end_lineno or node.lineno
    return None


def _imports_only(node: ast.stmt) -> bool:
    """Whether ``node`` only imports: an import, or a ``try:`` / ``if TYPE_CHECKING:``
    block of imports (an optional dependency's ``except ImportError: ffmpeg = None``; a
    fallback defining something, ``else: class ABCMeta``, is code)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(node, ast.Try):
        fallbacks = [s for handler in node.handlers for s in handler.body]
        return all(_imports_only(s) for s in [*node.body, *node.orelse]) and not node.finalbody \
            and all(_imports_only(s) or isinstance(s, ast.Pass) or isinstance(s, ast.Assign)
                    and isinstance(s.value, ast.Constant) for s in fallbacks)
    if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
        return all(_imports_only(s) for s in [*node.body, *node.orelse])
    return False
