"""Texts per local-model call: CPU seconds to embed the same texts in calls of N texts.

A stop (Ctrl-C) is honoured between the provider's calls, so smaller calls stop sooner;
sentence-transformers sorts each call's texts by length, so smaller calls pad more. Every
size embeds the same standard-library pieces once per round, sizes interleaved (load drift
hits all alike); the medians of CPU and wall seconds are printed.

    python bench/embed_call_size.py [--texts 1536] [--runs 3] [--sizes 1024 256 128]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import stdlib_pieces  # noqa: E402

from ragloom.embeddings.local import LocalEmbeddingProvider  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=1536)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1024, 256, 128])
    args = parser.parse_args()
    texts = stdlib_pieces(args.texts)
    provider = LocalEmbeddingProvider()
    provider.embed(texts[:64], "document")  # model loaded before the clock
    seconds: dict[int, list[tuple[float, float]]] = {size: [] for size in args.sizes}
    for _ in range(args.runs):
        for size in args.sizes:
            provider.max_texts_per_call = size  # type: ignore[misc]
            cpu, wall = time.process_time(), time.perf_counter()
            provider.embed(texts, "document")
            seconds[size].append((time.process_time() - cpu, time.perf_counter() - wall))
    print(f"{len(texts)} texts, {args.runs} runs, default {LocalEmbeddingProvider.max_texts_per_call}")
    print(f"{'texts per call':>14} {'cpu s':>8} {'wall s':>8}")
    for size, runs in seconds.items():
        print(f"{size:>14} {statistics.median(c for c, _ in runs):>8.1f} "
              f"{statistics.median(w for _, w in runs):>8.1f}")


if __name__ == "__main__":
    main()
