"""The units Laravel applications are asked about, as definitions of the PHP tree:

* route files (``routes/*.php``): each ``Route::...`` statement is a definition named by
  its method and URI (``GET /admin/users``, group prefixes included); a route group
  (``Route::prefix('admin')->group(function () {...})``) is a container of its routes;
* migrations (``database/migrations/*.php``): each ``Schema::create/table/drop...`` call
  is a definition named by its table (``up``/``down`` no longer are); a migration that
  fits one chunk is one chunk (``whole_migration``), so what ``up()`` does and what
  ``down()`` undoes (the same table and column names) never compete as two results;
* config arrays (``config/*.php``, the folder in any case: ``app/Config``): each
  top-level key of the returned array is a definition named as ``config()`` reads it
  (``app.timezone``).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from ragloom.chunking.base import Piece, SourceLines
from ragloom.chunking.definitions import DefinitionSplitter
from ragloom.chunking.treesitter.definition import Definition, node_text

_VERBS = {"get", "post", "put", "patch", "delete", "options", "any", "match", "view", "redirect",
          "permanentRedirect", "resource", "apiResource", "resources", "apiResources",
          "fallback", "singleton", "apiSingleton"}
_LABELS = {"view": "GET", "redirect": "REDIRECT", "permanentRedirect": "REDIRECT",
           "apiResource": "API_RESOURCE", "apiResources": "API_RESOURCES",
           "apiSingleton": "API_SINGLETON"}
_CLOSURES = ("anonymous_function", "arrow_function", "anonymous_function_creation_expression")
_SCHEMA_CALLS = {"create", "table", "drop", "dropIfExists", "rename"}


def unit_kind(path: str) -> str | None:
    """``route``, ``migration`` or ``config`` for a Laravel file of that kind, else None."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if not parts or not parts[-1].endswith(".php"):
        return None
    folder = parts[-2] if len(parts) > 1 else ""
    if folder == "routes":
        return "route"
    if folder == "migrations" and len(parts) > 2 and parts[-3] == "database":
        return "migration"
    if folder.lower() == "config":  # an app moving its config path: app/Config
        return "config"
    return None


def laravel_definitions(path: str, root: Any, found: dict[int, Definition]) -> str | None:
    """Add (and, for migrations, drop) definitions of ``path``'s Laravel units in ``found``;
    the file's unit kind (``unit_kind``)."""
    kind = unit_kind(path)
    if kind == "route":
        _routes(root.named_children, "", found)
    elif kind == "migration":
        for key in [k for k, d in found.items() if d.kind in ("function", "method")]:
            del found[key]
        _tables(root, found)
    elif kind == "config":
        stem = PurePosixPath(path.replace("\\", "/")).stem
        for statement in root.named_children:
            if statement.type == "return_statement":
                array = next((c for c in statement.named_children
                              if c.type == "array_creation_expression"), None)
                for element in array.named_children if array is not None else []:
                    key = _string(element.named_children[0]) if element.named_children else ""
                    if element.type == "array_element_initializer" and key \
                            and len(element.named_children) > 1:
                        found[element.id] = Definition(element, f"{stem}.{key}", "config", False, None)
    return kind


def whole_migration(kind: str | None, source: SourceLines, splitter: DefinitionSplitter,
                    pieces: list[Piece]) -> list[Piece]:
    """A migration's pieces as one, named by every table it touches, when the file fits one
    chunk; else its ``down()`` joined to the piece before it when they fit together. Any
    other file's pieces as they are."""
    if kind != "migration" or len(pieces) < 2:
        return pieces
    if splitter.fits(source, pieces[0].start_line, pieces[-1].end_line):
        tables = list(dict.fromkeys(str(p.extra["symbol"]) for p in pieces if p.extra.get("kind") == "table"))
        extra = {"kind": "table", "symbol": tables[0]} if tables else dict(pieces[-1].extra)
        if len(tables) > 1:
            extra["symbols"] = ", ".join(tables)
        return [source.piece(pieces[0].start_line, pieces[-1].end_line, **extra)]
    down = next((n for n, line in enumerate(source.line_texts, 1) if _DOWN.search(line)), None)
    at = next((i for i, p in enumerate(pieces) if down is not None and p.end_line >= down), None)
    if at is None or at == 0 or not splitter.fits(source, pieces[at - 1].start_line, pieces[-1].end_line):
        return pieces
    before = pieces[at - 1]
    joined = source.piece(before.start_line, pieces[-1].end_line, before.header, **before.extra)
    return [*pieces[:at - 1], joined]


