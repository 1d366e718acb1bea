"""Python chunks that follow the code's structure (stdlib ``ast``, no tree-sitter).

One chunk per top-level function, class and run of other statements (imports, constants,
``if __name__`` blocks grouped). A chunk starts at its decorators and the comment lines
right above it; adjacent small definitions share a chunk (``symbols`` names them all). A
class too large for one chunk is split per method, each method chunk repeating the class
statement (and docstring's first line) so it stands alone; a class line with nothing of
its own opens its first member's chunk. A function too large for one chunk is split by
whole lines with its signature repeated. Files that do not parse fall back to line
chunks, saying why in ``parse_error``.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ragloom.chunking.base import Piece, SourceLines, assemble_chunks
from ragloom.chunking.character import CharacterChunker
from ragloom.chunking.measure import CHARACTERS, TextMeasure
from ragloom.types import Chunk

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_WHOLE_DEFINITION_KINDS = frozenset({"function", "method", "class"})


class PythonAstChunker:
    """Structure-aware chunks for Python source; see the module docstring."""

    def __init__(self, chunk_size: int = 1000, chunk_overlap: int = 200,
                 measure: TextMeasure = CHARACTERS) -> None:
        self.chunk_size = chunk_size
        self.measure = measure
        #: Whole definitions smaller than this are merged with their small neighbours.
        self.tiny = chunk_size // 4
        self._line_splitter = CharacterChunker(chunk_size, chunk_overlap, sentence_boundaries=True,
                                               measure=measure)

    def chunk(self, text: str, path: str) -> list[Chunk]:
        source = SourceLines(text, self.measure)
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            line = getattr(exc, "lineno", None)
            where = f" (line {line})" if line else ""
            reason = f"{type(exc).__name__}: {getattr(exc, 'msg', None) or exc}{where}"
            return assemble_chunks(path, self._line_splitter.split(source, 1, source.line_count),
                                   base={"chunker": "character", "parse_error": reason})
        pieces = self._scope_pieces(source, tree.body, 1, source.line_count,
                                    prefix="", opening_header="", header="")
        return assemble_chunks(path, pieces, base={"chunker": "python_ast"})

    def _budget(self, header: str) -> int:
        """Room left for file lines in a chunk that starts with ``header``."""
        return max(1, self.chunk_size - self.measure.count(header))

    def _fits(self, source: SourceLines, first: int, last: int, header: str) -> bool:
        return source.size(first, last) <= self._budget(header)

    def _scope_pieces(self, source: SourceLines, body: Sequence[ast.stmt], first: int, last: int,
                      prefix: str, opening_header: str, header: str) -> list[Piece]:
        """Pieces for lines ``first..last`` of a module or class body: one per definition,
        the statements between them packed together. Every piece repeats ``header`` except
        the one at ``first`` (a class's own first lines), which gets ``opening_header``."""
        pieces: list[Piece] = []
        small: list[Piece] = []  # consecutive whole definitions below the tiny floor
        cursor = first
        symbol = prefix.rstrip(".")
        kind = "class" if prefix else "module"
        for node in body:
            if not isinstance(node, _DEFINITIONS):
                continue
            start = self._start_line(node, source, cursor, header)
            member_header = header
            if start > cursor and not all(source.is_blank(n) for n in range(cursor, start)):
                if prefix and cursor == first and not any(first <= s.lineno < start for s in body):
                    # Only the class line (and comments) precede the first member: no chunk
                    # of their own, they open the member's.
                    start, member_header = first, opening_header
                else:
                    pieces.extend(self._merge_small(source, small))
                    small = []
                    pieces.extend(self._pack(source, body, cursor, start - 1,
                                             opening_header if cursor == first else header, header,
                                             kind=kind, symbol=symbol))
            made = self._definition_pieces(source, node, start, prefix, member_header)
            if len(made) == 1 and self._is_small_whole_definition(source, made[0]):
                small.append(made[0])
            else:
                pieces.extend(self._merge_small(source, small))
                small = []
                pieces.extend(made)
            cursor = node.end_lineno + 1  # type: ignore[operator]
        pieces.extend(self._merge_small(source, small))
        if cursor <= last:
            pieces.extend(self._pack(source, body, cursor, last,
                                     opening_header if cursor == first else header, header,
                                     kind=kind, symbol=symbol))
        return pieces

    def _is_small_whole_definition(self, source: SourceLines, piece: Piece) -> bool:
        return (piece.extra.get("kind") in _WHOLE_DEFINITION_KINDS
                and source.size(piece.start_line, piece.end_line) < self.tiny)

    def _merge_small(self, source: SourceLines, pieces: list[Piece]) -> list[Piece]:
        """Adjacent small definitions (overloads, one-line methods) joined until a group
        reaches the tiny floor; each keeps its name in ``symbols``."""
        merged: list[Piece] = []
        group: list[Piece] = []

        def close_group() -> None:
            if len(group) == 1:
                merged.append(group[0])
            elif group:
                head = group[0]
                names = ", ".join(str(p.extra["symbol"]) for p in group)
                merged.append(source.piece(head.start_line, group[-1].end_line, head.header,
                                           **{**head.extra, "symbols": names}))
            group.clear()

        for piece in pieces:
            if group and (source.size(group[0].start_line, group[-1].end_line) >= self.tiny
                          or not self._fits(source, group[0].start_line, piece.end_line,
                                            group[0].header)):
                close_group()
            group.append(piece)
        close_group()
        return merged

    def _start_line(self, node: ast.stmt, source: SourceLines, floor: int, header: str) -> int:
        """Where a definition's chunk starts: at its decorators, and at the comment lines
        right above them unless those would push a definition that fits out of one chunk."""
        decorated = _first_line(node)
        commented = decorated
        while commented - 1 >= floor and source.line_texts[commented - 2].lstrip().startswith("#"):
            commented -= 1
        end = node.end_lineno or node.lineno
        if not self._fits(source, commented, end, header) and self._fits(source, decorated, end, header):
            return decorated
        return commented

    def _definition_pieces(self, source: SourceLines, node: ast.stmt, start: int, prefix: str,
                           header: str) -> list[Piece]:
        end = node.end_lineno or start
        name = f"{prefix}{node.name}"  # type: ignore[attr-defined]
        if isinstance(node, ast.ClassDef):
            kind = "class"
        else:
            kind = "method" if prefix else "function"
        if self._fits(source, start, end, header):
            return [source.piece(start, end, header, symbol=name, kind=kind)]
        if isinstance(node, ast.ClassDef) and node.body:
            class_header = _class_header(source, node)
            return self._scope_pieces(source, node.body, start, end, prefix=f"{name}.",
                                      opening_header=header, header=header + class_header)
        signature = _signature(source, node)
        return self._split_lines(source, start, end, header, header + signature,
                                 symbol=name, kind=kind)

    def _pack(self, source: SourceLines, body: Sequence[ast.stmt], first: int, last: int,
              header: str, continuation: str, kind: str, symbol: str) -> list[Piece]:
        """Group consecutive statements of ``first..last`` into pieces of at most chunk_size;
        the first piece carries ``header``, later ones ``continuation``."""
        statement_starts = {s.lineno for s in body if first <= s.lineno <= last}
        starts = sorted({first, *statement_starts})
        if first not in statement_starts and len(starts) > 1:
            del starts[1]  # a class line or comments open the first statement's unit
        units = [(start, (starts[i + 1] - 1) if i + 1 < len(starts) else last)
                 for i, start in enumerate(starts)]
        extra = {"kind": kind, **({"symbol": symbol} if symbol else {})}
        pieces: list[Piece] = []
        group_first: int | None = None
        group_last = first
        for unit_first, unit_last in units:
            piece_header = continuation if pieces else header
            if group_first is not None and self._fits(source, group_first, unit_last, piece_header):
                group_last = unit_last
                continue
            if group_first is not None:
                pieces.append(source.piece(group_first, group_last, piece_header, **extra))
            piece_header = continuation if pieces else header
            if not self._fits(source, unit_first, unit_last, piece_header):
                pieces.extend(self._split_lines(source, unit_first, unit_last, piece_header,
                                                continuation, **extra))
                group_first = None
            else:
                group_first, group_last = unit_first, unit_last
        if group_first is not None:
            pieces.append(source.piece(group_first, group_last, continuation if pieces else header,
                                       **extra))
        return pieces

    def _split_lines(self, source: SourceLines, first: int, last: int, header: str,
                     continuation_header: str, **extra: object) -> list[Piece]:
        """Whole-line pieces of an oversized span; pieces after the first repeat
        ``continuation_header`` (e.g. the signature) so each part can be found on its own."""
        budget = self._budget(continuation_header if len(continuation_header) > len(header) else header)
        pieces = self._line_splitter.split(source, first, last, budget)
        return [Piece(piece.text, piece.start_char, piece.start_line, piece.end_line,
                      header if index == 0 else continuation_header,
                      {**extra, "part": index})  # type: ignore[dict-item]
                for index, piece in enumerate(pieces)]


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
