"""Where the bytes written while indexing go: each part's writes (embedding cache, BM25,
store, manifest) as ``/proc/self/io`` deltas around its write calls, against its final size.

Indexes the corpus of ``bench/scale_open.py`` (``--files`` markdown files, hash embedder,
TurboQuant store) in this process, with the parts' write methods wrapped (Linux only):

    nice python bench/index_writes.py [--files 10000] [--work /tmp/ragloom-scale]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale_open import index_bytes, io_counters, make_corpus  # noqa: E402


def wrap(owner: type, method: str, label: str, totals: dict[str, list[int]], depth: list[int]) -> None:
    """Count the bytes ``owner.method`` writes (outermost call only) under ``label``."""
    original: Callable[..., Any] = getattr(owner, method)

    def counted(*args: Any, **kwargs: Any) -> Any:
        if depth[0]:
            return original(*args, **kwargs)
        depth[0] += 1
        before = io_counters()["write_bytes"]
        try:
            return original(*args, **kwargs)
        finally:
            depth[0] -= 1
            totals[label][0] += io_counters()["write_bytes"] - before
            totals[label][1] += 1

    setattr(owner, method, counted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/ragloom-scale"))
    args = parser.parse_args()
    from ragloom import RAGEngine
    from ragloom.embeddings.cache import EmbeddingCache
    from ragloom.indexing.manifest import Manifest
    from ragloom.retrieval.sparse import SparseIndex
    from ragloom.stores.turboquant import TurboQuantStore

    root = args.work / f"corpus-{args.files}"
    make_corpus(root, args.files)
    shutil.rmtree(root / ".ragloom", ignore_errors=True)
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    depth = [0]
    for owner, method, label in ((EmbeddingCache, "put_many", "embedding cache"),
                                 (SparseIndex, "persist", "bm25"),
                                 (TurboQuantStore, "persist", "store"),
                                 (Manifest, "write", "manifest"), (Manifest, "begin", "manifest"),
                                 (Manifest, "set_setting", "manifest")):
        wrap(owner, method, label, totals, depth)
    before, started = io_counters()["write_bytes"], time.perf_counter()
    with RAGEngine.from_toml(root / "ragloom.toml") as engine:
        engine.index_directory()
        chunks = engine.count()
    written = io_counters()["write_bytes"] - before
    sizes = index_bytes(root)
    total = sum(sizes.values())
    print(f"{chunks} chunks in {time.perf_counter() - started:.0f} s: wrote {written / 1e6:.0f} MB "
          f"for a {total / 1e6:.0f} MB index ({written / total:.2f}x)")
    for label, (part_written, calls) in sorted(totals.items(), key=lambda item: -item[1][0]):
        print(f"  {label}: {part_written / 1e6:.0f} MB written in {calls} calls")
    print(f"  anything else: {(written - sum(t[0] for t in totals.values())) / 1e6:.0f} MB")
    for name, size in sorted(sizes.items(), key=lambda item: -item[1]):
        if size >= 1e6:
            print(f"  size of {name}: {size / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
