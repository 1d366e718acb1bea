"""Chunk counts per package, and AST vs character chunking on the standard library.

Default report: every Python file of the standard library, of popular typed packages and
of generated adversarial files (bench/_adversarial.py), chunked as an engine with the
default settings chunks them (``FileChunker``, local model's tokens). Per package:
files, lines, chunks, chunks per 1,000 lines; the share of chunks whose own file text
(without a repeated header) is under a quarter of the window; chunks starting or ending
inside a line (counted only where that line fits the window: longer lines must be cut;
target 0); definitions (functions and classes at any depth) with more chunks than
ceil(N / (window / 2)) + 1 for N the definition's tokens; and the longest definition's
chunk count against that bound. A definition's chunks are those overlapping its lines
(decorators included).

``--whole-defs`` checks, for every function and method of the standard library, whether
some chunk holds the whole definition, per chunker, at 1000/200 characters; ``--window``
does that and then chunks the standard library and installed Markdown the old way (1000/200
characters) and the default way, and prints chunks longer than the model's window.

    python bench/chunking.py [--packages stdlib click ...] [--whole-defs] [--window]
"""

from __future__ import annotations

import argparse
import ast
import bisect
import importlib.util
import math
import os
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _adversarial import write_adversarial  # noqa: E402

from ragloom.chunking.base import LineIndex  # noqa: E402
from ragloom.chunking.character import CharacterChunker  # noqa: E402
from ragloom.chunking.python_ast import PythonAstChunker  # noqa: E402


def definitions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Top-level functions and methods of (nested) classes."""
    found = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append(node)
        elif isinstance(node, ast.ClassDef):
            stack.extend(node.body)
    return found


def whole_share(chunks: list, spans: list[tuple[int, int]]) -> int:
    """How many (start, end) spans lie entirely inside one chunk's file slice."""
    ordered = sorted((c.metadata["start_char"], c.metadata["end_char"]) for c in chunks)
    starts = [s for s, _ in ordered]
    best_end_so_far: list[int] = []
    running = -1
    for _, end in ordered:
        running = max(running, end)
        best_end_so_far.append(running)
    held = 0
    for start, end in spans:
        index = bisect.bisect_right(starts, start) - 1
        if index >= 0 and best_end_so_far[index] >= end:
            held += 1
    return held


#: Package label -> import names whose folders hold its sources (stdlib and adversarial
#: are built in): the packages of tests/chunking/code_properties.py. Each is in ragloom's
#: dev extra, so a fresh ``.[all,dev]`` has them all.
PACKAGES: dict[str, tuple[str, ...]] = {
    "pydantic": ("pydantic",), "click": ("click",), "fastapi": ("fastapi",),
    "sqlalchemy": ("sqlalchemy",), "attrs": ("attr", "attrs"), "typer": ("typer",),
    "rich": ("rich",), "httpx": ("httpx",), "starlette": ("starlette",), "numpy": ("numpy",),
    "jinja2": ("jinja2",), "requests": ("requests",),
}


def package_files(label: str, scratch: Path) -> list[Path]:
    """The ``.py`` files of a package label (generated ones are written under ``scratch``)."""
    if label == "stdlib":
        root = Path(sysconfig.get_paths()["stdlib"])
        return sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts)
    if label == "adversarial":
        return write_adversarial(scratch / "adversarial")
    files = []
    for name in PACKAGES[label]:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit(f"package {name!r} ({label}) is not installed; pip install -e '.[all,dev]'")
        files += sorted(Path(next(iter(spec.submodule_search_locations))).rglob("*.py"))
    return files


@dataclass
class Figures:
    """Counts of one package's chunks (see the module docstring)."""

    files: int = 0
    lines: int = 0
    chunks: int = 0
    small: int = 0
    mid_line: int = 0
    definitions: int = 0
    over_bound: int = 0
    longest: tuple[int, int, int, str] = (0, 0, 0, "")  # tokens, chunks, bound, where
    seconds: float = 0.0


def all_definitions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    """Every function and class, at any depth."""
    return [node for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]


def is_line_boundary(text: str, offset: int) -> bool:
    return offset <= 0 or offset >= len(text) or text[offset - 1] == "\n" or text[offset] == "\n"


