"""A template's blocks as a tree: HTML elements and the language's block tags
(``{% block %}``, ``@section``, ``<% ... do %>``, ``{{#each}}``, ``{#if}``), each with its
lines, found in one pass over the text.

Forgiving as browsers are: a closing tag closes the nearest open block of its word (one
of the innermost 64; a stray one is ignored), blocks left open inside it end with it,
void and self-closing elements hold nothing, ``<script>``, ``<style>`` and comments are
skipped whole. Every step is O(1) amortized, so the work is linear in the text.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from ragloom.chunking.base import LineIndex
from ragloom.chunking.markup.syntax import CLOSE, OPEN, TemplateSyntax

_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "param", "source", "track", "wbr", "!doctype"})
#: Elements whose content is not markup: skipped to their closing tag.
RAW = frozenset({"script", "style", "textarea"})
#: Named blocks a block lists (a chunk's ``symbols`` need no more).
_NAMES_KEPT = 8
#: How far down the open blocks a closing tag looks for its opener.
_CLOSE_DEPTH = 64
_ELEMENT = (r"(?P<html_tag><(?P<html_slash>/?)(?P<html_name>[A-Za-z!][\w:.\-]*)"
            r"(?P<html_attrs>[^<>]{0,4000}?)(?P<html_self>/?)>)")
_HTML_COMMENT = ("<!--", "-->")


@dataclass
class Block:
    """An element or template block: lines ``first..last``, its opening tag ending on
    ``opening_last``; ``name`` for the blocks a language names (``{% block content %}``)."""

    first: int
    last: int
    opening_last: int
    kind: str  # "element" or "block"
    word: str  # the element's tag name or the block's tag word
    name: str = ""
    start: int = 0  # offset of the opening tag
    inner: tuple[int, int] = (0, 0)  # offsets of a raw element's content
    end: int = 0  # offset after a raw element's closing tag
    attributes: str = ""
    children: list[Block] = field(default_factory=list)
    #: The first names of the named blocks in this one (itself included), in order.
    names: list[str] = field(default_factory=list)

    def closed(self) -> None:
        """Record the names below, once its children are complete."""
        names = [self.name] if self.name else []
        for child in self.children:
            if len(names) >= _NAMES_KEPT:
                break
            names.extend(child.names)
        self.names = names[:_NAMES_KEPT]


_COMPILED: dict[int, re.Pattern[str]] = {}
_LOCK = threading.Lock()


def _pattern(syntax: TemplateSyntax) -> re.Pattern[str]:
    with _LOCK:
        if id(syntax) not in _COMPILED:
            comments = [_HTML_COMMENT, *syntax.comments]
            starts = "|".join(re.escape(start) for start, _ in comments)
            parts = [f"(?P<comment>{starts})", _ELEMENT]
            if syntax.pattern:
                parts.append(f"(?P<template>{syntax.pattern})")
            _COMPILED[id(syntax)] = re.compile("|".join(parts), re.DOTALL)
        return _COMPILED[id(syntax)]


def parse_blocks(text: str, syntax: TemplateSyntax, lines: LineIndex | None = None) -> list[Block]:
    """The top-level blocks of ``text`` (their children nested) in order."""
    lines = lines or LineIndex(text)
    ends = dict([_HTML_COMMENT, *syntax.comments])
    pattern = _pattern(syntax)
    root = Block(1, lines.line_count, 1, "element", "")
    stack: list[Block] = [root]
    position = 0
    while True:
        match = pattern.search(text, position)
        if match is None:
            break
        position = match.end()
        if match.group("comment"):
            close = text.find(ends[match.group("comment")], position)
            position = len(text) if close < 0 else close + len(ends[match.group("comment")])
            continue
        first, opening_last = lines.line_of(match.start()), lines.line_of(match.end() - 1)
        if match.group("html_tag"):
            name = match.group("html_name")
            lower = name.lower()
            if match.group("html_slash"):
                _close(stack, "element", lower, opening_last)
                continue
            block = Block(first, opening_last, opening_last, "element", lower, start=match.start(),
                          attributes=match.group("html_attrs"))
            if lower in _VOID or match.group("html_self") or lower.startswith("!"):
                stack[-1].children.append(block)
                continue
            if lower in RAW:
                close = re.compile(rf"</{lower}\s*>", re.IGNORECASE).search(text, position)
                end = close.end() if close else len(text)
                block.inner = (position, close.start() if close else len(text))
                block.end = end
                block.last = lines.line_of(max(end - 1, match.start()))
                position = end
                stack[-1].children.append(block)
                continue
            stack[-1].children.append(block)
            stack.append(block)
            continue
        tag = syntax.classify(match)
        if tag is None:
            continue
        if tag.action == CLOSE:
            _close(stack, "block", tag.word, opening_last)
        elif tag.action == OPEN:
            block = Block(first, opening_last, opening_last, "block", tag.word, tag.name,
                          start=match.start())
            stack[-1].children.append(block)
            stack.append(block)
    for block in reversed(stack[1:]):
        block.last = lines.line_count
        block.closed()
    return root.children


def _close(stack: list[Block], kind: str, word: str, line: int) -> None:
    """End the nearest open ``kind`` block of ``word`` on ``line``, and those open inside it."""
    for depth in range(len(stack) - 1, max(0, len(stack) - 1 - _CLOSE_DEPTH), -1):
        block = stack[depth]
        if block.kind == kind and block.word == word:
            for inner in reversed(stack[depth:]):
                inner.last = max(inner.first, line)
                inner.closed()
            del stack[depth:]
            return
