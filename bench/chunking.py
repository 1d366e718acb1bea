"""AST vs character chunking on the Python standard library, and what the embedder sees.

For every function and method (defs not nested in another function) it checks whether
some chunk holds the whole definition, from ``def`` to its last character, and reports
that share per chunker plus chunks/second. Same chunk_size/overlap for both.

With ``--window`` it then chunks the standard library and every installed Markdown file
with each chunker, sized the old way (1000/200 characters) and the default way (the
all-MiniLM-L6-v2 window in its own tokens), and prints the share of chunks longer than the
model's window and the share of tokens it never reads.

    python bench/chunking.py [--chunk-size 1000] [--overlap 200] [--window]
"""

from __future__ import annotations

import argparse
import ast
import bisect
import os
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
    parser.add_argument("--window", action="store_true",
                        help="also report chunks longer than the local model's window")
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
