"""Chunks of single-file components (Vue ``.vue``, Svelte ``.svelte``) by their sections.

* ``<script>`` / ``<script setup lang="ts">``: the tree-sitter chunker of TypeScript (``lang``
  ``ts``), TSX or JavaScript, run on the file with every other character blanked, so line
  and character numbers are the file's; its definitions are named with the component (the
  file name) as owner: ``QueueScreen.playNext``, and an ``export default { methods: ... }``
  object's members ``QueueScreen.play``.
* ``<template>`` (Vue) and the markup around the scripts (Svelte): the markup chunker's
  element (and ``{#if}``/``{#each}`` block) boundaries.
* ``<style>``: chunks of their own, ``kind = "style"``, never packed with markup or code,
  so a question about behaviour does not land on CSS and a question about a style does.

Every chunk names the section it comes from in ``section`` (``script``, ``template``,
``style``) and carries the component's ``language`` (``vue``, ``svelte``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragloom.chunking.base import SourceLines, assemble_chunks, chunk_id
from ragloom.chunking.definitions import DefinitionSplitter
from ragloom.chunking.markup.chunker import BLOCK_GROUP, FILE_GROUP, MarkupLayout, component_name
from ragloom.chunking.markup.syntax import SYNTAXES
from ragloom.chunking.markup.tree import Block, parse_blocks
from ragloom.chunking.measure import CHARACTERS, TextMeasure
from ragloom.types import Chunk

_LANG = re.compile(r"""\blang\s*=\s*["']?(\w+)""")
#: A script's ``lang`` -> the tree-sitter language chunking it.
_SCRIPT_LANGUAGES = {"ts": "typescript", "typescript": "typescript", "tsx": "tsx",
                     "js": "javascript", "javascript": "javascript", "jsx": "javascript"}
_NOT_BLANK = re.compile(r"[^\n]")
#: Scripts chunked as code (a component has one or two); any further are cut by lines.
_SCRIPTS = 2
#: How far around a script's tags ``_own_lines`` looks for the ends of their lines.
_NEAR = 4096


class ComponentChunker:
    """Chunks one component language's files; see the module docstring."""

    def __init__(self, language: str, chunk_size: int = 1000, chunk_overlap: int = 200,
                 measure: TextMeasure = CHARACTERS) -> None:
        self.language = language
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.measure = measure
        self.splitter = DefinitionSplitter(chunk_size, measure, FILE_GROUP, BLOCK_GROUP)

    def chunk(self, text: str, path: str) -> list[Chunk]:
        source = SourceLines(text, self.measure)
        layout = MarkupLayout(source, self.splitter, component_name(path))
        chunks: list[Chunk] = []
        pieces = []
        scripts = 0
        empty: list[tuple[int, int]] = []  # offsets of sections holding nothing
        empty_pieces = []
        parsed = parse_blocks(text, SYNTAXES[self.language], source.lines)
        for kind, blocks, first, last in _sections(text, parsed, source.line_count):
            code = self._script(text, path, layout.owner, blocks[0]) \
                if kind == "script" and scripts < _SCRIPTS else []
            scripts += kind == "script"
            if code:
                chunks += code
            elif kind in ("script", "style"):  # an empty `<script setup>` too
                extra = {"section": kind, "kind": kind, "symbol": layout.owner}
                units = [(n, n) for n in range(first, last + 1)]
                made = self.splitter.split(source, units, self.splitter.headers([]),
                                           self.splitter.headers([]), extra)
                if text[slice(*blocks[0].inner)].strip():
                    pieces += made
                else:
                    empty.append((_line_start(text, blocks[0].start), _line_end(text, blocks[0].end - 1)))
                    empty_pieces += made
            else:
                pieces += layout.scope(blocks, first, last, [], [], members=False,
                                       extra={"section": "template"})
        chunks += assemble_chunks(path, pieces, base={"chunker": "template"})
        if not chunks:  # nothing else in the file: its empty sections are its chunks
            return _numbered(path, assemble_chunks(path, empty_pieces, base={"chunker": "template"}))
        return _numbered(path, _with_empty_sections(chunks, empty, text))

    def _script(self, text: str, path: str, owner: str, script: Block) -> list[Chunk]:
        """The script's chunks from its tree-sitter chunker, on the file with everything
        but the script's content blanked (so offsets and lines are the file's)."""
        from ragloom.chunking.treesitter import TreeSitterChunker

        start, end = script.inner
        found = _LANG.search(script.attributes)
        language = _SCRIPT_LANGUAGES.get(found.group(1).lower() if found else "js", "javascript")
        masked = (_NOT_BLANK.sub(" ", text[:start]) + text[start:end]
                  + _NOT_BLANK.sub(" ", text[end:]))
        chunker = TreeSitterChunker(language, self.chunk_size, self.chunk_overlap, self.measure)
        chunks = []
        for chunk in chunker.chunk(masked, f"{owner}.{'tsx' if language == 'tsx' else 'ts'}"):
            metadata = dict(chunk.metadata)
            span = int(metadata["end_char"]) - int(metadata["start_char"])
            head = chunk.text[:len(chunk.text) - span]
            chunks.append(Chunk(chunk.id, head + text[int(metadata["start_char"]):int(metadata["end_char"])],
                                metadata))
            metadata["section"] = "script"
            for key in ("symbol", "symbols"):
                if key in metadata:
                    metadata[key] = ", ".join(_owned(owner, name)
                                              for name in str(metadata[key]).split(", "))
            metadata.setdefault("symbol", owner)
        if chunks:  # the `<script>` and `</script>` lines open and close the script's chunks
            _widened(chunks, 0, text, _line_start(text, script.start), None)
            _widened(chunks, -1, text, None, _line_end(text, script.inner[1]))
        return chunks


