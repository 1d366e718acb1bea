"""SQL files (migrations, schema dumps, seeds) cut between statements, never inside one.

A statement ends on a line whose code (before a ``--`` comment) ends with ``;``, outside a
dollar-quoted body (``$$ ... $$``, ``$body$ ... $body$``: a PostgreSQL function) and, for a
trigger or procedure whose body is a ``BEGIN ... END`` block, on its ``END;``. Comment lines
above a statement are part of it. Statements are packed into chunks up to the window by the
definition splitter (a statement longer than a window is cut between its lines), and each
chunk names what its statements create: ``symbol`` (the first name) and ``symbols`` (all
of them, when more than one), ``kind = "statement"``. One pass over the
lines, a bounded match on each: linear in the text.
"""

from __future__ import annotations

import re

from ragloom.chunking.base import SourceLines, assemble_chunks
from ragloom.chunking.measure import CHARACTERS, TextMeasure
from ragloom.types import Chunk

#: The object a statement creates: the names a chunk defines. A statement that alters,
#: drops or fills a table only refers to it (its words are in the text): naming it too made
#: five one-line ``ALTER TABLE builds`` chunks outrank the ``CREATE TABLE builds``.
_CREATED = re.compile(
    r"^\s*create\s+(?:or\s+replace\s+)?(?:unique\s+)?(?:temp(?:orary)?\s+)?(?:materialized\s+)?"
    r"(?:table|view|index|type|function|procedure|trigger|sequence|schema|extension|domain)"
    r"(?:\s+concurrently)?(?:\s+if\s+not\s+exists)?\s+([\w.\"`\[\]]{1,200})",
    re.IGNORECASE)
#: A dollar quote: ``$$`` or ``$tag$``.
_DOLLAR = re.compile(r"\$[A-Za-z_]{0,40}\$")
_BLOCK_STATEMENT = re.compile(r"^\s*create\s+(?:or\s+replace\s+)?(?:trigger|procedure)\b", re.IGNORECASE)
_BEGIN = re.compile(r"\bbegin\s*$", re.IGNORECASE)
_END = re.compile(r"^\s*end\b[^;]{0,40};\s*$", re.IGNORECASE)


def statements(lines: list[str]) -> list[tuple[int, int]]:
    """The statements of ``lines`` as 1-based inclusive line ranges (comment lines above a
    statement belong to it; a trailing run without ``;`` is one more)."""
    units: list[tuple[int, int]] = []
    start, dollar, opened = 1, None, False
    block = in_body = False  # a trigger or procedure; inside its BEGIN ... END
    for number, line in enumerate(lines, start=1):
        code = line.split("--", 1)[0] if dollar is None else line
        stripped = code.strip()
        if not stripped:
            continue
        if not opened:
            opened, block = True, bool(_BLOCK_STATEMENT.match(code))
        for quote in _DOLLAR.findall(code):
            dollar = quote if dollar is None else (None if quote == dollar else dollar)
        if dollar is not None:
            continue
        if block and not in_body and _BEGIN.search(stripped):
            in_body = True
            continue
        if _END.match(code) if in_body else stripped.endswith(";"):
            units.append((start, number))
            start, opened, block, in_body = number + 1, False, False, False
    if start <= len(lines) and any(line.strip() for line in lines[start - 1:]):
        units.append((start, len(lines)))
    return units


class SqlChunker:
    """Statement chunks of a SQL file; see the module docstring."""

    def __init__(self, chunk_size: int = 1000, measure: TextMeasure = CHARACTERS) -> None:
        from ragloom.chunking.definitions import DefinitionSplitter

        self.measure = measure
        self._splitter = DefinitionSplitter(max(4, chunk_size), measure)

    def chunk(self, text: str, path: str) -> list[Chunk]:
        source = SourceLines(text, self.measure)
        units = statements(source.line_texts)
        pieces = self._splitter.pack(source, units)
        for piece in pieces:
            names = created_names(source.line_texts[piece.start_line - 1:piece.end_line])
            piece.extra["kind"] = "statement"
            if names:
                piece.extra["symbol"] = names[0]
            if len(names) > 1:
                piece.extra["symbols"] = ", ".join(names)
        return assemble_chunks(path, pieces, base={"chunker": "sql"})


def created_names(lines: list[str]) -> list[str]:
    """The objects the statements starting in ``lines`` create, in order, once each."""
    names: list[str] = []
    for line in lines:
        match = _CREATED.match(line)
        if match:
            name = match.group(1).strip("\"`[]").replace('"', "").replace("`", "")
            if name.lower() not in ("if", "on") and name not in names:  # ``CREATE INDEX ON t``
                names.append(name)
    return names
