"""Structure-aware chunks for any language with a tree-sitter grammar wheel, driven by the
language's row (``languages.py``) and the grammar's own tags query.

The same contract as the Python chunker: whole definitions when they fit; a container
(class, impl, trait, interface, namespace, ...) too big for one chunk is split per member,
each part repeating the container's short header; small adjacent definitions share a
chunk (``symbols`` names them all, and a container chunked whole its members); imports
stay apart from code; whole lines; the bounds
of ``chunking.definitions``. ``symbol`` is written in the language's own notation
(``App\\Http\\UserController::index``, ``Server.Start``, ``net::Server::start``). Without
the grammar wheel, files are cut by lines, with one warning per language.
"""

from __future__ import annotations

import functools
import logging
import threading
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from ragloom.chunking.base import Piece, SourceLines, assemble_chunks
from ragloom.chunking.character import CharacterChunker
from ragloom.chunking.definitions import DefinitionSplitter, HeaderLevel, Span, Unit
from ragloom.chunking.import_runs import imports_joined
from ragloom.chunking.measure import CHARACTERS, TextMeasure
from ragloom.chunking.treesitter.languages import GRAMMAR_BY_SUFFIX, LANGUAGES
from ragloom.chunking.treesitter.layout import ScopeLayout, unit_families
from ragloom.chunking.treesitter.outline import LOAD_ERRORS, Definition, Grammar, load_grammar
from ragloom.chunking.treesitter.tables import cut_span
from ragloom.types import Chunk

logger = logging.getLogger("ragloom")

#: Kinds whose name is complete as found (a route's URI, a config key, a table); each a
#: chunk of its own, but for routes: consecutive registrations share chunks by section
#: (a file of 200 one-line routes is ~20 results, not 200).
_NAMED_WHOLE = frozenset({"route", "route_group", "table", "config"})
#: Shares of the window that small whole definitions pack to at file level and in a split
#: container (the Python chunker's are a quarter and a half). Measured on the five
#: code-search sets of ``bench/code_chunkers.py``: packing file-level definitions up to a
#: window keeps a type's many small blocks (Rust ``impl Trait for Type``, a struct and its
#: constructor) from being near-empty chunks that outrank the answer; see
#: docs/benchmarks.md.
MODULE_GROUP = 1.0
MEMBER_GROUP = 0.75
#: Windows an import run may span and stay one chunk (``_split_imports``).
IMPORT_WINDOWS = 8
_WARNED: set[str] = set()
_WARNED_LOCK = threading.Lock()


@dataclass(frozen=True)
class _Scope:
    """Where a scope sits: the qualified name of what encloses it and its separators."""

    prefix: str = ""
    kind: str = ""  # kind of the enclosing definition ("" at file level)


class TreeSitterChunker:
    """Chunks one language's files; see the module docstring."""

    def __init__(self, language: str, chunk_size: int = 1000, chunk_overlap: int = 200,
                 measure: TextMeasure = CHARACTERS) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"no tree-sitter row for language {language!r}; known: "
                             f"{', '.join(sorted(LANGUAGES))}")
        self.language = language
        self.chunk_size = chunk_size
        self.measure = measure
        self.splitter = DefinitionSplitter(chunk_size, measure, MODULE_GROUP, MEMBER_GROUP)
        self._lines = CharacterChunker(chunk_size, chunk_overlap, sentence_boundaries=True,
                                       measure=measure)

    def grammar_for(self, path: str) -> Grammar | None:
        """The grammar for ``path`` (``.tsx`` picks TSX), warning once per language when
        its wheel is missing."""
        name = GRAMMAR_BY_SUFFIX.get(PurePath(path).suffix.lower(), self.language)
        if name not in LANGUAGES:
            name = self.language
        grammar = load_grammar(name, LANGUAGES[name])
        if grammar is None:
            with _WARNED_LOCK:
                if name not in _WARNED:
                    _WARNED.add(name)
                    logger.warning("%s files are chunked by lines: the tree-sitter grammar "
                                   "(%s) is not installed; pip install 'ragloom[code]' (%s)",
                                   name, LANGUAGES[name].module.replace("_", "-"),
                                   LOAD_ERRORS.get(name, ""))
        return grammar

    def chunk(self, text: str, path: str) -> list[Chunk]:
        source = SourceLines(text, self.measure)
        grammar = self.grammar_for(path)
        if grammar is not None:
            try:
                pieces = _FileChunking(self, grammar, source, path).pieces()
            except RecursionError:
                pieces = None
            if pieces is not None:
                return assemble_chunks(path, pieces, base={"chunker": "tree_sitter"})
        return assemble_chunks(path, self._lines.split(source, 1, source.line_count),
                               base={"chunker": "character"})


