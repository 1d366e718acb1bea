"""How an index is made up, for the inspector's index view: files and chunks by language
and by source type, and a histogram of chunk sizes. Reading every chunk's metadata takes
seconds on a large index (4.5 s at 140k chunks), so the answer is kept until the index
changes (its chunk count or last indexing time), and may be worked out ahead of the first
request (``warm``)."""

from __future__ import annotations

import math
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragloom.engine import RAGEngine

#: Bins of the chunk-size histogram.
HISTOGRAM_BINS = 20


class MakeUp:
    """The make-up of one engine's index, worked out once per index version."""

    def __init__(self, engine: RAGEngine) -> None:
        self.engine = engine
        self._lock = threading.Lock()  # a second request waits for the first's answer
        self._kept: tuple[tuple[int, float | None], dict[str, Any]] | None = None

    def of(self, chunks: int, last_indexed: float | None) -> dict[str, Any]:
        """``languages``, ``source_types`` and ``sizes`` of the index as it is now."""
        version = (chunks, last_indexed)
        with self._lock:
            if self._kept is None or self._kept[0] != version:
                self._kept = (version, self._count())
            return self._kept[1]

    def _count(self) -> dict[str, Any]:
        if not self.engine.config.enabled:
            return {"languages": {}, "source_types": {}, "sizes": histogram([])}
        paths = self.engine.get_all_indexed_paths()
        chunks = self.engine.sparse.chunks_with("path", paths) if paths else []
        languages: dict[str, Counter[str]] = {"files": Counter(), "chunks": Counter()}
        kinds: dict[str, Counter[str]] = {"files": Counter(), "chunks": Counter()}
        seen: set[str] = set()
        sizes: list[int] = []
        for _, meta in chunks:
            language, kind = str(meta.get("language", "unknown")), str(meta.get("source_type", "unknown"))
            languages["chunks"][language] += 1
            kinds["chunks"][kind] += 1
            path = str(meta.get("path"))
            if path not in seen:
                seen.add(path)
                languages["files"][language] += 1
                kinds["files"][kind] += 1
            start, end = meta.get("start_char"), meta.get("end_char")
            if isinstance(start, int) and isinstance(end, int):
                sizes.append(end - start)
        return {"languages": _table(languages), "source_types": _table(kinds), "sizes": histogram(sizes)}


def _table(counts: dict[str, Counter[str]]) -> dict[str, dict[str, int]]:
    """``{name: {"files": n, "chunks": m}}``, most chunks first."""
    return {name: {"files": counts["files"][name], "chunks": chunks}
            for name, chunks in counts["chunks"].most_common()}


def histogram(sizes: list[int]) -> dict[str, Any]:
    """HISTOGRAM_BINS equal bins from 0 to the largest size: their upper edges and counts."""
    if not sizes:
        return {"edges": [], "counts": [], "total": 0}
    width = max(1, math.ceil(max(sizes) / HISTOGRAM_BINS))
    counts = [0] * HISTOGRAM_BINS
    for size in sizes:
        counts[min(HISTOGRAM_BINS - 1, max(0, size - 1) // width)] += 1
    return {"edges": [width * (i + 1) for i in range(HISTOGRAM_BINS)], "counts": counts,
            "total": len(sizes)}
