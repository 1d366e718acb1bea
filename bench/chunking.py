"""AST vs character chunking on the Python standard library.

For every function and method (defs not nested in another function) it checks whether
some chunk holds the whole definition, from ``def`` to its last character, and reports
that share per chunker plus chunks/second. Same chunk_size/overlap for both.

    python bench/chunking.py [--chunk-size 1000] [--overlap 200]
"""

from __future__ import annotations

import argparse
import ast
import bisect
import sysconfig
import time
from pathlib import Path

from ragloom.chunking.base import LineIndex
from ragloom.chunking.character import CharacterChunker
from ragloom.chunking.python_ast import PythonAstChunker


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunk-size", type=int, default=1000)
    parser.add_argument("--overlap", type=int, default=200)
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
