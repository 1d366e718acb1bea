"""Indexing installed typed packages with the default settings: chunks, time and index size.

Each package's ``.py`` files are copied to ``--work-dir`` (never indexed in place) and
indexed from scratch by a default ``RAGEngine`` (local all-MiniLM-L6-v2, default store,
token-sized chunks), one package after another. Prints files, lines, chunks, chunks per
1,000 lines, indexing seconds (wall, the whole ``index_directory`` call; and the CPU
seconds of the process, all threads, which a busy machine changes far less than wall
time) and index size (every file under the index folder, embedding cache included).

    python bench/package_indexing.py [--packages rich click pydantic] [--work-dir DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ragloom import RAGConfig, RAGEngine  # noqa: E402


def package_folder(name: str) -> Path:
    """Where an installed package's sources live."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"package {name!r} is not installed in this environment")
    return Path(next(iter(spec.submodule_search_locations)))


def copy_sources(name: str, destination: Path) -> tuple[int, int]:
    """Copy the package's ``.py`` files under ``destination``; (files, lines)."""
    root = package_folder(name)
    if destination.exists():
        shutil.rmtree(destination)
    files = lines = 0
    for path in sorted(root.rglob("*.py")):
        target = destination / name / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = path.read_text(encoding="utf-8", errors="replace")
        target.write_text(text, encoding="utf-8")
        files += 1
        lines += text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return files, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="*", default=["rich", "click", "pydantic"])
    parser.add_argument("--work-dir", default="/tmp/ragloom-package-indexing")
    args = parser.parse_args()
    work = Path(args.work_dir)
    print(f"{'package':<12}{'files':>7}{'lines':>9}{'chunks':>9}{'per 1k lines':>14}"
          f"{'seconds':>10}{'CPU s':>8}{'index MB':>10}", flush=True)
    for name in args.packages:
        folder = work / name
        files, lines = copy_sources(name, folder)
        engine = RAGEngine(RAGConfig(), folder)
        try:
            started, cpu = time.perf_counter(), time.process_time()
            engine.index_directory()
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            chunks = engine.count()
            size = engine.status(count_pending=False).index_bytes
        finally:
            engine.close()
        print(f"{name:<12}{files:>7}{lines:>9}{chunks:>9}{1000 * chunks / lines:>14.1f}"
              f"{seconds:>10.1f}{cpu:>8.1f}{size / 1e6:>10.1f}", flush=True)


if __name__ == "__main__":
    main()
