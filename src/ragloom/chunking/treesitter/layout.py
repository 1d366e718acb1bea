"""How a scope's lines fall into items: the children of a file or container body as
definitions, imports and statements, no two sharing a line. Comments right above a
definition join it, lines that only close blocks (``}``, ``end``) join the item before,
lines that only open what follows (``class X {``, ``return [``, ``<?php``) join the next."""

from __future__ import annotations

import bisect
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ragloom.chunking.base import SourceLines
from ragloom.chunking.treesitter.languages import LanguageRow
from ragloom.chunking.treesitter.outline import Definition, body_of

#: Lines that only close what came before (``}``, ``});``, ``end``, ``#endif``).
_CLOSING_LINE = re.compile(r"^\s*([\])};,]+|end|#\s*endif\b.*|#\s*else\b.*)?\s*(//.*|/\*.*|#.*)?$")
#: A file's pragma lines (``_prologue``): comments, a shebang, ``<?php``, directive strings.
_PRAGMA_LINE = re.compile(r"""^\s*(#|//|/\*|\*|--|<\?php\b|(["'])use [\w ]+\2;?\s*$)""")
#: An export list of local names (``export { a, b as c }``), no ``from``.
_EXPORT_LIST = re.compile(r"^\s*export\s+(type\s+)?\{[\w\s,$]*\}\s*;?\s*$")
#: A line of a module's own documentation (``_module_doc``).
_MODULE_DOC = re.compile(r"^\s*(//!|/\*!|// Package \w|(/\*\*|\*)\s*@(file|fileoverview|module)\b)")
#: At most this many non-blank pragma lines open the file's first item.
_PROLOGUE_LINES = 3
#: Lines a type definition spans at least to open a chunk of its own (``unit_families``):
#: a one-line type (``pub struct Marker;``) alone would be a near-empty chunk.
TYPE_LINES = 3
#: Lines that open a block whose members follow (``return [``, ``extern "C" {``).
_OPENS_BLOCK = re.compile(r"[\[{(]\s*$")


@dataclass
class Item:
    """Lines ``first..last`` of a scope holding definitions, imports or other statements."""

    first: int
    last: int
    family: str  # "definition", "imports", "statements", "comment"
    definitions: list[Definition] = field(default_factory=list)