def measure_file(figures: Figures, path: Path, text: str, chunker, measure, window: int) -> None:
    """Add one file's chunks to ``figures``."""
    started = time.perf_counter()
    chunks = chunker.chunk(text, str(path))
    figures.seconds += time.perf_counter() - started
    line_texts = text.split("\n")
    line_tokens = measure.line_sizes(line_texts)
    tokens_before = [0]
    for size in line_tokens:
        tokens_before.append(tokens_before[-1] + size)
    figures.files += 1
    figures.lines += len(line_texts) - (1 if text.endswith("\n") else 0)
    figures.chunks += len(chunks)
    spans = [(int(c.metadata["start_char"]), int(c.metadata["end_char"])) for c in chunks]
    own = measure.line_sizes([text[start:end] for start, end in spans])
    figures.small += sum(1 for n in own if n < window / 4)
    lines = LineIndex(text)
    for start, end in spans:
        for offset in (start, end):
            if not is_line_boundary(text, offset) and line_tokens[lines.line_of(offset) - 1] <= window:
                figures.mid_line += 1
                break
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    ranges = sorted((int(c.metadata["start_line"]), int(c.metadata["end_line"])) for c in chunks)
    starts = [first for first, _ in ranges]
    for node in all_definitions(tree):
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        last = node.end_lineno or node.lineno
        tokens = tokens_before[last] - tokens_before[first - 1]
        count = sum(1 for a, b in ranges[:bisect.bisect_right(starts, last)] if b >= first)
        bound = math.ceil(tokens / (window / 2)) + 1
        figures.definitions += 1
        figures.over_bound += count > bound
        if tokens > figures.longest[0]:
            figures.longest = (tokens, count, bound, f"{path.name}:{node.lineno} {node.name}")


def report_packages(labels: list[str]) -> None:
    """The per-package table of the module docstring."""
    from ragloom import RAGConfig
    from ragloom.chunking.registry import FileChunker
    from ragloom.chunking.sizing import resolve_chunk_sizing
    from ragloom.embeddings.local import LocalEmbeddingProvider

    config = RAGConfig()
    tokens = LocalEmbeddingProvider().token_measure()
    sizing = resolve_chunk_sizing(config, tokens)
    chunker = FileChunker(config, sizing)
    window = sizing.size
    print(f"default chunking: {sizing.size}/{sizing.overlap} {sizing.unit} ({sizing.measure.name}); "
          f"'small' = own text under {window / 4:.0f} tokens; bound = ceil(N / {window / 2:g}) + 1")
    print(f"{'package':<12}{'files':>6}{'lines':>9}{'chunks':>8}{'/1k lines':>10}{'small':>8}"
          f"{'mid-line':>9}{'defs':>7}{'> bound':>8}  longest definition: chunks/bound (tokens)")
    with tempfile.TemporaryDirectory(prefix="ragloom-chunking-") as scratch:
        for label in labels:
            figures = Figures()
            for path in package_files(label, Path(scratch)):
                try:
                    text = path.read_text(encoding="utf-8")
                except (UnicodeDecodeError, OSError):
                    continue
                measure_file(figures, path, text, chunker, tokens, window)
            tokens_longest, count, bound, where = figures.longest
            print(f"{label:<12}{figures.files:>6}{figures.lines:>9}{figures.chunks:>8}"
                  f"{1000 * figures.chunks / max(1, figures.lines):>10.1f}"
                  f"{100 * figures.small / max(1, figures.chunks):>7.1f}%"
                  f"{100 * figures.mid_line / max(1, figures.chunks):>8.2f}%"
                  f"{figures.definitions:>7}{figures.over_bound:>8}  {count}/{bound} "
                  f"({tokens_longest}: {where})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="*", default=["stdlib", *PACKAGES, "adversarial"],
                        help=f"of: stdlib, {', '.join(PACKAGES)}, adversarial")
    parser.add_argument("--whole-defs", action="store_true",
                        help="instead: whole stdlib definitions per chunker at --chunk-size")
    parser.add_argument("--chunk-size", type=int, default=1000)
    parser.add_argument("--overlap", type=int, default=200)
    parser.add_argument("--window", action="store_true",
                        help="the --whole-defs report, then chunks longer than the model's window")
    args = parser.parse_args()
    if args.whole_defs or args.window:
        report_whole_definitions(args)
    else:
        report_packages(args.packages)

