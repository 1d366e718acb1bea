"""Application dev sets (bench/app_sets/*.toml): hand-written developer questions over
whole open-source application repositories, with gold line spans, and how a ranked list
of (path, first line, last line) results is graded against them.

Each set names a repository and the commit its line numbers refer to; the checkout itself
is never part of this repository (``bench/app_search.py`` says how to fetch it). A question
has a ``kind`` (route, migration, config, behaviour, model, job, frontend, docs) and one or
more gold spans ``"path:first-last"`` (1-based, inclusive; ``"path:line"`` for one line).

Grading (binary line overlap, as ``bench/code_search.py`` grades): a result is relevant to
a gold span when it is from the same file and its line range overlaps the span's lines.
nDCG@10 credits each gold span once, at the rank of the first result overlapping it (gain
1; a later result overlapping only spans already credited gains 0), over an ideal ranking
that puts one result per gold span first; so many small pieces of one answer do not score
more than one piece holding it all, and chunkers cutting files differently are graded
alike. hit@k: some result in the top k overlaps some gold span.

Identical copies (``with_copies``): ragloom returns chunks with the same text in several
files as one result listing the others in ``metadata["paths"]``; graded as that result
followed by each copy at the lines holding the text there, the list cut at ``k`` again, so
copies take the places LlamaIndex's separate results take (``ragloom+copies``).
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

SETS = Path(__file__).resolve().parent / "app_sets"
KINDS = ("route", "migration", "config", "behaviour", "model", "job", "frontend", "docs")
_SPAN = re.compile(r"^(?P<path>[^:]+):(?P<first>\d+)(?:-(?P<last>\d+))?$")


@dataclass(frozen=True)
class Span:
    """Lines ``first``-``last`` (1-based, inclusive) of the file at ``path``."""

    path: str
    first: int
    last: int

    def overlaps(self, path: str, first: int, last: int) -> bool:
        return path == self.path and first <= self.last and last >= self.first


@dataclass(frozen=True)
class Question:
    id: str
    kind: str
    text: str
    gold: tuple[Span, ...]
    #: The question is about tests or imports: test or import-only chunks are answers.
    about_tests: bool = False
    about_imports: bool = False


@dataclass(frozen=True)
class AppSet:
    name: str
    repo: str
    commit: str
    stack: str
    questions: tuple[Question, ...]


def parse_span(text: str, where: str) -> Span:
    match = _SPAN.match(text)
    if match is None:
        raise ValueError(f"{where}: gold span {text!r} is not 'path:first-last'")
    first = int(match["first"])
    last = int(match["last"] or first)
    if last < first:
        raise ValueError(f"{where}: gold span {text!r} ends before it starts")
    return Span(match["path"], first, last)


def load_app_set(name_or_path: str | Path) -> AppSet:
    """One set, by name (``bench/app_sets/<name>.toml``) or file path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = SETS / f"{name_or_path}.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    questions = []
    seen: set[str] = set()
    for entry in data["questions"]:
        where = f"{path.name} question {entry.get('id')!r}"
        if entry["kind"] not in KINDS:
            raise ValueError(f"{where}: kind {entry['kind']!r} is not one of {', '.join(KINDS)}")
        if entry["id"] in seen:
            raise ValueError(f"{where}: id used twice")
        seen.add(entry["id"])
        questions.append(Question(entry["id"], entry["kind"], entry["question"],
                                  tuple(parse_span(s, where) for s in entry["gold"]),
                                  bool(entry.get("about_tests")), bool(entry.get("about_imports"))))
    return AppSet(data["name"], data["repo"], data["commit"], data.get("stack", ""),
                  tuple(questions))


def app_set_names() -> list[str]:
    return sorted(p.stem for p in SETS.glob("*.toml"))


def check_spans(app: AppSet, root: Path) -> list[str]:
    """Problems of the set's gold spans against a checkout: missing files, lines past the
    end, blank spans."""
    problems = []
    for question in app.questions:
        for span in question.gold:
            file = root / span.path
            if not file.is_file():
                problems.append(f"{question.id}: {span.path} is not in the checkout")
                continue
            lines = file.read_text(encoding="utf-8", errors="replace").split("\n")
            if span.last > len(lines):
                problems.append(f"{question.id}: {span.path} has {len(lines)} lines, "
                                f"span ends at {span.last}")
            elif not "".join(lines[span.first - 1:span.last]).strip():
                problems.append(f"{question.id}: {span.path}:{span.first}-{span.last} is blank")
    return problems


