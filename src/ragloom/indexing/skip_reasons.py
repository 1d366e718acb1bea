"""Why files were skipped, summed up: one short kind per reason (``binary file`` for
``binary file (NUL bytes)``, ``larger than max_file_bytes`` whatever the sizes), counts by
kind, and the last indexing run's skips kept in the index folder so ``ragloom status``
can say what was left out and why without indexing again."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from ragloom.types import SkippedFile

#: The file in the index folder holding the last run's skips, per indexed root.
SKIPPED_FILE = "skipped.json"


def reason_kind(reason: str) -> str:
    """The reason without what varies from file to file: the text before the first
    `` (`` or ``: `` (``symlink to a/b: ignored by .gitignore`` is ``symlink to an
    excluded file``)."""
    if reason.startswith("symlink to ") and ": " in reason:
        return "symlink to an excluded file"
    cuts = [at for at in (reason.find(" ("), reason.find(": ")) if at > 0]
    return reason[:min(cuts)] if cuts else reason


def count_by_reason(skipped: Iterable[SkippedFile]) -> dict[str, int]:
    """Skipped files per reason kind, most frequent first (ties by name)."""
    counts = Counter(reason_kind(s.reason) for s in skipped)
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def save_skipped(index_dir: Path, root: str, skipped: list[SkippedFile]) -> None:
    """Keep ``skipped`` as the skips of ``root`` (relative to base_dir), replacing that
    root's previous list; written to a temporary file and renamed, so a reader never sees
    half of it."""
    path = index_dir / SKIPPED_FILE
    lists = _read(path)
    lists[root] = [[s.path, s.reason] for s in skipped]
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(lists, indent=1), encoding="utf-8")
    os.replace(temporary, path)


def load_skipped(index_dir: Path) -> list[SkippedFile]:
    """The skips of the last run over each indexed root ([] when never written)."""
    return [SkippedFile(path, reason) for rows in _read(index_dir / SKIPPED_FILE).values()
            for path, reason in rows]


def _read(path: Path) -> dict[str, list[list[str]]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(root): [[str(row[0]), str(row[1])] for row in rows
                        if isinstance(row, list) and len(row) == 2]
            for root, rows in data.items() if isinstance(rows, list)}
