"""How close is the progress line's total ("chunks to embed") to the chunks a run really
embeds, from its first files on? One fresh index per checkout with the default local model's
chunking (its tokenizer sizes the chunks) and the memory store; the model itself is not run
(every vector is the same unit vector: the estimate depends on what is read and chunked,
not on the vectors), so a checkout takes seconds.

Prints, per checkout, the estimate shown after file 1, 2, 5, 10, 25, 50, 100 and after 5%
and 25% of the files, as a ratio to the final count (1.00 is exact), and the worst ratio
over the first 100 files (max of ratio and its inverse).

    nice -n 10 python bench/progress_estimate.py /work/appsets/kitsune /work/appsets/wger ...
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

AT_FILES = (1, 2, 5, 10, 25, 50, 100)


def record(root: Path) -> tuple[list[int], int]:
    """Index ``root`` once; the estimates shown after each file read, and the final count."""
    from ragloom import RAGConfig, RAGEngine
    from ragloom.indexing.progress import IndexProgress

    shown: list[int] = []
    last: list[IndexProgress] = []

    def progress(snapshot: IndexProgress) -> None:
        if len(shown) < snapshot.files_done:
            shown.append(snapshot.chunks_to_embed)
        last[:] = [snapshot]

    with tempfile.TemporaryDirectory() as index:
        config = RAGConfig.model_validate({"index_dir": index, "vector_store": {"provider": "memory"}})
        engine = RAGEngine(config, root)
        unit = np.zeros(engine.provider.dimension, dtype=np.float32)
        unit[0] = 1.0
        engine.provider._embed_batch = lambda texts, task: np.tile(unit, (len(texts), 1))  # type: ignore[method-assign]
        try:
            engine.index_directory(progress=progress)
        finally:
            engine.close()
    return shown, last[-1].chunks_to_embed


def main() -> None:
    header = ["checkout", "files", "chunks"] + [f"@{n}" for n in AT_FILES] + ["@5%", "@25%", "worst<=100"]
    print(" | ".join(header))
    for name in sys.argv[1:]:
        root = Path(name).resolve()
        shown, final = record(root)
        points = [shown[n - 1] if n <= len(shown) else None for n in AT_FILES]
        points += [shown[max(1, len(shown) * share // 100) - 1] for share in (5, 25)]
        worst = max(max(value / final, final / value) for value in shown[:100] if value)
        cells = [f"{value / final:.2f}" if value else "-" for value in points]
        print(" | ".join([root.name, str(len(shown)), str(final), *cells, f"{worst:.2f}"]), flush=True)


if __name__ == "__main__":
    main()
