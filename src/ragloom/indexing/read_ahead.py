"""Reading ahead: files are read and chunked on a thread pool, in order, a bounded
amount ahead of the consumer (which meanwhile embeds and writes earlier windows)."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

#: At most this many files and (by their size on disk) this many bytes are prepared ahead.
READ_AHEAD_FILES = 4096
READ_AHEAD_BYTES = 64 << 20
#: Files per pool task: one task per file would cost the consumer more to hand out.
FILES_PER_TASK = 8

Item = TypeVar("Item")
Prepared = TypeVar("Prepared")


def read_ahead(items: Sequence[Item], prepare: Callable[[Item], Prepared],
               size_of: Callable[[Item], int]) -> Iterator[Prepared]:
    """``prepare(item)`` for each item, in order, computed on worker threads up to
    READ_AHEAD_FILES items and READ_AHEAD_BYTES (``size_of``) ahead of the consumer. When
    the consumer stops or fails, items not started yet are not prepared (close the iterator,
    ``contextlib.closing``, so that happens at once)."""
    if not items:
        return
    workers = min(8, (os.cpu_count() or 2) * 2)
    groups = [items[start:start + FILES_PER_TASK] for start in range(0, len(items), FILES_PER_TASK)]

    def prepare_group(group: Sequence[Item]) -> list[Prepared]:
        return [prepare(item) for item in group]

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragloom-read")
    pending: deque[tuple[Future[list[Prepared]], int, int]] = deque()  # files, bytes
    queued_files = queued_bytes = 0
    try:
        for group in groups:
            size = sum(size_of(item) for item in group)
            pending.append((pool.submit(prepare_group, group), len(group), size))
            queued_files, queued_bytes = queued_files + len(group), queued_bytes + size
            while pending and (queued_files >= READ_AHEAD_FILES or queued_bytes >= READ_AHEAD_BYTES):
                future, files, size = pending.popleft()
                queued_files, queued_bytes = queued_files - files, queued_bytes - size
                yield from future.result()
        while pending:
            yield from pending.popleft()[0].result()
    finally:
        # Stopped or failed: files not started yet are not read. Never wait for the workers
        # here: an abandoned generator is closed wherever the garbage collector runs, and
        # joining threads there (inside another thread's start) deadlocked a test run.
        pool.shutdown(wait=False, cancel_futures=True)