class ScopeLayout:
    """Lays out the scopes of one file; ``namespace`` is the file-level namespace seen."""

    def __init__(self, source: SourceLines, row: LanguageRow, definitions: dict[int, Definition]) -> None:
        self.source = source
        self.row = row
        self.definitions = definitions
        self.namespace = ""
        # Where definitions start, to tell fast whether a node holds one: by byte range, not
        # by walking up from each definition (``Node.parent`` scans its siblings, so a
        # file of many top-level statements made that quadratic).
        self._starts = sorted(d.node.start_byte for d in definitions.values())


    def items(self, children: list[Any], first: int, last: int, members: bool) -> list[Item]:
        """The scope's lines as items in order, no two sharing a line; lines between them
        are statements, except a container's opening lines (they open its first member)
        and closing lines (``}``: they end the item before)."""
        raw: list[Item] = []
        queue = deque(children)
        while queue:
            child = queue.popleft()
            start, end = _lines_of(child)
            if child.type in self.row.imports:
                if child.type == self.row.file_namespace and body_of(child) is None:
                    self.namespace = _field_text(child, "name")
                    raw.append(Item(start, end, "imports"))
                    continue
                if child.type != self.row.file_namespace:
                    raw.append(Item(start, end, "imports"))
                    continue
            found = self.definitions_in(child)
            if len(found) > 1 and child.id not in self.definitions:
                queue.extendleft(reversed(child.named_children))  # a wrapper (#ifdef): look inside
                continue
            if found:
                raw.append(Item(start, end, "definition", found))
            elif _calls(child, self.row.import_calls) or _reexports(child):
                raw.append(Item(start, end, "imports"))
            elif "comment" in child.type or child.type in ("attribute_item", "decorator"):
                raw.append(Item(start, end, "comment"))
            else:
                raw.append(Item(start, end, "statements"))
        raw.sort(key=lambda item: item.first)
        items: list[Item] = []
        for item in raw:
            if item.last < first or item.first > last:
                continue
            item.first, item.last = max(item.first, first), min(item.last, last)
            if items and item.first <= items[-1].last:  # shares a line with the one before
                _absorb(items[-1], item)
                continue
            if items and items[-1].family == item.family == "imports":
                items[-1].last = item.last
                continue
            items.append(item)
        return self._fill_gaps(items, first, last, members)

    def _fill_gaps(self, items: list[Item], first: int, last: int, members: bool) -> list[Item]:
        source = self.source
        filled: list[Item] = []
        cursor = first
        for item in items:
            if cursor < item.first and not source_blank(source, cursor, item.first - 1):
                filled.append(Item(cursor, item.first - 1, "statements"))
            filled.append(item)
            cursor = item.last + 1
        if cursor <= last and not source_blank(source, cursor, last):
            filled.append(Item(cursor, last, "statements"))
        result: list[Item] = []
        for item in filled:
            previous = result[-1] if result else None
            if previous is not None and previous.family == item.family == "comment" \
                    and item.first == previous.last + 1:
                previous.last = item.last  # a run of line comments (`///`, `#`, `//`) is one
                continue
            if previous is not None and previous.family == "comment" \
                    and item.family in ("definition", "imports") and self._documents(previous, item):
                item.first = previous.first  # comments and attributes right above a definition
                # or an import (``#[cfg(...)]`` on a ``use``)
                result[-1] = item
                continue
            if previous is not None and item.family in ("statements", "comment") \
                    and (self._closing_only(item) or self._export_list(item)):
                previous.last = item.last  # `}` / `end` lines, `export { a, b }` end the item before
                continue
            if previous is not None and previous.family == "comment" and item.family == "statements":
                previous.family = "statements"
            if previous is not None and previous.family == item.family == "statements" \
                    and item.first - previous.last <= 1:
                previous.last = item.last
                continue
            result.append(item)
        for item in result:
            if item.family == "comment":
                item.family = "statements"
        opened: list[Item] = []
        for index, item in enumerate(result):
            following = result[index + 1] if index + 1 < len(result) else None
            if following is not None and item.family == "statements" \
                    and following.family == "definition" and self._opens(item, members and index == 0):
                following.first = item.first  # `class X {`, `return [` open the next definition
                continue
            opened.append(item)
        result = _overloads_joined(opened)
        while len(result) > 1 and (self._closing_only(result[0]) or self._file_opening(result[0])
                                or self._prologue(result[0])):
            result[1].first = result[0].first
            del result[0]
        return result

    def _documents(self, comment: Item, item: Item) -> bool:
        """Whether ``comment`` documents ``item``: right above it, or one blank line above
        (Laravel's config banners, section comments); a comment opening the file (a
        licence) only the imports; a module's own doc (``//!``, ``// Package``) never the
        imports: in their chunk it would rank last with them."""
        if item.family == "imports" and self._module_doc(comment):
            return False
        gap = item.first - comment.last - 1
        if gap <= 0:
            return True
        licence = comment.first == 1 or self._file_opening(Item(1, comment.first - 1, "statements"))
        return gap == 1 and (not licence or item.family == "imports")  # a licence opens the imports

    def _file_opening(self, item: Item) -> bool:
        """Whether ``item`` is only a file's opening tag (``<?php``): it opens what follows."""
        return item.first == 1 and all(
            self.source.line_texts[n - 1].strip() in ("", "<?php", "<?")
            for n in range(item.first, item.last + 1))

    def _prologue(self, item: Item) -> bool:
        """Whether ``item`` is only a file's pragmas (``# frozen_string_literal: true``,
        ``# typed: false``, ``// @ts-nocheck``, a shebang, ``"use client"``): it opens what
        follows. Alone it was a chunk of one line that answers nothing, yet reached the top 5
        (a Next.js component's ``"use client"`` for a question about the component)."""
        lines = [self.source.line_texts[n - 1] for n in range(item.first, item.last + 1)]
        written = [line for line in lines if line.strip()]
        return item.first == 1 and 0 < len(written) <= _PROLOGUE_LINES and all(
            _PRAGMA_LINE.match(line) for line in written) and not self._module_doc(item)

    def _module_doc(self, item: Item) -> bool:
        """Whether ``item`` holds the module's own documentation: Rust's ``//!`` / ``/*!``,
        Go's ``// Package name ...``, a JSDoc ``@file`` / ``@fileoverview`` / ``@module``."""
        return any(_MODULE_DOC.match(self.source.line_texts[n - 1])
                   for n in range(item.first, item.last + 1))

    def _export_list(self, item: Item) -> bool:
        """Whether ``item`` is only a JavaScript / TypeScript export list of the file's own
        names (``export { Badge, badgeVariants }``): names the code before defined, no
        chunk of its own."""
        lines = self.source.line_texts[item.first - 1:item.last]
        return lines[0].lstrip().startswith("export") and _EXPORT_LIST.match("\n".join(lines)) is not None

    def _closing_only(self, item: Item) -> bool:
        """Whether ``item`` only closes blocks (``}``, ``end``; comments may follow)."""
        matches = [_CLOSING_LINE.match(self.source.line_texts[n - 1])
                   for n in range(item.first, item.last + 1)]
        return all(matches) and any(m is not None and m.group(1) for m in matches)

    def _opens(self, item: Item, container_start: bool) -> bool:
        """Whether ``item`` only opens what follows: a container's declaration up to ``{``
        (at the container's start), or short lines ending in an opening bracket."""
        lines = [self.source.line_texts[n - 1] for n in range(item.first, item.last + 1)]
        if len(lines) > 8:
            return False
        if container_start and not any(";" in line or "=" in line for line in lines):
            return True
        last = next((line for line in reversed(lines) if line.strip()), "")
        return bool(_OPENS_BLOCK.search(last))

    def _holds(self, node: Any) -> bool:
        """Whether a definition starts inside ``node`` (so lies below it)."""
        index = bisect.bisect_left(self._starts, node.start_byte)
        return index < len(self._starts) and self._starts[index] < node.end_byte

    def definitions_in(self, node: Any) -> list[Definition]:
        """The outermost definitions at or below ``node``."""
        if node.id in self.definitions:
            return [self.definitions[node.id]]
        found: list[Definition] = []
        stack = [node]
        while stack:
            current = stack.pop()
            for child in reversed(current.named_children):
                if child.id in self.definitions:
                    found.append(self.definitions[child.id])
                elif self._holds(child):
                    stack.append(child)
        found.sort(key=lambda d: d.node.start_byte)
        return found


