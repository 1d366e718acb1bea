"""Is the model ever idle while an app's files are read? One fresh default index of a
checkout (``ragloom index`` as a new user runs it: local model, progressive indexing),
with every model call timed where it runs and every progress update recorded.

Prints wall seconds, the model's busy seconds (its ``_embed_batch`` calls), when the first
call started and the last file was read, the seconds with no call running before the
last file was read, and the updates of the progress line's "embedded" count while files
were read (when it moved, at which file). The timeline goes to ``<index>.timeline.json``.

    HF_HUB_OFFLINE=1 nice -n 10 python bench/app_model_busy.py COPY_OF_APP INDEX_DIR
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    from ragloom import RAGConfig, RAGEngine
    from ragloom.indexing.progress import IndexProgress

    root, index = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    if index.exists():
        shutil.rmtree(index)
    started = time.perf_counter()
    calls: list[tuple[float, float, int]] = []  # start, end, texts
    updates: list[tuple[float, int, int]] = []  # when, files done, chunks embedded
    engine = RAGEngine(RAGConfig(index_dir=str(index)), root)
    embed_batch = engine.provider._embed_batch

    def timed(texts, task):  # type: ignore[no-untyped-def]
        began = time.perf_counter() - started
        try:
            return embed_batch(texts, task)
        finally:
            calls.append((began, time.perf_counter() - started, len(texts)))

    def progress(snapshot: IndexProgress) -> None:
        updates.append((time.perf_counter() - started, snapshot.files_done, snapshot.chunks_embedded))

    engine.provider._embed_batch = timed  # type: ignore[method-assign]
    report = engine.index_directory(progress=progress)
    wall = time.perf_counter() - started
    engine.close()
    read_all = min(when for when, files, _ in updates if files == updates[-1][1])
    idle = sum(max(0.0, min(begin, read_all) - end)
               for (_, end, _), (begin, _, _) in zip(calls, calls[1:]) if begin < read_all)
    shown: list[tuple[float, int, int]] = []
    for update in updates:
        if update[0] <= read_all and (not shown or update[2] != shown[-1][2]):
            shown.append(update)
    print(json.dumps({
        "wall": round(wall, 1), "busy": round(sum(end - begin for begin, end, _ in calls), 1),
        "calls": len(calls), "texts": sum(n for *_, n in calls),
        "first_call": round(calls[0][0], 1) if calls else None, "all_read": round(read_all, 1),
        "idle_while_reading": round(idle, 1), "files": report.files_indexed,
        "chunks": report.chunks_added,
        "count_while_reading": [f"{when:.1f}s file {files}: {count}" for when, files, count in shown],
        "calls_while_reading": [f"{b:.1f}-{e:.1f}s: {n}" for b, e, n in calls if b <= read_all]}))
    Path(f"{index}.timeline.json").write_text(json.dumps({"calls": calls, "updates": updates}))


if __name__ == "__main__":
    main()
