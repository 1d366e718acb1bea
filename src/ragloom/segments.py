"""Append-only segment folders, shared by the BM25 index and the TurboQuant store: when
the newest segments merge, and which leftover files a writer may delete."""

from __future__ import annotations

import math
import re
from pathlib import Path


def merge_start(sizes: list[int], factor: int, most: int) -> int | None:
    """Where the newest segments that should merge begin (``sizes`` oldest first): the last
    ``factor`` segments when they share a size class (powers of ``factor``: every row is
    then rewritten about log_factor(rows) times), or the newer half past ``most`` segments."""
    if len(sizes) > most:
        return len(sizes) - most // 2
    if len(sizes) < factor:
        return None
    classes = {int(math.log(max(size, 1), factor)) for size in sizes[-factor:]}
    return len(sizes) - factor if len(classes) == 1 else None


def remove_unlisted(folder: Path, own_file: re.Pattern[str], listed: set[str]) -> None:
    """Delete files this writer made (``own_file``) that ``listed`` no longer names: a
    segment a crash or a merge left behind, a temporary file."""
    for file in folder.iterdir():
        if own_file.match(file.name) and file.name not in listed:
            try:
                file.unlink()
            except OSError:
                pass  # mapped by a reader where that forbids deleting: the next write retries
