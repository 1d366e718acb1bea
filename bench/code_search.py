"""Code-search dev sets built from the Python standard library (CodeSearchNet-style).

Each module is copied with every docstring blanked out (the docstring's lines become
blank, its first line ``...``, so line numbers stay those of the original). A query is the
first sentence of a removed function or method docstring that has at least 5 words; the
relevant chunks are those overlapping that definition's lines (decorators included).

Two sets: ``stdlib-packages`` (a few large packages) and ``stdlib-modules`` (many small
top-level modules). Neither was used to write ragloom's chunkers.
"""

from __future__ import annotations

import ast
import random
import re
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from ragloom.apps.eval import Dataset
from ragloom.engine import RAGEngine

STDLIB = Path(sysconfig.get_paths()["stdlib"])
PACKAGES = ("asyncio", "email", "importlib", "logging")
_SENTENCE = re.compile(r"^(.+?[.!?])(\s|$)", re.DOTALL)


@dataclass(frozen=True)
class Target:
    """Where the function a query describes lives: path and 1-based inclusive lines."""

    path: str
    first: int
    last: int


@dataclass(frozen=True)
class CodeSearchSet:
    name: str
    queries: dict[str, str]
    targets: dict[str, Target]


def small_modules(count: int = 60) -> list[Path]:
    """Evenly spaced top-level stdlib modules of 4-40 KB (no tests, no private modules)."""
    candidates = sorted(p for p in STDLIB.glob("*.py")
                        if not p.name.startswith(("_", "test")) and 4_000 <= p.stat().st_size <= 40_000)
    step = max(1, len(candidates) // count)
    return candidates[::step][:count]


def package_modules() -> list[Path]:
    return sorted(p for name in PACKAGES for p in (STDLIB / name).rglob("*.py")
                  if "test" not in p.parts)


def first_sentence(docstring: str) -> str:
    text = " ".join(docstring.split())
    match = _SENTENCE.match(text)
    return match.group(1) if match else text


def strip_docstrings(source: str) -> tuple[str, list[tuple[ast.AST, str]]]:
    """The source with every docstring blanked (line numbers kept), and the (function
    node, docstring) pairs removed."""
    tree = ast.parse(source)
    lines = source.split("\n")
    removed: list[tuple[ast.AST, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = node.body
        if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            continue
        expr = body[0]
        first, last = expr.lineno, expr.end_lineno or expr.lineno
        first_line, last_line = lines[first - 1], lines[last - 1]
        if (expr.col_offset != len(first_line) - len(first_line.lstrip())
                or expr.end_col_offset != len(last_line.rstrip())):
            continue  # a docstring sharing a line with other code: left in, never a query
        indent = lines[first - 1][: expr.col_offset]
        lines[first - 1] = indent + "..."
        for number in range(first + 1, last + 1):
            lines[number - 1] = ""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            removed.append((node, body[0].value.value))
    return "\n".join(lines), removed


def build(name: str, modules: list[Path], folder: Path, max_queries: int = 300,
          seed: int = 13) -> CodeSearchSet:
    """Write the stripped modules under ``folder`` and collect queries and targets."""
    queries: dict[str, str] = {}
    targets: dict[str, Target] = {}
    for module in modules:
        relative = module.relative_to(STDLIB).as_posix()
        try:
            stripped, removed = strip_docstrings(module.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        destination = folder / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text(stripped, encoding="utf-8")
        for node, docstring in removed:
            sentence = first_sentence(docstring)
            if len(sentence.split()) < 5:
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])  # type: ignore[attr-defined]
            query_id = f"{relative}:{node.lineno}"
            queries[query_id] = sentence
            targets[query_id] = Target(relative, first, node.end_lineno or node.lineno)  # type: ignore[attr-defined]
    chosen = sorted(queries)
    random.Random(seed).shuffle(chosen)
    chosen = sorted(chosen[:max_queries])
    return CodeSearchSet(name, {q: queries[q] for q in chosen}, {q: targets[q] for q in chosen})


def as_dataset(engine: RAGEngine, code_set: CodeSearchSet) -> Dataset:
    """Judgements over the engine's chunks: relevant = overlapping the target's lines."""
    by_path: dict[str, list[tuple[int, int, str]]] = {}
    for chunk in engine.store.get(engine.store.ids()):
        meta = chunk.metadata
        by_path.setdefault(str(meta["path"]), []).append(
            (int(meta["start_line"]), int(meta["end_line"]), chunk.id))
    qrels: dict[str, dict[str, int]] = {}
    for query_id, target in code_set.targets.items():
        relevant = {chunk_id: 1 for first, last, chunk_id in by_path.get(target.path, [])
                    if first <= target.last and last >= target.first}
        if relevant:
            qrels[query_id] = relevant
    queries = {q: text for q, text in code_set.queries.items() if q in qrels}
    return Dataset(code_set.name, {}, queries, qrels)


def code_search_sets(folder: Path) -> list[CodeSearchSet]:
    return [build("stdlib-packages", package_modules(), folder / "stdlib-packages"),
            build("stdlib-modules", small_modules(), folder / "stdlib-modules")]