def _own_lines(text: str, block: Block) -> bool:
    """Whether ``block`` (a raw element) has its lines to itself: nothing but blanks before
    its opening tag and after its closing tag on their lines (looked at within 4 kB, so
    many scripts on one long line cost no more than the line)."""
    before = text.rfind("\n", max(0, block.start - _NEAR), block.start)
    if before < 0 and block.start > _NEAR or text[before + 1:block.start].strip():
        return False
    after = text.find("\n", block.end, block.end + _NEAR)
    return not (after < 0 and len(text) - block.end > _NEAR) \
        and not text[block.end:after if after >= 0 else len(text)].strip()


def _sections(text: str, blocks: list[Block],
              line_count: int) -> list[tuple[str, list[Block], int, int]]:
    """The file's sections in order: each script and style on lines of its own alone,
    the markup between."""
    sections: list[tuple[str, list[Block], int, int]] = []
    cursor, pending = 1, []
    for block in blocks:
        if block.first < cursor:
            continue  # on the lines of the section before (a one-line file): chunked with it
        if block.word not in ("script", "style") or not _own_lines(text, block):
            pending.append(block)  # markup, or a script sharing its lines with markup
            continue
        if cursor < block.first:
            sections.append(("markup", pending, cursor, block.first - 1))
        pending = []
        sections.append((block.word, [block], block.first, block.last))
        cursor = block.last + 1
    if cursor <= line_count:
        sections.append(("markup", pending, cursor, line_count))
    return sections


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _line_end(text: str, offset: int) -> int:
    end = text.find("\n", offset)
    return len(text) if end < 0 else end


def _widened(chunks: list[Chunk], index: int, text: str, start: int | None, end: int | None) -> None:
    """Chunk ``index`` reaching back to ``start`` or on to ``end`` (offsets in ``text``)."""
    chunk = chunks[index]
    metadata = dict(chunk.metadata)
    old_start, old_end = int(metadata["start_char"]), int(metadata["end_char"])
    head = chunk.text[:len(chunk.text) - (old_end - old_start)]
    new_start = min(old_start, start) if start is not None else old_start
    new_end = max(old_end, end) if end is not None else old_end
    metadata.update(start_char=new_start, end_char=new_end,
                    start_line=text.count("\n", 0, new_start) + 1,
                    end_line=text.count("\n", 0, max(new_start, new_end - 1)) + 1)
    chunks[index] = Chunk(chunk.id, head + text[new_start:new_end], metadata)


def _with_empty_sections(chunks: list[Chunk], empty: list[tuple[int, int]], text: str) -> list[Chunk]:
    """``chunks`` with each empty section (``<style scoped></style>``: a chunk of it would
    hold nothing but the component's name, matching every question that names the
    component) taken into the chunk before it (after it, at the file's start), so every
    line is still in a chunk."""
    chunks = sorted(chunks, key=lambda c: int(c.metadata["start_char"]))
    for start, end in empty:
        before = [i for i, c in enumerate(chunks) if int(c.metadata["end_char"]) <= start]
        if before:
            _widened(chunks, before[-1], text, None, end)
        else:
            _widened(chunks, 0, text, start, None)
    return chunks


def _owned(owner: str, name: str) -> str:
    """``name`` with the component as its owner (``default.play`` -> ``Owner.play``)."""
    if name == owner or name.startswith(f"{owner}."):
        return name
    if name == "default" or name.startswith("default."):
        name = name[len("default."):]
    return f"{owner}.{name}" if name else owner


def _numbered(path: str, chunks: Sequence[Chunk]) -> list[Chunk]:
    """The chunks in file order, numbered through the file."""
    ordered = sorted(chunks, key=lambda c: (int(c.metadata["start_char"]), int(c.metadata["end_char"])))
    numbered = []
    for index, chunk in enumerate(ordered):
        metadata = {**chunk.metadata, "path": path, "chunk_index": index}
        numbered.append(Chunk(chunk_id(path, index), chunk.text, metadata))
    return numbered
