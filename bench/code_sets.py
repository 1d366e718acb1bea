"""Code-search dev sets in languages other than Python, built CodeSearchNet-style from
third-party source fetched at pinned versions (npm packages, Debian packages).

Sources are fetched into a cache folder outside the repository (``~/.cache/ragloom-bench``
by default; ``npm pack`` / ``apt-get download`` + ``dpkg -x``), never committed. Each file
is parsed with its tree-sitter grammar wheel and copied with every doc comment blanked
(its lines become empty, so line numbers stay those of the original): ``/** ... */``
blocks in JavaScript, TypeScript and PHP, the ``//`` comment group right above a
declaration in Go, every ``///`` line in Rust (crate sources from Debian's
``librust-*-dev`` packages; tests, benches and examples left out). A query is the first
sentence (>= 5 words, JSDoc/PHPDoc tags and inline markup dropped) of the doc comment
removed from a function or method; a sentence that documents more than one definition is
ambiguous and dropped. The relevant chunks of
a query are those whose line range overlaps the definition's lines (its decorators and
``export`` keyword included, the removed comment not). At most ``--max-queries`` per set,
sampled with a fixed seed.

    python bench/code_sets.py [--cache DIR]        # fetch, build, print each set's size
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from code_search import CodeSearchSet, Target  # noqa: E402

CACHE = Path.home() / ".cache" / "ragloom-bench"


@dataclass(frozen=True)
class Npm:
    """An npm package at a pinned version; ``folders``: where its source files are."""

    name: str
    version: str
    folders: tuple[str, ...]

    def fetch(self, cache: Path) -> Path:
        root = cache / "npm" / f"{self.name}-{self.version}"
        if not (root / "package").is_dir():
            root.mkdir(parents=True, exist_ok=True)
            subprocess.run(["npm", "pack", f"{self.name}@{self.version}", "--silent"], cwd=root,
                           check=True, stdout=subprocess.DEVNULL)
            archive = next(root.glob("*.tgz"))
            subprocess.run(["tar", "-xzf", archive.name], cwd=root, check=True)
        return root / "package"

    def files(self, cache: Path, suffixes: tuple[str, ...]) -> Iterator[tuple[str, Path]]:
        base = self.fetch(cache)
        for folder in self.folders:
            for path in sorted((base / folder).rglob("*")):
                if path.suffix in suffixes and not path.name.endswith((".d.ts", ".min.js")) \
                        and "test" not in path.name and path.is_file():
                    yield f"{self.name}/{path.relative_to(base).as_posix()}", path


@dataclass(frozen=True)
class Deb:
    """A Debian binary package at a pinned version that ships its source (Go, PHP)."""

    name: str
    version: str
    root: str  # the folder under /usr holding the source tree (paths are relative to it)
    skip: tuple[str, ...] = ()  # path parts whose files are left out (Rust: tests, benches)

    def fetch(self, cache: Path) -> Path:
        root = cache / "deb" / f"{self.name}_{self.version}"
        if not (root / "usr").is_dir():
            root.mkdir(parents=True, exist_ok=True)
            subprocess.run(["apt-get", "download", "-q", f"{self.name}={self.version}"], cwd=root,
                           check=True, stdout=subprocess.DEVNULL)
            archive = next(root.glob("*.deb"))
            subprocess.run(["dpkg", "-x", archive.name, "."], cwd=root, check=True)
        return root

    def files(self, cache: Path, suffixes: tuple[str, ...]) -> Iterator[tuple[str, Path]]:
        base = self.fetch(cache)
        for path in sorted((base / "usr" / self.root).rglob("*")):
            if path.suffix in suffixes and not path.name.endswith("_test.go") and path.is_file() \
                    and not path.is_symlink() and "/Tests/" not in path.as_posix() \
                    and not set(self.skip) & set(path.parts):
                yield path.relative_to(base / "usr" / self.root).as_posix(), path


@dataclass(frozen=True)
class Language:
    """How one language's set is built: its grammar, files, and which nodes are targets."""

    name: str
    grammar: Callable[[], object]
    suffixes: tuple[str, ...]
    sources: tuple[Npm | Deb, ...]
    functions: frozenset[str]
    line_comments: bool = False  # Go, Rust: doc comments are runs of // lines
    #: What starts a doc comment; with ``line_comments`` and a marker only doc comments
    #: use (Rust ``///``), every doc comment is blanked, else (Go ``//``) only the group
    #: right above a top-level declaration.
    doc_marker: bytes = b"/**"
    comments: frozenset[str] = frozenset({"comment"})
    decorators: frozenset[str] = frozenset({"decorator"})


def _grammar(module: str, function: str = "language") -> Callable[[], object]:
    def load() -> object:
        import importlib

        return getattr(importlib.import_module(module), function)()

    return load


_RUST_SKIP = ("tests", "benches", "examples")
_JS_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration",
                           "method_definition", "function_expression", "arrow_function"})

