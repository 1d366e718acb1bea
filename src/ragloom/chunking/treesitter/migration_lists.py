"""Migrations kept as one list in a source file, each element a migration of its own.

Go applications often keep every migration in one file as a list: miniflux's
``internal/database/migrations.go`` (``var migrations = [...]func(tx *sql.Tx) error{
func(tx) {...}, ...}``, 133 of them), gormigrate's ``[]*gormigrate.Migration{{ID:
"202101011200", Migrate: ...}, ...}``, sql-migrate's ``[]*migrate.Migration{{Id: "1",
Up: []string{...}}}``. Cut by lines, a chunk held the end of one migration, a whole
second one and the start of a third, named by nothing: "migration creating the table for
API keys" found the chunk before the one creating ``api_keys``. So in a Go file named for
migrations (``migration(s).go``, ``migrate.go``) or filed under a ``migrations`` folder,
each element of a package-level list literal (at least ``MIN_ELEMENTS``) is a definition
of its own, never packed with its neighbours, and named by what it is: its ``ID`` /
``Id`` / ``Version`` / ``Name`` field when it has one, else the tables it creates and the
columns it adds (``webauthn_credentials``, ``entries.share_code``), else its place in the
list (``migrations[52]``).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from ragloom.chunking.sql import created_names
from ragloom.chunking.treesitter.definition import Definition, node_text

#: File stems and folder names of files holding migrations.
MIGRATION_WORDS = frozenset({"migration", "migrations", "migrate"})
#: A list literal this short is no list of migrations.
MIN_ELEMENTS = 3
#: What a migration in a list is: a function, or a struct (``{ID: ..., Migrate: ...}``,
#: ``&migrate.Migration{...}``); a list of strings or numbers is no list of migrations.
_MIGRATION_SHAPES = frozenset({"func_literal", "literal_value", "composite_literal", "unary_expression"})
#: A migration's own name or version, as a field of the element.
_OWN_NAME = re.compile(r"\b(?:ID|Id|Version|Name)\s*:\s*\"([^\"\n]{1,80})\"")
#: A statement changing a table (up to its ``;`` or the end of the SQL string) and the
#: columns it adds, alters, drops or renames: ``ALTER TABLE entries ADD COLUMN share_code``.
_ALTER = re.compile(r"\balter\s+table\s+(?:if\s+exists\s+)?(?:only\s+)?([\w.\"`]{1,100})([^;`]{0,2000})",
                    re.IGNORECASE)
_COLUMN = re.compile(r"\b(?:add|alter|drop|rename)\s+(?:column\s+)?(?:if\s+(?:not\s+)?exists\s+)?"
                     r"([\w\"`]{1,100})", re.IGNORECASE)
#: Words after ``ADD`` / ``DROP`` that are no column.
_NOT_COLUMNS = frozenset({"constraint", "index", "primary", "foreign", "unique", "key", "column",
                          "default", "to", "check"})


def holds_migrations(path: str) -> bool:
    """Whether ``path`` is named for migrations or filed under a folder that is."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    stem = parts[-1].split(".", 1)[0].lower() if parts else ""
    return stem in MIGRATION_WORDS or any(part.lower() in MIGRATION_WORDS for part in parts[:-1])


def migration_list_definitions(path: str, root: Any, found: dict[int, Definition]) -> str | None:
    """Add each element of the package-level list literals of a Go file holding migrations
    to ``found`` (see the module docstring); ``"migration-list"`` when any was added."""
    if not holds_migrations(path):
        return None
    added = False
    for declaration in root.named_children:
        if declaration.type not in ("var_declaration", "const_declaration"):
            continue
        for spec in declaration.named_children:
            name = spec.child_by_field_name("name")
            owner = node_text(name) if name is not None else "migrations"
            for elements in _lists(spec):
                for index, element in enumerate(elements):
                    found[element.id] = Definition(element, element_name(node_text(element), owner, index),
                                                   "table", False, None)
                    added = True
    return "migration-list" if added else None


def named_pieces(kind: Any, source: Any, splitter: Any, pieces: list[Any]) -> list[Any]:
    """The pieces of a file holding a migration list with each piece named by several
    tables or columns carrying the first as ``symbol`` and all as ``symbols`` (the
    ``path_pieces`` hook); any other file's pieces as they are."""
    if kind != "migration-list":
        return pieces
    for piece in pieces:
        names = str(piece.extra.get("symbol", "")).split(", ")
        if len(names) > 1:
            piece.extra["symbol"], piece.extra["symbols"] = names[0], ", ".join(names)
    return pieces


def element_name(text: str, owner: str, index: int) -> str:
    """A migration's name: its own (``ID: "..."``), else the tables it creates and columns
    it adds, comma-separated, else ``owner[index]``."""
    own = _OWN_NAME.search(text)
    if own:
        return own.group(1)
    lines = text.splitlines()
    named = [(number, name) for number, line in enumerate(lines) for name in created_names([line])]
    for statement in _ALTER.finditer(text):
        number = text.count("\n", 0, statement.start())
        named += [(number, f"{_bare(statement.group(1))}.{_bare(column)}")
                  for column in _COLUMN.findall(statement.group(2))
                  if _bare(column).lower() not in _NOT_COLUMNS]
    names = [name for _, name in sorted(named, key=lambda pair: pair[0])]
    names = list(dict.fromkeys(names))
    return ", ".join(names) if names else f"{owner}[{index}]"


def _lists(spec: Any) -> list[list[Any]]:
    """The elements of each list literal (Go ``literal_value``) of at least ``MIN_ELEMENTS``
    functions or structs that a declaration's value is, outermost only."""
    found: list[list[Any]] = []
    stack = list(reversed(spec.named_children))
    while stack:
        node = stack.pop()
        if node.type == "literal_value":
            elements = [c for c in node.named_children if c.type == "literal_element"]
            if len(elements) >= MIN_ELEMENTS and all(_MIGRATION_SHAPES & {g.type for g in e.named_children}
                                                     for e in elements):
                found.append(elements)
            continue
        if node.type in ("expression_list", "composite_literal"):
            stack.extend(reversed(node.named_children))
    return found


def _bare(name: str) -> str:
    return name.replace('"', "").replace("`", "")
