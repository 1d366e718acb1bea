"""What the generic tree-sitter chunker knows of each language: one row per language.

A row names the grammar wheel, whether its shipped ``TAGS_QUERY`` finds the definitions
(the grammar authors' own query, the one GitHub's code navigation runs on) or which node
types are definitions where the wheel ships none, which definitions are containers (split
per member), which nodes are imports, and how the language writes a qualified name
(``App\\Http\\UserController::index``, ``Server.Start``, ``net::Server::start``),
which file extensions it owns (``chunking.registry`` reads them: the row is the language's
one entry) and what a framework adds by file path (PHP: Laravel's routes, migrations and
config arrays). Adding a language is adding a row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragloom.chunking.treesitter.definition import Definition
from ragloom.chunking.treesitter.laravel import laravel_definitions, whole_migration
from ragloom.chunking.treesitter.migration_lists import migration_list_definitions, named_pieces

#: (path, the tree's root node, definitions found by node id): adds or drops definitions.
#: A framework's definitions added by file path; returns the kind of unit the file is
#: (``"migration"``, ...) or None.
PathDefinitions = Callable[[str, Any, dict[int, Definition]], "str | None"]
#: Joins a file's pieces by its unit kind (``(kind, source, splitter, pieces) -> pieces``).
PathPieces = Callable[[Any, Any, Any, list[Any]], list[Any]]

#: Node types that are containers in most grammars; rows add their own.
COMMON_CONTAINERS = frozenset({
    "class_declaration", "class_definition", "interface_declaration", "trait_declaration",
    "enum_declaration", "struct_declaration", "record_declaration", "namespace_definition",
    "namespace_declaration", "object_declaration", "protocol_declaration", "class",
    "module", "singleton_class", "class_specifier", "struct_specifier", "impl_item",
    "trait_item", "mod_item", "abstract_class_declaration", "internal_module",
    "companion_object", "enum_item",
})


@dataclass(frozen=True)
class LanguageRow:
    """How to chunk one language with its tree-sitter grammar."""

    #: The grammar wheel's module and the function returning its grammar.
    module: str
    #: File extensions of the language (lower case, e.g. ``.go``).
    extensions: tuple[str, ...] = ()
    #: Whole file names of the language without an extension (``Gemfile``).
    file_names: tuple[str, ...] = ()
    #: For a second grammar of a language (TSX): that language; its files take this
    #: grammar, and are of that language otherwise.
    grammar_of: str | None = None
    loader: str = "language"
    #: Use the wheel's ``TAGS_QUERY`` to find definitions.
    tags: bool = True
    #: Node type -> kind of definitions the tags query lacks (or all, without one); the
    #: name is the node's ``name`` field unless ``name_fields`` names another.
    definitions: Mapping[str, str] = field(default_factory=dict)
    name_fields: Mapping[str, str] = field(default_factory=dict)
    #: Definitions split per member when too big (besides ``COMMON_CONTAINERS``).
    containers: frozenset[str] = frozenset()
    #: Top-level nodes kept apart from code, in chunks of their own.
    imports: frozenset[str] = frozenset()
    #: Between enclosing names and a member function, and between other names.
    member_separator: str = "."
    separator: str = "."
    #: Between a namespace and what it holds (PHP ``\\``), default ``separator``.
    namespace_separator: str | None = None
    #: A statement naming the namespace of the rest of the file (PHP ``namespace App;``).
    file_namespace: str | None = None
    #: A method's field naming its owner type (Go's receiver).
    receiver_field: str | None = None
    #: Calls that import (Ruby's ``require``), kept with the imports.
    import_calls: frozenset[str] = frozenset()
    #: Whether names start with the namespaces that enclose them (C#: ``Type.Method``).
    namespaces_in_symbols: bool = True
    #: Whether object literals holding functions are containers (JavaScript stores,
    #: ``export default { methods: ... }``; ``outline._object_definitions``).
    object_members: bool = False
    #: Kinds of file-level type definitions that never share a chunk with another one
    #: (``layout.unit_families``): a Rust struct or enum keeps its ``impl`` blocks and
    #: functions, and the next type starts a chunk.
    type_kinds: frozenset[str] = frozenset()
    #: Definitions a framework adds by file path, after the grammar's own.
    path_definitions: PathDefinitions | None = None
    #: Pieces a framework joins by the unit kind ``path_definitions`` returned.
    path_pieces: PathPieces | None = None


_C_IMPORTS = frozenset({"preproc_include", "preproc_def", "preproc_call"})

#: TypeScript and TSX ship no tags query: the grammar's definition node types instead.
_TYPESCRIPT_DEFINITIONS = {
    "class_declaration": "class", "abstract_class_declaration": "class",
    "interface_declaration": "interface", "function_declaration": "function",
    "generator_function_declaration": "function", "method_definition": "method",
    "abstract_method_signature": "method", "enum_declaration": "type",
    "type_alias_declaration": "type", "internal_module": "module",
    "variable_declarator": "function", "function_signature": "function",
    "method_signature": "method"}

LANGUAGES: dict[str, LanguageRow] = {
    "php": LanguageRow(
        "tree_sitter_php", extensions=(".php",), loader="language_php",
        definitions={"enum_declaration": "class", "trait_declaration": "class"},
        imports=frozenset({"namespace_use_declaration", "php_tag", "namespace_definition",
                           "declare_statement"}),
        member_separator="::", separator="\\", file_namespace="namespace_definition",
        path_definitions=laravel_definitions, path_pieces=whole_migration),
    "javascript": LanguageRow(
        "tree_sitter_javascript", extensions=(".js", ".jsx", ".mjs", ".cjs"),
        definitions={"method_definition": "method"},  # constructors too
        imports=frozenset({"import_statement"}), object_members=True),
    "typescript": LanguageRow(
        "tree_sitter_typescript", extensions=(".ts",), loader="language_typescript", tags=False,
        definitions=_TYPESCRIPT_DEFINITIONS, imports=frozenset({"import_statement"}),
        object_members=True),
    "tsx": LanguageRow(
        "tree_sitter_typescript", extensions=(".tsx",), grammar_of="typescript",
        loader="language_tsx", tags=False,
        definitions=_TYPESCRIPT_DEFINITIONS, imports=frozenset({"import_statement"}),
        object_members=True),
    "go": LanguageRow(
        "tree_sitter_go", extensions=(".go",),
        imports=frozenset({"import_declaration", "package_clause"}), receiver_field="receiver",
        path_definitions=migration_list_definitions, path_pieces=named_pieces),
    "rust": LanguageRow(
        "tree_sitter_rust", extensions=(".rs",),
        definitions={"impl_item": "impl", "function_signature_item": "method"},
        name_fields={"impl_item": "type"},
        imports=frozenset({"use_declaration", "extern_crate_declaration"}),
        member_separator="::", separator="::",
        type_kinds=frozenset({"class", "interface", "type", "module"})),
    "java": LanguageRow(
        "tree_sitter_java", extensions=(".java",),
        definitions={"enum_declaration": "class", "record_declaration": "class",
                     "constructor_declaration": "method", "annotation_type_declaration": "interface"},
        imports=frozenset({"import_declaration", "package_declaration"})),
    "swift": LanguageRow(
        "tree_sitter_swift", extensions=(".swift",), tags=False,
        definitions={"class_declaration": "class", "protocol_declaration": "interface",
                     "function_declaration": "function", "init_declaration": "method",
                     "protocol_function_declaration": "method", "property_declaration": "property",
                     "typealias_declaration": "type"},
        imports=frozenset({"import_declaration"})),
    "c": LanguageRow("tree_sitter_c", extensions=(".c", ".h"), imports=_C_IMPORTS),
    "cpp": LanguageRow(
        "tree_sitter_cpp", extensions=(".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx"),
        definitions={"namespace_definition": "module"},
        imports=_C_IMPORTS | {"using_declaration", "alias_declaration"},
        member_separator="::", separator="::"),
    "csharp": LanguageRow(
        "tree_sitter_c_sharp", extensions=(".cs",), tags=False,
        definitions={"class_declaration": "class", "struct_declaration": "class",
                     "record_declaration": "class", "interface_declaration": "interface",
                     "enum_declaration": "type", "method_declaration": "method",
                     "constructor_declaration": "method", "property_declaration": "property",
                     "namespace_declaration": "module", "delegate_declaration": "type"},
        imports=frozenset({"using_directive", "file_scoped_namespace_declaration"}),
        namespaces_in_symbols=False),
    "ruby": LanguageRow("tree_sitter_ruby", member_separator="#",
                        extensions=(".rb", ".rake", ".ru", ".gemspec", ".builder", ".jbuilder", ".thor"),
                        file_names=("Gemfile", "Rakefile", "Guardfile", "Capfile", "Vagrantfile",
                                    "Podfile", "Fastfile", "Brewfile", "Dangerfile", "Berksfile"),
                        separator="::", import_calls=frozenset({"require", "require_relative", "load"})),
    "kotlin": LanguageRow(
        "tree_sitter_kotlin", extensions=(".kt", ".kts"), tags=False,
        definitions={"class_declaration": "class", "object_declaration": "class",
                     "companion_object": "class", "function_declaration": "function",
                     "secondary_constructor": "method", "type_alias": "type"},
        imports=frozenset({"import", "package_header", "import_list", "import_header"})),
}

#: File suffixes that pick another grammar of the same language.
GRAMMAR_BY_SUFFIX = {extension: name for name, row in LANGUAGES.items() if row.grammar_of
                     for extension in row.extensions}
#: Extension -> language of the languages chunked by their tree-sitter grammar (a second
#: grammar's files are of its language).
EXTENSIONS = {extension: row.grammar_of or name for name, row in LANGUAGES.items()
              for extension in row.extensions}

#: File name -> language, for the files a language names without an extension.
FILE_NAMES = {file_name: name for name, row in LANGUAGES.items() for file_name in row.file_names}

#: Tags-query captures that are definitions the chunker keeps, with the kind it records.
TAG_KINDS = {"class": "class", "interface": "interface", "function": "function",
             "method": "method", "module": "module", "type": "type", "macro": "macro"}