LANGUAGES: dict[str, Language] = {
    "javascript": Language(
        "javascript", _grammar("tree_sitter_javascript"), (".js", ".mjs", ".cjs"),
        (Npm("commander", "12.1.0", ("lib",)), Npm("ws", "8.18.0", ("lib",)),
         Npm("express", "4.21.2", ("lib",)), Npm("mocha", "10.7.3", ("lib",)),
         Npm("axios", "1.7.7", ("lib",))),
        _JS_FUNCTIONS),
    "typescript": Language(
        "typescript", _grammar("tree_sitter_typescript", "language_typescript"), (".ts",),
        (Npm("rxjs", "7.8.1", ("src/internal",)), Npm("immer", "10.1.1", ("src",)),
         Npm("@tanstack/query-core", "5.59.0", ("src",)), Npm("mobx", "6.13.5", ("src",))),
        _JS_FUNCTIONS),
    "go": Language(
        "go", _grammar("tree_sitter_go"), (".go",),
        (Deb("golang-github-spf13-cobra-dev", "1.6.1-1", "share/gocode/src"),
         Deb("golang-github-gorilla-mux-dev", "1.8.0-1", "share/gocode/src"),
         Deb("golang-github-sirupsen-logrus-dev", "1.9.0-1", "share/gocode/src"),
         Deb("golang-github-spf13-pflag-dev", "1.0.6~git20210604-d5e0c0615ace-1", "share/gocode/src")),
        frozenset({"function_declaration", "method_declaration"}), line_comments=True,
        doc_marker=b"//"),
    "php": Language(
        "php", _grammar("tree_sitter_php", "language_php"), (".php",),
        (Deb("php-monolog", "2.9.1-1", "share/php"),
         Deb("php-symfony-console", "5.4.53+dfsg-0+deb12u1", "share/php"),
         Deb("php-guzzlehttp-psr7", "2.4.5-1+deb12u1", "share/php")),
        frozenset({"function_definition", "method_declaration"})),
    "rust": Language(
        "rust", _grammar("tree_sitter_rust"), (".rs",),
        (Deb("librust-itertools-dev", "0.10.3-1", "share/cargo/registry", _RUST_SKIP),
         Deb("librust-bytes-dev", "1.2.1-1", "share/cargo/registry", _RUST_SKIP),
         Deb("librust-indexmap-dev", "1.9.2-1", "share/cargo/registry", _RUST_SKIP)),
        frozenset({"function_item"}), line_comments=True, doc_marker=b"///",
        comments=frozenset({"line_comment"}), decorators=frozenset({"attribute_item"})),
}

_SENTENCE = re.compile(r"^(.+?[.!?])(\s|$)", re.DOTALL)
_MARKUP = re.compile(r"<[^>]+>|\{@\w+\s+([^}|]+)(?:\|[^}]*)?\}|`")
#: A Rust doc link around a code span (``[`Vec::push`]``, ``[`x`](crate::x)``): its text.
_CODE_LINK = re.compile(r"\[(`[^`\]]+`)\](\([^)]*\)|\[[^\]]*\])?")
#: Statements that wrap a definition and carry its doc comment: ``export``, assignments.
_WRAPPERS = frozenset({"export_statement", "expression_statement", "lexical_declaration",
                       "variable_declaration", "variable_declarator", "assignment_expression",
                       "pair", "public_field_definition", "field_definition"})


def first_sentence(comment: str) -> str:
    """The first sentence of a doc comment's prose (markers, tags and markup removed)."""
    prose = []
    for line in comment.split("\n"):
        line = re.sub(r"^\s*(/\*\*+|\*+/|\*|//+)\s?", "", line).replace("*/", "")
        if line.strip().startswith("@"):
            break  # JSDoc / PHPDoc tags: the prose is over
        prose.append(line)
    text = _CODE_LINK.sub(lambda m: m.group(1), " ".join(prose))
    text = " ".join(_MARKUP.sub(lambda m: m.group(1) or "", text).split())
    match = _SENTENCE.match(text)
    return match.group(1) if match else text


def _is_doc(node, source: bytes, language: Language) -> bool:  # type: ignore[no-untyped-def]
    return node.type in language.comments \
        and source[node.start_byte:node.end_byte].startswith(language.doc_marker)


def _last_row(node) -> int:  # type: ignore[no-untyped-def]
    """A node's last line (0-based): a Rust line comment ends at the next line's start."""
    row, column = node.end_point
    return row - 1 if column == 0 and row > node.start_point[0] else row


def _alone_on_lines(node, lines: list[bytes]) -> bool:  # type: ignore[no-untyped-def]
    """Whether a comment shares neither its first nor its last line with code."""
    (row, column), (end_row, end_column) = node.start_point, node.end_point
    if _last_row(node) < end_row:
        end_row, end_column = end_row - 1, len(lines[end_row - 1])
    return not lines[row][:column].strip() and not lines[end_row][end_column:].strip()


def _doc_comment(statement, source: bytes, lines: list[bytes], language: Language):  # type: ignore[no-untyped-def]
    """The doc comment node(s) right above ``statement`` (decorators skipped), or []."""
    found = []
    below = statement.start_point[0]
    sibling = statement.prev_sibling
    while sibling is not None and sibling.type in language.decorators:
        below, sibling = sibling.start_point[0], sibling.prev_sibling
    while sibling is not None and _last_row(sibling) == below - 1 \
            and _is_doc(sibling, source, language) and _alone_on_lines(sibling, lines):
        found.insert(0, sibling)
        if not language.line_comments:
            break
        below, sibling = sibling.start_point[0], sibling.prev_sibling
    return found


