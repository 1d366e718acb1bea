"""What a [rag.limits] check costs an indexing run: index a copy of ragloom's own sources
with the hash embedder (so reading and chunking are all the run does, the worst case for
the check) without limits and with one, rounds interleaved, medians printed. The check
reads and chunks the changed files before the run and the run takes what it read, so the
two should be within noise.

    python bench/quota_check.py [ROUNDS]
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ragloom import RAGConfig, RAGEngine

SOURCES = Path(__file__).resolve().parent.parent / "src" / "ragloom"


def index_once(root: Path, limits: dict[str, int]) -> tuple[float, int, int]:
    """Seconds, files and chunks of a first index of ``root`` (the index removed first)."""
    shutil.rmtree(root / ".ragloom", ignore_errors=True)
    config = RAGConfig(embedding={"provider": "hash", "cache": False}, limits=limits,
                       vector_store={"provider": "turboquant"})
    with RAGEngine(config, root) as engine:
        started = time.perf_counter()
        report = engine.index_directory()
        return time.perf_counter() - started, report.files_indexed, report.chunks_added


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "corpus"
        shutil.copytree(SOURCES, root / "src", ignore=shutil.ignore_patterns("__pycache__"))
        cases = {"no limits": {}, "max_chunks set": {"max_chunks": 100_000_000}}
        seconds: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(rounds):
            for name, limits in cases.items():
                elapsed, files, chunks = index_once(root, limits)
                seconds[name].append(elapsed)
        print(f"{files} files, {chunks} chunks, hash embedder, {rounds} rounds")
        for name, values in seconds.items():
            print(f"{name:<16} median {statistics.median(values):6.2f} s   runs "
                  + " ".join(f"{value:.2f}" for value in values))


if __name__ == "__main__":
    main()
