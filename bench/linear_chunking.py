"""Chunking time of adversarial inputs for every registered language, at full size and at
an eighth of it: one line of N MB (a compiled bundle), N MB of short lines (a 100k-line
file) and N MB of nesting (brackets, elements, template blocks). Linear chunking shows
a ratio near 8; quadratic, near 64. The inputs are those of the property test
(tests/chunking/test_linear_work.py), which counts work instead of timing it.

    python bench/linear_chunking.py [--megabytes 5] [--languages vue blade ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "chunking"))

from test_linear_work import SNIPPETS, shapes  # noqa: E402

from ragloom.chunking.registry import FileChunker  # noqa: E402
from ragloom.config import RAGConfig  # noqa: E402


def seconds(chunker: FileChunker, path: str, text: str) -> tuple[float, int]:
    start = time.perf_counter()
    chunks = chunker.chunk(text, path)
    return time.perf_counter() - start, len(chunks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=5.0)
    parser.add_argument("--languages", nargs="*", default=sorted(SNIPPETS))
    args = parser.parse_args()
    chunker = FileChunker(RAGConfig(embedding={"provider": "hash"}))
    print(f"{'language':<16}{'shape':<12}{'MB':>6}{'chunks':>9}{'s':>8}{'s at 1/8':>10}{'ratio':>7}")
    for language in args.languages:
        suffix, snippet = SNIPPETS[language]
        path = f"src/sample{suffix}"
        for shape, make in shapes(language, snippet).items():
            unit = len(make(1))
            full = make(max(1, int(args.megabytes * 1e6 / unit)))
            eighth = make(max(1, int(args.megabytes * 1e6 / unit / 8)))
            small, _ = seconds(chunker, path, eighth)
            large, count = seconds(chunker, path, full)
            print(f"{language:<16}{shape:<12}{len(full) / 1e6:>6.1f}{count:>9}{large:>8.2f}"
                  f"{small:>10.2f}{large / max(small, 1e-3):>7.1f}", flush=True)


if __name__ == "__main__":
    main()