def _statement(node):  # type: ignore[no-untyped-def]
    """The outermost wrapper whose doc comment documents ``node`` (``export``, ``x = ...``)."""
    while node.parent is not None and node.parent.type in _WRAPPERS:
        node = node.parent
    return node


def _walk(node) -> Iterator:  # type: ignore[no-untyped-def]
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def strip_file(source: bytes, language: Language, parser) -> tuple[str, list[tuple[int, int, str]]]:  # type: ignore[no-untyped-def]
    """The file with every doc comment blanked, and (first line, last line, comment text)
    of each documented function (1-based, inclusive, decorators and wrappers included)."""
    tree = parser.parse(source)
    lines = source.split(b"\n")
    blank: set[int] = set()
    documented = []
    seen: set[int] = set()
    for node in _walk(tree.root_node):
        every_doc = not language.line_comments or language.doc_marker != b"//"
        if every_doc and _is_doc(node, source, language) and _alone_on_lines(node, lines):
            blank.update(range(node.start_point[0], _last_row(node) + 1))
        is_function = node.type in language.functions
        declaration = language.line_comments and node.parent == tree.root_node \
            and node.type.endswith("_declaration")
        if not (is_function or declaration):
            continue
        statement = _statement(node) if is_function else node
        if node.type in ("function_expression", "arrow_function") and statement == node:
            continue  # an anonymous callback, not a definition
        comments = _doc_comment(statement, source, lines, language)
        if declaration:
            for comment in comments:  # Go: the comment group right above a declaration
                blank.update(range(comment.start_point[0], _last_row(comment) + 1))
        if is_function and comments and statement.id not in seen:
            seen.add(statement.id)
            first = min([statement.start_point[0]] + [
                s.start_point[0] for s in _decorators(statement, language)])
            text = "\n".join(source[c.start_byte:c.end_byte].decode("utf-8", "replace")
                             for c in comments)
            documented.append((first + 1, statement.end_point[0] + 1, text))
    kept = [b"" if number in blank else line for number, line in enumerate(lines)]
    return b"\n".join(kept).decode("utf-8", "replace"), documented


def _decorators(statement, language: Language) -> list:  # type: ignore[no-untyped-def]
    found, sibling = [], statement.prev_sibling
    while sibling is not None and sibling.type in language.decorators:
        found.append(sibling)
        sibling = sibling.prev_sibling
    return found


def build(language: Language, cache: Path, max_queries: int = 300, seed: int = 13) -> CodeSearchSet:
    """Write the stripped files under ``cache/sets/<language>`` and collect queries."""
    from tree_sitter import Language as Grammar
    from tree_sitter import Parser

    parser = Parser(Grammar(language.grammar()))
    folder = cache / "sets" / language.name
    if folder.exists():
        shutil.rmtree(folder)
    candidates: list[tuple[str, str, Target]] = []
    for source in language.sources:
        for relative, path in source.files(cache, language.suffixes):
            stripped, documented = strip_file(path.read_bytes(), language, parser)
            destination = folder / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_text(stripped, encoding="utf-8")
            for first, last, comment in documented:
                sentence = first_sentence(comment)
                if len(sentence.split()) >= 5 and "inheritdoc" not in sentence.lower():
                    candidates.append((f"{relative}:{first}", sentence, Target(relative, first, last)))
    uses = Counter(sentence for _, sentence, _ in candidates)
    unique = sorted((q, s, t) for q, s, t in candidates if uses[s] == 1)
    random.Random(seed).shuffle(unique)
    chosen = sorted(unique[:max_queries])
    return CodeSearchSet(language.name, {q: s for q, s, _ in chosen}, {q: t for q, _, t in chosen})


def code_sets(cache: Path = CACHE, names: list[str] | None = None,
              max_queries: int = 300) -> list[tuple[CodeSearchSet, Path]]:
    """Each language's set with the folder its stripped sources are in."""
    return [(build(LANGUAGES[name], cache, max_queries), cache / "sets" / name)
            for name in names or list(LANGUAGES)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", default=str(CACHE))
    parser.add_argument("--languages", nargs="*", default=list(LANGUAGES))
    parser.add_argument("--max-queries", type=int, default=300)
    parser.add_argument("--show", type=int, default=3, help="example queries to print per set")
    args = parser.parse_args()
    for code_set, folder in code_sets(Path(args.cache), args.languages, args.max_queries):
        files = [p for p in folder.rglob("*") if p.is_file()]
        lines = sum(p.read_text(encoding="utf-8").count("\n") + 1 for p in files)
        print(f"{code_set.name}: {len(files)} files, {lines} lines, {len(code_set.queries)} queries")
        for query_id in list(code_set.queries)[: args.show]:
            target = code_set.targets[query_id]
            print(f"    {code_set.queries[query_id]!r} -> {target.path}:{target.first}-{target.last}")


if __name__ == "__main__":
    main()