#: Declarations without a body that a definition of the same name follows (TypeScript
#: overloads: ``function f(a: string): string;``).
_OVERLOADS = frozenset({"function_signature", "method_signature"})


def unit_families(row: LanguageRow, items: list[Item], members: bool) -> list[str]:
    """The family of each item as a unit (at file level only units of one family share a
    chunk): its own, except that in a language with ``type_kinds`` a type definition
    after another one starts a new family of definitions, so two small Rust enums never
    share a chunk named after the first (``EmergencyAccessType`` holding
    ``EmergencyAccessStatus``); a type's impl blocks and functions stay with it. A module
    with a body (``mod tests { ... }``) is a family of its own: its chunks are named after
    it and hold nothing else (so a ``tests`` module's are tests, and only they)."""
    if members or not row.type_kinds:
        return [item.family for item in items]
    families: list[str] = []
    run, typed, after_module = 0, False, False
    for item in items:
        head = item.definitions[0] if item.family == "definition" else None
        if head is not None:
            big = head.kind in row.type_kinds \
                and head.node.end_point[0] - head.node.start_point[0] >= TYPE_LINES - 1
            new = after_module or big and (typed or head.kind == "module")
            run, typed = run + new, big if new else typed or big
            after_module = big and head.kind == "module"
        families.append(f"definition {run}" if item.family == "definition" else item.family)
    return families


def _overloads_joined(items: list[Item]) -> list[Item]:
    """Items where overload signatures open the definition of the same name they
    precede, so a function's signatures and body are one unit (one chunk when they fit)."""
    joined: list[Item] = []
    for item in items:
        previous = joined[-1] if joined else None
        if previous is not None and previous.family == item.family == "definition" \
                and all(d.node.type in _OVERLOADS for d in previous.definitions) \
                and {d.name for d in previous.definitions} == {item.definitions[0].name}:
            item.first = previous.first
            joined[-1] = item
            continue
        joined.append(item)
    return joined


def _absorb(into: Item, item: Item) -> None:
    """Merge ``item`` (sharing a line with ``into``) into ``into``."""
    into.last = max(into.last, item.last)
    if item.family == "definition":
        into.definitions.extend(item.definitions)
        into.family = "definition"
    elif into.family == "comment":
        into.family = item.family


def _lines_of(node: Any) -> tuple[int, int]:
    """1-based first and last line of a node (a node ending at a line start ends before)."""
    first = node.start_point[0] + 1
    row, column = node.end_point
    last = row + 1 if column > 0 else row
    return first, max(first, last)


def source_blank(source: SourceLines, first: int, last: int) -> bool:
    return all(source.is_blank(n) for n in range(first, last + 1))


def _field_text(node: Any, field_name: str) -> str:
    named = node.child_by_field_name(field_name)
    return bytes(named.text or b"").decode("utf-8", "replace").strip() if named is not None else ""


def _calls(node: Any, names: frozenset[str]) -> bool:
    """Whether ``node`` is a call of one of ``names`` (Ruby's ``require``)."""
    if not names or node.type != "call":
        return False
    method = node.child_by_field_name("method")
    return method is not None and bytes(method.text or b"").decode("utf-8", "replace") in names


def _reexports(node: Any) -> bool:
    """A JavaScript / TypeScript re-export (``export { a } from './a'``, ``export * from``):
    an import by another name, as a barrel file (``index.ts``) is nothing but."""
    return node.type == "export_statement" and node.child_by_field_name("source") is not None
