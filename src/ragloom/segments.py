"""Append-only segment folders, shared by the BM25 index and the TurboQuant store: when
the newest segments merge, and which files a writer may delete.

A writer records each file's name in the folder's ledger (``.ragloom-written``) before it
creates the file, and deletes or overwrites only recorded files (and its own temporary
files of them): a file ragloom did not write is never touched, whatever its name, even a
user's ``00000007.seg`` beside the segments. A folder written before the ledger existed
starts its ledger from the names its segment list holds.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from ragloom.atomic import atomic_write
from ragloom.errors import StoreError

LEDGER = ".ragloom-written"
SEGMENT_LIST = "segments.json"
_TEMPORARY = re.compile(r"^\.(.+)\.\d+\.tmp$")  #: ``atomic.atomic_write``'s temporary files


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


def written_names(folder: Path) -> set[str]:
    """The names this folder's writers recorded (a folder without a ledger: its segment
    list and the names it lists, which only ragloom writes)."""
    ledger = folder / LEDGER
    if ledger.is_file():
        return {line for line in ledger.read_text(encoding="utf-8").splitlines() if line}
    names: set[str] = set()
    listing = folder / SEGMENT_LIST
    if listing.is_file():
        try:
            names = {SEGMENT_LIST, *map(str, json.loads(listing.read_bytes())["segments"])}
        except (ValueError, KeyError, TypeError):
            names = {SEGMENT_LIST}
    return names


def record_written(folder: Path, name: str) -> None:
    """Record ``name`` as written by ragloom before the file is created; a file of that
    name that ragloom never recorded is refused, not overwritten."""
    recorded = written_names(folder)
    if name in recorded:
        if not (folder / LEDGER).is_file():
            _rewrite(folder, recorded)
        return
    if (folder / name).exists():
        raise StoreError(f"{folder / name} is in the way: ragloom did not write it and will not "
                         f"overwrite it; move it out of {folder}")
    _rewrite(folder, recorded | {name})


def _rewrite(folder: Path, names: set[str]) -> None:
    with atomic_write(folder / LEDGER) as handle:
        handle.write("".join(f"{name}\n" for name in sorted(names)).encode("utf-8"))


def _ours(name: str, recorded: set[str]) -> bool:
    temporary = _TEMPORARY.match(name)
    return name in recorded or (temporary is not None and temporary[1] in recorded)


def remove_unlisted(folder: Path, own_file: re.Pattern[str], listed: set[str]) -> None:
    """Delete files this writer made (recorded, and named like ``own_file``) that ``listed``
    no longer names: a segment a crash or a merge left behind, a temporary file."""
    recorded = written_names(folder)
    for file in folder.iterdir():
        if own_file.match(file.name) and file.name not in listed and _ours(file.name, recorded):
            try:
                file.unlink()
            except OSError:
                pass  # mapped by a reader where that forbids deleting: the next write retries
    kept = {name for name in recorded if (folder / name).exists()}
    if kept != recorded:
        _rewrite(folder, kept)


def drop_written(folder: Path, own_file: re.Pattern[str]) -> None:
    """Delete every file the writers of ``folder`` recorded; nothing else in the folder."""
    recorded = written_names(folder)
    for file in folder.iterdir():
        if own_file.match(file.name) and _ours(file.name, recorded) and file.is_file():
            file.unlink()
    left = {name for name in recorded if (folder / name).exists()}
    if left:
        _rewrite(folder, left)
    else:
        (folder / LEDGER).unlink(missing_ok=True)

