"""What kind of source a file is (``code``, ``test``, ``docs``, ``config``, ``data``,
``notebook``, ``pdf``; ``migration`` in any framework; in Laravel applications ``route``,
``controller``, ``model``; else ``text``), from its path: every chunk carries it as
``source_type``, filters can select by it, and the context block shows it.

Inline Rust tests (a chunk whose symbol lies in a ``tests`` module, or whose item carries
``#[test]``) are ``test`` too.
The first matching pattern wins: the project's own ``[rag.source_types]`` patterns first
(in their order), then the defaults below in their order; a path no pattern matches is
``code`` when its language is a programming language, else ``text``. A program or a
template (``TEMPLATES``: Django/Jinja, Blade, ERB, Twig, Handlebars, Vue, Svelte) is
``code`` where only a default ``docs`` pattern would match it: ``templates/base.html`` is a
Django template, and ``docs/views.py`` the views of an application named ``docs``. A prose
page (Markdown, reStructuredText) under a ``spec/`` or ``specs/`` folder is a
specification, not a test (``docs/spec/http-signatures.mdx``): those folders are tests
only for programs (RSpec's ``spec/``, ``specs/checkout.js``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from ragloom.globs import Glob, compile_glob

DEFAULT_SOURCE_TYPES: dict[str, tuple[str, ...]] = {
    # Every language's test convention; fixtures, mocks and snapshots are tests' data.
    "test": ("**/test_*.py", "**/*_test.py", "**/tests.py", "**/test.py", "**/conftest.py",
             "**/tests/**", "**/test/**", "**/__tests__/**", "**/spec/**", "**/specs/**",
             "**/*_test.go", "**/*_test.rs", "**/testdata/**", "**/*_spec.js", "**/*_spec.ts",
             "**/*.test.*", "**/*.spec.*", "**/*.cy.*", "**/e2e/**", "**/cypress/**", "**/playwright/**",
             "**/*Test.java", "**/*Tests.java", "**/*Test.php",
             "**/*Test.kt", "**/*Tests.kt", "**/*Tests.swift", "**/*Test.cs", "**/*Tests.cs",
             "**/*_spec.rb", "**/*_test.rb", "**/fixtures/**", "**/__fixtures__/**",
             "**/__mocks__/**", "**/__snapshots__/**", "**/*.snap"),
    # Laravel applications: routes, migrations, controllers, models, config arrays.
    "route": ("routes/*.php", "**/routes/*.php"),
    # ... and every framework's migrations: SQL ones (diesel, sqlx, golang-migrate,
    # Flyway, Prisma), Django's numbered modules, Rails', Alembic's and Flask-Migrate's,
    # numbered program files (Knex, Sequelize, TypeORM, goose), SeaORM's and refinery's.
    "migration": ("**/database/migrations/*.php", "**/migrations/**/*.sql", "**/db/migration/*.sql",
                  "**/migrations/[0-9]*.py", "**/db/migrate/*.rb", "**/alembic/versions/*.py",
                  "**/migrations/versions/*.py", "**/migrations/[0-9]*.js", "**/migrations/[0-9]*.ts",
                  "**/migrations/[0-9]*.cjs", "**/migrations/[0-9]*.mjs", "**/migrations/[0-9]*.go",
                  "**/migration/src/m[0-9]*.rs", "**/migrations/V[0-9]*.rs"),
    "controller": ("**/app/Http/Controllers/**/*.php",),
    "model": ("**/app/Models/**/*.php",),
    "notebook": ("**/*.ipynb",),
    "pdf": ("**/*.pdf",),
    "data": ("**/*.csv", "**/*.tsv", "**/*.jsonl", "**/*.ndjson"),
    "config": ("**/config/*.php", "**/*.toml", "**/*.yaml", "**/*.yml", "**/*.ini", "**/*.cfg", "**/*.conf",
               "**/*.json", "**/*.properties", "**/Dockerfile", "**/Makefile", "**/.*rc"),
    "docs": ("**/*.md", "**/*.markdown", "**/*.mdx", "**/*.rst", "**/*.txt", "**/*.html",
             "**/*.htm", "**/docs/**", "**/doc/**", "**/README*", "**/CHANGELOG*", "**/LICENSE*"),
}

#: Languages (see ``chunking.registry.LANGUAGE_BY_EXTENSION``) that are not programs.
NOT_CODE = frozenset({"text", "markdown", "rst", "html", "css", "scss", "less", "json", "yaml",
                      "toml", "ini", "xml"})
#: An application's templates: ``code`` although the default ``docs`` patterns match their
#: extension (``templates/base.html`` is a Django template, not a page).
TEMPLATES = frozenset({"django-template", "blade", "erb", "twig", "handlebars", "go-template",
                       "vue", "svelte"})
#: Test folders named for specifications: a prose page in one is a specification (docs).
SPEC_FOLDERS = frozenset({"**/spec/**", "**/specs/**"})
PROSE = frozenset({"markdown", "rst"})


class SourceTypes:
    """Classifies paths; see the module docstring."""

    def __init__(self, patterns: Mapping[str, Sequence[str]] | None = None) -> None:
        ordered: list[tuple[str, Glob, bool, bool]] = []
        for table in (patterns or {}, DEFAULT_SOURCE_TYPES):
            default = table is DEFAULT_SOURCE_TYPES
            for name, globs in table.items():
                ordered += [(name, compile_glob(glob), default, default and glob in SPEC_FOLDERS)
                            for glob in globs]
        self._patterns = ordered

    def of(self, path: str, language: str) -> str:
        """The source type of ``path`` (relative, ``/``-separated) in ``language``."""
        for name, pattern, default, spec_folder in self._patterns:
            if default and name == "docs" and language not in NOT_CODE:
                continue
            if spec_folder and language in PROSE:
                continue
            if pattern.matches(path):
                return name
        return "text" if language in NOT_CODE else "code"


#: A Rust test attribute: ``#[test]``, ``#[tokio::test]``, ``#[sqlx::test(...)]``, and
#: ``#[cfg(test)]`` on the item itself.
_RUST_TEST_ATTRIBUTE = re.compile(r"^\s*#\[\s*(?:(?:[\w]+::)*test\b|cfg\(\s*test\s*\))")
_RUST_ITEM_PREFIX = re.compile(r"^\s*(?:#|//|/\*|\*|$)")  # attributes, comments, blank lines


def inline_test_symbols(chunks: Iterable[tuple[object, str, str]]) -> set[object]:
    """The symbols of the inline tests among ``chunks`` (symbol, language, text each): every
    part of a test function split in several chunks is a test, not only its first (the one
    carrying ``#[test]``)."""
    return {symbol for symbol, language, text in chunks
            if symbol is not None and inline_test(symbol, language, text)}


def inline_test(symbol: object, language: str, text: str = "") -> bool:
    """Whether a Rust chunk is an inline test: its symbol lies in a ``tests`` or ``test``
    module (the ``#[cfg(test)] mod tests`` of a source file: ``tests::it_adds``,
    ``net::test::it_connects``), or the item it opens with carries a test attribute
    (``#[test] fn round_trips()`` beside the code it tests)."""
    if language != "rust":
        return False
    if isinstance(symbol, str) and {"tests", "test"} & set(symbol.split("::")):
        return True
    for line in text.splitlines():
        if _RUST_TEST_ATTRIBUTE.match(line):
            return True
        if not _RUST_ITEM_PREFIX.match(line):
            return False  # the item itself: no test attribute above it
    return False
