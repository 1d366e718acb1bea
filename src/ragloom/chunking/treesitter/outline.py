"""A file's definitions from its tree-sitter tree: the grammar's tags query (``@definition.*``
with ``@name``) plus the node types its language row names; each with its name and kind.
Grammars load once per process, lazily, from the installed grammar wheels (offline)."""

from __future__ import annotations

import importlib
import re
import threading
from typing import Any

from ragloom.chunking.treesitter.definition import Definition
from ragloom.chunking.treesitter.languages import COMMON_CONTAINERS, TAG_KINDS, LanguageRow

#: Definitions whose value decides whether they define a function (``const f = () => 1``).
_FUNCTION_VALUES = {"variable_declarator": "value", "pair": "value", "assignment_expression": "right"}
_FUNCTION_NODES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_BODY_TYPES = re.compile(r"(body|declaration_list|body_statement|block)$")
#: Type nodes named by the type they wrap (Rust ``impl Trait for &Foo<T>``).
_WRAPPED_TYPES = frozenset({"generic_type", "reference_type", "pointer_type"})
_GENERIC = re.compile(r"\s*<.*$", re.DOTALL)


class Grammar:
    """A loaded grammar with its tags query; ``parse`` makes a new parser per call, so
    several threads can chunk files of one language at once."""

    def __init__(self, row: LanguageRow) -> None:
        import tree_sitter

        module = importlib.import_module(row.module)
        self.row = row
        self.language = tree_sitter.Language(getattr(module, row.loader)())
        tags = getattr(module, "TAGS_QUERY", None) if row.tags else None
        self._query = tree_sitter.Query(self.language, tags) if tags else None
        # Concrete kinds only: a supertype (``_declarator``) matches what its kinds match, at
        # a cost quadratic in the nesting depth (deeply nested C took seconds per kilobyte).
        declarators = sorted({kind for kind in map(self.language.node_kind_for_id,
                                                   range(self.language.node_kind_count))
                              if kind and kind.endswith("declarator") and not kind.startswith("_")})
        patterns = []
        for pattern in [*_PARENT_PATTERNS, *(f"(_ ({kind}) @child) @parent" for kind in declarators)]:
            try:
                tree_sitter.Query(self.language, pattern)
                patterns.append(pattern)
            except (tree_sitter.QueryError, ValueError, NameError):
                continue
        self._parent_query = tree_sitter.Query(self.language, "\n".join(patterns)) \
            if patterns and self._query is not None else None
        self._tree_sitter = tree_sitter
        self.containers = COMMON_CONTAINERS | row.containers

    def parse(self, data: bytes) -> Any:
        return self._tree_sitter.Parser(self.language).parse(data)

    def definitions(self, root: Any) -> dict[int, Definition]:
        """Definitions under ``root`` by node id (outside function bodies as the row finds
        them; the tags query reports every level)."""
        found: dict[int, Definition] = {}
        if self._query is not None:
            parents = self._parents(root)
            cursor = self._tree_sitter.QueryCursor(self._query)
            for _, captures in cursor.matches(root):
                for capture, nodes in captures.items():
                    kind = TAG_KINDS.get(capture.removeprefix("definition.")) \
                        if capture.startswith("definition.") else None
                    names = captures.get("name")
                    if kind is None or not names:
                        continue
                    node = _definition_node(nodes[0], parents)
                    found.setdefault(node.id, self._definition(node, _name_text(names[0], parents),
                                                               kind))
        self._row_definitions(root, found)
        if self.row.object_members:
            _object_definitions(root, found)
        return {key: value for key, value in found.items() if value.name}

    def _parents(self, root: Any) -> dict[int, Any]:
        """A declarator's parent (what it declares), a name's qualified name, from one
        query (``Node.parent`` scans the parent's children: quadratic on wide files)."""
        parents: dict[int, Any] = {}
        if self._parent_query is not None:
            for _, captures in self._tree_sitter.QueryCursor(self._parent_query).matches(root):
                for child, parent in zip(captures.get("child", []), captures.get("parent", [])):
                    parents[child.id] = parent
        return parents

    def _definition(self, node: Any, name: str, kind: str) -> Definition:
        body = _body(node)
        return Definition(node, name, kind, node.type in self.containers and body is not None, body)

    def _row_definitions(self, root: Any, found: dict[int, Definition]) -> None:
        kinds = self.row.definitions
        if not kinds:
            return
        stack = [root]
        while stack:
            node = stack.pop()
            kind = kinds.get(node.type)
            if kind is not None and node.id not in found and _defines_function(node):
                name = self._row_name(node)
                if name:
                    found[node.id] = self._definition(node, name, kind)
            if kind in ("function", "method") or node.id in found and not found[node.id].container:
                continue  # nothing inside a function body is chunked on its own
            stack.extend(node.named_children)

    def _row_name(self, node: Any) -> str:
        field = self.row.name_fields.get(node.type, "name")
        named = node.child_by_field_name(field)
        if named is None:
            named = next((c for c in node.named_children
                          if c.type.endswith("identifier") or c.type in ("name", "constant")), None)
        if named is None:
            return "Companion" if node.type == "companion_object" else ""
        while named.type in _WRAPPED_TYPES and named.child_by_field_name("type") is not None:
            named = named.child_by_field_name("type")  # `&'a Foo<T>` names `Foo`
        return _GENERIC.sub("", _name_text(named))


