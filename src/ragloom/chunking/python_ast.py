"""Python chunks that follow the code's structure (stdlib ``ast``, no tree-sitter).

One chunk per top-level function, class and run of other statements (imports, constants,
``if __name__`` blocks grouped). A chunk starts at its decorators and the comment lines
right above it. A class too large for one chunk is split per method, each method chunk
repeating the class line (and docstring's first line) so it stands alone; a function too
large for one chunk is split by lines with its signature repeated. Files that do not
parse fall back to character chunks, saying why in ``parse_error``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from ragloom.chunking.base import Piece, SourceLines, assemble_chunks
from ragloom.chunking.character import CharacterChunker
from ragloom.types import Chunk

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class PythonAstChunker:
    """Structure-aware chunks for Python source; see the module docstring."""

    def __init__(self, chunk_size: int = 1000, chunk_overlap: int = 200) -> None:
        self.chunk_size = chunk_size
        self._fallback = CharacterChunker(chunk_size, chunk_overlap)
        self._line_splitter = CharacterChunker(chunk_size, chunk_overlap, sentence_boundaries=True)

    def chunk(self, text: str, path: str) -> list[Chunk]:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            line = getattr(exc, "lineno", None)
            where = f" (line {line})" if line else ""
            reason = f"{type(exc).__name__}: {getattr(exc, 'msg', None) or exc}{where}"
            return assemble_chunks(path, self._fallback.pieces(text),
                                   base={"chunker": "character", "parse_error": reason})
        source = SourceLines(text)
        pieces = list(self._scope_pieces(source, tree.body, 1, source.lines.line_count,
                                         prefix="", opening_header="", header=""))
        return assemble_chunks(path, pieces, base={"chunker": "python_ast"})

    def _scope_pieces(self, source: SourceLines, body: Sequence[ast.stmt], first: int, last: int,
                      prefix: str, opening_header: str, header: str) -> Iterator[Piece]:
        """Pieces for lines ``first..last`` of a module or class body: one per definition,
        the statements between them packed together. Every piece repeats ``header`` except
        the one at ``first`` (a class's own first lines), which gets ``opening_header``."""
        cursor = first
        symbol = prefix.rstrip(".")
        kind = "class" if prefix else "module"
        for node in body:
            if not isinstance(node, _DEFINITIONS):
                continue
            start = self._start_line(node, source, floor=cursor)
            if start > cursor:
                yield from self._pack(source, body, cursor, start - 1,
                                      opening_header if cursor == first else header, header,
                                      kind=kind, symbol=symbol)
            yield from self._definition_pieces(source, node, start, prefix, header)
            cursor = node.end_lineno + 1  # type: ignore[operator]
        if cursor <= last:
            yield from self._pack(source, body, cursor, last,
                                  opening_header if cursor == first else header, header,
                                  kind=kind, symbol=symbol)

    def _start_line(self, node: ast.stmt, source: SourceLines, floor: int) -> int:
        """Where a definition's chunk starts: at its decorators, and at the comment lines
        right above them unless those would push a definition that fits out of one chunk."""
        decorated = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        commented = decorated
        while commented - 1 >= floor and source.line_texts[commented - 2].lstrip().startswith("#"):
            commented -= 1
        end = node.end_lineno or node.lineno
        if source.size(commented, end) > self.chunk_size >= source.size(decorated, end):
            return decorated
        return commented

    def _definition_pieces(self, source: SourceLines, node: ast.stmt, start: int, prefix: str,
                           header: str) -> Iterator[Piece]:
        end = node.end_lineno or start
        name = f"{prefix}{node.name}"  # type: ignore[attr-defined]
        if isinstance(node, ast.ClassDef):
            kind = "class"
        else:
            kind = "method" if prefix else "function"
        if source.size(start, end) <= self.chunk_size:
            yield source.piece(start, end, header, symbol=name, kind=kind)
        elif isinstance(node, ast.ClassDef) and node.body:
            class_header = _class_header(source, node)
            yield from self._scope_pieces(source, node.body, start, end, prefix=f"{name}.",
                                          opening_header=header, header=header + class_header)
        else:
            signature = _signature(source, node)
            yield from self._split_lines(source, start, end, header, header + signature,
                                         symbol=name, kind=kind)

    def _pack(self, source: SourceLines, body: Sequence[ast.stmt], first: int, last: int,
              header: str, continuation: str, kind: str, symbol: str) -> Iterator[Piece]:
        """Group consecutive statements of ``first..last`` into pieces of at most chunk_size;
        the first piece carries ``header``, later ones ``continuation``."""
        starts = sorted({first, *(s.lineno for s in body if first < s.lineno <= last)})
        units = [(start, (starts[i + 1] - 1) if i + 1 < len(starts) else last)
                 for i, start in enumerate(starts)]
        extra = {"kind": kind, **({"symbol": symbol} if symbol else {})}
        group_first: int | None = None
        group_last = first
        emitted = 0
        for unit_first, unit_last in units:
            if group_first is not None and source.size(group_first, unit_last) <= self.chunk_size:
                group_last = unit_last
                continue
            if group_first is not None:
                yield source.piece(group_first, group_last, continuation if emitted else header, **extra)
                emitted += 1
            if source.size(unit_first, unit_last) > self.chunk_size:
                yield from self._split_lines(source, unit_first, unit_last,
                                             continuation if emitted else header, continuation, **extra)
                emitted += 1
                group_first = None
            else:
                group_first, group_last = unit_first, unit_last
        if group_first is not None:
            yield source.piece(group_first, group_last, continuation if emitted else header, **extra)

    def _split_lines(self, source: SourceLines, first: int, last: int, header: str,
                     continuation_header: str, **extra: object) -> Iterator[Piece]:
        """Character pieces of an oversized span, cut at line ends where possible; pieces after
        the first repeat ``continuation_header`` (e.g. the signature)."""
        start, end = source.span(first, last)
        for index, piece in enumerate(self._line_splitter.pieces(source.text, start, end, source.lines)):
            yield Piece(piece.text, piece.start_char, piece.start_line, piece.end_line,
                        header if index == 0 else continuation_header,
                        {**extra, "part": index})  # type: ignore[dict-item]


def _body_line(node: ast.stmt) -> int:
    body = getattr(node, "body", None) or [node]
    return body[0].lineno


def _signature(source: SourceLines, node: ast.stmt) -> str:
    """The ``def ...:`` lines of a function (empty for one-line functions)."""
    body_line = _body_line(node)
    if body_line <= node.lineno:
        return ""
    start, end = source.span(node.lineno, body_line - 1)
    return source.text[start:end]


def _class_header(source: SourceLines, node: ast.ClassDef) -> str:
    """The ``class ...:`` lines plus the first line of the class docstring, if any."""
    header = _signature(source, node) or source.line_texts[node.lineno - 1] + "\n"
    docstring = ast.get_docstring(node)
    first_line = next((line.strip() for line in (docstring or "").splitlines() if line.strip()), "")
    if first_line:
        indent = source.line_texts[node.body[0].lineno - 1]
        indent = indent[: len(indent) - len(indent.lstrip())]
        header += f'{indent}"""{first_line}"""\n'
    return header
