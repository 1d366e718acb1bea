"""The BM25 index on disk: a folder of segment files and ``segments.json`` listing them.

``save_index`` appends one segment with the changes since the last save (documents added,
tombstones of documents removed), merges the newest segments when enough of one size piled
up, and swaps the list atomically: a crash leaves the previous list readable, and leftover
files are deleted by the next save. ``load_index`` maps the listed files and reads only
document lengths and tombstones.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from ragloom.atomic import atomic_write
from ragloom.errors import StoreError
from ragloom.faults import crash_point
from ragloom.retrieval.bm25 import MAX_SEGMENTS, MERGE_FACTOR, BM25Index
from ragloom.retrieval.bm25_listing import FORMAT_VERSION
from ragloom.retrieval.bm25_segment import Segment
from ragloom.segments import SEGMENT_LIST, merge_start, record_written, remove_unlisted

#: The files a BM25 folder holds (and so the only ones it ever deletes).
OWN_FILE = re.compile(r"^(segments\.json|\d{8}\.seg|\.(segments\.json|\d{8}\.seg)\.\d+\.tmp)$")
_COMPACT_DEAD_SHARE = 0.3


def save_index(bm25: BM25Index, folder: Path) -> None:
    """Append a segment with the changes since the last save (merging the newest
    segments when due), then swap the segment list; nothing old is rewritten."""
    with bm25._lock:
        folder.mkdir(parents=True, exist_ok=True)
        _prepare(bm25)
        written: list[str] = []
        for position, segment in enumerate(bm25._segments):
            if not segment.saved:
                name = f"{segment.number:08d}.seg"
                record_written(folder, name)  # the only files it ever deletes or overwrites
                bm25.bytes_written += segment.write(folder / name)
                bm25._segments[position] = Segment.open(segment.number, folder / name)
                written.append(name)
        if not written and (folder / SEGMENT_LIST).is_file():
            return
        crash_point("bm25-segment-written")
        segments = [f"{s.number:08d}.seg" for s in bm25._segments]
        header = {"version": FORMAT_VERSION, "k1": bm25.k1, "b": bm25.b, "epsilon": bm25.epsilon,
                  "tokenizer": bm25.tokenizer, "next": bm25._next_number,
                  "documents": bm25._count,  # live documents, for ``ragloom status``
                  "segments": segments}
        record_written(folder, SEGMENT_LIST)
        with atomic_write(folder / SEGMENT_LIST) as handle:
            handle.write(json.dumps(header).encode("utf-8"))
        remove_unlisted(folder, OWN_FILE, {*segments, SEGMENT_LIST})


def _prepare(bm25: BM25Index) -> None:
    """Leave at most one unsaved segment, holding every pending tombstone, merged with
    the newest saved segments when the merge policy says so."""
    unsaved = next((i for i, s in enumerate(bm25._segments) if not s.saved), len(bm25._segments))
    total = sum(map(len, bm25._segments))
    live = [int(a.sum()) for a in bm25._alive]
    if total - bm25._count > _COMPACT_DEAD_SHARE * max(total, 1) and bm25._segments:
        bm25._replace_tail(0, bm25._tombstones)
        return
    pending = live[unsaved:]
    tail = merge_start(live[:unsaved] + ([sum(pending)] if pending else []), MERGE_FACTOR, MAX_SEGMENTS)
    if tail is not None and tail < unsaved:
        bm25._replace_tail(tail, bm25._tombstones)
    elif len(pending) > 1 or any(not a.all() for a in bm25._alive[unsaved:]):
        bm25._replace_tail(unsaved, bm25._tombstones)
    elif pending and bm25._tombstones:
        last = bm25._segments[-1]
        arrays = dict(last.arrays)
        arrays["dead_seg"] = np.array([n for n, _ in bm25._tombstones], dtype=np.int64)
        arrays["dead_row"] = np.array([r for _, r in bm25._tombstones], dtype=np.int64)
        bm25._segments[-1] = Segment(last.number, arrays)
        bm25._tombstones = []
    elif bm25._tombstones:  # removals only: an empty segment carries them
        bm25._segments.append(Segment.build(bm25._take_number(), [], [], []))
        bm25._alive.append(np.ones(0, dtype=bool))
        bm25._replace_tail(len(bm25._segments) - 1, bm25._tombstones)


def load_index(folder: Path) -> BM25Index:
    """Open a folder written by ``save_index``: maps the segments, reads no postings."""
    listing = folder / SEGMENT_LIST
    try:
        header = json.loads(listing.read_text(encoding="utf-8"))
        names = [str(name) for name in header["segments"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"{listing} is damaged ({exc}); run 'ragloom index --rebuild'") from exc
    if header.get("version") != FORMAT_VERSION:
        raise StoreError(f"{folder} holds a BM25 index of format {header.get('version')}, not "
                         f"{FORMAT_VERSION} (an older ragloom wrote it)")
    index = BM25Index(header["k1"], header["b"], header["epsilon"], header.get("tokenizer", ""))
    index._next_number = int(header.get("next", 1))
    for name in names:
        segment = Segment.open(int(name.split(".")[0]), folder / name)
        index._segments.append(segment)
        index._alive.append(np.ones(len(segment), dtype=bool))
    position = {segment.number: i for i, segment in enumerate(index._segments)}
    for segment in index._segments:
        for number, row in zip(segment.dead_seg.tolist(), segment.dead_row.tolist()):
            if number in position:
                index._alive[position[number]][row] = False
    index._count = sum(int(a.sum()) for a in index._alive)
    index._total_len = sum(int(s.doc_len[a].sum(dtype=np.int64))
                           for s, a in zip(index._segments, index._alive))
    return index
