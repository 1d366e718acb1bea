"""Which files of an application's checkout ragloom's chunker does not finish on
(bench/app_search.py excludes them, and says so, rather than never finishing the index).

Only files with a line longer than ``LONG_LINE`` characters are probed (minified bundles,
one-line data; issue 36 found the chunkers superlinear in line length), and only those the
engine would index (not excluded, not over ``max_file_bytes``). Each is chunked with the
engine's own chunker in a forked child; one still running after ``limit`` seconds is
reported. Results are kept in ``<work>/probe.json`` so a file is probed once.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from pathlib import Path

from ragloom.chunking.registry import language_for_path

LONG_LINE = 10_000


def _chunk(chunker, text: str, path: str) -> None:  # type: ignore[no-untyped-def]
    chunker.chunk(text, path, language_for_path(path), [])


def _long_line_files(engine, root: Path) -> list[str]:  # type: ignore[no-untyped-def]
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != ".git" and not engine.excluded_reason(Path(folder) / d))
        for name in sorted(files):
            path = Path(folder) / name
            if path.is_symlink() or path.stat().st_size > engine.config.max_file_bytes:
                continue
            data = path.read_bytes()
            if b"\0" in data[:8000] or max(map(len, data.split(b"\n"))) <= LONG_LINE:
                continue
            if engine.excluded_reason(path) is None:
                found.append(path.relative_to(root).as_posix())
    return found


def hanging_files(engine, root: Path, work: Path, limit: float = 30.0) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """{relative path: why} for the files the engine's chunker does not finish in ``limit`` s."""
    cache_file = work / "probe.json"
    cache = json.loads(cache_file.read_text()) if cache_file.is_file() else {}
    context = multiprocessing.get_context("fork")
    chunker = engine._indexer.chunker  # the engine's own FileChunker (a bench may peek)
    for path in _long_line_files(engine, root):
        if path in cache:
            continue
        text = (root / path).read_text(encoding="utf-8", errors="replace")
        started = time.perf_counter()
        child = context.Process(target=_chunk, args=(chunker, text, path), daemon=True)
        child.start()
        child.join(limit)
        if child.is_alive():
            child.kill()
            child.join()
            cache[path] = f"chunking did not finish in {limit:.0f} s ({len(text):,} characters)"
        else:
            cache[path] = f"ok ({time.perf_counter() - started:.1f} s)"
        print(f"  probe {path}: {cache[path]}", flush=True)
        cache_file.write_text(json.dumps(cache, indent=1))
    return {path: why for path, why in cache.items() if not why.startswith("ok")}
