"""What the next indexing run has to do, from the manifest and the files on disk alone:
files new or changed since they were indexed, and indexed files that are gone; and, apart
from them, the files it will pass over, counted by reason.

A file the last run could not index (a binary, one over ``max_file_bytes``, a reader's
failure) has no file record; the run remembers it under the manifest setting ``skipped``
(path -> size, mtime, reason) so that, unchanged, it is counted as skipped, not pending."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ragloom.indexing.discovery import Discovery
from ragloom.indexing.manifest import SOURCE_KEY_PREFIX
from ragloom.indexing.path_names import PathNames

#: The manifest setting holding the files the last runs skipped.
SKIPPED_SETTING = "skipped"


class Records(Protocol):
    """What of a manifest (SQLite or Postgres) this module reads and writes."""

    def versions(self) -> dict[str, tuple[int, int]]: ...
    def get_setting(self, key: str) -> str | None: ...
    def set_setting(self, key: str, value: str) -> None: ...


@dataclass
class PendingWork:
    """Files the next run would (re)index or remove, and those it will skip, by reason."""

    files: int = 0
    skipped: Counter[str] = field(default_factory=Counter)

    def add(self, other: PendingWork) -> PendingWork:
        return PendingWork(self.files + other.files, self.skipped + other.skipped)


def reason_kind(reason: str) -> str:
    """A skip reason without its particulars (sizes, kinds, paths), to count files by:
    "larger than max_file_bytes (3 > 2 bytes)" -> "larger than max_file_bytes"."""
    if reason.startswith("symlink to ") and ":" in reason:
        return "symlink to an excluded file"
    return re.split(r" \(|: ", reason, maxsplit=1)[0]


def skipped_before(manifest: Records) -> dict[str, list]:
    """Files the last runs skipped: relative path -> [size, mtime_ns, reason]."""
    try:
        saved = json.loads(manifest.get_setting(SKIPPED_SETTING) or "{}")
    except ValueError:
        return {}
    return saved if isinstance(saved, dict) else {}


def remember_skipped(manifest: Records, names: PathNames, tried: Iterable[str],
                     skipped: dict[str, tuple[int, int, str]]) -> None:
    """Record this run's skips: the files it ``tried`` lose their old entry, ``skipped``
    ones (path -> size, mtime_ns, reason) get a new one, entries of vanished files go."""
    saved = skipped_before(manifest)
    tried = set(tried)
    if not tried and not skipped:
        return
    kept = {path: entry for path, entry in saved.items()
            if path not in tried and names.path(path).is_file()}
    kept.update({path: list(entry) for path, entry in skipped.items()})
    if kept != saved:
        manifest.set_setting(SKIPPED_SETTING, json.dumps(kept, sort_keys=True))


def pending_work(found: Discovery, root: Path, names: PathNames, manifest: Records) -> PendingWork:
    """What the next run under ``root`` has to do, given ``found`` (the walk of ``root``)."""
    versions = manifest.versions()
    before = skipped_before(manifest)
    work = PendingWork(skipped=Counter(reason_kind(skip.reason) for skip in found.skipped))
    for path in found.files:
        relative = names.name(path)
        try:
            stat = path.stat()
        except OSError:
            continue
        version = [stat.st_size, stat.st_mtime_ns]
        record = versions.get(relative)
        if record is not None and list(record) == version:
            continue
        entry = before.get(relative)
        if record is None and isinstance(entry, list) and entry[:2] == version:
            work.skipped[reason_kind(str(entry[2]))] += 1
            continue
        work.files += 1
    work.files += len(vanished_files(root, names, versions))
    return work


def vanished_files(root: Path, names: PathNames, records: Iterable[str]) -> list[str]:
    """Indexed files under ``root`` (by the names they are indexed under) that no longer exist on disk;
    texts added with ``ingest_text`` are not files and never vanish."""
    prefix = names.name(root)
    gone = []
    for relative in records:
        if relative.startswith(SOURCE_KEY_PREFIX):
            continue
        inside = prefix == "." or relative == prefix or relative.startswith(prefix + "/")
        if inside and not names.path(relative).is_file():
            gone.append(relative)
    return gone

