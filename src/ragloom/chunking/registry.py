"""Per-file chunker choice: a file's language picks a registered chunker, else characters.

Adding a language chunker is one module plus one ``@chunkers.register("language")`` line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import Protocol

from ragloom._registry import Registry
from ragloom.chunking.base import Chunker, LineIndex, chunk_id
from ragloom.chunking.character import CharacterChunker
from ragloom.chunking.interface_code import interface_of
from ragloom.chunking.sizing import ChunkSizing, resolve_chunk_sizing
from ragloom.chunking.treesitter.languages import EXTENSIONS as TREE_SITTER_EXTENSIONS
from ragloom.chunking.treesitter.languages import FILE_NAMES, LANGUAGES
from ragloom.config import RAGConfig
from ragloom.types import Chunk

ChunkerFactory = Callable[[RAGConfig, ChunkSizing], Chunker | None]


class Segment(Protocol):
    """Lines ``start_line..end_line`` (1-based, inclusive) of a file in one language
    (``readers.TextSpan`` is one)."""

    start_line: int
    end_line: int
    language: str | None

#: Extension -> language: the tree-sitter languages' from their rows
#: (``treesitter.languages``), every other language's here.
LANGUAGE_BY_EXTENSION: dict[str, str] = {
    **TREE_SITTER_EXTENSIONS,
    ".py": "python", ".pyi": "python",
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown",
    ".rst": "rst", ".txt": "text",
    ".scala": "scala", ".sh": "shell", ".bash": "shell",
    ".sql": "sql", ".html": "html", ".css": "css", ".scss": "scss", ".less": "less",
    ".json": "json", ".yaml": "yaml",
    ".yml": "yaml", ".toml": "toml", ".ini": "ini", ".cfg": "ini", ".xml": "xml",
    # An application's templates and components (chunking/markup/).
    ".vue": "vue", ".svelte": "svelte", ".blade.php": "blade", ".erb": "erb", ".twig": "twig",
    ".hbs": "handlebars", ".handlebars": "handlebars", ".jinja": "django-template",
    ".jinja2": "django-template", ".j2": "django-template", ".gohtml": "go-template",
    ".gotmpl": "go-template", ".tmpl": "go-template",
}

#: Last suffixes of a committed template of a source file (``local_settings.py.example``,
#: ``settings.py.dist``, ``config.php.sample``): read in the language of the suffix before.
TEMPLATE_SUFFIXES = frozenset({".example", ".sample", ".dist", ".template", ".tpl"})

#: Language name -> factory of its structure-aware chunker (None when disabled by config).
#: Plugins add languages with ``ragloom.chunkers`` entry points (name = language).
chunkers: Registry[ChunkerFactory] = Registry("chunker", "chunking", "ragloom.chunkers")


def language_for_path(path: str) -> str:
    """The language a file's extension implies (its last two suffixes first:
    ``.blade.php``), ``"text"`` when unknown; an ``.html`` file in a templates folder is a
    ``django-template`` (``markup.template_language``); a file a language names whole
    (``Gemfile``, ``Rakefile``) is of that language, a template of a source file
    (``local_settings.py.example``) of its source's."""
    if (name := PurePath(path).name) in FILE_NAMES:
        return FILE_NAMES[name]
    suffixes = [s.lower() for s in PurePath(path).suffixes[-2:]]
    if len(suffixes) == 2 and suffixes[1] in TEMPLATE_SUFFIXES and suffixes[0] in LANGUAGE_BY_EXTENSION:
        return language_for_path(path[:-len(suffixes[1])])  # local_settings.py.example: Python
    if len(suffixes) == 2 and "".join(suffixes) in LANGUAGE_BY_EXTENSION:
        return LANGUAGE_BY_EXTENSION["".join(suffixes)]
    language = LANGUAGE_BY_EXTENSION.get(PurePath(path).suffix.lower(), "text")
    if language == "html":
        from ragloom.chunking.markup.syntax import template_language

        return template_language(path) or language
    return language


def character_chunker(config: RAGConfig, sizing: ChunkSizing) -> CharacterChunker:
    """The character chunker as configured; the fallback for every file."""
    return CharacterChunker(sizing.size, sizing.overlap, config.chunking.sentence_boundaries,
                            sizing.measure)


@chunkers.register("python")
def _python_chunker(config: RAGConfig, sizing: ChunkSizing) -> Chunker | None:
    from ragloom.chunking.python_ast import PythonAstChunker

    if not config.chunking.ast_chunking:
        return None
    return PythonAstChunker(sizing.size, sizing.overlap, sizing.measure)


def _tree_sitter_chunker(language: str) -> ChunkerFactory:
    """A factory for the tree-sitter chunker of ``language`` (on while
    ``chunking.ast_chunking`` is); its grammar loads on first use, and a missing grammar
    wheel means line chunks with one warning, never an error."""

    def factory(config: RAGConfig, sizing: ChunkSizing) -> Chunker | None:
        from ragloom.chunking.treesitter import TreeSitterChunker

        if not config.chunking.ast_chunking:
            return None
        return TreeSitterChunker(language, sizing.size, sizing.overlap, sizing.measure)

    return factory


#: Languages chunked by their tree-sitter grammar (``ragloom[code]``): a row each in
#: ``treesitter.languages`` (a second grammar, TSX, serves its language's chunker).
TREE_SITTER_LANGUAGES = tuple(name for name, row in LANGUAGES.items() if row.grammar_of is None)
for _language in TREE_SITTER_LANGUAGES:
    chunkers.register(_language)(_tree_sitter_chunker(_language))


