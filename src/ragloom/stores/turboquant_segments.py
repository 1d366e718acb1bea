"""The files of a TurboQuant store's folder: the segment list (``segments.json``: the
settings the vectors were made with and the segment names in order, swapped atomically),
how a new segment is named, and which files the store owns (the only ones it deletes:
named like its files and recorded as written, see ``ragloom.segments``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ragloom.atomic import atomic_write
from ragloom.segments import drop_written, record_written, remove_unlisted, written_names

SEGMENT_LIST = "segments.json"
SEGMENT_FORMAT = 4  # 4: arrays with CRC-32s; 3 (no checksums) and 2 (npz) are rebuilt by a writer
#: Past this many segments the next persist compacts them into one.
MAX_SEGMENTS = 64
#: The files this store writes (and so the only ones it ever deletes).
OWN_FILE = re.compile(r"^(segments\.json|\d{8}\.(npz|seg)|\.(segments\.json|\d{8}\.(npz|seg))\.\d+\.tmp)$")


def read_segment_list(folder: Path) -> tuple[dict[str, object], list[str]] | None:
    """The settings and segment names listed in ``folder`` (None: nothing persisted yet).
    Raises OSError, ValueError, KeyError or TypeError for a damaged list."""
    listing = folder / SEGMENT_LIST
    if not listing.is_file():
        return None
    saved = json.loads(listing.read_bytes().decode("utf-8"))
    settings, segments = saved["settings"], [str(name) for name in saved["segments"]]
    if not isinstance(settings, dict):
        raise TypeError("settings is not a table")
    return settings, segments


def write_segment_list(folder: Path, settings: dict[str, object], segments: list[str]) -> None:
    """Swap in the new list atomically, then delete the segments it no longer names."""
    record_written(folder, SEGMENT_LIST)
    with atomic_write(folder / SEGMENT_LIST) as handle:
        handle.write(json.dumps({"settings": settings, "segments": segments}).encode("utf-8"))
    remove_unlisted(folder, OWN_FILE, {*segments, SEGMENT_LIST})


def next_segment_name(segments: list[str], folder: Path | None = None) -> str:
    """The file name after the highest numbered segment (numbers never repeat), past any
    file of ``folder`` ragloom did not write (it is never overwritten)."""
    number = 1 + max((int(name.split(".")[0]) for name in segments), default=0)
    recorded = written_names(folder) if folder is not None else set()
    while folder is not None and f"{number:08d}.seg" not in recorded \
            and (folder / f"{number:08d}.seg").exists():
        number += 1
    return f"{number:08d}.seg"


def drop_own_files(folder: Path) -> None:
    """Delete the segment files and list the store wrote (recorded in the folder's ledger,
    ``ragloom.segments``); nothing else in the folder, whatever its name."""
    drop_written(folder, OWN_FILE)


def describe_settings(settings: dict[str, object]) -> str:
    """Settings as a person reads them: model (dimension), then the quantizer's."""
    return (f"{settings.get('embedding_model')} ({settings.get('dimension')}-d), quantizer "
            f"{settings.get('quantizer')}")