class _FileChunking:
    """The chunking of one file: its tree, definitions and the pieces they make."""

    def __init__(self, chunker: TreeSitterChunker, grammar: Grammar, source: SourceLines,
                 path: str) -> None:
        self.splitter = chunker.splitter
        self.grammar = grammar
        self.row = grammar.row
        self.source = source
        self.tree = grammar.parse(source.text.encode("utf-8", "surrogatepass"))
        self.definitions = grammar.definitions(self.tree.root_node)
        adding = grammar.row.path_definitions  # a framework's units (e.g. Laravel's migrations)
        self.unit = None if adding is None else adding(path, self.tree.root_node, self.definitions)
        self.layout = ScopeLayout(source, grammar.row, self.definitions)
        self.stem = PurePath(path).name.split(".", 1)[0]  # names `export default {...}`

    def pieces(self) -> list[Piece]:
        pieces = imports_joined(self.source, self.splitter, self._scope(
            self.tree.root_node.named_children, 1, self.source.line_count, _Scope(), [], [], members=False))
        joining = self.row.path_pieces
        return pieces if joining is None else joining(self.unit, self.source, self.splitter, pieces)

    # -- scopes ---------------------------------------------------------------------------

    def _scope(self, children: list[Any], first: int, last: int, scope: _Scope,
               outer: list[HeaderLevel], levels: list[HeaderLevel], members: bool) -> list[Piece]:
        """Pieces of lines ``first..last`` holding ``children`` (a file's or a container
        body's nodes): one unit per definition, per import run and per statement run."""
        items = self.layout.items(children, first, last, members)
        opening, repeated = self.splitter.headers(outer), self.splitter.headers(levels)
        units: list[Unit] = []
        for item, family in zip(items, unit_families(self.row, items, members)):
            at_first = item.first == first
            headers = opening if at_first else repeated
            own_levels = outer if at_first else levels
            if item.family == "definition":
                names = [self._qualified(d, scope) for d in item.definitions]
                head = item.definitions[0]
                extra: dict[str, object] = {"symbol": names[0], "kind": self._kind(head, scope)}
                listed = list(dict.fromkeys(  # a container chunked whole names its members
                    member for definition, name in zip(item.definitions, names)
                    for member in self._listed(definition, name, scope)))
                extra["symbol"] = listed[0] if listed else names[0]
                if len(listed) > 1:
                    extra["symbols"] = ", ".join(listed)
                span = Span(item.first, item.last, extra)
                split = functools.partial(self._split_definition, span, head, names[0], scope,
                                          own_levels, levels)
            else:
                kind = "imports" if item.family == "imports" else (scope.kind or "module")
                extra = {"kind": kind, **({"symbol": scope.prefix} if scope.prefix else {})}
                span = Span(item.first, item.last, extra)
                split = functools.partial(self._split_imports if kind == "imports"
                                          else self._split_lines, span, own_levels, levels)
            kind = item.definitions[0].kind if item.family == "definition" else ""
            routes = kind == "route"  # a route table packs its registrations, by section
            units.append(Unit(span, family, headers, split, kind in _NAMED_WHOLE and not routes,
                              routes and self._opens_section(item.first)))
        return self.splitter.assemble(self.source, units, members)

    def _opens_section(self, line: int) -> bool:
        """Whether line ``line`` starts a section: a comment, or a blank line above it."""
        text = self.source.line_texts[line - 1].lstrip()
        return text.startswith(("//", "#", "/*")) or (line > 1 and self.source.is_blank(line - 1))

    def _listed(self, definition: Definition, name: str, scope: _Scope) -> list[str]:
        """The names a chunk of ``definition`` lists: its own and its members' (only the
        members' for a group: ``methods: {...}`` is no definition anyone asks for)."""
        members = self._members(definition, name, scope)
        return members if definition.kind == "group" and members else [name, *members]

    def _members(self, definition: Definition, name: str, scope: _Scope) -> list[str]:
        """Qualified names of a container's own members (a class's methods, an impl's
        functions), so a container chunked whole names what it defines."""
        if not definition.container or definition.body is None:
            return []
        inner = self._inner_scope(definition, name, scope)
        names: list[str] = []
        for child in definition.body.named_children:
            for member in self.layout.definitions_in(child):
                qualified = self._qualified(member, inner)
                names += self._members(member, qualified, inner) if member.kind == "group" \
                    else [qualified]
        return names

    def _inner_scope(self, definition: Definition, name: str, scope: _Scope) -> _Scope:
        """The scope a container's members are named in (a namespace only where the
        language writes it in symbols)."""
        if definition.kind == "group":  # `methods: {...}`: members named by the owner
            return scope
        named = self.row.namespaces_in_symbols or definition.kind != "module"
        return _Scope(name if named else scope.prefix, self._kind(definition, scope))

    def _split_definition(self, span: Span, definition: Definition, name: str, scope: _Scope,
                          own_levels: list[HeaderLevel], levels: list[HeaderLevel]) -> list[Piece]:
        """A container per member, anything else by lines with its signature repeated."""
        node = definition.node
        body = definition.body
        header = self._header(node, body)
        if definition.container and body is not None:
            inner = self._inner_scope(definition, name, scope)
            containers = [*levels, header]
            pieces = self._scope(body.named_children, span.first, span.last, inner, own_levels,
                                 containers, members=True)
            _mark_container_lines(pieces, containers)
            return pieces
        return self._split_lines(span, own_levels, [*levels, header])

    def _split_imports(self, span: Span, own_levels: list[HeaderLevel],
                       levels: list[HeaderLevel]) -> list[Piece]:
        """An import run longer than a window: one chunk, up to ``IMPORT_WINDOWS`` windows
        of whole lines, indexed for its names (the model reads its first window, BM25 all
        of it), so a routes file's 99 ``use`` lines are one result, not six; longer (or
        with a line over a window: minified code) it is cut by lines."""
        lines = range(span.first, span.last + 1)
        if self.source.size(span.first, span.last) <= IMPORT_WINDOWS * self.splitter.window \
                and all(self.splitter.fits(self.source, n, n) for n in lines):
            return [self.source.piece(span.first, span.last, **span.extra)]
        return self._split_lines(span, own_levels, levels)

    def _split_lines(self, span: Span, own_levels: list[HeaderLevel],
                     levels: list[HeaderLevel]) -> list[Piece]:
        return cut_span(self.splitter, self.source, self.tree.root_node, span,
                        self.splitter.headers(own_levels), self.splitter.headers(levels))

    def _header(self, node: Any, body: Any | None) -> HeaderLevel:
        """A definition's short header: its lines up to where its body opens (the class
        line and ``{``, a signature), or its first line."""
        first = node.start_point[0] + 1
        last = body.start_point[0] + 1 if body is not None else first
        members = body.named_children if body is not None else []
        if members and members[0].start_point[0] + 1 <= last:
            last = max(first, members[0].start_point[0])  # a member shares the opening line
        for child in node.named_children:  # a comment after the first line is no header
            if "comment" in child.type and first <= child.start_point[0] < last:
                last = max(first, child.start_point[0])
                break
        last = min(max(first, last), first + 8)
        text = "".join(self.source.line_texts[n - 1] + "\n" for n in range(first, last + 1))
        return HeaderLevel(text, self.source.line_texts[first - 1] + "\n")

    # -- names ------------------------------------------------------------------------------

    def _kind(self, definition: Definition, scope: _Scope) -> str:
        """``method`` for a function in a class-like container, ``function`` at file or
        namespace level (Rust's tags call every function in a block a method)."""
        at_top = scope.kind in ("", "module")
        if definition.kind == "function" and not at_top:
            return "method"
        if definition.kind == "method" and at_top and definition.node.type == "function_item":
            return "function"
        return definition.kind

    def _qualified(self, definition: Definition, scope: _Scope) -> str:
        """``definition``'s name in the language's notation, with what encloses it."""
        row = self.row
        name = self.stem if definition.kind == "object" and definition.name == "default" \
            else definition.name
        owner = scope.prefix
        if definition.kind in _NAMED_WHOLE:
            return name
        if scope.kind == "module" and not row.namespaces_in_symbols:
            owner = ""
        if row.receiver_field is not None and not owner:
            owner = _receiver_type(definition.node, row.receiver_field)
            if owner:
                return f"{owner}{row.member_separator}{name}"
        if not owner:
            owner = self.layout.namespace
            separator = row.namespace_separator or row.separator
            return f"{owner}{separator}{name}" if owner else name
        if scope.kind == "module":
            separator = row.namespace_separator or row.separator
        elif definition.kind in ("function", "method", "property"):
            separator = "." if definition.node.type == "singleton_method" else row.member_separator
        else:
            separator = row.separator
        return f"{owner}{separator}{name}"


def _mark_container_lines(pieces: list[Piece], containers: list[HeaderLevel]) -> None:
    """Record in ``header_lines`` how many lines a member's chunk text starts with that
    repeat its containers' headers (``impl Buf for Chain<T, U> {``): the reader gets them,
    the index does not read them again (``chunking.context``), as the chunk's header
    already names the owner (``Chain::advance``) and a line repeated in every member's
    chunk pulls all their embeddings together."""
    repeated = ("".join(level.text for level in containers),
                "".join(level.first_line for level in containers), containers[-1].first_line)
    for piece in pieces:
        lines = next((text.count("\n") for text in repeated if piece.header.startswith(text)), 0)
        if lines > int(piece.extra.get("header_lines", 0)):  # an outer container's call comes last
            piece.extra["header_lines"] = lines


def _receiver_type(node: Any, field_name: str) -> str:
    """The type a method belongs to (Go: ``func (s *Server) Start()`` -> ``Server``)."""
    receiver = node.child_by_field_name(field_name)
    stack = [receiver] if receiver is not None else []
    while stack:
        current = stack.pop(0)
        if current.type == "type_identifier":
            return bytes(current.text or b"").decode("utf-8", "replace")
        stack.extend(current.named_children)
    return ""