def _markup_chunker(language: str, component: bool) -> ChunkerFactory:
    """A factory for the markup chunker of a template language (or of a single-file
    component's sections), on while ``chunking.ast_chunking`` is."""

    def factory(config: RAGConfig, sizing: ChunkSizing) -> Chunker | None:
        from ragloom.chunking.markup import ComponentChunker, TemplateChunker

        if not config.chunking.ast_chunking:
            return None
        chunker_class = ComponentChunker if component else TemplateChunker
        return chunker_class(language, sizing.size, sizing.overlap, sizing.measure)

    return factory


#: Template languages chunked by their blocks, component languages by their sections.
TEMPLATE_LANGUAGES = ("blade", "django-template", "erb", "twig", "handlebars", "go-template")
COMPONENT_LANGUAGES = ("vue", "svelte")
for _language in TEMPLATE_LANGUAGES + COMPONENT_LANGUAGES:
    chunkers.register(_language)(_markup_chunker(_language, _language in COMPONENT_LANGUAGES))


#: Line-commented languages whose windows never end on a comment (it documents what follows).
COMMENT_PREFIXES: dict[str, tuple[str, ...]] = {
    "yaml": ("#",), "toml": ("#",), "ini": (";", "#"), "shell": ("#",)}


def _commented_chunker(prefixes: tuple[str, ...]) -> ChunkerFactory:
    def factory(config: RAGConfig, sizing: ChunkSizing) -> Chunker | None:
        from ragloom.chunking.character import CommentedLinesChunker

        return CommentedLinesChunker(prefixes, sizing.size, sizing.measure)

    return factory


for _language, _prefixes in COMMENT_PREFIXES.items():
    chunkers.register(_language)(_commented_chunker(_prefixes))


@chunkers.register("sql")
def _sql_chunker(config: RAGConfig, sizing: ChunkSizing) -> Chunker | None:
    from ragloom.chunking.sql import SqlChunker

    return SqlChunker(sizing.size, sizing.measure)


def _stylesheet_chunker(line_comments: bool) -> ChunkerFactory:
    def factory(config: RAGConfig, sizing: ChunkSizing) -> Chunker | None:
        from ragloom.chunking.stylesheet import StylesheetChunker

        return StylesheetChunker(line_comments, sizing.size, sizing.measure)

    return factory


#: Stylesheets by top-level rule; SCSS and Less also have ``//`` comments.
for _language, _line_comments in (("css", False), ("scss", True), ("less", True)):
    chunkers.register(_language)(_stylesheet_chunker(_line_comments))


# Chunkers that follow a markup's sections, on while ``chunking.markdown_chunking`` is; each
# module is imported on first use.
@chunkers.register("markdown")
def _markdown_chunker(config: RAGConfig, sizing: ChunkSizing) -> Chunker | None:
    from ragloom.chunking.markdown import MarkdownChunker

    return MarkdownChunker(sizing.size, sizing.overlap, config.chunking.markdown_heading_level,
                           sizing.measure) if config.chunking.markdown_chunking else None


@chunkers.register("rst")
def _rst_chunker(config: RAGConfig, sizing: ChunkSizing) -> Chunker | None:
    from ragloom.chunking.rst import RstChunker

    return RstChunker(sizing.size, sizing.overlap, config.chunking.markdown_heading_level,
                      sizing.measure) if config.chunking.markdown_chunking else None


class FileChunker:
    """Chunks any file with the chunker its language calls for, tagging ``language`` (and
    ``interface`` for a Rust user interface: ``interface_code``)."""

    def __init__(self, config: RAGConfig, sizing: ChunkSizing | None = None) -> None:
        self._config = config
        sizing = sizing or resolve_chunk_sizing(config, None)
        self.sizing = sizing
        self._fallback = character_chunker(config, sizing)
        self._by_language: dict[str, Chunker] = {}
        for language in chunkers:
            chunker = chunkers.get(language)(config, sizing)
            if chunker is not None:
                self._by_language[language] = chunker

    def chunker_for(self, path: str, language: str | None = None) -> Chunker:
        return self._by_language.get(language or language_for_path(path), self._fallback)

    def chunk(self, text: str, path: str, language: str | None = None,
              segments: Sequence[Segment] = ()) -> list[Chunk]:
        """Chunks of ``text``; ``language`` (a reader's hint) overrides the extension's.
        With ``segments`` (line ranges with a language each), each is chunked on its own
        and the chunks are numbered through the file."""
        if segments:
            return self._chunk_segments(text, path, segments)
        language = language or language_for_path(path)
        chunks = self.chunker_for(path, language).chunk(text, path)
        interface = interface_of(text, language)
        for chunk in chunks:
            chunk.metadata.setdefault("language", language)
            if interface:
                chunk.metadata["interface"] = interface
        return chunks

    def _chunk_segments(self, text: str, path: str, segments: Sequence[Segment]) -> list[Chunk]:
        lines = LineIndex(text)
        chunks: list[Chunk] = []
        for segment in segments:
            start = lines.offset_of(segment.start_line)
            end = lines.offset_of(segment.end_line + 1) if segment.end_line < lines.line_count \
                else len(text)
            language = segment.language or "text"
            for piece in self.chunker_for(path, language).chunk(text[start:end], path):
                index = len(chunks)
                metadata = dict(piece.metadata)
                metadata.update(
                    chunk_index=index,
                    start_line=int(metadata["start_line"]) + segment.start_line - 1,
                    end_line=int(metadata["end_line"]) + segment.start_line - 1,
                    start_char=int(metadata["start_char"]) + start,
                    end_char=int(metadata["end_char"]) + start)
                metadata.setdefault("language", language)
                chunks.append(Chunk(chunk_id(path, index), piece.text, metadata))
        return chunks