#: Nodes an object definition is looked for under (a file's declarations and exports).
_DECLARATIONS = frozenset({"program", "export_statement", "lexical_declaration",
                           "variable_declaration"})


def _object_definitions(root: Any, found: dict[int, Definition]) -> None:
    """JavaScript objects whose members are definitions: ``export const store = {init()
    {...}, sort: (p) => ...}`` (a container named ``store``), a ``const s =
    defineStore('id', {...})`` call's object (named ``s``), ``export default {...}`` (named
    ``default``: the file's own name); an object-valued member holding functions
    (``methods: {...}``, ``actions: {...}``) is a group whose members keep the owner's name."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _DECLARATIONS:
            stack.extend(node.named_children)
            value = node.child_by_field_name("value") if node.type == "export_statement" else None
            if value is not None and value.type == "object":
                found[value.id] = Definition(value, "default", "object", True, value)
                _groups(value, found)
        elif node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is not None and value.type == "call_expression":
                arguments = value.child_by_field_name("arguments")
                value = next((a for a in (arguments.named_children if arguments else [])
                              if a.type == "object"), None)
            name = node.child_by_field_name("name")
            if value is not None and value.type == "object" and name is not None \
                    and name.type == "identifier" and node.id not in found:
                found[node.id] = Definition(node, _name_text(name), "object", True, value)
                _groups(value, found)


def _groups(body: Any, found: dict[int, Definition]) -> None:
    """The members of object ``body`` that are functions (methods), and those that are
    objects holding functions, as groups (their members too)."""
    stack = [body]
    while stack:
        current = stack.pop()
        for member in current.named_children:
            if member.id in found:
                continue
            key = member.child_by_field_name("key") if member.type == "pair" \
                else member.child_by_field_name("name")
            value = member.child_by_field_name("value") if member.type == "pair" else None
            if key is None:
                continue
            if member.type == "method_definition" or value is not None and _defines_function(member):
                found[member.id] = Definition(member, _name_text(key), "function", False, None)
            elif value is not None and value.type == "object" and any(
                    child.type == "method_definition" or child.type == "pair"
                    and _defines_function(child) for child in value.named_children):
                found[member.id] = Definition(member, _name_text(key), "group", True, value)
                stack.append(value)


def _defines_function(node: Any) -> bool:
    """False for a variable, pair or assignment whose value is not a function."""
    field = _FUNCTION_VALUES.get(node.type)
    if field is None:
        return True
    value = node.child_by_field_name(field)
    return value is not None and value.type in _FUNCTION_NODES


#: Query patterns giving the parents ``_definition_node`` and ``_name_text`` need.
_PARENT_PATTERNS = ("(qualified_identifier name: (_) @child) @parent",
                    "(scoped_identifier name: (_) @child) @parent")


def _definition_node(node: Any, parents: dict[int, Any]) -> Any:
    """The definition a capture stands for: C and C++ tags capture the declarator, whose
    definition (or declaration) is its first ancestor that is not a declarator."""
    while node.type.endswith("declarator") and node.id in parents:
        node = parents[node.id]
    return node


def _name_text(node: Any, parents: dict[int, Any] | None = None) -> str:
    """A name as written; a qualified one (``Server::start``) whole."""
    parent = (parents or {}).get(node.id)
    if parent is not None and parent.type in ("qualified_identifier", "scoped_identifier"):
        node = parent
    return bytes(node.text or b"").decode("utf-8", "replace").strip()


def _body(node: Any) -> Any | None:
    """A definition's body: its ``body`` field, else its last child that looks like one."""
    body = node.child_by_field_name("body")
    if body is not None:
        return body
    return next((c for c in reversed(node.named_children) if _BODY_TYPES.search(c.type)), None)


def body_of(node: Any) -> Any | None:
    return _body(node)


_GRAMMARS: dict[str, Grammar | None] = {}
_GRAMMARS_LOCK = threading.Lock()


#: Why a grammar could not be loaded, by language.
LOAD_ERRORS: dict[str, str] = {}


def load_grammar(name: str, row: LanguageRow) -> Grammar | None:
    """The grammar of ``name``, loaded once; None (the reason in ``LOAD_ERRORS``) when its
    wheel is not installed or does not fit the installed tree-sitter."""
    with _GRAMMARS_LOCK:
        if name not in _GRAMMARS:
            try:
                _GRAMMARS[name] = Grammar(row)
            except (ImportError, ValueError, TypeError, AttributeError) as exc:
                _GRAMMARS[name] = None
                LOAD_ERRORS[name] = f"{type(exc).__name__}: {exc}"
        return _GRAMMARS[name]