def ndcg_at(results: list[tuple[str, int, int]], gold: tuple[Span, ...], k: int = 10) -> float:
    """nDCG@k with each gold span credited once (see the module docstring)."""
    credited: set[int] = set()
    dcg = 0.0
    for rank, (path, first, last) in enumerate(results[:k]):
        new = [i for i, span in enumerate(gold) if i not in credited and span.overlaps(path, first, last)]
        if new:
            credited.update(new)
            dcg += 1.0 / math.log2(rank + 2)
    ideal = sum(1.0 / math.log2(rank + 2) for rank in range(min(len(gold), k)))
    return dcg / ideal if ideal else 0.0


def hit_at(results: list[tuple[str, int, int]], gold: tuple[Span, ...], k: int = 5) -> bool:
    return any(span.overlaps(path, first, last) for path, first, last in results[:k] for span in gold)


_TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|__snapshots__|spec|specs|e2e|playwright|testdata|fixtures?)(/|$)"
    r"|(^|/)test_[^/]*\.py$|(^|/)tests?\.py$|_test\.(go|py|rs)$|\.(spec|test)\.[cm]?[jt]sx?$"
    r"|[A-Za-z0-9]Test\.php$|\.snap$")


_SPEC_FOLDER = re.compile(r"(^|/)specs?/")
_PROSE = re.compile(r"\.(md|mdx|markdown|rst)$")


def is_test_path(path: str) -> bool:
    """Whether a file is a test (or a test fixture / snapshot) by the usual conventions; a
    prose page under ``spec/`` / ``specs/`` is a specification (``docs/spec/x.mdx``)."""
    if _PROSE.search(path):
        path = _SPEC_FOLDER.sub("/", path)
    return bool(_TEST_PATH.search(path))


_IMPORTS = [re.compile(p, re.DOTALL | re.MULTILINE) for p in (
    r"\bimport\s+type\s[^;]*?\bfrom\s*['\"][^'\"]+['\"];?",
    r"\bimport\s[^;'\"]*?\bfrom\s*['\"][^'\"]+['\"];?",
    r"\bimport\s*['\"][^'\"]+['\"];?",
    r"\bexport\s*(\*|\{[^}]*\})\s*from\s*['\"][^'\"]+['\"];?",
    r"\b(const|let|var)\s+[\w{},\s]+=\s*require\([^)]*\);?",
    r"<\?php", r"\bdeclare\s*\(\s*strict_types\s*=\s*1\s*\)\s*;",
    r"\bnamespace\s+[\w\\]+\s*;", r"\buse\s+[\w\\{},\s]+?(\s+as\s+\w+)?\s*;",
    r"\bfrom\s+[\w.]+\s+import\s+(\([^)]*\)|[^\n]+)", r"^\s*import\s+[\w., ]+$",
    r"\bpackage\s+\w+", r"\bimport\s*\([^)]*\)", r"\bimport\s+(\w+\s+)?\"[^\"]+\"",
    r"</?script[^>]*>", r"\buse\s+[\w:{}, *]+;", r"\bextern\s+crate\s+\w+;",
)]
_COMMENTS = [re.compile(p, re.DOTALL | re.MULTILINE) for p in (
    r"/\*.*?\*/", r"//[^\n]*", r"^\s*#[^\n\[]*$", r"<!--.*?-->")]


def is_import_only(text: str) -> bool:
    """Whether a chunk holds nothing but import / use / package lines (and comments)."""
    rest, found = text, False
    for pattern in _IMPORTS:
        rest, count = pattern.subn("", rest)
        found = found or count > 0
    for pattern in _COMMENTS:
        rest = pattern.sub("", rest)
    return found and not rest.strip()


def with_copies(results: list[tuple[str, int, int, str]], copies: list[list[str]], root: Path,
                k: int = 10) -> list[tuple[str, int, int, str]]:
    """``results`` with each one's identical copies (``copies[i]``: the other paths of
    result i) right after it, at the lines where its text is in each, cut at ``k``."""
    expanded: list[tuple[str, int, int, str]] = []
    for (path, first, last, text), others in zip(results, copies):
        expanded.append((path, first, last, text))
        for other in others:
            lines = copy_lines(root, path, first, last, other)
            if lines is not None:
                expanded.append((other, *lines, text))
    return expanded[:k]


def copy_lines(root: Path, path: str, first: int, last: int, other: str) -> tuple[int, int] | None:
    """Where lines ``first``-``last`` of ``path`` are in ``other``: the same lines when
    they match there, else the first place they do; None when ``other`` lacks them."""
    def lines_of(name: str) -> list[str]:
        file = root / name
        return file.read_text(errors="replace").splitlines() if file.is_file() else []
    wanted, there = lines_of(path)[first - 1:last], lines_of(other)
    if not wanted:
        return None
    if there[first - 1:last] == wanted:
        return first, last
    for start in range(len(there) - len(wanted) + 1):
        if there[start:start + len(wanted)] == wanted:
            return start + 1, start + len(wanted)
    return None