_DOWN = re.compile(r"\bfunction\s+down\s*\(")


def _routes(statements: list[Any], prefix: str, found: dict[int, Definition]) -> None:
    for statement in statements:
        if statement.type != "expression_statement" or not statement.named_children:
            continue
        calls = _chain(statement.named_children[0])
        if not calls or calls[0][0] != "Route":
            continue
        names = [name for _, name, _ in calls]
        arguments = {name: args for _, name, args in calls}
        if "group" in names:
            group_prefix = _join(prefix, _first_string(arguments.get("prefix")))
            closure = _closure(arguments["group"])
            body = closure.child_by_field_name("body") if closure is not None else None
            found[statement.id] = Definition(statement, f"GROUP {group_prefix or '/'}", "route_group",
                                             body is not None, body)
            if body is not None:
                _routes(body.named_children, group_prefix, found)
            continue
        verb = next((name for name in names if name in _VERBS), None)
        if verb is None:
            continue
        args = arguments[verb]
        strings = [_string(a) for a in (args.named_children if args is not None else [])]
        if verb == "match":
            label = "|".join(m.upper() for m in _first_array_strings(args)) or "MATCH"
            uri = strings[1] if len(strings) > 1 else ""
        else:
            label = _LABELS.get(verb, verb.upper())
            uri = strings[0] if strings else ""
        found[statement.id] = Definition(statement, f"{label} {_join(prefix, uri) or '/'}", "route",
                                         False, None)


def _tables(node: Any, found: dict[int, Definition]) -> None:
    """``Schema::create('users', ...)`` statements anywhere in the file."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "expression_statement" and current.named_children:
            calls = _chain(current.named_children[0])
            if calls and calls[0][0] == "Schema" and calls[0][1] in _SCHEMA_CALLS:
                table = _first_string(calls[0][2])
                if table:
                    found[current.id] = Definition(current, table, "table", False, None)
                    continue
        stack.extend(current.named_children)


def _chain(expression: Any) -> list[tuple[str, str, Any]]:
    """``Route::middleware('a')->prefix('b')->group(f)`` as [(Route, middleware, args),
    ("", prefix, args), ("", group, args)], innermost first; [] for anything else."""
    calls: list[tuple[str, str, Any]] = []
    node = expression
    while node is not None and node.type == "member_call_expression":
        calls.append(("", node_text(node.child_by_field_name("name")), node.child_by_field_name("arguments")))
        node = node.child_by_field_name("object")
    if node is None or node.type != "scoped_call_expression":
        return []
    calls.append((node_text(node.child_by_field_name("scope")), node_text(node.child_by_field_name("name")),
                  node.child_by_field_name("arguments")))
    return calls[::-1]


def _closure(arguments: Any | None) -> Any | None:
    for argument in arguments.named_children if arguments is not None else []:
        for child in argument.named_children:
            if child.type in _CLOSURES:
                return child
    return None


def _first_string(arguments: Any | None) -> str:
    for argument in arguments.named_children if arguments is not None else []:
        value = _string(argument)
        if value:
            return value
    return ""


def _first_array_strings(arguments: Any | None) -> list[str]:
    for argument in arguments.named_children if arguments is not None else []:
        array = next((c for c in argument.named_children if c.type == "array_creation_expression"), None)
        if array is not None:
            return [s for s in (_string(e) for e in array.named_children) if s]
    return []


def _string(node: Any) -> str:
    """The value of a string literal at or directly under ``node`` ('' when it is none)."""
    while node is not None and node.type not in ("string", "encapsed_string"):
        children = node.named_children
        if len(children) != 1:
            return ""
        node = children[0]
    if node is None:
        return ""
    return node_text(node)[1:-1] if len(node_text(node)) >= 2 else ""


def _join(prefix: str, uri: str) -> str:
    parts = [p.strip("/") for p in (prefix, uri) if p and p.strip("/")]
    return "/" + "/".join(parts) if parts else ""