def report_whole_definitions(args: argparse.Namespace) -> None:
    """Share of stdlib functions and methods held whole by one chunk, per chunker."""
    root = Path(sysconfig.get_paths()["stdlib"])
    sources = []
    for path in sorted(root.rglob("*.py")):
        if "site-packages" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (UnicodeDecodeError, SyntaxError, ValueError):
            continue
        lines = LineIndex(text)
        spans = [(lines.offset_of(min([d.lineno, *(x.lineno for x in d.decorator_list)])),
                  lines.offset_of(d.end_lineno) + d.end_col_offset)  # type: ignore[arg-type]
                 for d in definitions(tree)]
        sources.append((path.name, text, spans))
    total_defs = sum(len(spans) for _, _, spans in sources)
    total_mb = sum(len(text) for _, text, _ in sources) / 1e6
    print(f"standard library: {len(sources)} modules, {total_mb:.1f} MB, {total_defs} functions "
          f"and methods; chunk_size {args.chunk_size}, overlap {args.overlap}")
    fits = sum(1 for _, _, spans in sources for s, e in spans if e - s <= args.chunk_size)
    print(f"definitions no longer than chunk_size: {fits} ({100 * fits / total_defs:.1f}%)\n")
    chunkers = {"character": CharacterChunker(args.chunk_size, args.overlap),
                "python_ast": PythonAstChunker(args.chunk_size, args.overlap)}
    print(f"{'chunker':<12}{'whole defs':>12}{'share':>9}{'of fitting':>12}{'chunks':>9}"
          f"{'chunks/s':>11}{'MB/s':>7}")
    for name, chunker in chunkers.items():
        held = chunk_count = 0
        started = time.perf_counter()
        results = [(chunker.chunk(text, path), spans) for path, text, spans in sources]
        seconds = time.perf_counter() - started
        for chunks, spans in results:
            chunk_count += len(chunks)
            held += whole_share(chunks, spans)
        print(f"{name:<12}{held:>12}{100 * held / total_defs:>8.1f}%{100 * held / fits:>11.1f}%"
              f"{chunk_count:>9}{chunk_count / seconds:>11.0f}{total_mb / seconds:>7.2f}")
    if args.window:
        print()
        report_window([(path, text) for path, text, _ in sources])


def report_window(python_sources: list[tuple[str, str]]) -> None:
    """Chunks over the model window and tokens truncated, per chunker and sizing."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from ragloom.chunking.markdown import MarkdownChunker
    from ragloom.embeddings.local import LocalEmbeddingProvider

    tokens = LocalEmbeddingProvider().token_measure()
    assert tokens is not None
    roots = {Path(sysconfig.get_paths()["purelib"]), Path(sysconfig.get_paths()["stdlib"])}
    markdown = []
    for path in sorted({p for root in roots for p in root.rglob("*.md") if p.is_file()}):
        try:
            markdown.append((path.name, path.read_text(encoding="utf-8")))
        except (UnicodeDecodeError, OSError):
            continue
    print(f"model window: {tokens.window} tokens; {len(python_sources)} Python files, "
          f"{len(markdown)} Markdown files")
    print(f"{'chunker':<12}{'sizing':<26}{'chunks':>9}{'over window':>13}{'tokens cut':>12}")
    sizings = {"1000/200 characters": (1000, 200, None),
               f"{tokens.window}/{tokens.window // 5} tokens (default)":
                   (tokens.window, tokens.window // 5, tokens)}
    for label, (size, overlap, measure) in sizings.items():
        extra = {"measure": measure} if measure is not None else {}
        chunkers = {"character": (CharacterChunker(size, overlap, **extra), python_sources + markdown),
                    "python_ast": (PythonAstChunker(size, overlap, **extra), python_sources),
                    "markdown": (MarkdownChunker(size, overlap, **extra), markdown)}
        for name, (chunker, files) in chunkers.items():
            counts = [tokens.count(c.text) for path, text in files for c in chunker.chunk(text, path)]
            over = sum(1 for n in counts if n > tokens.window)
            cut = sum(n - tokens.window for n in counts if n > tokens.window)
            print(f"{name:<12}{label:<26}{len(counts):>9}{100 * over / len(counts):>12.1f}%"
                  f"{100 * cut / sum(counts):>11.1f}%", flush=True)


if __name__ == "__main__":
    main()
