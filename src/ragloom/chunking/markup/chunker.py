"""Chunks of an application's templates (Django/Jinja, Twig, Blade, ERB, Handlebars, Go) by
their blocks, with exact file lines.

A file's top-level blocks (elements and block tags, ``tree.py``) are units: whole when
they fit, small neighbours packed into one chunk up to a window; a block too big is split
into its child blocks, each part repeating the block's opening tag (``{% block content %}``,
``<div class="modal">``), and a block without children by lines (the bounds of
``chunking.definitions``). Lines between blocks join them. Chunks name the template (its
file name without extensions: ``base`` for ``templates/base.html``) in ``symbol``, and
the named blocks they hold as ``base.content`` (``kind = "block"``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from ragloom.chunking.base import Piece, SourceLines, assemble_chunks
from ragloom.chunking.definitions import DefinitionSplitter, HeaderLevel, Span, Unit
from ragloom.chunking.markup.syntax import SYNTAXES, TemplateSyntax
from ragloom.chunking.markup.tree import Block, parse_blocks
from ragloom.chunking.measure import CHARACTERS, TextMeasure
from ragloom.types import Chunk

#: Small neighbours pack up to a whole window at file level, three quarters inside a block
#: (the tree-sitter chunker's shares).
FILE_GROUP = 1.0
BLOCK_GROUP = 0.75
#: Lines of an opening tag a part repeats at most.
_HEADER_LINES = 4
#: Blocks nested deeper than this are split by lines (a bound on the work per line).
_MAX_DEPTH = 24


def component_name(path: str) -> str:
    """A template's or component's name: its file name without extensions
    (``QueueScreen.vue`` -> ``QueueScreen``, ``app.blade.php`` -> ``app``)."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.split(".", 1)[0] or name


@dataclass
class _Item:
    """Lines ``first..last`` of a scope and the blocks in them (none: lines between blocks)."""

    first: int
    last: int
    blocks: list[Block] = field(default_factory=list)


class MarkupLayout:
    """Turns blocks into the pieces of one file (shared with the component chunker)."""

    def __init__(self, source: SourceLines, splitter: DefinitionSplitter, owner: str) -> None:
        self.source = source
        self.splitter = splitter
        self.owner = owner

    def scope(self, blocks: Sequence[Block], first: int, last: int, outer: list[HeaderLevel],
              levels: list[HeaderLevel], members: bool, extra: dict[str, object] | None = None,
              ) -> list[Piece]:
        """Pieces of lines ``first..last`` holding ``blocks``; ``extra`` is added to each."""
        opening, repeated = self.splitter.headers(outer), self.splitter.headers(levels)
        units: list[Unit] = []
        for item in self._items(blocks, first, last):
            at_first = item.first == first
            span = Span(item.first, item.last, {**self._names(item.blocks), **(extra or {})})
            own = outer if at_first else levels
            split = functools.partial(self._split, item, span, own, levels, extra)
            units.append(Unit(span, "markup", opening if at_first else repeated, split))
        return self.splitter.assemble(self.source, units, members)

    def _names(self, blocks: list[Block]) -> dict[str, object]:
        named = list(dict.fromkeys(f"{self.owner}.{name}" for b in blocks for name in b.names))
        extra: dict[str, object] = {"symbol": named[0] if named else self.owner,
                                    "kind": "block" if named else "markup"}
        if len(named) > 1:
            extra["symbols"] = ", ".join(named)
        return extra

    def _items(self, blocks: Sequence[Block], first: int, last: int) -> list[_Item]:
        """Blocks as items, no two sharing a line, and the lines between them joined to
        the block after (the block before, at the end)."""
        items: list[_Item] = []
        for block in blocks:
            start, end = max(block.first, first), min(block.last, last)
            if start > end:
                continue
            if items and start <= items[-1].last:
                items[-1].last = max(items[-1].last, end)
                items[-1].blocks.append(block)
                continue
            items.append(_Item(start, end, [block]))
        if not items:
            return [_Item(first, last)] if not self._blank(first, last) else []
        items[0].first = first
        for before, after in zip(items, items[1:]):
            gap = (before.last + 1, after.first - 1)
            if gap[0] <= gap[1] and not self._blank(*gap):
                after.first = gap[0]  # a caption or label belongs to the block it follows
            else:
                before.last = after.first - 1
        items[-1].last = last
        return items

    def _blank(self, first: int, last: int) -> bool:
        return all(self.source.is_blank(n) for n in range(first, last + 1))

    def _split(self, item: _Item, span: Span, own: list[HeaderLevel], levels: list[HeaderLevel],
               extra: dict[str, object] | None) -> list[Piece]:
        """A block with children by its children, anything else by lines."""
        if len(item.blocks) == 1 and item.blocks[0].children and len(levels) < _MAX_DEPTH:
            block = item.blocks[0]
            header = self._header(block)
            pieces = self.scope(block.children, span.first, span.last, own, [*levels, header],
                                members=True, extra=extra)
            if block.name:  # the parts of a named block name it
                for piece in pieces:
                    if piece.extra.get("kind") != "block":
                        piece.extra.update(symbol=f"{self.owner}.{block.name}", kind="block")
            return pieces
        lines = [(n, n) for n in range(span.first, span.last + 1)]
        return self.splitter.split(self.source, lines, self.splitter.headers(own),
                                   self.splitter.headers([*levels, self._header(item.blocks[0])])
                                   if item.blocks else self.splitter.headers(levels), span.extra)

    def _header(self, block: Block) -> HeaderLevel:
        texts = self.source.line_texts
        last = min(block.opening_last, block.first + _HEADER_LINES - 1)
        text = "".join(texts[n - 1] + "\n" for n in range(block.first, last + 1))
        return HeaderLevel(text, texts[block.first - 1] + "\n")


class TemplateChunker:
    """Chunks one template language's files; see the module docstring."""

    def __init__(self, language: str, chunk_size: int = 1000, chunk_overlap: int = 200,
                 measure: TextMeasure = CHARACTERS) -> None:
        if language not in SYNTAXES:
            raise ValueError(f"no template syntax for language {language!r}; known: "
                             f"{', '.join(sorted(SYNTAXES))}")
        self.language = language
        self.syntax: TemplateSyntax = SYNTAXES[language]
        self.measure = measure
        self.splitter = DefinitionSplitter(chunk_size, measure, FILE_GROUP, BLOCK_GROUP)

    def chunk(self, text: str, path: str) -> list[Chunk]:
        source = SourceLines(text, self.measure)
        blocks = parse_blocks(text, self.syntax, source.lines)
        layout = MarkupLayout(source, self.splitter, component_name(path))
        pieces = layout.scope(blocks, 1, source.line_count, [], [], members=False)
        return assemble_chunks(path, pieces, base={"chunker": "template"})
