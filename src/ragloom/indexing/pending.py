"""What the next indexing run has to do, from the manifest and the files on disk alone:
files new or changed since they were indexed, and indexed files that are gone."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ragloom.indexing.discovery import relative_posix
from ragloom.indexing.manifest import SOURCE_KEY_PREFIX, Manifest


def changed_files(files: Iterable[Path], base_dir: Path, manifest: Manifest) -> int:
    """How many of ``files`` are unknown to the manifest or differ in size or mtime."""
    records = manifest.records()
    changed = 0
    for path in files:
        record = records.get(relative_posix(path, base_dir))
        try:
            stat = path.stat()
        except OSError:
            continue
        if record is None or (record.size, record.mtime_ns) != (stat.st_size, stat.st_mtime_ns):
            changed += 1
    return changed


def vanished_files(root: Path, base_dir: Path, manifest: Manifest) -> list[str]:
    """Indexed files under ``root`` (relative to base_dir) that no longer exist on disk;
    texts added with ``ingest_text`` are not files and never vanish."""
    prefix = relative_posix(root, base_dir)
    gone = []
    for relative in manifest.records():
        if relative.startswith(SOURCE_KEY_PREFIX):
            continue
        inside = prefix == "." or relative == prefix or relative.startswith(prefix + "/")
        absolute = Path(relative) if os.path.isabs(relative) else base_dir / relative
        if inside and not absolute.is_file():
            gone.append(relative)
    return gone


def count_pending(files: Iterable[Path], root: Path, base_dir: Path, manifest: Manifest) -> int:
    """Files the next run under ``root`` would (re)index (of ``files``, the walk's) or remove."""
    return changed_files(files, base_dir, manifest) + len(vanished_files(root, base_dir, manifest))
