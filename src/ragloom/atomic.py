"""Writing a file all or nothing: readers and a crash see the old file or the new one."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


@contextmanager
def atomic_write(path: Path) -> Iterator[BinaryIO]:
    """Yield a handle to a temporary file beside ``path`` (``.<name>.<pid>.tmp``); when the
    block ends it is flushed, fsynced and renamed over ``path``, and the folder is fsynced
    so that a power loss cannot lose the rename. A failure removes the temporary file."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    sync_folder(path.parent)


def sync_folder(folder: Path) -> None:
    """fsync a folder, making the names created, renamed or removed in it durable. POSIX
    only: Windows cannot open a folder (there NTFS journals the rename itself)."""
    if os.name == "nt":
        return
    descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
